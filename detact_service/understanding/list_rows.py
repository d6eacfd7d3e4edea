"""Rows of a list drawn with no edges, found from what lines up in them.

An app's list (a mail inbox, a people list, a settings list) often draws no divider, background or frame
round its rows: the detector finds a row's icon, text and action button but not the row, and
:mod:`~detact_service.understanding.ruled_cells` needs a rule to close one. Such a list still shows its
rows by alignment: each row starts with the same kind of thing at the same x (a check box, an icon, or its
title) and most rows end with a control or a date right-aligned at one x far to the right. A stack of at
least :data:`MIN_ROWS` such lines becomes one ``list_item`` per line, from its start to that shared right
end, each reaching halfway to the next (a row's padding), holding its texts and bare glyphs as one element
(issue 19: "a list row with its icon and two text lines is one element whose text is the row's text"); its
controls (a check box, a star button, a link) stay elements of their own inside it.

Not a list: a table (cells side by side with no gap: ruled cells), a form (rows holding fields), a column
of numbers (row headers), a line already boxed as a row. Pointer screens only: the phone detector boxes a
phone's rows itself.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from detact_service import geometry
from detact_service.core import PHONE_ASPECT, Element, ElementType, ScreenParse

LIST_ROW_SOURCE = "list-row"
"""The ``source`` of an element this rule builds."""
MIN_ROWS = 3
"""Lines a list has at least."""
GLYPH_SIDES = (8, 48)
"""A leading or trailing glyph's sides in pixels (at least, at most) ..."""
GLYPH_ASPECT = (0.6, 1.6)
"""... and its width over its height."""
LEAD_X = 4
"""The starts of a list's lines lie within this many pixels of the one above ..."""
LEAD_X_SPREAD = 10
"""... and of the first line's."""
STEP = (1.2, 5.0)
"""From one line's centre to the next: at least and at most this many line heights (a stacked list)."""
LEAD_HEIGHTS = 1.6
"""Heights of consecutive leads within this factor."""
WORDY_MAX_HEIGHT = 80
"""A line's title is at most this tall (a paragraph is no row)."""
TITLED_SHARE = 0.8
"""A list led by glyphs has a title (a text) beside at least this share of them."""
END_TOLERANCE = 6
"""Trailing items line up when their right ends, or their centres, lie within this many pixels."""
END_SUPPORT = 0.5
"""The shared right end is found on at least this share of the lines (and on two)."""
TRAIL_GAP = 3.0
"""Trailing items start at least this many lead heights right of the lead (a row's far end) ..."""
END_GAP = 3.0
"""... and the right end lies this many line heights past every lead."""
CROSSING = 48
"""An element reaching from this far left of the right end past it (by more than 12 px) spans the list:
no rows."""
FIELD_SHARE = 1 / 3
"""A stack whose lines hold a field (an input, a dropdown, a slider) in more than this share is a form."""
ROW_OVERLAP = 0.5
"""A row already boxed at this IoU is left as it is."""

GLYPH_TYPES = frozenset(
    {ElementType.ICON, ElementType.CHECKBOX, ElementType.RADIO, ElementType.BUTTON, ElementType.IMAGE}
)
TRAILING_TYPES = frozenset({ElementType.ICON, ElementType.BUTTON, ElementType.IMAGE})
WORDY_TYPES = frozenset({ElementType.TEXT, ElementType.LIST_ITEM, ElementType.LINK, ElementType.MENU_ITEM})
FIELD_TYPES = frozenset(
    {
        ElementType.INPUT,
        ElementType.DROPDOWN,
        ElementType.SLIDER,
        ElementType.TEXTAREA,
        ElementType.TOGGLE,
        ElementType.SCROLLBAR,
    }
)
ABSORBED_TYPES = frozenset(
    {ElementType.TEXT, ElementType.ICON, ElementType.IMAGE, ElementType.LIST_ITEM, ElementType.MENU_ITEM}
)
"""What a row takes in (its title, texts and bare glyphs); every other element stays apart inside it."""
LETTER = re.compile(r"[^\W\d_]")

Boxes = npt.NDArray[np.float64]
Mask = npt.NDArray[np.bool_]


def list_rows(parse: ScreenParse) -> ScreenParse:
    """``parse`` with the rows of its edgeless lists as elements (see the module); ids renumbered."""
    if parse.height >= PHONE_ASPECT * parse.width or len(parse.elements) < 2 * MIN_ROWS:
        return parse
    rows = find_rows(parse.elements, parse.width, parse.height)
    if not rows:
        return parse
    elements = parse.elements
    rows_at: dict[int, Element] = {}
    gone: set[int] = set()
    for box, members in rows:
        absorbed = sorted(m for m in members if elements[m].type in ABSORBED_TYPES)
        if not absorbed:
            continue
        reading = sorted(absorbed, key=lambda m: (elements[m].bbox[1], elements[m].bbox[0]))
        rows_at[absorbed[0]] = Element(
            bbox=box,
            type=ElementType.LIST_ITEM,
            score=max(elements[m].score for m in absorbed),
            source=LIST_ROW_SOURCE,
            text=" ".join(t for t in (elements[m].text for m in reading) if t) or None,
        )
        gone.update(absorbed[1:])
    kept = [rows_at.get(i, e) for i, e in enumerate(elements) if i not in gone]
    return parse.with_elements([e.replace(id=i) for i, e in enumerate(kept)])


def find_rows(
    elements: Sequence[Element], width: int, height: int
) -> list[tuple[tuple[int, int, int, int], list[int]]]:
    """Each row found: its box and the indices of the elements on it (its lead first)."""
    boxes = geometry.boxes_of(elements)
    sides = boxes[:, 2:] - boxes[:, :2]
    heights = sides[:, 1]
    centres = (boxes[:, 1] + boxes[:, 3]) / 2
    types = [e.type for e in elements]
    aspect = sides[:, 0] / np.maximum(sides[:, 1], 1)
    glyph = (
        np.isin(types, list(GLYPH_TYPES))
        & (sides >= GLYPH_SIDES[0]).all(axis=1)
        & (sides <= GLYPH_SIDES[1]).all(axis=1)
        & (aspect >= GLYPH_ASPECT[0])
        & (aspect <= GLYPH_ASPECT[1])
    )
    trailing = glyph & np.isin(types, list(TRAILING_TYPES))
    field = np.isin(types, list(FIELD_TYPES))
    wordy = np.asarray(
        [t in WORDY_TYPES and bool(e.text) for t, e in zip(types, elements, strict=True)], dtype=bool
    ) & (heights <= WORDY_MAX_HEIGHT)
    lettered = np.zeros(len(elements), dtype=bool)
    lettered[wordy] = [bool(LETTER.search(elements[i].text or "")) for i in np.flatnonzero(wordy).tolist()]
    # on_line[i, j]: j's vertical span holds i's centre
    on_line = (boxes[None, :, 1] <= centres[:, None]) & (boxes[None, :, 3] >= centres[:, None])
    np.fill_diagonal(on_line, False)
    just_left = (boxes[None, :, 2] <= boxes[:, None, 0] + 2) & (
        boxes[None, :, 0] >= boxes[:, None, 0] - 3 * heights[:, None]
    )
    first_on_line = ~(on_line & just_left).any(axis=1)
    found: list[tuple[tuple[int, int, int, int], list[int]]] = []
    used = np.zeros(len(elements), dtype=bool)
    for leads, led_by_glyphs in ((glyph, True), (wordy & lettered, False)):
        for stack in lead_stacks(np.flatnonzero(leads & first_on_line), boxes, centres, heights):
            if used[stack].any():
                continue
            lines = [np.flatnonzero(on_line[i] & (boxes[:, 0] >= boxes[i, 2] - 2)) for i in stack]
            if led_by_glyphs and sum(bool(wordy[line].any()) for line in lines) < TITLED_SHARE * len(stack):
                continue
            right = shared_right_end(stack, lines, boxes, heights, trailing if not led_by_glyphs else None)
            if right is None:
                continue
            rows = stack_rows(stack, lines, right, boxes, wordy, field, width, height)
            for box, members in rows:
                found.append((box, members))
                used[members] = True
    return found


def lead_stacks(
    leads: npt.NDArray[np.int64],
    boxes: Boxes,
    centres: npt.NDArray[np.float64],
    heights: npt.NDArray[np.float64],
) -> list[list[int]]:
    """Leads that start at one x (:data:`LEAD_X`, :data:`LEAD_X_SPREAD`) stacked at a list's steps, left to
    right; each stack top to bottom, at least :data:`MIN_ROWS` long."""
    order = leads[np.argsort(boxes[leads, 0], kind="stable")]
    columns: list[list[int]] = []
    for index in order.tolist():
        column = columns[-1] if columns else None
        x = boxes[index, 0]
        if column and x - boxes[column[-1], 0] <= LEAD_X and x - boxes[column[0], 0] <= LEAD_X_SPREAD:
            column.append(index)
        else:
            columns.append([index])
    stacks: list[list[int]] = []
    for column in columns:
        column.sort(key=lambda i: centres[i])
        stack = column[:1]
        for above, below in itertools.pairwise(column):
            tallest = max(heights[above], heights[below])
            step = centres[below] - centres[above]
            alike = (
                heights[below] <= LEAD_HEIGHTS * heights[above]
                and heights[above] <= LEAD_HEIGHTS * heights[below]
            )
            if STEP[0] * tallest < step < STEP[1] * tallest and alike:
                stack.append(below)
                continue
            if len(stack) >= MIN_ROWS:
                stacks.append(stack)
            stack = [below]
        if len(stack) >= MIN_ROWS:
            stacks.append(stack)
    return stacks


def shared_right_end(
    stack: list[int],
    lines: list[npt.NDArray[np.int64]],
    boxes: Boxes,
    heights: npt.NDArray[np.float64],
    trailing: Mask | None,
) -> float | None:
    """The right end that most lines' far items share (right ends or centres within
    :data:`END_TOLERANCE`), when enough share it and it lies well past the leads; ``trailing`` limits the
    items to trailing glyphs (a list led by titles)."""
    far = [
        line[boxes[line, 0] > boxes[i, 2] + TRAIL_GAP * heights[i]]
        for i, line in zip(stack, lines, strict=True)
    ]
    if trailing is not None:
        far = [items[trailing[items]] for items in far]
    best, right = 0, None
    for values in (
        [boxes[items, 2] for items in far],
        [(boxes[items, 0] + boxes[items, 2]) / 2 for items in far],
    ):
        pooled = np.unique(np.round(np.concatenate(values)))
        for value in pooled.tolist():
            hits = [items[np.abs(v - value) <= END_TOLERANCE] for items, v in zip(far, values, strict=True)]
            support = sum(bool(len(h)) for h in hits)
            if support > best:
                best, right = support, max(float(boxes[h, 2].max()) for h in hits if len(h))
    if right is None or best < max(2, END_SUPPORT * len(stack)):
        return None
    if right - boxes[stack, 2].max() < END_GAP * float(np.median(heights[stack])):
        return None
    return right


def stack_rows(
    stack: list[int],
    lines: list[npt.NDArray[np.int64]],
    right: float,
    boxes: Boxes,
    wordy: Mask,
    field: Mask,
    width: int,
    height: int,
) -> list[tuple[tuple[int, int, int, int], list[int]]]:
    """The stack's rows (box, lead and members) out to ``right``; none for a table, a form or a list already
    boxed."""
    spans: list[tuple[int, list[int], float, float]] = []
    for lead, line in zip(stack, lines, strict=True):
        if ((boxes[line, 0] < right - CROSSING) & (boxes[line, 2] > right + 12)).any():
            return []
        members = line[boxes[line, 0] < right - 4]
        if abutting_texts(np.r_[lead, members], boxes, wordy):
            return []
        group = np.r_[lead, members]
        spans.append((lead, members.tolist(), float(boxes[group, 1].min()), float(boxes[group, 3].max())))
    if sum(bool(field[members].any()) for _, members, _, _ in spans) > FIELD_SHARE * len(spans):
        return []
    gaps = np.asarray([below[2] - above[3] for above, below in itertools.pairwise(spans)])
    if (gaps < -2).any():
        return []
    half = max(0.0, float(np.median(gaps)) / 2)
    candidates: list[tuple[tuple[int, int, int, int], list[int]]] = []
    for k, (lead, members, top, bottom) in enumerate(spans):
        row_top = (spans[k - 1][3] + top) / 2 if k else top - half
        row_bottom = (bottom + spans[k + 1][2]) / 2 if k + 1 < len(spans) else bottom + half
        pad = max(0.0, (row_bottom - row_top - (bottom - top)) / 2)
        box = (
            round(max(0.0, boxes[lead, 0] - pad)),
            round(max(0.0, row_top)),
            round(min(float(width), right + pad)),
            round(min(float(height), row_bottom)),
        )
        if box[2] > box[0] and box[3] > box[1]:
            candidates.append((box, [lead, *members]))
    if not candidates:
        return []
    boxed = geometry.iou_matrix(np.asarray([box for box, _ in candidates], dtype=np.float64), boxes)
    return [row for row, best in zip(candidates, boxed.max(axis=1), strict=True) if best < ROW_OVERLAP]


def abutting_texts(group: npt.NDArray[np.int64], boxes: Boxes, wordy: Mask) -> bool:
    """Two texts of one line side by side with no gap (-2 to 3 px) and overlapping by half their height: a
    table's ruled cells."""
    order = group[np.argsort(boxes[group, 0], kind="stable")]
    left, right = order[:-1], order[1:]
    gap = boxes[right, 0] - boxes[left, 2]
    overlap = np.minimum(boxes[left, 3], boxes[right, 3]) - np.maximum(boxes[left, 1], boxes[right, 1])
    shorter = np.minimum(boxes[left, 3] - boxes[left, 1], boxes[right, 3] - boxes[right, 1])
    return bool(((gap >= -2) & (gap <= 3) & wordy[left] & wordy[right] & (overlap > 0.5 * shorter)).any())
