"""Words in a link's blue are a link.

The reader reads a link by its look in a small view, and on real pages it called many of them text: an
article's outline (``Acknowledgement``, ``References``), a search result's title, a rating's ``5 star``.
What a person goes by is the ink: a short run of words drawn in a clear blue on a ground that is not
blue. Ink and ground are told apart as the colour stage tells them (the ground is the median of the box's
border, the ink the pixels far from it); words drawn white on a blue button, or a box whose blue is most of
its area (a taskbar's window button boxed with its margins), are no link; nor is a blue word beside other
words on its line that are not blue (a code block's keyword).

The ink's blue is read from the sum of the box's differences from its ground (:func:`ink_of`), not from its
median ink pixel: anti-aliasing mixes thin strokes with the ground, and JPEG halves and coarsens the chroma,
so on a JPEG screenshot the median pixel of Baidu's blue links (``#2440b3``) reads a grey-blue of
saturation 0.25-0.34, as grey as a slate caption; summed over the box, what blurring moves between pixels
stays, and a link's blue stays apart from a slate grey's (``#64748b``) in PNG and JPEG alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from detact_service.core import Element, ElementType
from detact_service.geometry import boxes_of
from detact_service.stages import RGBImage
from detact_service.understanding.colors import core_of, ink_differences, rgb_to_hsv
from detact_service.understanding.layout_types import retyped

LINK_HUE = (195.0, 255.0)
"""Hues (degrees) of a link's blue: from azure to ultramarine (JPEG moves Google's ``#1a0dab`` from 245 to
250-256), not a teal or a violet heading."""
LINK_TINT = 0.49
"""A link's ink leans to its hue at least this much where its chroma is intact (:func:`ink_of`; a blue-grey
caption does not): rendered as PNG, links' blues measure 0.5 (Google's dark theme's ``#8ab4f8`` on
``#202124``) to 0.93, slate and muted blue-greys 0.05-0.47 (``#7a8fb5`` on Google's grey ``#f1f3f4``) ..."""
JPEG_LINK_TINT = 0.33
"""... and this much where JPEG took some of it (:data:`CHROMA_KEPT`): links 0.33-0.71, greys up to 0.31
(quality 75 and 90)."""
CHROMA_KEPT = 0.95
"""The ink's core holds at least this share of the tint of all its box's ink where the chroma is intact:
JPEG moves chroma off thin strokes into the pixels round them (0.59-0.89 of it kept), a PNG keeps it
(0.99-1.00)."""
JPEG_KEPT = 0.55
"""Where JPEG took some chroma, a link's ink keeps at least this share of it in its core ...
(:attr:`Ink.chroma_kept`) ..."""
JPEG_INK_SATURATION = 0.15
"""... or its median core pixel is at least this saturated: a slate or muted blue caption on a light grey
or bluish ground reaches a link's tint once JPEG'd, with its core grey (kept 0.36-0.54, saturation
0.05-0.18 where it passed the tint), and a box whose tint comes from an icon beside grey words keeps
none of it in their core (0.01-0.28)."""
HUED_INK = 0.2
"""The median ink pixel is at least this saturated for its own hue to count (a grey's hue is noise)."""
TINT_FLOOR = 12
"""Pixels at least this far from the ground (summed over the channels) count towards the ink's tint (the
ground's JPEG noise does not)."""
MIXED_INK = 0.25
"""Ink whose summed difference from its ground is this share of its largest channel's both above and below
the ground (a picture, lighter in one channel and darker in another) has no tint."""
LINK_VALUE = 0.4
"""... and this bright (black words on a selection's blue blend to a dark navy of 0.33) ..."""
GROUND_SATURATION = 0.12
"""... on a ground no bluer than this (a ground of the link's hue, at least this saturated and
:data:`GROUND_VALUE` bright, is a button's or a selection's fill: a word processor's selection is 0.2) ..."""
GROUND_VALUE = 0.3
"""... where a darker ground is a dark theme's, blue-black or not."""
INK_SHARE = 0.45
"""The ink covers at most this share of the box: words are thin strokes on their ground."""
LINK_WORDS = 12
"""A link is at most this many words (a blue paragraph is not one)."""
LINE_SHIFT = 0.3
"""Texts whose centres lie within this share of the smaller height are on one line ..."""
WORD_GAP = 1.0
"""... and side by side when at most this many heights apart."""


class Ink(NamedTuple):
    """A box's ink against its ground."""

    colour: np.ndarray
    """The median colour of the ink's core (:func:`.colors.ink_core`)."""
    ground: np.ndarray
    """The ground's colour (the median of the box's border)."""
    share: float
    """The share of the box's pixels in the ink's core."""
    summed: np.ndarray
    """The sum of the box's differences from the ground (pixels :data:`TINT_FLOOR` or more from it)."""
    tint: float
    """How far that sum leans to its hue: its spread over the channels over its largest channel's (the
    saturation of the ink drawn fully opaque; 0 for a grey, and for ink both lighter and darker than the
    ground in different channels)."""
    chroma_kept: float
    """The tint of the ink's core alone over :attr:`tint`: 1 where the chroma is intact, less where JPEG
    spread it off the strokes."""

    @property
    def hue(self) -> float:
        """The hue (degrees) of :attr:`summed`."""
        return float(rgb_to_hsv((self.summed - self.summed.min())[None, :])[0][0])


def tint_of(summed: np.ndarray) -> float:
    """The tint of a summed difference from a ground (see :attr:`Ink.tint`)."""
    low, high = float(summed.min()), float(summed.max())
    peak = max(high, -low, 1e-9)
    if high > MIXED_INK * peak and low < -MIXED_INK * peak:
        return 0.0
    return (high - low) / peak


def ink_of(crop: RGBImage) -> Ink | None:
    """The ink of a box's crop and its ground; None for a box with no ink clear of its ground (as
    :func:`.colors.ink_core`)."""
    found = ink_differences(crop)
    if found is None:
        return None
    ground, difference, distance = found
    core = core_of(distance)
    if core is None:
        return None
    summed = difference[distance >= TINT_FLOOR].sum(axis=0)
    tint = tint_of(summed)
    kept = tint_of(difference[core].sum(axis=0)) / tint if tint > 0 else 1.0
    colour = np.median(crop.reshape(-1, 3)[core], axis=0)
    return Ink(colour, ground, float(core.mean()), summed, tint, kept)


def is_link_blue(ink: Ink) -> bool:
    """Whether ``ink`` is a link's blue (hue, tint and brightness) on a ground that is not a blue fill."""
    hue, saturation, value = rgb_to_hsv(np.stack([ink.colour, ink.ground, ink.summed - ink.summed.min()]))
    ground_blue = LINK_HUE[0] <= hue[1] <= LINK_HUE[1]
    filled = ground_blue and saturation[1] >= GROUND_SATURATION and value[1] >= GROUND_VALUE
    least = LINK_TINT if ink.chroma_kept >= CHROMA_KEPT else JPEG_LINK_TINT
    # JPEG turns the summed hue of an azure link (ScienceDirect's) a few degrees towards cyan: the median
    # ink's hue speaks too where that ink has a colour
    hues = (hue[2], hue[0]) if saturation[0] >= HUED_INK else (hue[2],)
    blue = any(LINK_HUE[0] <= h <= LINK_HUE[1] for h in hues) and ink.tint >= least
    if ink.chroma_kept < CHROMA_KEPT:
        blue = blue and (ink.chroma_kept >= JPEG_KEPT or saturation[0] >= JPEG_INK_SATURATION)
    return bool(blue and value[0] >= LINK_VALUE and not filled)


def blue_words(image: RGBImage, elements: Sequence[Element]) -> np.ndarray:
    """Which of ``elements`` are drawn in a link's blue (:func:`is_link_blue`, ink at most
    :data:`INK_SHARE` of the box); one crop each."""
    flags = np.zeros(len(elements), dtype=bool)
    for index, element in enumerate(elements):
        x0, y0, x1, y1 = element.bbox
        ink = ink_of(image[max(y0, 0) : y1, max(x0, 0) : x1])
        flags[index] = ink is not None and ink.share <= INK_SHARE and is_link_blue(ink)
    return flags


def beside(boxes: np.ndarray) -> np.ndarray:
    """``[i, j]``: box ``j`` lies on box ``i``'s line (centres within :data:`LINE_SHIFT` of the smaller
    height), at most :data:`WORD_GAP` of that height to its left or right."""
    height = np.maximum(boxes[:, 3] - boxes[:, 1], 1.0)
    low = np.minimum(height[:, None], height[None, :])
    centre = (boxes[:, 1] + boxes[:, 3]) / 2
    gap = np.maximum(boxes[None, :, 0] - boxes[:, None, 2], boxes[:, None, 0] - boxes[None, :, 2])
    near = (np.abs(centre[:, None] - centre[None, :]) <= LINE_SHIFT * low) & (gap <= WORD_GAP * low)
    np.fill_diagonal(near, False)
    return near


def ink_links(image: RGBImage, elements: Sequence[Element]) -> list[Element]:
    """``elements`` with each text of at most :data:`LINK_WORDS` words drawn in a link's blue typed a link,
    unless a text beside it on its line is not blue: a syntax highlighter's keyword (``const`` before
    ``x = 1``), or a link read apart from its sentence, which the sentence's line then speaks for."""
    texts = [i for i, e in enumerate(elements) if e.type is ElementType.TEXT and e.text]
    if not texts:
        return list(elements)
    words = [elements[i] for i in texts]
    blue = blue_words(image, words)
    short = np.asarray([len((e.text or "").split()) <= LINK_WORDS for e in words], dtype=bool)
    if not (blue & short).any():
        return list(elements)
    mixed = (beside(boxes_of(words)) & ~blue[None, :]).any(axis=1)
    out = list(elements)
    for index in np.asarray(texts)[blue & short & ~mixed].tolist():
        out[index] = retyped(elements[index], ElementType.LINK)
    return out
