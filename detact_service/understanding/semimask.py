"""CAAP's semi-masking: the element's box outlined, everything around it darkened, its own pixels kept.

The attribute model reads one element at a time but must see its neighbours (the label beside a
checkbox, the tab strip around a tab). On a large screen an element would shrink to a few pixels under
the model's patch budget, so the masked view is a context window a few times the element's size
(:func:`context_window`); small screens (MiniWoB++-sized) keep the whole screen. Everything is numpy
slicing: one multiply for the darkening, four slices for the outline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields

import cv2
import numpy as np
import numpy.typing as npt

RGBImage = npt.NDArray[np.uint8]
Box = tuple[int, int, int, int]
IntBoxes = npt.NDArray[np.int64]

DARKEN = 0.35
"""Brightness kept outside the element (CAAP darkens the surroundings)."""
OUTLINE = (255, 0, 0)
OUTLINE_WIDTH = 2
CONTEXT = 3.0
"""The window is this many times the element's size (per axis)."""
MIN_WINDOW = 96
MAX_WINDOW = 1024
SMALL_SCREEN = 400 * 400
"""Screens of at most this many pixels are masked whole (MiniWoB++ is 160x210)."""
MAX_VIEW_SIDE = 384
"""Views are shrunk to this side before the model's own resize (the patch budget is far smaller)."""


def context_window(
    bbox: Box,
    width: int,
    height: int,
    context: float = CONTEXT,
    min_side: int = MIN_WINDOW,
    max_side: int = MAX_WINDOW,
) -> Box:
    """The window around ``bbox``: ``context`` times its size, within [min_side, max_side], inside the image.

    The window is shifted (not shrunk) at the screen's edges so it keeps its size where it can, and it
    always contains the whole element.
    """
    x1, y1, x2, y2 = bbox
    out = []
    for lo, hi, limit in ((x1, x2, width), (y1, y2, height)):
        size = hi - lo
        side = int(min(max(size * context, min_side), max(max_side, size)))
        side = min(side, limit)
        start = (lo + hi) // 2 - side // 2
        start = min(max(start, 0), limit - side)
        start = min(start, lo)  # the element must fit even when it is larger than the window
        end = max(start + side, hi)
        out.append((start, min(end, limit)))
    (wx1, wx2), (wy1, wy2) = out
    return wx1, wy1, wx2, wy2


def semi_mask(
    image: RGBImage,
    bbox: Box,
    window: Box | None = None,
    darken: float = DARKEN,
    outline: tuple[int, int, int] = OUTLINE,
    outline_width: int = OUTLINE_WIDTH,
) -> RGBImage:
    """The ``window`` of ``image`` (default: all of it) darkened outside ``bbox``, with ``bbox`` outlined.

    The outline is drawn just OUTSIDE the box, so the element's own pixels are exactly the input's.
    """
    height, width = image.shape[:2]
    wx1, wy1, wx2, wy2 = window or (0, 0, width, height)
    view = image[wy1:wy2, wx1:wx2]
    masked = (view.astype(np.float32) * darken).astype(np.uint8)
    x1, y1, x2, y2 = bbox[0] - wx1, bbox[1] - wy1, bbox[2] - wx1, bbox[3] - wy1
    h, w = masked.shape[:2]
    x1, y1, x2, y2 = max(x1, 0), max(y1, 0), min(x2, w), min(y2, h)
    if x2 <= x1 or y2 <= y1:
        return masked
    color = np.asarray(outline, dtype=np.uint8)
    ox1, oy1 = max(x1 - outline_width, 0), max(y1 - outline_width, 0)
    ox2, oy2 = min(x2 + outline_width, w), min(y2 + outline_width, h)
    masked[oy1:y1, ox1:ox2] = color
    masked[y2:oy2, ox1:ox2] = color
    masked[oy1:oy2, ox1:x1] = color
    masked[oy1:oy2, x2:ox2] = color
    masked[y1:y2, x1:x2] = view[y1:y2, x1:x2]
    return masked


def fit_view(view: RGBImage, max_side: int = MAX_VIEW_SIDE) -> RGBImage:
    """``view`` shrunk (area interpolation) so its longer side is at most ``max_side``."""
    height, width = view.shape[:2]
    scale = max_side / max(height, width)
    if scale >= 1:
        return view
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    return np.asarray(cv2.resize(view, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)


def semi_masked_views(
    image: RGBImage,
    boxes: Sequence[Box],
    small_screen: int = SMALL_SCREEN,
    context: float = CONTEXT,
    max_side: int | None = MAX_VIEW_SIDE,
) -> list[RGBImage]:
    """One semi-masked view per box: the whole screen when it is small, else a context window.

    Views are shrunk to ``max_side`` (None: full resolution); training and the runtime share this
    function, so the model sees the same kind of input in both.
    """
    height, width = image.shape[:2]
    whole = width * height <= small_screen
    views = [
        semi_mask(image, box, None if whole else context_window(box, width, height, context)) for box in boxes
    ]
    return views if max_side is None else [fit_view(v, max_side) for v in views]


@dataclass(frozen=True)
class ViewGeometry:
    """How a reader model's views are made; stored with the model (manifest) so training and runtime agree."""

    size: int = 96
    """Side of the square view the model reads (the context window is resized to it, aspect not kept)."""
    context: float = CONTEXT
    min_window: int = 64
    max_window: int = MAX_WINDOW
    darken: float = DARKEN
    outline: int = 2
    """Outline width in view pixels."""

    @classmethod
    def from_mapping(cls, values: Mapping[str, object] | None) -> ViewGeometry:
        """The geometry a manifest entry stores (unknown keys ignored, missing ones defaulted)."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in (values or {}).items() if k in known})  # type: ignore[arg-type]


def context_windows(boxes: IntBoxes, width: int, height: int, geometry: ViewGeometry) -> IntBoxes:
    """:func:`context_window` for every row of ``boxes`` at once (N x 4 xyxy in, N x 4 windows out)."""
    boxes = np.asarray(boxes, dtype=np.int64).reshape(-1, 4)
    out = np.empty_like(boxes)
    for axis, limit in ((0, width), (1, height)):
        lo, hi = boxes[:, axis], boxes[:, axis + 2]
        size = hi - lo
        side = np.minimum(
            np.maximum(size * geometry.context, geometry.min_window), np.maximum(geometry.max_window, size)
        )
        side = np.minimum(side.astype(np.int64), limit)
        start = (lo + hi) // 2 - side // 2
        start = np.minimum(np.minimum(np.maximum(start, 0), limit - side), lo)
        out[:, axis] = start
        out[:, axis + 2] = np.minimum(np.maximum(start + side, hi), limit)
    return out


def reader_views(image: RGBImage, boxes: IntBoxes, geometry: ViewGeometry) -> RGBImage:
    """N semi-masked views (N x size x size x 3, uint8) of ``boxes``, as a reader model reads them.

    Each context window is resized to the view's square (one ``cv2.resize`` per element: the crops have
    different shapes) and darkened through a lookup table, its element's rectangle pasted back undarkened;
    the outlines are drawn on the whole batch at once. (A batch-wide ``np.where`` over the views'
    float products took twice as long: 25 -> 13 ms for 177 views of 96 px, measured.)
    """
    boxes = np.asarray(boxes, dtype=np.int64).reshape(-1, 4)
    size = geometry.size
    if len(boxes) == 0:
        return np.zeros((0, size, size, 3), dtype=np.uint8)
    height, width = image.shape[:2]
    windows = context_windows(boxes, width, height, geometry)
    scale = size / np.maximum(windows[:, 2:] - windows[:, :2], 1)  # N x 2 (x, y)
    inner = np.concatenate(
        [(boxes[:, :2] - windows[:, :2]) * scale, (boxes[:, 2:] - windows[:, :2]) * scale], axis=1
    )
    inner = np.round(inner).astype(np.int64)
    inner[:, 2:] = np.maximum(inner[:, 2:], inner[:, :2] + 1)
    darken = (np.arange(256) * geometry.darken).astype(np.uint8)  # the truncation of ``pixel * darken``
    out = np.empty((len(boxes), size, size, 3), dtype=np.uint8)
    shown = inner.clip(0, size).tolist()
    for index, (x1, y1, x2, y2) in enumerate(windows.tolist()):
        view = cv2.resize(image[y1:y2, x1:x2], (size, size), interpolation=cv2.INTER_AREA)
        cv2.LUT(view, darken, dst=out[index])
        left, top, right, bottom = shown[index]
        out[index, top:bottom, left:right] = view[top:bottom, left:right]
    grid = np.arange(size)
    pad = geometry.outline
    inside_x = (grid >= inner[:, 0:1]) & (grid < inner[:, 2:3])
    inside_y = (grid >= inner[:, 1:2]) & (grid < inner[:, 3:4])
    around_x = (grid >= inner[:, 0:1] - pad) & (grid < inner[:, 2:3] + pad)
    around_y = (grid >= inner[:, 1:2] - pad) & (grid < inner[:, 3:4] + pad)
    band = (around_y[:, :, None] & around_x[:, None, :]) & ~(inside_y[:, :, None] & inside_x[:, None, :])
    out[band] = np.asarray(OUTLINE, dtype=np.uint8)
    return out


def box_features(boxes: IntBoxes, width: int, height: int) -> npt.NDArray[np.float32]:
    """What the square view hides: the element's size relative to the screen and its aspect ratio (N x 3)."""
    corners = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    w = np.maximum(corners[:, 2] - corners[:, 0], 1.0)
    h = np.maximum(corners[:, 3] - corners[:, 1], 1.0)
    return np.stack([w / max(width, 1), h / max(height, 1), np.log(w / h) / 3.0], axis=1).astype(np.float32)
