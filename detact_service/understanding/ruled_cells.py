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

from detact_service.core import Element, ElementType
from detact_service.detectors.classical_pixels import box_sums
from detact_service.geometry import boxes_of
from detact_service.stages import RGBImage

RULE_CONTRAST = 5
"""Grey step (0-255) of a rule's edge: a dark theme's grid lines differ from its rows by 7."""
RULE_LENGTH = 30
"""Pixels a horizontal rule runs straight at least."""
RULE_HEIGHTS = 2.5
"""Text heights a vertical rule runs straight at least (a letter's stem is one at most)."""
RULE_SPREAD = 12
"""Grey levels a rule's pixels span across a line it cuts (one pixel off at each end): a rule is drawn in
one shade, where a letter's stem gives way to the ground and JPEG noise can pass for a thin line."""
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
CUT_COVER = 0.9
"""Share of a text's height a vertical rule crosses for the text to be cut there."""
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

Mask = npt.NDArray[np.uint8]
Grey = npt.NDArray[np.uint8]
IntBoxes = npt.NDArray[np.int64]


def rule_masks(grey: Grey, text_height: float) -> tuple[Mask, Mask]:
    """The horizontal and vertical rules of a screenshot's grey image (0/1 masks, one pixel where a
    rule's edge steps)."""
    down = np.zeros(grey.shape, np.uint8)
    right = np.zeros(grey.shape, np.uint8)
    down[:-1] = cv2.absdiff(grey[1:], grey[:-1]) >= RULE_CONTRAST
    right[:, :-1] = cv2.absdiff(grey[:, 1:], grey[:, :-1]) >= RULE_CONTRAST
    horizontal = cv2.morphologyEx(down, cv2.MORPH_OPEN, np.ones((1, RULE_LENGTH), np.uint8))
    bridged = cv2.morphologyEx(right, cv2.MORPH_CLOSE, np.ones((CROSSING_GAP, 1), np.uint8))
    length = max(round(RULE_HEIGHTS * text_height), CROSSING_GAP + 1)
    vertical = cv2.morphologyEx(bridged, cv2.MORPH_OPEN, np.ones((length, 1), np.uint8))
    return np.asarray(horizontal, dtype=np.uint8), np.asarray(vertical, dtype=np.uint8)


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
        if ruled[index] < CUT_COVER * heights[index] or len(words) < 2:
            out.append(text)
            continue
        x1, y1, x2, y2 = boxes[index].tolist()
        left = max(x1 - 2, 0)
        crop = grey[y1:y2, left : x2 + 2]  # two more columns each side for the thin-line test
        inner = slice(x1 - left, x2 - left)
        spread = np.ptp(np.sort(crop[:, inner], axis=0)[1:-1], axis=0)
        rules = thin_lines(crop)[:, inner] & (vertical[y1:y2, x1:x2] > 0)
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


def fit_to_cells(
    image: RGBImage | None, texts: Sequence[Element], widgets: Sequence[Element]
) -> tuple[list[Element], list[Element]]:
    """``(texts, widgets)`` with the free text lines (``texts``: no widget holds them) cut at vertical rules,
    and each of them and each widget that only boxes a caption (:data:`CELL_HOLDERS` with text) fitted to
    its ruled cell."""
    holder = [bool(w.text) and w.type in CELL_HOLDERS for w in widgets]
    captions = [w for w, held in zip(widgets, holder, strict=True) if held]
    if image is None or (not texts and not captions):
        return list(texts), list(widgets)
    lines = boxes_of(texts or captions)  # the text lines' heights (a detector pads its boxes)
    grey = np.asarray(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY), dtype=np.uint8)
    horizontal, vertical = rule_masks(grey, float(np.median(lines[:, 3] - lines[:, 1])))
    pieces = cut_at_rules(texts, grey, vertical)
    holder = [held and not is_framed(horizontal, w.bbox) for w, held in zip(widgets, holder, strict=True)]
    captions = [w for w, held in zip(widgets, holder, strict=True) if held]
    others = boxes_of([w for w, held in zip(widgets, holder, strict=True) if not held]).astype(np.int64)
    candidates = [*pieces, *captions]
    cells = cell_boxes(
        boxes_of(candidates).astype(np.int64), others.reshape(-1, 4), horizontal, vertical, image.shape[1]
    )
    fitted = [
        element.replace(bbox=tuple(cell)) if cell[0] >= 0 else element
        for element, cell in zip(candidates, cells.tolist(), strict=True)
    ]
    fitted_captions = iter(fitted[len(pieces) :])
    return fitted[: len(pieces)], [
        next(fitted_captions) if held else w for w, held in zip(widgets, holder, strict=True)
    ]
