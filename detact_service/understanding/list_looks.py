"""The selected row of a list, by how it is drawn.

A list shows its selected row filled in an accent colour or a shade unlike its other rows. The reader reads
each row alone and misses that where a page styles it otherwise than it learnt. In a list of rows (list
rows or menu items that follow one another, :func:`.alignment.list_groups`) none of which is selected, the
one row whose fill (:func:`.tab_looks.tab_looks`) stands far from the list's median fill while every other
lies near it becomes the selected one, and the others unselected. Only where each row touches the next
(a form's fields and buttons, misread as a list's rows, stand apart), not a list's top row (a table's
header above its rows is drawn unlike them), not in a list of three (a striped table's three rows read as
one standing out), and only wide rows (a table's narrow cells are no list).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from detact_service.core import Element, ElementType
from detact_service.geometry import boxes_of
from detact_service.stages import RGBImage
from detact_service.understanding.alignment import list_groups
from detact_service.understanding.tab_looks import odd_one, part_distances, selected_as, tab_looks

ROW_TYPES = frozenset({ElementType.LIST_ITEM, ElementType.MENU_ITEM})
"""The types of a list's rows."""
MIN_ROWS = 4
"""A list of at least this many rows ..."""
MIN_ASPECT = 6.0
"""... whose rows are at least this many times as wide as high (the median row) ..."""
ROW_GAP = 4
"""... that follow one another at most this many pixels apart or into each other ..."""
FILL_STANDS_OUT = np.array([60.0], dtype=np.float32)
"""... selects the row whose fill lies this far (summed RGB distance, 0-765) from the list's median fill,
every other within :data:`.tab_looks.NEAR_SHARE` of that."""


def current_rows(image: RGBImage, elements: Sequence[Element]) -> list[Element]:
    """``elements`` with the row filled unlike its list's others selected in each list where none is (and
    those others unselected)."""
    out = list(elements)
    rows = np.flatnonzero([e.type in ROW_TYPES for e in elements])
    if len(rows) < MIN_ROWS:
        return out
    height, width = image.shape[:2]
    boxes = np.clip(boxes_of([elements[i] for i in rows.tolist()]), 0, [width, height, width, height])
    groups = list_groups(boxes)
    for group in np.unique(groups[groups >= 0]).tolist():
        inside = groups == group
        members, listed = rows[inside], boxes[inside]
        aspect = (listed[:, 2] - listed[:, 0]) / np.maximum(listed[:, 3] - listed[:, 1], 1.0)
        downwards = np.argsort(listed[:, 1])
        gaps = listed[downwards[1:], 1] - listed[downwards[:-1], 3]
        if (
            len(members) < MIN_ROWS
            or float(np.median(aspect)) < MIN_ASPECT
            or (np.abs(gaps) > ROW_GAP).any()
            or any(elements[i].state.selected for i in members.tolist())
        ):
            continue
        fills = tab_looks(image, listed)[:, :1]
        picked = odd_one(part_distances(fills, np.median(fills, axis=0)), FILL_STANDS_OUT)
        if picked is None or picked == int(downwards[0]):
            continue
        for k, index in enumerate(members.tolist()):
            out[index] = selected_as(elements[index], k == picked)
    return out
