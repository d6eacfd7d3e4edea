"""A table's header row: the sections atop its columns are buttons.

A header section (a file list's ``Name``, ``Size``, ``Modified``) sorts or selects its column when clicked,
but the reader, seeing it alone, calls it text or a list row. Its place gives it away: each section sits
directly on a column of the table's cells, with the same left and right edges, and nothing of the table
lies above it. It must also stand apart from the body, read otherwise (text or a button over list rows)
or drawn at another height: a table whose header was not boxed has a first row read and drawn as its
other rows, which stays a row.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from detact_service.core import ElementType
from detact_service.understanding.alignment import row_groups, stacked

HEADER_TYPES = frozenset({ElementType.TEXT, ElementType.BUTTON})
"""What the reader may have called a header section."""
CELL_TYPES = frozenset({ElementType.LIST_ITEM})
"""What it called the cells of the column below."""
HEADER_GAP = 0.5
"""A section lies at most this many of the smaller height above its column's first cell ..."""
HEADER_HEIGHT = 2.0
"""... and is at most this many times as tall or short as that cell."""
HEADER_STEP = 0.1
"""A section read as a cell is told from the body by a height this share above or below its cell's (a Qt
header's 18-26 px over rows of 29; a table's rows are one height, so its first row is not told)."""
HEADER_SECTIONS = 3
"""A header row has at least this many sections (a table of three columns or more)."""


def header_sections(boxes: npt.NDArray[np.float64], types: Sequence[ElementType]) -> npt.NDArray[np.bool_]:
    """Which boxes are sections of a table's header row: each on a body cell (a cell read as
    :data:`CELL_TYPES` with a cell of its own under it), under no cell itself, told from the body either by
    the reader (read as :data:`HEADER_TYPES`) or by its height (:data:`HEADER_STEP`), and side by side in a
    row (:func:`row_groups`) of at least :data:`HEADER_SECTIONS` such boxes."""
    sections = np.zeros(len(boxes), dtype=bool)
    if len(boxes) < 3 * HEADER_SECTIONS:
        return sections
    headed = np.asarray([t in HEADER_TYPES for t in types], dtype=bool)
    cells = np.asarray([t in CELL_TYPES for t in types], dtype=bool)
    if (headed | cells).sum() < 3 * HEADER_SECTIONS:
        return sections
    under = stacked(boxes, size_ratio=HEADER_HEIGHT, max_gap=HEADER_GAP)
    body = cells & (under & cells[None, :]).any(axis=1)  # a cell with another under it
    on_body = under & body[None, :]
    height = np.maximum(boxes[:, 3] - boxes[:, 1], 1.0)
    taller_or_shorter = np.abs(height[:, None] - height[None, :]) >= HEADER_STEP * height[None, :]
    told = (headed & on_body.any(axis=1)) | (cells & (on_body & taller_or_shorter).any(axis=1))
    atop = told & ~(under & cells[:, None]).any(axis=0)
    if atop.sum() < HEADER_SECTIONS:
        return sections
    index = np.flatnonzero(atop)
    rows = row_groups(boxes[index])
    sections[index[rows >= 0]] = True
    return sections
