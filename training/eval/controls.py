"""Interactive labels grouped into controls, for recall per control beside recall per label.

The data engine labels nested elements one by one: an icon inside its icon button, an anchor filling its
list item. A parser that gives each control once (what the merge aims for, issue 19) can match only one
box of such a pair, so recall per label cannot reach 1 for it. Recall per control counts a pair once,
found when either of its boxes is found:

- two labels at nearly the same box (IoU >= :data:`SAME_BOX_IOU`: ``<li>`` round its ``<a>``) are one
  control;
- a label inside another (:data:`INSIDE` of its area) that is the only interactive label in it (the icon of
  an icon button) is one control with it. A label holding several (a list row with a checkbox and a
  star) keeps them all apart;
- a bare glyph (an ``icon`` label, no button of its own) is one control with the smallest other label
  round it, however many that holds: a list row's leading icon is part of the row, as issue 19 asks of
  the merge ("a list row with its icon and two text lines is one element"), while a button or check box
  in the row stays its own control.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from detact_service.geometry import BoxLike, containment, iou_matrix

SAME_BOX_IOU = 0.8
INSIDE = 0.9


def control_groups(boxes: BoxLike, glyphs: npt.ArrayLike | None = None) -> npt.NDArray[np.int64]:
    """The control (a group id, 0..n-1) of each interactive label box; ``glyphs`` marks the bare glyphs
    (``icon`` labels), each joined to the smallest other label round it."""
    array = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    count = len(array)
    if count < 2:
        return np.zeros(count, dtype=np.int64)
    same = iou_matrix(array, array) >= SAME_BOX_IOU
    inside = containment(array, array) >= INSIDE  # [inner, outer]
    np.fill_diagonal(inside, False)
    only_child = inside & (inside.sum(axis=0) == 1)[None, :]
    linked = same | only_child | only_child.T | glyph_holders(array, inside, glyphs)
    np.fill_diagonal(linked, False)
    graph = coo_matrix(linked.astype(np.int8))
    _, groups = connected_components(graph, directed=False)
    return groups.astype(np.int64)


def glyph_holders(
    boxes: npt.NDArray[np.float64], inside: npt.NDArray[np.bool_], glyphs: npt.ArrayLike | None
) -> npt.NDArray[np.bool_]:
    """Symmetric links from each bare glyph to the smallest non-glyph label holding it."""
    links = np.zeros(inside.shape, dtype=bool)
    if glyphs is None:
        return links
    glyph = np.asarray(glyphs, dtype=bool).reshape(-1)
    holds = inside & glyph[:, None] & ~glyph[None, :]
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    held = np.flatnonzero(holds.any(axis=1))
    smallest = np.argmin(np.where(holds[held], areas[None, :], np.inf), axis=1)
    links[held, smallest] = True
    return links | links.T


def controls_found(
    boxes: BoxLike, found: npt.NDArray[np.bool_], glyphs: npt.ArrayLike | None = None
) -> tuple[int, int]:
    """(controls, controls with at least one of their labels ``found``) among the interactive boxes."""
    groups = control_groups(boxes, glyphs)
    if not len(groups):
        return 0, 0
    total = int(groups.max()) + 1
    return total, len(np.unique(groups[np.asarray(found, dtype=bool)]))
