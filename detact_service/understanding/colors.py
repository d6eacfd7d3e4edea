"""DetACT colour bucketing: every element gets one of 11 colour names.

Mapping from RGB (via HSV, hue in degrees, saturation and value in 0-1), first rule that applies:

========  =====================================================================
black     value < 0.22, or saturation < 0.18 and value < 0.30
white     saturation < 0.18 and value > 0.85
grey      saturation < 0.18 otherwise
brown     hue 12-45 and value < 0.62 (dark orange / dark yellow)
pink      hue 315-345; or hue < 12 / >= 345 with saturation < 0.45 and value > 0.75 (light red)
red       hue < 12 or >= 345
orange    hue 12-42
yellow    hue 42-70
green     hue 70-165
blue      hue 165-255 (cyan and teal count as blue: the 11 names have no cyan)
violet    hue 255-315 (purple and magenta)
========  =====================================================================

Which pixels an element's colour comes from: for text, links and icons, the ink (pixels far from the
element's background, estimated from its border), since "the red icon" means the glyph; for everything
else (buttons, inputs, regions), the most common colour in the box, since "the blue button" means its fill.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from detact_service.core import COLOR_NAMES, Element, ElementType, ScreenParse
from detact_service.reparse import BoxMemo, Changes
from detact_service.stages import Backend, RGBImage, register

INK_TYPES = frozenset({ElementType.TEXT, ElementType.LINK, ElementType.ICON})
MAX_SAMPLES = 4096  # pixels sampled per element: plenty for a colour vote, bounded cost for big regions
_NAME_INDEX = {name: i for i, name in enumerate(COLOR_NAMES)}


def rgb_to_hsv(rgb: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vectorised RGB (0-255, shape (..., 3)) to hue in degrees, saturation and value in 0-1."""
    values = np.asarray(rgb, dtype=np.float64) / 255.0
    r, g, b = values[..., 0], values[..., 1], values[..., 2]
    high = values.max(axis=-1)
    low = values.min(axis=-1)
    chroma = high - low
    safe = np.where(chroma > 0, chroma, 1.0)
    hue = np.select(
        [chroma == 0, high == r, high == g],
        [0.0, ((g - b) / safe) % 6.0, (b - r) / safe + 2.0],
        default=(r - g) / safe + 4.0,
    )
    saturation = np.where(high > 0, chroma / np.where(high > 0, high, 1.0), 0.0)
    return hue * 60.0, saturation, high


def color_codes(rgb: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Index into :data:`COLOR_NAMES` for each RGB colour in an ``(..., 3)`` array."""
    hue, sat, val = rgb_to_hsv(rgb)
    grey_like = sat < 0.18
    red_hue = (hue < 12) | (hue >= 345)
    conditions = [
        (val < 0.22) | (grey_like & (val < 0.30)),
        grey_like & (val > 0.85),
        grey_like,
        (hue >= 12) & (hue < 45) & (val < 0.62),
        ((hue >= 315) & (hue < 345)) | (red_hue & (sat < 0.45) & (val > 0.75)),
        red_hue,
        hue < 42,
        hue < 70,
        hue < 165,
        hue < 255,
    ]
    names = ["black", "white", "grey", "brown", "pink", "red", "orange", "yellow", "green", "blue"]
    choices = [_NAME_INDEX[n] for n in names]
    return np.select(conditions, choices, default=_NAME_INDEX["violet"]).astype(np.int64)


def color_names(rgb: npt.ArrayLike) -> list[str]:
    """Colour name of each RGB colour in an ``(N, 3)`` array."""
    return [COLOR_NAMES[i] for i in np.atleast_1d(color_codes(np.asarray(rgb).reshape(-1, 3)))]


def ink_differences(
    crop: RGBImage,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]] | None:
    """The ground's colour (the median of the crop's border), each pixel's difference from it (flattened,
    N x 3) and its distance (the differences' absolute sum); None for a crop under 3 pixels a side."""
    if min(crop.shape[:2]) < 3:
        return None
    border = np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]]).astype(np.int32)
    ground = np.median(border, axis=0)
    difference = crop.reshape(-1, 3).astype(np.int32) - ground
    return ground, difference, np.abs(difference).sum(axis=1)


def ink_core(crop: RGBImage) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]] | None:
    """The ground's colour (the median of the crop's border) and which of its pixels (flattened) are the ink
    core: at least half as far from the ground as the farthest pixel, which skips anti-aliased edges that
    would read as grey. None for a crop under 3 pixels a side or with nothing 60 or more from its ground."""
    found = ink_differences(crop)
    if found is None:
        return None
    ground, _, distance = found
    core = core_of(distance)
    return None if core is None else (ground, core)


def core_of(distance: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_] | None:
    """The ink core by the pixels' distances from the ground (see :func:`ink_core`); None with nothing 60 or
    more from it."""
    farthest = float(distance.max())
    return None if farthest < 60 else distance >= farthest * 0.5


def element_pixels(image: RGBImage, element: Element) -> npt.NDArray[np.uint8]:
    """The pixels (K x 3) whose colours vote for the element's name (see the module docstring)."""
    x1, y1, x2, y2 = element.bbox
    crop = image[max(y1, 0) : y2, max(x1, 0) : x2]
    if crop.size == 0:
        return np.zeros((0, 3), dtype=np.uint8)
    pixels = crop.reshape(-1, 3)
    found = ink_core(crop) if element.type in INK_TYPES else None
    if found is not None:
        pixels = pixels[found[1]]
    if len(pixels) > MAX_SAMPLES:
        pixels = pixels[:: len(pixels) // MAX_SAMPLES + 1]
    return np.asarray(pixels, dtype=np.uint8)


def element_colors(image: RGBImage, elements: Sequence[Element]) -> list[str]:
    """The colour name of each element: its pixels picked one element at a time (a crop each), named in
    one vectorised pass over all of them (a pass per element cost 0.3 ms of numpy overhead)."""
    samples = [element_pixels(image, e) for e in elements]
    if not samples:
        return []
    counts = np.asarray([len(pixels) for pixels in samples], dtype=np.int64)
    codes = color_codes(np.concatenate(samples)) if counts.sum() else np.zeros(0, dtype=np.int64)
    owner = np.repeat(np.arange(len(samples)), counts)
    votes = np.bincount(owner * len(COLOR_NAMES) + codes, minlength=len(samples) * len(COLOR_NAMES))
    best = votes.reshape(len(samples), len(COLOR_NAMES)).argmax(axis=1)
    return [COLOR_NAMES[int(i)] if n else "white" for i, n in zip(best, counts, strict=True)]


def element_color(image: RGBImage, element: Element) -> str:
    """The colour name a person would give this element (see the module docstring)."""
    return element_colors(image, [element])[0]


@register("colors", "hsv")
class ColorStage(Backend):
    """The ``colors`` stage: sets ``color`` on every element."""

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        out = []
        for image, parse in zip(images, parses, strict=True):
            colors = element_colors(image, parse.elements)
            out.append(
                parse.with_elements(e.replace(color=c) for e, c in zip(parse.elements, colors, strict=True))
            )
        return out

    def run_reusing(
        self,
        images: Sequence[RGBImage],
        parses: Sequence[ScreenParse],
        previous: Sequence[object | None],
        changes: Sequence[Changes | None],
    ) -> tuple[list[ScreenParse], list[object | None]]:
        """``run``, taking the previous colour of an element with the same box and kind on unchanged
        tiles (a colour depends on the pixels inside the box and on whether it is the ink's)."""
        out: list[ScreenParse] = []
        memos: list[object | None] = []
        for image, parse, memo, change in zip(images, parses, previous, changes, strict=True):
            boxes = parse.boxes()
            kinds = np.asarray([e.type in INK_TYPES for e in parse.elements], dtype=np.int64)
            same = np.full(len(boxes), -1, dtype=np.int64)
            if isinstance(memo, BoxMemo) and change is not None:
                same = memo.match(boxes, kinds, change)
            old = memo.values if isinstance(memo, BoxMemo) else ()
            unseen = [e for e, j in zip(parse.elements, same.tolist(), strict=True) if j < 0]
            fresh = iter(element_colors(image, unseen))
            colors = [old[j] if j >= 0 else next(fresh) for j in same.tolist()]
            coloured = (e.replace(color=c) for e, c in zip(parse.elements, colors, strict=True))
            out.append(parse.with_elements(coloured))
            memos.append(BoxMemo(boxes, kinds, tuple(colors), reused=int((same >= 0).sum())))
        return out, memos
