"""Boxes that line up: the rows of a column (a menu, a list, a table's column) and the items of a row (a tab
bar, a toolbar), for the layout rules that type a group's members alike."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

COLUMN_ALIGN = 0.03
"""Boxes whose left and right edges agree within this share of their width (at least 4 px) ..."""
COLUMN_HEIGHT = 1.25
"""... whose heights agree within this ratio ..."""
COLUMN_GAP = 0.5
"""... and that follow one another down the screen at most this many heights apart are rows of one column
(a menu, a list, a table's column)."""
COLUMN_ROWS = 3
"""A column of at least this many rows takes one type."""
LIST_TOUCH = 2.0
"""Rows that follow one another this many pixels apart or fewer (a list's rows, drawn without a gap) ..."""
LIST_HEIGHT = 2.0
"""... are rows of one column when their heights agree within this ratio (a list's rows of one and two
lines), not only :data:`COLUMN_HEIGHT` ..."""
LIST_ASPECT = 6.0
"""... and each is this many times as wide as the taller is high (a list's rows: a table's cells, below
their taller header, are narrower)."""
ROW_GAP = 1.0
"""Boxes side by side at most this many heights apart are items of one row (:func:`row_groups`)."""


def stacked(
    boxes: npt.NDArray[np.float64],
    size_ratio: float | None = COLUMN_HEIGHT,
    max_gap: float = COLUMN_GAP,
    ragged: bool = False,
    touching_ratio: float | None = None,
) -> npt.NDArray[np.bool_]:
    """``[i, j]``: box ``j`` lies directly under box ``i`` with the same left and right edges
    (:data:`COLUMN_ALIGN`, the left edges alone when ``ragged``), heights within ``size_ratio`` of each
    other unless None (``touching_ratio`` where the two touch, :data:`LIST_TOUCH`), at most ``max_gap`` of
    the smaller height below it."""
    x0, y0, x1, y1 = boxes.T
    width, height = np.maximum(x1 - x0, 1.0), np.maximum(y1 - y0, 1.0)
    tolerance = np.maximum(4.0, COLUMN_ALIGN * np.minimum(width[:, None], width[None, :]))
    linked = np.abs(x0[:, None] - x0[None, :]) <= tolerance
    if not ragged:
        linked &= np.abs(x1[:, None] - x1[None, :]) <= tolerance
    low = np.minimum(height[:, None], height[None, :])
    gap = y0[None, :] - y1[:, None]  # [above, below]
    if size_ratio is not None:
        ratio = np.maximum(height[:, None], height[None, :]) / low
        alike = ratio <= size_ratio
        if touching_ratio is not None:
            high = np.maximum(height[:, None], height[None, :])
            wide = np.minimum(width[:, None], width[None, :]) >= LIST_ASPECT * high
            alike |= (np.abs(gap) <= LIST_TOUCH) & (ratio <= touching_ratio) & wide
        linked &= alike
    linked &= (gap <= max_gap * low) & (gap >= -0.25 * low)
    np.fill_diagonal(linked, False)
    return linked


def column_groups(
    boxes: npt.NDArray[np.float64],
    size_ratio: float | None = COLUMN_HEIGHT,
    max_gap: float = COLUMN_GAP,
    ragged: bool = False,
    touching_ratio: float | None = None,
) -> npt.NDArray[np.int64]:
    """Each box's column (boxes :func:`stacked` one under another), -1 for a box in a column of fewer than
    :data:`COLUMN_ROWS`. A row of boxes is a column of the boxes transposed (:func:`row_groups`)."""
    if not len(boxes):
        return np.zeros(0, dtype=np.int64)
    linked = stacked(boxes, size_ratio, max_gap, ragged, touching_ratio)
    _, labels = connected_components(csr_matrix(linked), directed=False)  # undirected: either way links
    sizes = np.bincount(labels)
    return np.where(sizes[labels] >= COLUMN_ROWS, labels, -1).astype(np.int64)


def list_groups(boxes: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """:func:`column_groups` where rows that touch (a list's) may differ in height up to
    :data:`LIST_HEIGHT`."""
    return column_groups(boxes, touching_ratio=LIST_HEIGHT)


def row_groups(boxes: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """Each box's row: boxes side by side with the same top and bottom edges, at most
    :data:`ROW_GAP` of their height apart, whatever their widths (a tab bar); -1 for fewer than
    :data:`COLUMN_ROWS`."""
    return column_groups(boxes[:, [1, 0, 3, 2]], size_ratio=None, max_gap=ROW_GAP)
