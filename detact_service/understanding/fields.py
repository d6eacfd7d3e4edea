"""Fields the reader took for something else, told by their pixels.

- **A spin box is a field, not a dropdown.** A spin box (a size in points, a port number, a margin in
  centimetres) is a field with two small arrows stacked at its right end, one up and one down; the reader,
  which sees a box with text and a mark at its right end, calls it a dropdown (12 of the data engine's Qt
  test fields). A dropdown has one arrow, centred. A box the reader called a dropdown becomes an ``input``
  when the right end of its box (a square of its height, a little wider) holds two small marks of ink, one
  above its middle and one below, one over the other. The marks are found on the pixels (OpenCV connected
  components): a frame's or a bevel's lines are longer than a mark and are not counted.
- **A framed box with its text at the left is a field, not a list row.** A line edit holding a value
  (``8080``, ``/home/user``) is a box drawn on its own (a frame or a fill that stops at its ends), its text
  at the left and nothing in its right part; the reader called such boxes list rows or text. A list row
  is not drawn in a frame of its own (a table's row lines run on past a cell, :func:`.ruled_cells.is_framed`),
  holds something at its right end (a chevron, a date), or touches a row as wide as it above or below (a
  list's rows follow one another without a gap, its selected row framed; a form's fields stand apart).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from detact_service.core import Element, ElementType
from detact_service.geometry import boxes_of
from detact_service.stages import RGBImage
from detact_service.understanding.layout_types import retyped
from detact_service.understanding.ruled_cells import horizontal_rules, is_framed

END_WIDTH = 1.2
"""Width of the right end searched, in box heights."""
INK_CONTRAST = 40
"""A pixel differs from the grey round it (the median over :data:`GROUND_KERNEL`) by this much to be ink."""
GROUND_KERNEL = 0.6
"""Side of the median filter that gives the ground, in box heights: wider than a mark."""
MARK_SIDE = 0.45
"""A mark's longer side is at most this share of the box's height (an arrow, not a frame's line)."""
MARK_AREA = 0.005
"""A mark covers at least this share of the box's height squared ..."""
MARK_WIDTH = 3
"""... and is at least this many pixels wide (a classic theme's arrow is 3 x 2 px; a colon's dot 2 x 2) and
two tall (a bevel's line is one)."""
MARK_ALIGN = 0.25
"""The two marks' centres lie this share of the box's height apart across at most."""
MARK_MARGIN = 0.12
"""A mark lies this share of the box's height inside its top and bottom at least: the arcs of a rounded
frame's corners (a combo box's, above and below its one arrow) and a neighbouring field's edge, which a
detector's box may take in, do not count."""
MIN_HEIGHT = 12
"""Boxes lower than this (px) are not searched: their marks are a few pixels."""


def has_stacked_marks(grey: np.ndarray, box: tuple[int, int, int, int]) -> bool:
    """Whether the right end of ``box`` holds two small marks, one over the other across its middle."""
    x1, y1, x2, y2 = (max(v, 0) for v in box)
    x2, y2 = min(x2, grey.shape[1]), min(y2, grey.shape[0])
    height = y2 - y1
    if height < MIN_HEIGHT or x2 - x1 < 2 * height:
        return False
    end = np.ascontiguousarray(grey[y1:y2, max(x2 - round(END_WIDTH * height), x1) : x2])
    kernel = max(round(GROUND_KERNEL * height) | 1, 5)  # odd, wider than a mark
    ground = cv2.medianBlur(end, kernel)  # the button's face round a mark, the field's round the text
    ink = (cv2.absdiff(end, ground) >= INK_CONTRAST).astype(np.uint8)
    count, _, stats, centres = cv2.connectedComponentsWithStats(ink, connectivity=8)
    if count < 3:
        return False
    marks = stats[1:]
    width, tall, area = marks[:, cv2.CC_STAT_WIDTH], marks[:, cv2.CC_STAT_HEIGHT], marks[:, cv2.CC_STAT_AREA]
    small = (
        (np.maximum(width, tall) <= MARK_SIDE * height)
        & (area >= MARK_AREA * height * height)
        & (width >= np.maximum(tall, MARK_WIDTH))  # an arrow pointing up or down is as wide as tall or wider
        & (tall >= 2)
        & (marks[:, cv2.CC_STAT_TOP] >= MARK_MARGIN * height)
        & (marks[:, cv2.CC_STAT_TOP] + tall <= (1 - MARK_MARGIN) * height)
    )
    centre_x, centre_y = centres[1:, 0][small], centres[1:, 1][small]
    above, below = centre_y < height / 2, centre_y > height / 2
    if not above.any() or not below.any():
        return False
    apart = np.abs(centre_x[above][:, None] - centre_x[below][None, :])
    return bool((apart <= MARK_ALIGN * height).any())


def spin_boxes(image: RGBImage, elements: Sequence[Element]) -> list[Element]:
    """The elements with each dropdown whose right end holds stacked arrows (:func:`has_stacked_marks`)
    typed ``input``."""
    dropdowns = [i for i, e in enumerate(elements) if e.type is ElementType.DROPDOWN]
    if not dropdowns:
        return list(elements)
    grey = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    out = list(elements)
    for index in dropdowns:  # a handful a screen, each a crop of a few hundred pixels
        if has_stacked_marks(grey, elements[index].bbox):
            out[index] = retyped(elements[index], ElementType.INPUT)
    return out


FIELD_TYPES = frozenset({ElementType.LIST_ITEM, ElementType.TEXT})
"""The types the reader gave a framed field with a value that become ``input``."""
FIELD_ASPECT = 4.0
"""A field is at least this many times as wide as tall."""
EMPTY_RIGHT = 0.4
"""Share of a field's width at its right end that holds no ink (the rest of a value's line) ..."""
INKED_LEFT = 0.25
"""... and at its left end that holds some (the value's start)."""
FIELD_INSET = 0.25
"""Share of a field's height kept off its top and bottom (and pixels off its ends: :data:`FIELD_END`)
when its right part is searched for ink: the frame is not ink."""
FIELD_END = 4


def text_at_left(grey: np.ndarray, box: tuple[int, int, int, int]) -> bool:
    """Whether ink lies in the left :data:`INKED_LEFT` of ``box`` and none in its right
    :data:`EMPTY_RIGHT`, inside its frame (a value typed from the left; a button's caption is centred)."""
    x1, y1, x2, y2 = box
    inset = round(FIELD_INSET * (y2 - y1))
    inner = grey[y1 + inset : y2 - inset, x1 + FIELD_END : x2 - FIELD_END]
    if inner.size == 0:
        return False
    ink = np.abs(inner.astype(np.int16) - ground_of(inner)) >= INK_CONTRAST
    left, right = round(INKED_LEFT * (x2 - x1)), round(EMPTY_RIGHT * (x2 - x1))
    return bool(ink[:, :left].any() and not ink[:, inner.shape[1] - right :].any())


SIDE_SPAN = 0.7
"""Share of a field's inner height that an edge at each of its ends spans (a divider row has none) ..."""
SIDE_RUN_ON = 0.3
"""... while in the rows just past its top and bottom (:data:`GAP_ROWS`) the edge spans at most this share:
a table's column lines run on past a cell, a form's fields stand apart."""
GAP_ROWS = (2, 4)
"""Rows past a box's top and bottom (from, to) where a side's edge must have stopped."""
SIDE_REACH = 4
"""Pixels round a box's end searched for that edge."""
SIDE_CONTRAST = 5
"""Grey step (0-255) of a side's edge: a dark theme's field is a fill 15 levels off its panel."""
FILL_CONTRAST = 60
"""A field's ground differs from the ground round it by at most this many grey levels: a selected list
row is filled in black or an accent colour."""


LIST_ROW_TYPES = frozenset({ElementType.LIST_ITEM, ElementType.MENU_ITEM})
"""The types of a list's other rows (a caption under a field is text)."""
ROW_TOUCH = 2
"""A box whose top or bottom lies this many pixels or fewer from (or as far into) the bottom or top of
a list row (:data:`LIST_ROW_TYPES`) as wide ..."""
ROW_EDGES = 0.02
"""... its left and right ends within this share of its width (3 px at least) of the other's ..."""
ROW_HEIGHTS = 2.0
"""... and the two heights within this factor of each other, is a list's row: a form's fields stand 4 px
apart or more."""


def touching_rows(boxes: np.ndarray, candidates: Sequence[int], rows: np.ndarray) -> np.ndarray:
    """For each of ``candidates``, whether one of the ``rows`` (a mask over ``boxes``) as wide, about as
    tall, touches it above or below (:data:`ROW_TOUCH`)."""
    chosen = np.asarray(candidates, dtype=np.int64)
    mine = boxes[chosen][:, None, :]
    others = boxes[rows][None, :, :]
    width = mine[..., 2] - mine[..., 0]
    tolerance = np.maximum(ROW_EDGES * width, 3.0)
    heights = np.maximum(mine[..., 3] - mine[..., 1], 1.0), np.maximum(others[..., 3] - others[..., 1], 1.0)
    ratio = np.maximum(heights[0], heights[1]) / np.minimum(heights[0], heights[1])
    touching = (np.abs(mine[..., 3] - others[..., 1]) <= ROW_TOUCH) | (
        np.abs(mine[..., 1] - others[..., 3]) <= ROW_TOUCH
    )
    alike = (
        (np.abs(mine[..., 0] - others[..., 0]) <= tolerance)
        & (np.abs(mine[..., 2] - others[..., 2]) <= tolerance)
        & (ratio <= ROW_HEIGHTS)
    )
    itself = np.flatnonzero(rows)[None, :] == chosen[:, None]
    return np.asarray((touching & alike & ~itself).any(axis=1), dtype=bool)


def ground_of(pixels: np.ndarray) -> int:
    """The commonest grey level of some pixels."""
    return int(np.bincount(pixels.ravel(), minlength=256).argmax()) if pixels.size else -1


def has_sides(grey: np.ndarray, box: tuple[int, int, int, int]) -> bool:
    """Whether an upright edge (a grey step between neighbouring columns) runs down most of ``box``'s
    inner height near each of its two ends and stops there (:data:`SIDE_RUN_ON`)."""
    x1, y1, x2, y2 = box
    inset, (near, far) = round(FIELD_INSET * (y2 - y1)), GAP_ROWS
    top, bottom = max(y1 - far, 0), min(y2 + far, grey.shape[0])
    rows = grey[top:bottom].astype(np.int16)
    steps = np.abs(np.diff(rows, axis=1)) >= SIDE_CONTRAST  # steps[:, x]: between columns x and x + 1
    inner = steps[y1 + inset - top : y2 - inset - top]
    outer = np.concatenate([steps[: max(y1 - near - top, 0)], steps[y2 + near - top :]])
    if inner.shape[0] == 0:
        return False

    def side(x: int) -> bool:
        lo, hi = max(x - SIDE_REACH, 0), min(x + SIDE_REACH, steps.shape[1])
        if lo >= hi:
            return False
        edge = inner[:, lo:hi].mean(axis=0) >= SIDE_SPAN
        if len(outer):
            edge &= outer[:, lo:hi].mean(axis=0) <= SIDE_RUN_ON
        return bool(edge.any())

    return side(x1) and side(x2 - 1)


def fill_like_ground(grey: np.ndarray, box: tuple[int, int, int, int]) -> bool:
    """Whether ``box``'s ground lies within :data:`FILL_CONTRAST` of the ground above and below it."""
    x1, y1, x2, y2 = box
    reach = max(round((y2 - y1) / 4), 2)
    inside = ground_of(grey[y1:y2, x1:x2])
    around = ground_of(np.concatenate([grey[max(y1 - reach, 0) : y1, x1:x2], grey[y2 : y2 + reach, x1:x2]]))
    return around < 0 or abs(inside - around) <= FILL_CONTRAST


def framed_fields(image: RGBImage, elements: Sequence[Element]) -> list[Element]:
    """The elements with each wide list row or text with text (:data:`FIELD_TYPES`) that is drawn in a frame
    of its own with nothing in its right part, and touches no row like it (:func:`touching_rows`), typed
    ``input``."""
    height, width = image.shape[:2]
    candidates = [
        i
        for i, e in enumerate(elements)
        if e.type in FIELD_TYPES
        and e.text
        and e.width >= FIELD_ASPECT * e.height
        and e.bbox[0] >= 0
        and e.bbox[1] >= 0
        and e.bbox[2] <= width
        and e.bbox[3] <= height
    ]
    if candidates:
        rows = np.asarray([e.type in LIST_ROW_TYPES for e in elements], dtype=bool)
        in_a_list = touching_rows(boxes_of(elements), candidates, rows)
        candidates = [i for i, listed in zip(candidates, in_a_list.tolist(), strict=True) if not listed]
    if not candidates:
        return list(elements)
    grey = np.asarray(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY), dtype=np.uint8)
    horizontal = horizontal_rules(grey)
    out = list(elements)
    for index in candidates:  # the few wide rows of a screen; two crops each
        box = elements[index].bbox
        if (
            is_framed(horizontal, box)
            and has_sides(grey, box)
            and fill_like_ground(grey, box)
            and text_at_left(grey, box)
        ):
            out[index] = retyped(elements[index], ElementType.INPUT)
    return out


def fields(image: RGBImage, elements: Sequence[Element]) -> list[Element]:
    """:func:`spin_boxes` and :func:`framed_fields` on one screen's read elements."""
    return framed_fields(image, spin_boxes(image, elements))
