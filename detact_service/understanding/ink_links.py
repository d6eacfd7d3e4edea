"""Words in a link's blue are a link.

The reader reads a link by its look in a small view, and on real pages it called many of them text: an
article's outline (``Acknowledgement``, ``References``), a search result's title, a rating's ``5 star``.
What a person goes by is the ink: a short run of words drawn in saturated blue on a ground that is not
blue. Ink and ground are told apart as the colour stage tells them (the ground is the median of the box's
border, the ink the pixels far from it); words drawn white on a blue button, or a box whose blue is most of
its area (a taskbar's window button boxed with its margins), are no link; nor is a blue word beside other
words on its line that are not blue (a code block's keyword).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from detact_service.core import Element, ElementType
from detact_service.geometry import boxes_of
from detact_service.stages import RGBImage
from detact_service.understanding.colors import ink_core, rgb_to_hsv
from detact_service.understanding.layout_types import retyped

LINK_HUE = (195.0, 250.0)
"""Hues (degrees) of a link's blue: from azure to ultramarine, not a teal or a violet heading."""
LINK_SATURATION = 0.4
"""A link's ink is at least this saturated (a blue-grey caption is not) ..."""
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


def ink_and_ground(crop: RGBImage) -> tuple[np.ndarray, np.ndarray, float] | None:
    """The median ink colour, the ground's colour and the ink's share of a box's pixels
    (:func:`.colors.ink_core`); None for a box with no ink clear of its ground."""
    found = ink_core(crop)
    if found is None:
        return None
    ground, ink = found
    return np.median(crop.reshape(-1, 3)[ink], axis=0), ground, float(ink.mean())


def is_link_blue(ink: np.ndarray, ground: np.ndarray) -> bool:
    """Whether ``ink`` is a link's blue and ``ground`` is not a blue fill."""
    hue, saturation, value = rgb_to_hsv(np.stack([ink, ground]))
    blue = (hue >= LINK_HUE[0]) & (hue <= LINK_HUE[1])
    filled = blue[1] and saturation[1] >= GROUND_SATURATION and value[1] >= GROUND_VALUE
    return bool(blue[0] and saturation[0] >= LINK_SATURATION and value[0] >= LINK_VALUE and not filled)


def blue_words(image: RGBImage, elements: Sequence[Element]) -> np.ndarray:
    """Which of ``elements`` are drawn in a link's blue (:func:`is_link_blue`, ink at most
    :data:`INK_SHARE` of the box); one crop each."""
    flags = np.zeros(len(elements), dtype=bool)
    for index, element in enumerate(elements):
        x0, y0, x1, y1 = element.bbox
        found = ink_and_ground(image[max(y0, 0) : y1, max(x0, 0) : x1])
        if found is not None:
            ink, ground, share = found
            flags[index] = share <= INK_SHARE and is_link_blue(ink, ground)
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
