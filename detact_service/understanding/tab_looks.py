"""The current tab of a tab row, by how it is drawn.

A tab bar always shows which tab is open: its tab is filled, outlined, underlined or lettered unlike its
siblings. The reader reads each tab alone and often misses that, and a tab typed by its close button (a
browser's) gets no ``selected`` state at all: on the 60 ScreenAgent desktops 16 of the 23 screens with a
row of tabs said none was open. The reader can also be sure of the wrong tab: of a page's tabs lettered in
link blue, the open one in black and framed, it took the first blue one for the open one. In a row of tabs,
the one drawn unlike the rest becomes the selected one and the others unselected, whatever the reader said:

- three tabs or more: the one whose look (:func:`tab_looks`: fill, ink, outline) stands far from the
  row's median look in some part while every other lies near it;
- two tabs: the one whose fill stands far from the row's background (the band round the two tabs), or
  whose outline stands out, while the other's does not.

A row where no tab stands out, or two do (the open one and the one under the pointer), is left as the
reader read it.
Tabs are few, so their crops are read in a loop.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from detact_service.core import Element, ElementType
from detact_service.geometry import boxes_of
from detact_service.stages import RGBImage

LOOK_PARTS = 3
"""A look: the tab's fill (its median colour), its ink (the colour of its strokes) and its outline (how far
its outer pixels lie from the fill, per channel), each an RGB triple. Not an edge's colour: a detector's box
of a tab starts a pixel or two above or below the tab's own edge, so its colour says more about the box
than about the tab; a border's contrast shows in either."""
STANDS_OUT = np.array([30.0, 90.0, 90.0], dtype=np.float32)
"""A tab stands out by a part of its look when that part lies this far (summed RGB distance, 0-765) from the
row's (a fill's shade tells; an ink or an outline must differ more, an ink's colour shifting with a glyph's
strokes and a favicon's colours, an outline's with what the box's edge grazes) ..."""
NEAR_SHARE = 0.4
"""... and every other tab's lies within this share of that distance; two parts that name two tabs name
none."""
INK_CORE = 0.6
"""The ink: the median colour of a tab's pixels at least this share of the furthest one's distance from the
fill (its strokes' cores, whatever their share of the box: anti-aliased edges left out)."""
RING = 3
"""The outline: the 90th percentile of each channel's distance from the fill over the box's outer ``RING``
pixels (a border drawn round the open tab alone)."""
SAME_LINE = 0.25
"""Tabs whose vertical centres lie within this share of the lower one's height ..."""
SAME_HEIGHT = 1.3
"""... and whose heights agree within this ratio are of one row, however far apart (a tab between them may
have been typed otherwise)."""
BAND = 0.5
"""The background of a pair of tabs: the band of their rows' height reaching this many heights beyond
them on either side, without the tabs."""


def tab_looks(image: RGBImage, boxes: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    """Each box's look (N x :data:`LOOK_PARTS` x 3): its fill and ink (:data:`INK_CORE`) colours and its
    outline (:data:`RING`)."""
    height, width = image.shape[:2]
    looks = np.zeros((len(boxes), LOOK_PARTS, 3), dtype=np.float32)
    for row, (x0, y0, x1, y1) in enumerate(np.clip(np.rint(boxes), 0, [width, height, width, height])):
        box = image[int(y0) : int(y1), int(x0) : int(x1)].astype(np.float32)
        crop = box.reshape(-1, 3)
        if len(crop) < 4:
            continue
        fill = np.median(crop, axis=0)
        distance = np.abs(crop - fill).sum(axis=1)
        furthest = float(np.percentile(distance, 99))
        ink = np.median(crop[distance >= INK_CORE * furthest], axis=0) if furthest > 0 else fill
        ring = np.ones(box.shape[:2], dtype=bool)
        ring[RING:-RING, RING:-RING] = False
        outline = np.percentile(np.abs(box[ring] - fill), 90, axis=0)
        looks[row] = (fill, ink, outline)
    return looks


def part_distances(
    looks: npt.NDArray[np.float32], reference: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """Each look's distance from ``reference`` per part (N x parts, summed RGB)."""
    return np.abs(looks - reference).sum(axis=2)


def odd_one(distance: npt.NDArray[np.float32], stands_out: npt.NDArray[np.float32]) -> int | None:
    """The one row of ``distance`` (N x parts) that stands out (:data:`STANDS_OUT`, :data:`NEAR_SHARE`) in
    some part, where no part names another; else None."""
    order = np.argsort(-distance, axis=0)
    top = np.take_along_axis(distance, order[:1], axis=0)[0]
    second = np.take_along_axis(distance, order[1:2], axis=0)[0]
    named = order[0][(top >= stands_out) & (second <= NEAR_SHARE * top)]
    return int(named[0]) if len(named) and (named == named[0]).all() else None


def band_colour(image: RGBImage, boxes: npt.NDArray[np.float64]) -> npt.NDArray[np.float32] | None:
    """The median colour of the band the tabs ``boxes`` lie in, without them (:data:`BAND`); None when the
    band holds too few pixels."""
    height, width = image.shape[:2]
    y0, y1 = int(boxes[:, 1].min()), int(np.ceil(boxes[:, 3].max()))
    reach = BAND * (y1 - y0)
    x0, x1 = int(max(0, boxes[:, 0].min() - reach)), int(min(width, np.ceil(boxes[:, 2].max() + reach)))
    inside = np.ones((max(0, min(y1, height) - y0), max(0, x1 - x0)), dtype=bool)
    for bx0, _, bx1, _ in boxes.astype(int).tolist():
        inside[:, max(0, bx0 - x0) : max(0, bx1 - x0)] = False
    pixels = image[y0 : y0 + inside.shape[0], x0:x1][inside]
    if len(pixels) < 16:
        return None
    return np.median(pixels.astype(np.float32), axis=0)


def standout(image: RGBImage, boxes: npt.NDArray[np.float64]) -> int | None:
    """The index of the one box of a row of tabs drawn unlike the rest, or None."""
    height, width = image.shape[:2]
    boxes = np.clip(boxes, 0, [width, height, width, height])
    looks = tab_looks(image, boxes)
    if len(boxes) >= 3:
        return odd_one(part_distances(looks, np.median(looks, axis=0)), STANDS_OUT)
    background = band_colour(image, boxes)
    if background is None:
        return None
    # of two, neither is the row's norm: the fills against the ground, the outlines against none
    distance = np.column_stack([part_distances(looks[:, :1], background), looks[:, 2].sum(axis=1)])
    return odd_one(distance, STANDS_OUT[[0, 2]])


def tab_rows(boxes: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """Each tab's row (:data:`SAME_LINE`, :data:`SAME_HEIGHT`), -1 for a tab alone on its line."""
    height = np.maximum(boxes[:, 3] - boxes[:, 1], 1.0)
    centre = (boxes[:, 1] + boxes[:, 3]) / 2
    low = np.minimum(height[:, None], height[None, :])
    linked = (np.abs(centre[:, None] - centre[None, :]) <= SAME_LINE * low) & (
        np.maximum(height[:, None], height[None, :]) <= SAME_HEIGHT * low
    )
    _, labels = connected_components(csr_matrix(linked), directed=False)
    return np.where(np.bincount(labels)[labels] >= 2, labels, -1).astype(np.int64)


def selected_as(element: Element, selected: bool) -> Element:
    """``element`` with its ``selected`` state set."""
    return element.replace(state=dataclasses.replace(element.state, selected=selected))


def current_tabs(image: RGBImage, elements: Sequence[Element]) -> list[Element]:
    """``elements`` with the tab drawn unlike its row's others selected in each row of tabs (and those others
    unselected), whichever tab the reader had selected."""
    out = list(elements)
    tabs = np.flatnonzero([e.type is ElementType.TAB for e in elements])
    if len(tabs) < 2:
        return out
    boxes = boxes_of([elements[i] for i in tabs.tolist()]).astype(np.float64)
    rows = tab_rows(boxes)
    for row in np.unique(rows[rows >= 0]).tolist():
        members = tabs[rows == row]
        picked = standout(image, boxes[rows == row])
        if picked is None:
            continue
        for k, index in enumerate(members.tolist()):
            out[index] = selected_as(elements[index], k == picked)
    return out
