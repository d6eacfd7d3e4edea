"""What both segmenters (classical and SAM) share: screen scale, the post-processing of candidate regions.

The ``regions`` stage appends non-text regions to a parse with ``source='segment'``. Whatever proposes
the candidates (:mod:`~detact_service.detectors.segment_classical`,
:mod:`~detact_service.detectors.segment_sam`), they go through the same tail: size/frame filtering, text
coverage, dropping the contents of atomic widgets and IoU de-duplication (box maths in
:mod:`detact_service.geometry`).

Pixel thresholds are given for a 1920x1080 screen and scaled with :func:`screen_scale` (lower bounds
shrink on small screens, upper bounds grow on large ones; see :func:`scaled_min` and :func:`scaled_max`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from detact_service import geometry
from detact_service.core import Element, ElementType, ScreenParse

IntBoxes = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

SOURCE = "segment"
"""``Element.source`` of everything the regions stage adds."""

# --- scale ---------------------------------------------------------------------------------------
REFERENCE_PIXELS = 1920 * 1080
"""Screen area the pixel constants below are tuned for."""
MIN_SCALE, MAX_SCALE = 0.4, 2.5


# --- shared post-processing ----------------------------------------------------------------------
TEXT_BOX_PAD = 2
"""OCR boxes grow by this (px) before coverage is measured (the gradient spills past the ink)."""
TEXT_COVER_DROP = 0.6
"""A box at least this much inside OCR text boxes is text, not a region."""
MAX_AREA_FRACTION = 0.35
"""Boxes larger than this fraction of the screen are page containers and are dropped."""
FRAME_FRACTION = 0.95
"""A box spanning this fraction of both screen sides is the screen frame."""
DEDUP_IOU = 0.7
"""Of two boxes overlapping more than this IoU only the better scored is kept."""
CONTAINED_FRACTION = 0.85
"""A box this much inside an atomic widget (checkbox, radio, button, image, icon) is its content."""
TEXT_EXEMPT_TYPES = frozenset({ElementType.CHECKBOX, ElementType.RADIO})
"""Types the final text filter spares: controls OCR misread as a glyph passed their own text check."""
ATOMIC_TYPES = frozenset(
    {ElementType.CHECKBOX, ElementType.RADIO, ElementType.BUTTON, ElementType.IMAGE, ElementType.ICON}
)

REGION_MIN_SIDE = 24
"""Rectangles thinner than this are not regions (nor are those within icon size: they are icons)."""
ICON_MAX_ASPECT = 2.5
"""An icon is at most this many times longer than wide."""


def screen_scale(width: int, height: int) -> float:
    """How much larger this screen is than 1920x1080 (by side length), clipped to a sane range."""
    return float(np.clip(math.sqrt(width * height / REFERENCE_PIXELS), MIN_SCALE, MAX_SCALE))


def scaled_min(value: float, scale: float) -> float:
    """A lower bound in pixels: shrinks on small screens, never grows."""
    return value * min(scale, 1.0)


def scaled_max(value: float, scale: float) -> float:
    """An upper bound in pixels: grows on large screens, never shrinks."""
    return value * max(scale, 1.0)


def text_boxes_of(parse: ScreenParse) -> IntBoxes:
    """The boxes of the text lines (OCR output) already in a parse, as ``(M, 4)`` xyxy."""
    return text_lines_of(parse)[0]


def text_lines_of(parse: ScreenParse) -> tuple[IntBoxes, list[str]]:
    """The boxes (``(M, 4)`` xyxy) and strings of the text lines already in a parse."""
    lines = [e for e in parse.elements if e.type is ElementType.TEXT]
    boxes = np.asarray([e.bbox for e in lines], dtype=np.int64).reshape(-1, 4)
    return boxes, [e.text or "" for e in lines]


def text_coverage(
    boxes: npt.NDArray[np.number], text_boxes: npt.NDArray[np.number], pad: int = TEXT_BOX_PAD
) -> FloatArray:
    """The fraction of each box covered by (padded) text boxes, from 0 to 1."""
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    if len(boxes) == 0 or len(text_boxes) == 0:
        return np.zeros(len(boxes), dtype=np.float64)
    padded = geometry.expand(text_boxes, pad)
    return np.clip(geometry.containment(boxes, padded).sum(axis=1), 0.0, 1.0)


def plausible_boxes(
    boxes: npt.NDArray[np.number],
    width: int,
    height: int,
    min_side: float,
    max_area_fraction: float = MAX_AREA_FRACTION,
) -> BoolArray:
    """Which boxes are neither specks, page-sized containers nor the screen frame."""
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    big_enough = np.maximum(w, h) >= min_side
    not_huge = w * h <= max_area_fraction * width * height
    not_frame = ~((w >= FRAME_FRACTION * width) & (h >= FRAME_FRACTION * height))
    return big_enough & not_huge & not_frame


def drop_atomic_contents(elements: Sequence[Element]) -> list[Element]:
    """Drop elements lying inside a smaller-grained widget (a checkbox's mark, a button's label)."""
    if len(elements) < 2:
        return list(elements)
    boxes = geometry.boxes_of(elements)
    areas = geometry.areas(boxes)
    atomic = np.asarray([e.type in ATOMIC_TYPES for e in elements])
    inside = geometry.containment(boxes, boxes) >= CONTAINED_FRACTION
    np.fill_diagonal(inside, False)
    inside &= atomic[None, :] & (areas[:, None] < areas[None, :])
    dropped: list[bool] = np.asarray(inside.any(axis=1), dtype=bool).tolist()
    return [e for e, drop in zip(elements, dropped, strict=True) if not drop]


def deduplicate(elements: Sequence[Element], iou_threshold: float = DEDUP_IOU) -> list[Element]:
    """Class-agnostic NMS: of overlapping duplicates keep the best-scored one."""
    scores = [e.score for e in elements]
    return geometry.deduplicate(elements, geometry.boxes_of(elements), scores, iou_threshold)


def postprocess_regions(
    candidates: Sequence[Element], text_boxes: IntBoxes, width: int, height: int, min_side: float
) -> list[Element]:
    """Shared tail of both segmenters: size/frame filter, text filter, contents, de-duplication."""
    if not candidates:
        return []
    boxes = np.asarray([e.bbox for e in candidates], dtype=np.int64)
    keep = plausible_boxes(boxes, width, height, min_side)
    exempt = np.asarray([e.type in TEXT_EXEMPT_TYPES for e in candidates])
    keep &= exempt | (text_coverage(boxes, text_boxes) < TEXT_COVER_DROP)
    kept = [e for e, k in zip(candidates, keep, strict=True) if k]
    return deduplicate(drop_atomic_contents(kept))


def append_regions(parse: ScreenParse, regions: Sequence[Element]) -> ScreenParse:
    """The parse with ``regions`` appended after the elements it already holds."""
    return parse.with_elements([*parse.elements, *regions])
