"""Interactive labels grouped into controls, for recall per control beside recall per label.

The data engine labels nested elements one by one: an icon inside its icon button, an anchor filling its
list item. A parser that gives each control once (what the merge aims for, issue 19) can match only one
box of such a pair, so recall per label cannot reach 1 for it. Recall per control counts a pair once,
found when either of its boxes is found:

- two labels at nearly the same box (IoU >= :data:`SAME_BOX_IOU`: ``<li>`` round its ``<a>``) are one
  control;
- a label inside another (:data:`INSIDE` of its area) that is the only interactive label in it (the icon of
  an icon button) is one control with it. A label holding several (a list row with a checkbox and a
  star) keeps them all apart.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from detact_service.geometry import BoxLike, containment, iou_matrix

SAME_BOX_IOU = 0.8
INSIDE = 0.9


def control_groups(boxes: BoxLike) -> npt.NDArray[np.int64]:
    """The control (a group id, 0..n-1) of each interactive label box."""
    array = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    count = len(array)
    if count < 2:
        return np.zeros(count, dtype=np.int64)
    same = iou_matrix(array, array) >= SAME_BOX_IOU
    inside = containment(array, array) >= INSIDE  # [inner, outer]
    np.fill_diagonal(inside, False)
    only_child = inside & (inside.sum(axis=0) == 1)[None, :]
    linked = same | only_child | only_child.T
    np.fill_diagonal(linked, False)
    graph = coo_matrix(linked.astype(np.int8))
    _, groups = connected_components(graph, directed=False)
    return groups.astype(np.int64)


def controls_found(boxes: BoxLike, found: npt.NDArray[np.bool_]) -> tuple[int, int]:
    """(controls, controls with at least one of their labels ``found``) among the interactive boxes."""
    groups = control_groups(boxes)
    if not len(groups):
        return 0, 0
    total = int(groups.max()) + 1
    return total, len(np.unique(groups[np.asarray(found, dtype=bool)]))
