"""Text in a ruled table cell takes the cell's extent.

A table's cell (a spreadsheet's, a file list's) is a control at its whole extent, a selectable item,
while OCR boxes only its text: a short date in a wide column matches its cell at IoU 0.1. Where long
straight rules (grid lines, the edges of striped rows) enclose a free text line and nothing else, the line
takes the enclosed rectangle. A line read across a vertical rule (OCR joins two cells' words,
``696.35 Done``) is first cut there, between its words.

Rules are found once per screen from the pixels: grey steps of :data:`RULE_CONTRAST` or more between
neighbouring pixels, kept where they run straight for :data:`RULE_LENGTH` pixels (horizontal rules) or
:data:`RULE_HEIGHTS` text heights (vertical ones, longer than any letter's stem); the cells are the
connected regions the rules leave (OpenCV morphology and connected components, at half scale). A line is
cut only at a thin line of one shade drawn across its whole box: stacked letter stems, JPEG noise and the
edge between two grounds are no rules.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from detact_service.core import DETECTOR_SOURCE, Element, ElementType
from detact_service.detectors.classical_pixels import box_sums
from detact_service.geometry import boxes_of, containment
from detact_service.stages import RGBImage
from detact_service.understanding.glyph_text import is_glyph_text, is_letter_text

RULE_CONTRAST = 5
"""Grey step (0-255) of a rule's edge: a dark theme's grid lines differ from its rows by 7."""
RULE_LENGTH = 30
"""Pixels a horizontal rule runs straight at least."""
RULE_HEIGHTS = 2.5
"""Text heights a vertical rule runs straight at least (a letter's stem is one at most)."""
DARK_CONTRAST = 3
"""Grey step (0-255) of a vertical rule's edge where its darker side is darker than :data:`DARK_GROUND`: JPEG
brings a dark theme's grid line, 7 levels off its rows, under :data:`RULE_CONTRAST` on a third of its rows
(on a light ground the lower step finds digits' stems and ripples in a spreadsheet's cells)."""
DARK_GROUND = 72
"""Grey level below which a ground is a dark theme's."""
RULE_STEADY = 0.8
"""Share of a vertical rule's rows whose grey steps across it by :data:`RULE_CONTRAST` (on a dark ground
:data:`DARK_CONTRAST`; :func:`steady_runs`): a rule is one line drawn down its whole length (crossings
bridged), where the stems of digits stacked down a spreadsheet's column step only inside each row's text
(with the grid line between them, they passed the length test and cut the cells up) ..."""
RULE_FLIPS = 0.1
"""... and at most this share of its rows step the other way from the row before: a rule between striped
rows is lighter than one stripe and darker than the next, so it flips once a row, where JPEG's ripples flip
every other pixel."""
RULE_SPREAD = 64
"""Grey levels a rule's pixels span across a line it cuts (one pixel off at each end): a rule is drawn in
one shade, where a letter's stem gives way to the ground (JPEG spreads a grey grid line's shade over 30-60
levels; stems and ripples no longer pass for rules since :data:`RULE_STEADY`, this guard's first job)."""
CELL_GROW = 2
"""Pixels a cell reaches past the region its rules leave, on every side (into the rules)."""
CROSSING_GAP = 5
"""Pixels of a vertical rule that a crossing horizontal one may interrupt."""
CELL_HEIGHTS = 2.5
"""A cell is at most this many of its text's heights tall (taller: a panel round a line)."""
CELL_WIDTH = 0.75
"""A cell is at most this share of the screen wide."""
CELL_FILL = 0.8
"""Share of a cell's bounding box its region fills (a rectangle, not a region leaking round rules)."""
TEXT_INSIDE = 0.75
"""Share of the text's box inside the cell."""
CUT_COVER = 0.75
"""Share of a text's height a vertical rule crosses for the text to be cut there (as a thin line: a letter
within two pixels of it, or a crossing grid line, hides it on a JPEG spreadsheet's row)."""
PIECE_HEIGHTS = 0.6
"""A cut leaves pieces at least this many line heights wide (a letter); a rule nearer a box's end is the
cell's border, round the padded box."""
POOL = 2
"""Scale down of the rule mask whose regions are labelled."""
CELL_HOLDERS = frozenset(
    {ElementType.TEXT, ElementType.BUTTON, ElementType.LIST_ITEM, ElementType.LINK, ElementType.ICON}
)
"""Widgets with text that may be a cell's caption boxed by a detector; one drawn in a frame of its own (a
button) keeps its extent (:func:`is_framed`)."""
FRAME_SPAN = 0.7
"""Share of a box's width a frame's edge spans (and at most the rest of it outside the box)."""
FRAME_SLACK = 3
"""Pixels between a detector's box and the frame it found."""
FRAME_REACH = 12
"""Pixels past a box's ends where a table's row line runs on and a frame's edge has stopped."""
WORD_SLACK = 0.15
"""How far (share of the line's width) a word boundary may lie from the rule that cuts there."""
BAND_HEIGHTS = 4.5
"""A list row between two dividers is at most this many text heights tall."""
BAND_COVER = 0.95
"""Share of a text's width a divider runs under (or over) it."""
BAND_ENDS = 0.05
"""Share of a row's width by which its two dividers' ends may differ (a list's first row lies under the
panel's edge, a little wider than the dividers)."""
BAND_LEAD = 4.0
"""Text heights between a row's left end and its text (a leading icon's room): a title centred in a bar is
no row."""
BAND_INSIDE = 0.9
"""Share of a textless box inside a text's list row for it to be the row drawn again (when it also holds the
text's centre)."""
BAND_TRAIL = 2.5
"""Text heights from a row's right end within which a widget's centre lies when it is the row's trailing
icon (a chevron, a delete button)."""
BAND_ROOM = 2.0
"""Text heights by which a row is wider than its text at least (a rule drawn only under the text is an
underline)."""

Mask = npt.NDArray[np.uint8]
Grey = npt.NDArray[np.uint8]
IntBoxes = npt.NDArray[np.int64]


def horizontal_rules(grey: Grey) -> Mask:
    """The horizontal rules of a screenshot's grey image (a 0/1 mask, one pixel where a rule's edge steps)."""
    down = np.zeros(grey.shape, np.uint8)
    if grey.shape[0] < 2 or grey.shape[1] < 1:  # no steps (and OpenCV gives None for empty arrays)
        return down
    down[:-1] = cv2.absdiff(grey[1:], grey[:-1]) >= RULE_CONTRAST
    return np.asarray(cv2.morphologyEx(down, cv2.MORPH_OPEN, np.ones((1, RULE_LENGTH), np.uint8)), np.uint8)


def vertical_rules(grey: Grey, text_height: float) -> Mask:
    """The vertical rules (longer than :data:`RULE_HEIGHTS` text heights; crossings bridged; steady,
    :func:`steady_runs`)."""
    if grey.shape[1] < 2 or grey.shape[0] < 1:
        return np.zeros(grey.shape, np.uint8)
    columns = np.ascontiguousarray(grey.T)  # each column a row: runs along contiguous memory
    rises = np.zeros(columns.shape, np.uint8)
    falls = np.zeros(columns.shape, np.uint8)
    rises[:-1] = cv2.subtract(columns[1:], columns[:-1])  # saturating: each one way only
    falls[:-1] = cv2.subtract(columns[:-1], columns[1:])
    # a step whose darker side is a dark ground is lifted by the two contrasts' difference
    lift = np.zeros(columns.shape, np.uint8)
    darker = cv2.min(columns[1:], columns[:-1])
    extra = RULE_CONTRAST - DARK_CONTRAST
    lift[:-1] = cv2.threshold(darker, DARK_GROUND - 1, extra, cv2.THRESH_BINARY_INV)[1]
    up, down = cv2.add(rises, lift) >= RULE_CONTRAST, cv2.add(falls, lift) >= RULE_CONTRAST
    steps = (up | down).view(np.uint8)
    bridged = cv2.morphologyEx(steps, cv2.MORPH_CLOSE, np.ones((1, CROSSING_GAP), np.uint8))
    length = max(round(RULE_HEIGHTS * text_height), CROSSING_GAP + 1)
    long = np.asarray(cv2.morphologyEx(bridged, cv2.MORPH_OPEN, np.ones((1, length), np.uint8)), np.uint8)
    return np.ascontiguousarray(steady_runs(long, up, down).T)


def steady_runs(runs: Mask, up: npt.NDArray[np.bool_], down: npt.NDArray[np.bool_]) -> Mask:
    """``runs`` (0/1, along rows: the image transposed) without the unsteady: a run is kept where on
    :data:`RULE_STEADY` of its pixels or more the grey steps across it (``up``, ``down``: where it steps up
    or down by a rule's contrast) and the step's way flips on :data:`RULE_FLIPS` of them at most."""
    lines = np.flatnonzero(runs.any(axis=1))  # the rows with a run
    if len(lines) == 0:
        return runs
    length = runs.shape[1]
    padded = np.zeros((len(lines), length + 2), np.int8)
    padded[:, 1:-1] = runs[lines]
    edges = np.diff(padded, axis=1)
    rows, at = np.nonzero(edges)  # row by row, left to right: each run's start, then its end
    rows, starts, ends = rows[::2], at[::2], at[1::2]
    up, down = up[lines], down[lines]
    flips = np.zeros(up.shape, np.bool_)
    flips[:, 1:] = (up[:, :-1] & down[:, 1:]) | (down[:, :-1] & up[:, 1:])
    shares = []
    for counted in (up | down, flips):
        # an integral image: a row's running sums as the difference of two of its rows (SIMD, unlike cumsum)
        table = cv2.integral(counted.view(np.uint8))
        upto_end = table[rows + 1, ends] - table[rows, ends]
        shares.append(upto_end - table[rows + 1, starts] + table[rows, starts])
    stepped, flipped = shares
    steady = (stepped >= RULE_STEADY * (ends - starts)) & (flipped <= RULE_FLIPS * (ends - starts))
    # the steady runs (a screen's rules: few) painted back: +1 at a start, -1 at an end, summed along the row
    kept = np.zeros_like(runs)
    held, row_of = np.unique(rows[steady], return_inverse=True)
    painted = np.zeros((len(held), length + 1), np.int16)
    painted[row_of, starts[steady]] = 1
    painted[row_of, ends[steady]] = -1
    kept[lines[held]] = np.cumsum(painted[:, :-1], axis=1) > 0
    return kept


def screen_rules(image: RGBImage) -> tuple[Grey, Mask]:
    """A screenshot's grey image and its horizontal rules, found once for the merge's steps that read them
    (:func:`drop_frame_stretches`, :func:`fit_to_cells`)."""
    grey = np.asarray(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY), dtype=np.uint8)
    return grey, horizontal_rules(grey)


def thin_lines(grey: Grey) -> npt.NDArray[np.bool_]:
    """Pixels of upright lines at most two pixels wide: lighter or darker than the pixels two to their
    left and two to their right alike (a step between two grounds is no line)."""
    values = grey.astype(np.int16)
    left = values[:, 2:-2] - values[:, :-4]
    right = values[:, 2:-2] - values[:, 4:]
    line = (np.minimum(np.abs(left), np.abs(right)) >= RULE_CONTRAST) & (np.sign(left) == np.sign(right))
    return np.pad(line, ((0, 0), (2, 2)))


def cut_at_rules(texts: Sequence[Element], grey: Grey, vertical: Mask) -> list[Element]:
    """``texts`` with each line that a vertical rule crosses cut there into the words on either side
    (the words nearest the rule by their share of the line's characters; a line with fewer word
    boundaries than rules stays whole). The rule must be a thin line drawn unbroken across the line's
    whole box: a letter's stem spans its glyphs, not the box's margins, and an edge between two grounds
    (a picture's, a panel's) is no rule."""
    if not texts:
        return []
    height, width = vertical.shape
    boxes = boxes_of(texts).astype(np.int64)
    boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, width)
    boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, height)
    heights = boxes[:, 3] - boxes[:, 1]
    ruled = box_sums(cv2.integral(vertical, sdepth=cv2.CV_32S), boxes)
    out: list[Element] = []
    for index, text in enumerate(texts):
        words = (text.text or "").split()
        x1, y1, x2, y2 = boxes[index].tolist()
        if ruled[index] < CUT_COVER * heights[index] or len(words) < 2 or x2 <= x1 or y2 - y1 < 3:
            out.append(text)  # (nor is a box off the screen or under 3 px tall: the spread drops two rows)
            continue
        left = max(x1 - 2, 0)
        crop = grey[y1:y2, left : x2 + 2]  # two more columns each side for the thin-line test
        inner = slice(x1 - left, x2 - left)
        spread = np.ptp(np.sort(crop[:, inner], axis=0)[1:-1], axis=0)
        rules = thin_lines(crop)[:, inner] & (vertical[y1:y2, x1:x2] > 0)
        # JPEG blurs a one-pixel line over its neighbours: a row counts for a column when either neighbour
        # holds the line (both sides alike, so that the cut stays at the line's middle)
        rules[:, 1:-1] = rules[:, 1:-1] | rules[:, :-2] | rules[:, 2:]
        spread[1:-1] = np.minimum(np.minimum(spread[1:-1], spread[:-2]), spread[2:])
        crossed = rules.sum(axis=0) >= CUT_COVER * (y2 - y1)
        out.extend(cut_line(text, (x1, y1, x2, y2), words, crossed & (spread <= RULE_SPREAD)))
    return out


def cut_line(
    text: Element, box: tuple[int, int, int, int], words: list[str], ruled: npt.NDArray[np.bool_]
) -> list[Element]:
    """One line (``box``: its box within the screen) cut at the columns that a rule of one shade crosses
    from top to bottom (``ruled``), away from the box's ends (itself when the words do not fit the cuts or
    two cuts lie closer than a letter)."""
    x1, y1, x2, y2 = box
    margin = PIECE_HEIGHTS * (y2 - y1)
    crossing = np.flatnonzero(ruled)
    if len(crossing) == 0:
        return [text]
    runs = np.split(crossing, np.flatnonzero(np.diff(crossing) > 1) + 1)
    cuts = [cut for cut in (int(run.mean()) for run in runs) if margin <= cut <= x2 - x1 - margin]
    edges = [0, *cuts, x2 - x1]
    if not cuts or min(np.diff(edges)) < margin:
        return [text]
    lengths = np.cumsum([len(word) + 1 for word in words])[:-1]  # characters up to each boundary
    shares = (lengths - 0.5) / (lengths[-1] + len(words[-1]))
    chosen: list[int] = []
    for cut in cuts:
        distance = np.abs(shares - cut / (x2 - x1))
        if chosen:
            distance[: chosen[-1] + 1] = np.inf
        best = int(distance.argmin())
        if distance[best] > WORD_SLACK:
            return [text]
        chosen.append(best)
    bounds = [0, *(b + 1 for b in chosen), len(words)]
    return [
        text.replace(
            bbox=(x1 + edges[k], y1, x1 + edges[k + 1], y2), text=" ".join(words[bounds[k] : bounds[k + 1]])
        )
        for k in range(len(cuts) + 1)
    ]


def cell_boxes(texts: IntBoxes, others: IntBoxes, horizontal: Mask, vertical: Mask, width: int) -> IntBoxes:
    """The ruled cell of each text box (``(n, 4)``; ``-1`` rows where there is none): the region the rules
    leave round the text's centre, when it is a cell's shape and size and holds no other element."""
    cells = np.full((len(texts), 4), -1, dtype=np.int64)
    if len(texts) == 0:
        return cells
    # Regions are labelled at half scale, each 2x2 block a rule when any of its pixels is (4x fewer
    # pixels to label; the block also closes a one-pixel gap where a rule meets another).
    rules = horizontal | vertical
    pooled = cv2.dilate(rules, np.ones((POOL, POOL), np.uint8), anchor=(0, 0))[::POOL, ::POOL]  # max pooling
    count, labels, stats, _ = cv2.connectedComponentsWithStats((pooled == 0).astype(np.uint8), connectivity=4)
    centre_x = ((texts[:, 0] + texts[:, 2]) // (2 * POOL)).clip(0, labels.shape[1] - 1)
    centre_y = ((texts[:, 1] + texts[:, 3]) // (2 * POOL)).clip(0, labels.shape[0] - 1)
    region = labels[centre_y, centre_x]
    left, top, cell_w, cell_h, area = (
        stats[region].T * np.array([[POOL], [POOL], [POOL], [POOL], [POOL**2]])
    ).astype(np.int64)
    # the rules' own pixels (a line's two edges, a bevel's light and dark lines) belong to the cell's extent
    grown = np.stack(
        [left - CELL_GROW, top - CELL_GROW, left + cell_w + CELL_GROW, top + cell_h + CELL_GROW], axis=1
    )
    screen_h, screen_w = horizontal.shape[:2]
    found = grown.clip(0, [screen_w, screen_h, screen_w, screen_h])
    text_w, text_h = texts[:, 2] - texts[:, 0], texts[:, 3] - texts[:, 1]
    overlap_w = np.minimum(found[:, 2], texts[:, 2]) - np.maximum(found[:, 0], texts[:, 0])
    overlap_h = np.minimum(found[:, 3], texts[:, 3]) - np.maximum(found[:, 1], texts[:, 1])
    inside = overlap_w.clip(0) * overlap_h.clip(0)
    lone = np.bincount(region, minlength=count)[region] == 1
    ok = (
        (region > 0)
        & lone
        & (inside >= TEXT_INSIDE * text_w * text_h)
        & (cell_h <= CELL_HEIGHTS * text_h)
        & (cell_w <= CELL_WIDTH * width)
        & (area >= CELL_FILL * cell_w * cell_h)
    )
    if len(others):
        other_x = (others[:, 0] + others[:, 2]) / 2
        other_y = (others[:, 1] + others[:, 3]) / 2
        holds = (
            (other_x[None] > found[:, :1])
            & (other_x[None] < found[:, 2:3])
            & (other_y[None] > found[:, 1:2])
            & (other_y[None] < found[:, 3:4])
        )
        ok &= ~holds.any(axis=1)
    cells[ok] = found[ok]
    return cells


def is_framed(horizontal: Mask, box: tuple[int, int, int, int]) -> bool:
    """Whether a box is drawn round with a frame of its own (a button's): above and below its middle a
    horizontal rule spans most of its width and stops at its ends, where a table's row lines run on."""
    x1, y1, x2, y2 = box
    height, width = horizontal.shape
    if x2 - x1 < 2 * FRAME_REACH or x1 < FRAME_REACH or x2 > width - FRAME_REACH:
        return False
    rows = horizontal[max(y1 - FRAME_SLACK, 0) : min(y2 + FRAME_SLACK, height)]
    inside = rows[:, x1 + FRAME_SLACK : x2 - FRAME_SLACK].mean(axis=1) >= FRAME_SPAN
    outside = np.maximum(
        rows[:, x1 - FRAME_REACH : x1 - FRAME_SLACK].mean(axis=1),
        rows[:, x2 + FRAME_SLACK : x2 + FRAME_REACH].mean(axis=1),
    )
    frame = np.flatnonzero(inside & (outside < 1 - FRAME_SPAN))
    middle = (y2 - y1) / 2 + min(y1, FRAME_SLACK)
    return bool(len(frame)) and frame.min() < middle < frame.max()


def run_ends(rows: Mask, starts: npt.NDArray[np.int64], ends: npt.NDArray[np.int64]) -> IntBoxes:
    """``(left, right)`` of the run of rule pixels in each of ``rows`` (one mask row each) round the span
    ``starts..ends``: where the rule stops on either side of it."""
    width = rows.shape[1]
    columns = np.arange(width)
    last_gap = np.maximum.accumulate(np.where(rows == 0, columns, -1), axis=1)
    next_gap = np.minimum.accumulate(np.where(rows == 0, columns, width)[:, ::-1], axis=1)[:, ::-1]
    picked = np.arange(len(rows))
    left = last_gap[picked, starts.clip(0, width - 1)] + 1
    right = next_gap[picked, (ends - 1).clip(0, width - 1)]
    return np.stack([left, right], axis=1).astype(np.int64)


def worded_text(text: str | None) -> bool:
    """Whether OCR's text is words, not one letter or a pictogram's reading."""
    return bool(text and text.strip()) and not is_letter_text(text) and not is_glyph_text(str(text))


def centres_in(boxes: IntBoxes, outer: IntBoxes) -> npt.NDArray[np.bool_]:
    """``(len(outer), len(boxes))``: whether each box's centre lies in each outer box."""
    centre_x = (boxes[:, 0] + boxes[:, 2]) / 2
    centre_y = (boxes[:, 1] + boxes[:, 3]) / 2
    return np.asarray(
        (centre_x[None] >= outer[:, :1])
        & (centre_x[None] < outer[:, 2:3])
        & (centre_y[None] >= outer[:, 1:2])
        & (centre_y[None] < outer[:, 3:4])
    )


def band_boxes(
    texts: IntBoxes,
    worded: npt.NDArray[np.bool_],
    others: IntBoxes,
    horizontal: Mask,
    text_height: float,
) -> IntBoxes:
    """The list row of each text box (``(n, 4)``; ``-1`` rows where there is none): the band between the
    nearest dividers above and below it (horizontal rules running under its whole width), when both
    dividers span the same row, the row is a list row's height, the text sits at its left end and no
    other text lies in it. Only ``worded`` texts take a row or keep one from another text (a chevron read
    as ``V`` at the row's end does neither); ``others`` (the widgets without a caption) may lie at the row's
    ends (a leading icon, a trailing chevron or delete button), not between them (the buttons beside a
    checkbox's label), unless they hold the text (the same row drawn again). A row's dividers need no
    vertical rules to close it (a ruled cell does)."""
    bands = np.full((len(texts), 4), -1, dtype=np.int64)
    if not worded.any():
        return bands
    height, width = horizontal.shape
    reach = max(int(BAND_HEIGHTS * text_height), 1)
    x1, y1, x2, y2 = (texts[:, k].clip(0, [width, height, width, height][k]) for k in range(4))
    integral = cv2.integral(horizontal, sdepth=cv2.CV_32S)
    steps = np.arange(1, reach + 1)
    above = (y1[:, None] - steps[None]).clip(0, height - 1)  # nearest first
    below = (y2[:, None] + steps[None] - 1).clip(0, height - 1)
    need = BAND_COVER * (x2 - x1)[:, None]

    def run_under(rows: IntBoxes) -> IntBoxes:
        """Rule pixels of each row in ``rows`` between its text's ends."""
        left, right = x1[:, None], x2[:, None]
        to_right = integral[rows + 1, right] - integral[rows, right]
        return to_right - integral[rows + 1, left] + integral[rows, left]

    covered_above = (run_under(above) >= need) & (above < y1[:, None])
    covered_below = (run_under(below) >= need) & (below >= y2[:, None])
    found = covered_above.any(axis=1) & covered_below.any(axis=1) & (x2 > x1) & worded
    if not found.any():
        return bands
    index = np.flatnonzero(found)
    top = above[index, covered_above[index].argmax(axis=1)]
    bottom = below[index, covered_below[index].argmax(axis=1)]
    upper = run_ends(horizontal[top], x1[index], x2[index])
    lower = run_ends(horizontal[bottom], x1[index], x2[index])
    left = np.maximum(upper[:, 0], lower[:, 0])
    right = np.minimum(upper[:, 1], lower[:, 1])
    row_w = right - left
    ok = (
        (np.abs(upper - lower).max(axis=1) <= BAND_ENDS * row_w)
        & (bottom - top <= BAND_HEIGHTS * text_height)
        & (x1[index] - left <= BAND_LEAD * text_height)
        & (row_w >= (x2 - x1)[index] + BAND_ROOM * text_height)
    )
    rows = np.stack([left, top, right, bottom + 1], axis=1)
    ok &= (centres_in(texts, rows) & worded[None]).sum(axis=1) == 1
    if len(others):
        lead = BAND_LEAD * text_height
        other_x = (others[:, 0] + others[:, 2]) / 2
        trail = BAND_TRAIL * text_height
        between = (other_x[None] > left[:, None] + lead) & (other_x[None] < right[:, None] - trail)
        apart = ~centres_in(texts[index], others).T  # [row, other]: the other box does not hold the text
        ok &= ~(centres_in(others, rows) & between & apart).any(axis=1)
    bands[index[ok]] = rows[ok]
    return bands


def fit_to_cells(
    image: RGBImage | None,
    texts: Sequence[Element],
    widgets: Sequence[Element],
    rules: tuple[Grey, Mask] | None = None,
) -> tuple[list[Element], list[Element]]:
    """``(texts, widgets)`` with the free text lines (``texts``: no widget holds them) cut at vertical rules,
    and each of them and each widget that only boxes a caption (:data:`CELL_HOLDERS` with text) fitted to
    its ruled cell (``rules``: the screen's :func:`screen_rules` when the caller has them)."""
    holder = [bool(w.text) and w.type in CELL_HOLDERS for w in widgets]
    captions = [w for w, held in zip(widgets, holder, strict=True) if held]
    if image is None or (not texts and not captions):
        return list(texts), list(widgets)
    lines = boxes_of(texts or captions)  # the text lines' heights (a detector pads its boxes)
    grey, horizontal = rules if rules is not None else screen_rules(image)
    text_height = float(np.median(lines[:, 3] - lines[:, 1]))
    vertical = vertical_rules(grey, text_height)
    pieces = cut_at_rules(texts, grey, vertical)
    holder = [held and not is_framed(horizontal, w.bbox) for w, held in zip(widgets, holder, strict=True)]
    captions = [w for w, held in zip(widgets, holder, strict=True) if held]
    others = boxes_of([w for w, held in zip(widgets, holder, strict=True) if not held]).astype(np.int64)
    candidates = [*pieces, *captions]
    boxes = boxes_of(candidates).astype(np.int64)
    cells = cell_boxes(boxes, others.reshape(-1, 4), horizontal, vertical, image.shape[1])
    free = cells[:, 0] < 0
    worded = np.array([worded_text(e.text) for e in candidates], dtype=bool)
    bands = band_boxes(boxes, worded, others.reshape(-1, 4), horizontal, text_height)
    cells[free] = bands[free]
    fitted = [
        element.replace(bbox=tuple(cell)) if cell[0] >= 0 else element
        for element, cell in zip(candidates, cells.tolist(), strict=True)
    ]
    fitted_captions = iter(fitted[len(pieces) :])
    kept = [next(fitted_captions) if held else w for w, held in zip(widgets, holder, strict=True)]
    banded = free & (bands[:, 0] >= 0)
    if banded.any() and len(others):
        # a second, textless box the detector drew round the same row (its text went to the first)
        within = containment(others, bands[banded]) >= BAND_INSIDE
        round_text = centres_in(boxes[banded], others)  # [other, row]
        textless = np.array([not w.text for w, held in zip(widgets, holder, strict=True) if not held])
        duplicate = iter((within & round_text).any(axis=1) & textless)
        kept = [w for w, held in zip(kept, holder, strict=True) if held or not next(duplicate)]
    return fitted[: len(pieces)], kept


STRETCH_RUN = 0.9
"""Share of a box's width a panel's edge covers along its top or bottom, and of the :data:`FRAME_REACH`
pixels past its end, when the box is a stretch of the panel."""
STRETCH_SIDE = 0.8
"""Share of the height between a stretch's edges that a vertical step at its open end may cover (more: the
box is closed there, a cell or a field)."""
STRETCH_FLAT = 10
"""Grey levels from the inside's median beyond which a pixel counts as drawn ..."""
STRETCH_SPECKS = 8
"""... and how many such pixels a blank stretch may hold (JPEG noise; a 16 px icon's outline is 100)."""


def rule_rows(
    integral: npt.NDArray[np.int32],
    boxes: IntBoxes,
    rows: npt.NDArray[np.int64],
    valid: npt.NDArray[np.bool_],
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """For each box (``(n, 4)``) and each of its candidate ``rows`` (``(n, k)``, ``valid`` where they lie in
    its band): whether a horizontal rule runs across the whole box there and on past its left end, and
    whether it runs across it and on past its right end (``integral``: the rule mask's integral image)."""
    width = integral.shape[1] - 1
    rows = rows.clip(0, integral.shape[0] - 2)

    def share(left: npt.NDArray[np.int64], right: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        left, right = left.clip(0, width)[:, None], right.clip(0, width)[:, None]
        total = (
            integral[rows + 1, right]
            - integral[rows, right]
            - integral[rows + 1, left]
            + integral[rows, left]
        )
        return np.asarray(total / np.maximum(right - left, 1), dtype=np.float64)

    x1, x2 = boxes[:, 0], boxes[:, 2]
    across = valid & (share(x1, x2) >= STRETCH_RUN)
    on_left = across & (x1 >= FRAME_REACH)[:, None] & (share(x1 - FRAME_REACH, x1) >= STRETCH_RUN)
    on_right = across & (x2 + FRAME_REACH <= width)[:, None] & (share(x2, x2 + FRAME_REACH) >= STRETCH_RUN)
    return on_left, on_right


def closed_at(grey: Grey, x: int, top: int, bottom: int) -> bool:
    """Whether a vertical step (a frame's side, a cell's rule) crosses rows ``top..bottom`` near column
    ``x``."""
    x0, x1 = max(x - FRAME_SLACK, 0), min(x + FRAME_SLACK, grey.shape[1] - 1)
    if bottom - top < 2 or x1 <= x0:
        return False
    band = grey[top:bottom, x0 : x1 + 1].astype(np.int16)
    steps = np.abs(np.diff(band, axis=1)) >= RULE_CONTRAST
    return bool((steps.mean(axis=0) >= STRETCH_SIDE).any())


def frame_stretches(grey: Grey, horizontal: Mask, boxes: IntBoxes) -> npt.NDArray[np.bool_]:
    """Which ``boxes`` are blank stretches of a larger panel or row: a rule along the top and one along the
    bottom run across the box and on past the same end, where nothing closes it, and nothing is drawn
    between them. A field's or a button's frame stops at its ends (:func:`is_framed`). The rules are found
    for all boxes at once (an integral image of the rule mask); only the boxes they frame are looked into."""
    height, width = grey.shape
    boxes = boxes.clip(0, np.array([width, height, width, height]))
    half = (boxes[:, 3] - boxes[:, 1]) // 2
    out = np.zeros(len(boxes), dtype=bool)
    wide = (boxes[:, 2] - boxes[:, 0] >= 2 * FRAME_REACH) & (half >= 3)
    if not wide.any():
        return out
    integral = np.asarray(cv2.integral(horizontal, sdepth=cv2.CV_32S), dtype=np.int32)
    steps = np.arange(int(half[wide].max()) + FRAME_SLACK)[None]
    reach = (half + FRAME_SLACK)[:, None]
    top_rows = boxes[:, 1:2] - FRAME_SLACK + steps  # from a little above the top down to the middle
    low_rows = boxes[:, 3:4] + FRAME_SLACK - 1 - steps  # from a little below the bottom up to the middle
    top_ok = wide[:, None] & (steps < reach) & (top_rows >= 0)
    low_ok = wide[:, None] & (steps < reach) & (low_rows < height)
    top_left, top_right = rule_rows(integral, boxes, top_rows, top_ok)
    low_left, low_right = rule_rows(integral, boxes, low_rows, low_ok)
    for tops, lows, end in ((top_left, low_left, 0), (top_right, low_right, 2)):
        for index in np.flatnonzero(tops.any(axis=1) & lows.any(axis=1)).tolist():
            if out[index]:
                continue
            x1, _, x2, _ = boxes[index].tolist()
            top = int(top_rows[index][tops[index]].max()) + 2  # between the rules: a 1 px line steps twice
            bottom = int(low_rows[index][lows[index]].min())
            if bottom - top < 3 or closed_at(grey, int(boxes[index, end]), top, bottom):
                continue
            inside = grey[top + 1 : bottom - 1, x1 + FRAME_SLACK : x2 - FRAME_SLACK].astype(np.int16)
            drawn = np.abs(inside - np.median(inside)) > STRETCH_FLAT if inside.size else None
            out[index] = drawn is not None and int(drawn.sum()) <= STRETCH_SPECKS
    return out


def drop_frame_stretches(rules: tuple[Grey, Mask] | None, widgets: Sequence[Element]) -> list[Element]:
    """``widgets`` without the textless detector boxes that are blank stretches of a larger frame
    (:func:`frame_stretches`; ``rules``: the screen's :func:`screen_rules`, None without a screenshot): the
    empty right part of a code block or of a table's row, which the reader would call an input."""
    candidates = [
        i
        for i, w in enumerate(widgets)
        if w.source == DETECTOR_SOURCE and not w.text and w.width >= 2 * FRAME_REACH
    ]
    if rules is None or not candidates:
        return list(widgets)
    boxes = boxes_of([widgets[i] for i in candidates]).astype(np.int64)
    stretch = frame_stretches(*rules, boxes)
    dropped = {i for i, gone in zip(candidates, stretch.tolist(), strict=True) if gone}
    return [w for i, w in enumerate(widgets) if i not in dropped]
