"""A spin box is a field, not a dropdown.

A spin box (a size in points, a port number, a margin in centimetres) is a field with two small arrows
stacked at its right end, one up and one down; the reader, which sees a box with text and a mark at its
right end, calls it a dropdown (11 of the data engine's Qt test fields). A dropdown has one arrow,
centred. A box the reader called a dropdown becomes an ``input`` when the right end of its box (a square
of its height, a little wider) holds two small marks of ink, one above its middle and one below, one
over the other. The marks are found on the pixels (OpenCV connected components): a frame's or a bevel's
lines are longer than a mark and are not counted.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from detact_service.core import Element, ElementType
from detact_service.stages import RGBImage
from detact_service.understanding.layout_types import retyped

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
