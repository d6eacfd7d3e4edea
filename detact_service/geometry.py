"""Box geometry, the one copy: boxes are ``(N, 4)`` numpy arrays of ``[x1, y1, x2, y2]`` (xyxy, pixels).

Used by the runtime (segmenters, merge), the training evaluations and the benchmarks. IoU and NMS come
from ``supervision`` (``box_iou_batch``, ``box_non_max_suppression``); the rest is a few lines of numpy
each, because supervision has no area-of-the-inner-box (containment) or intersection-over-smaller.

Every function takes anything :func:`as_boxes` accepts (an array, a list of tuples, an empty list) and
answers with float64 arrays; empty inputs give empty (correctly shaped) outputs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

import numpy as np
import numpy.typing as npt
import supervision as sv

Boxes = npt.NDArray[np.float64]
"""``(N, 4)`` xyxy boxes."""
Matrix = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
BoxLike = npt.ArrayLike | Sequence[Sequence[float]]
T = TypeVar("T")
S = TypeVar("S", bound=np.generic)


class HasBox(Protocol):
    """Anything with an xyxy ``bbox`` (an element, a label)."""

    @property
    def bbox(self) -> tuple[int, int, int, int]: ...


def as_boxes(boxes: BoxLike) -> Boxes:
    """``boxes`` as an ``(N, 4)`` float64 array (an empty input is ``(0, 4)``)."""
    return np.asarray(boxes, dtype=np.float64).reshape(-1, 4)


def areas(boxes: BoxLike) -> npt.NDArray[np.float64]:
    """``(N,)`` areas; inverted boxes have area 0."""
    b = as_boxes(boxes)
    return np.clip(b[:, 2] - b[:, 0], 0, None) * np.clip(b[:, 3] - b[:, 1], 0, None)


def intersections(a: BoxLike, b: BoxLike) -> Matrix:
    """``(N, M)`` areas of the intersection of every box of ``a`` with every box of ``b``."""
    a3 = as_boxes(a)[:, None, :]
    b3 = as_boxes(b)[None, :, :]
    w = np.minimum(a3[..., 2], b3[..., 2]) - np.maximum(a3[..., 0], b3[..., 0])
    h = np.minimum(a3[..., 3], b3[..., 3]) - np.maximum(a3[..., 1], b3[..., 1])
    return np.asarray(np.clip(w, 0, None) * np.clip(h, 0, None), dtype=np.float64)


def iou_matrix(a: BoxLike, b: BoxLike) -> Matrix:
    """``(N, M)`` intersection over union (supervision's vectorised ``box_iou_batch``)."""
    a, b = as_boxes(a), as_boxes(b)
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)), dtype=np.float64)
    return np.asarray(np.nan_to_num(sv.box_iou_batch(a, b)), dtype=np.float64)


def iou(a: BoxLike, b: BoxLike) -> float:
    """IoU of two single boxes."""
    return float(iou_matrix(a, b)[0, 0])


def containment(inner: BoxLike, outer: BoxLike) -> Matrix:
    """``(N, M)``: the share of each ``inner`` box's area that lies inside each ``outer`` box (0-1).

    A degenerate inner box (area below one pixel) is measured against one pixel.
    """
    return intersections(inner, outer) / np.maximum(areas(inner), 1.0)[:, None]


def intersection_over_smaller(a: BoxLike, b: BoxLike) -> Matrix:
    """``(N, M)``: the intersection over the smaller of the two areas (1 when one box holds the other)."""
    smaller = np.minimum(areas(a)[:, None], areas(b)[None, :])
    return intersections(a, b) / np.maximum(smaller, 1.0)


def nms(boxes: BoxLike, scores: npt.ArrayLike, iou_threshold: float) -> BoolArray:
    """Class-agnostic non-maximum suppression (supervision): which boxes survive, ``(N,)`` booleans."""
    b = as_boxes(boxes)
    if len(b) < 2:
        return np.ones(len(b), dtype=bool)
    s = np.asarray(scores, dtype=np.float64).reshape(-1, 1)
    return np.asarray(sv.box_non_max_suppression(np.hstack([b, s]), iou_threshold=iou_threshold), dtype=bool)


def deduplicate(items: Sequence[T], boxes: BoxLike, scores: npt.ArrayLike, iou_threshold: float) -> list[T]:
    """The ``items`` whose boxes survive :func:`nms` (of overlapping duplicates the best-scored one)."""
    keep = nms(boxes, scores, iou_threshold).tolist()
    return [item for item, kept in zip(items, keep, strict=True) if kept]


def expand(boxes: BoxLike, by: npt.ArrayLike) -> Boxes:
    """Boxes grown by ``by`` pixels (a number or one per box) on every side; negative shrinks."""
    b = as_boxes(boxes)
    d = np.broadcast_to(np.asarray(by, dtype=np.float64), (len(b),))[:, None]
    return b + np.hstack([-d, -d, d, d])


def union_box(boxes: BoxLike) -> tuple[float, float, float, float]:
    """The smallest box holding all of ``boxes`` (``ValueError`` when there are none)."""
    b = as_boxes(boxes)
    if len(b) == 0:
        raise ValueError("the union of no boxes")
    return float(b[:, 0].min()), float(b[:, 1].min()), float(b[:, 2].max()), float(b[:, 3].max())


def clip(boxes: npt.NDArray[S], width: float, height: float) -> npt.NDArray[S]:
    """Boxes clipped to a ``width`` x ``height`` image (never inverted); the dtype is kept (integer boxes
    index pixels)."""
    out = np.array(boxes).reshape(-1, 4)
    out[:, [0, 2]] = np.clip(out[:, [0, 2]], 0, width)
    out[:, [1, 3]] = np.clip(out[:, [1, 3]], 0, height)
    out[:, 2] = np.maximum(out[:, 2], out[:, 0])
    out[:, 3] = np.maximum(out[:, 3], out[:, 1])
    return out


def centers(boxes: BoxLike) -> npt.NDArray[np.float64]:
    """``(N, 2)`` box centres."""
    b = as_boxes(boxes)
    return np.column_stack([(b[:, 0] + b[:, 2]) / 2.0, (b[:, 1] + b[:, 3]) / 2.0])


def greedy_match(iou: Matrix, threshold: float) -> list[tuple[int, int]]:
    """One-to-one (row, column) pairs with IoU >= ``threshold``, taken by descending IoU."""
    rows, cols = np.nonzero(iou >= threshold)
    order = np.argsort(-iou[rows, cols], kind="stable")
    used_rows: set[int] = set()
    used_cols: set[int] = set()
    pairs = []
    for k in order:
        r, c = int(rows[k]), int(cols[k])
        if r in used_rows or c in used_cols:
            continue
        used_rows.add(r)
        used_cols.add(c)
        pairs.append((r, c))
    return pairs


def boxes_of(items: Iterable[HasBox]) -> Boxes:
    """The ``bbox`` of each item (elements, labels) as an ``(N, 4)`` array."""
    return as_boxes([item.bbox for item in items])
