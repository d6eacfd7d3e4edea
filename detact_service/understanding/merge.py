"""Merge: OCR lines, segments and detector boxes become one de-duplicated list in reading order.

- On a screen that is not phone-shaped, a small textless detector box on flat ground is fitted to the
  control drawn in it (:mod:`.ink_fit`): the detectors pad controls as a phone's touch targets.
- A detector box and a typed segment of the same control become one element: the detector's extent
  with the segment's type and state (a checkbox stays a checkbox).
- Boxes from segmenters and detectors that overlap (IoU above a threshold) are de-duplicated, keeping the
  more trusted source (detector over segmenter) and then the higher score.
- A detector box that holds two or more other controls is a group (a toolbar, a card), not a control,
  and is dropped: no element contains more than one control.
- On a pointer screen, a detector box of text alone on four rows or more (a column of links) gives way to
  its lines: no element holds several links.
- Text inside an atomic widget (button, input, link, tab, any detector box) becomes that widget's text;
  text inside a container (region, image) stays its own element. A detector box with text is a button,
  or a list item when it spans most of the screen's width; without text it is an icon button.
- A free text line or a detector's caption box in a ruled table cell takes the cell's extent, a line cut
  first where OCR read it across a vertical rule (:mod:`.ruled_cells`).
- Ids are assigned 0..N-1 in reading order: rows top to bottom, left to right within a row.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from detact_service import geometry
from detact_service.core import (
    DETECTOR_SOURCE,
    INTERACTIVE_TYPES,
    LANDSCAPE_DETECTOR_SOURCE,
    PHONE_ASPECT,
    Element,
    ElementState,
    ElementType,
    ScreenParse,
)
from detact_service.detectors.ocr_base import OcrStage, ocr_engine_name
from detact_service.settings import Settings
from detact_service.stages import Backend, RGBImage, backend_class, register
from detact_service.understanding.glyph_text import WORD_CONFIDENCE, is_glyph_text, is_letter_text
from detact_service.understanding.ink_fit import (
    drop_bare_boxes,
    fit_to_ink,
    ink_against_border,
    reads_a_drawing,
)
from detact_service.understanding.line_split import (
    BoxReader,
    boxes_on_lines,
    drop_boxes_in_cjk_words,
    read_boxes_on_lines,
    split_lines_at_boxes,
    words_for_boxes_on_lines,
)
from detact_service.understanding.ruled_cells import drop_frame_stretches, fit_to_cells, screen_rules

DUPLICATE_IOU = 0.7
TEXT_INSIDE = 0.6  # share of a text line's area that must lie in a widget for the text to join it
SOURCE_TRUST = {"detector": 2.0, "segment": 1.0}
SAME_CONTROL_IOU = 0.5  # a typed segment this close to a detector box is the same control
PADDED_AREA = 4.0  # a detector box around a small typed segment, at most this many times its area, is it
ROW_HEIGHTS = 3.0  # a box around one checkbox or radio and its label is at most this many marks tall
ROW_RUN = 4.0  # a label's box beside its mark that runs this many mark heights past the label is a row
LABEL_TOUCH = 0.25  # a box starting within this many mark heights of a mark's right edge is its label's
GROUP_INSIDE = 0.9  # share of a control's area inside a detector box for the box to hold it
GROUP_COVER = 0.25  # a detector box its controls cover less than this share of is a control too
STACKED_ROWS = 3  # a detector box holding controls on this many rows is a list or a panel, however sparse
SCROLLBAR_STRIP = 0.2  # controls all within this share of a box's right (bottom) side are its scrollbar's
TWIN_IOU = 0.4  # a detector box inside another this close to it, with the same text, is the same control
TWIN_GLYPH_SIDE = 64  # textless, when the outer box is at most this many pixels a side (an icon button)
WEAK_SPAN_SCORE = 0.15  # a detector box scored under this ...
WEAK_SPAN_INSIDE = 0.8  # ... holding two surer boxes this far inside it spans them: it goes
GROUP_MANY = 4  # a segmenter's picture holding this many detector boxes is a bar (a taskbar)
LABEL_BOX_IOU = 0.5  # a detector box this close to a text line is that text (a caption), not a control
CAPTION_HEIGHTS = 3.0  # a detector box round one text line at most this many lines tall is a caption
CHILD_SHARE = 0.2  # the boxes a textless box holds fill this share of it to lend it their text
LABEL_ROWS = 2  # on at most this many rows (a title and a subtitle)
CONTAINER_SHARE = 0.25  # a detector box over this share of the screen is a panel, not a control
ROW_WIDTH = 0.6  # a detector box with text at least this share of the screen wide is a list row
SPECIFIC_TYPES = INTERACTIVE_TYPES - {ElementType.ICON, ElementType.LIST_ITEM, ElementType.SCROLLBAR}
"""Segment types that say more than a detector box does: the merged element keeps them."""
PANEL_ROWS = 4  # a box of text alone whose lines lie on this many rows is a column of links or a text block
PANEL_DRAWN = 0.1  # at most this share of such a box, outside its lines, is drawn (no picture, no icon)
MAX_LINES_ADMITTED = 1  # a landscape-detector box round more text lines is a row or panel of controls
LABEL_GAP = 3.0  # how far (in control heights) a checkbox's or radio's label may sit from it
# How far right of a mark (in its heights; half that on its left) a text is taken as its label. Labels sit
# within 1.06 heights at the 90th percentile in the data engine's web screens, while the first link of a
# table row beside a row checkbox sits 1.24 or more at the 10th: a link there is a control of its own.
LABEL_TAKEN = 1.2
STATUS_BAR_TOP = 0.05  # a phone's clock lies in this top share of the screen
STATUS_BAR_MARGIN = 0.25  # the bar ends this many clock heights below the clock
CLOCK = re.compile(r"(?<![\d:.])\d{1,2}:\d{2}(?![\d:])")
LABEL_OVERLAP = 0.3  # how far (in control heights) a label's box may overlap a padded control box
ICON_ROW = 2  # an unsure OCR line round this many detector boxes is a row of icons read as characters
MARK_CONTROLS = frozenset({ElementType.CHECKBOX, ElementType.RADIO})
LABELLED_MARKS = frozenset({ElementType.CHECKBOX, ElementType.RADIO, ElementType.TOGGLE})
TEXT_HOLDERS = frozenset(
    {
        ElementType.BUTTON,
        ElementType.INPUT,
        ElementType.TEXTAREA,
        ElementType.DROPDOWN,
        ElementType.TAB,
        ElementType.MENU_ITEM,
        ElementType.LIST_ITEM,
        ElementType.LINK,
        ElementType.TOGGLE,
    }
)


def admit_landscape_boxes(elements: Sequence[Element]) -> list[Element]:
    """The landscape detector's boxes become detector boxes, but for two kinds.

    - A box round two or more OCR lines: that detector (uitag's, trained on desktop apps) also draws one
      round a table row, a form or a panel, which would take all their text, where the first detector and
      the text stage give them one by one (Qt test screens: 0.677 -> 0.611 recall with such boxes).
    - The only one of its boxes inside a box of the first detector: the same control drawn tighter (a
      sidebar link's text in its row), which would take the row's text and leave the row empty.
    """
    second = np.asarray([e.source == LANDSCAPE_DETECTOR_SOURCE for e in elements], dtype=bool)
    if not second.any():
        return list(elements)
    is_text = np.asarray([e.type is ElementType.TEXT and e.source == "ocr" for e in elements], dtype=bool)
    first = np.asarray([e.source == DETECTOR_SOURCE for e in elements], dtype=bool)
    boxes = geometry.boxes_of(elements)
    lines_held = (geometry.containment(boxes[is_text], boxes[second]) >= TEXT_INSIDE).sum(axis=0)
    held = geometry.containment(boxes[second], boxes[first]) >= GROUP_INSIDE  # [second's box, first's box]
    alone_inside = (held & (held.sum(axis=0) == 1)[None, :]).any(axis=1)
    crowded = np.zeros(len(elements), dtype=bool)
    crowded[np.flatnonzero(second)] = (lines_held > MAX_LINES_ADMITTED) | alone_inside
    return [
        e.replace(source=DETECTOR_SOURCE) if is_second else e
        for e, is_second, drop in zip(elements, second, crowded, strict=True)
        if not drop
    ]


def deduplicate(elements: Sequence[Element], iou: float = DUPLICATE_IOU) -> list[Element]:
    """Non-maximum suppression over non-text boxes, trusting detectors over segmenters."""
    priority = [SOURCE_TRUST.get(e.source, 0.0) + min(e.score, 0.999) for e in elements]
    return geometry.deduplicate(elements, geometry.boxes_of(elements), priority, iou)


def adopt_segment_types(widgets: Sequence[Element]) -> list[Element]:
    """A detector box and a typed segment of the same control become the detector box, typed."""
    detected = [i for i, w in enumerate(widgets) if w.source == "detector"]
    typed = [i for i, w in enumerate(widgets) if w.source != "detector" and w.type in SPECIFIC_TYPES]
    if not detected or not typed:
        return list(widgets)
    segment_boxes = np.asarray([widgets[i].bbox for i in typed], dtype=np.float64)
    detector_boxes = np.asarray([widgets[i].bbox for i in detected], dtype=np.float64)
    ious = geometry.iou_matrix(segment_boxes, detector_boxes)
    # A small control inside a padded detector box of at most PADDED_AREA times its size is the same one.
    segment_areas = np.maximum(geometry.areas(segment_boxes), 1.0)
    area_ratio = geometry.areas(detector_boxes)[None, :] / segment_areas[:, None]
    inside = geometry.containment(segment_boxes, detector_boxes) >= GROUP_INSIDE
    padded = inside & (area_ratio <= PADDED_AREA)
    ious = np.where(padded, np.maximum(ious, SAME_CONTROL_IOU), ious)
    best = ious.argmax(axis=1)
    out = list(widgets)
    dropped: set[int] = set()
    claimed: set[int] = set()
    for row in np.argsort(-ious.max(axis=1)):
        column = int(best[row])
        if ious[row, column] < SAME_CONTROL_IOU or column in claimed:
            continue
        segment, detector_index = widgets[typed[row]], detected[column]
        out[detector_index] = out[detector_index].replace(
            type=segment.type, state=segment.state, text=segment.text or out[detector_index].text
        )
        claimed.add(column)
        dropped.add(typed[row])
    return [w for i, w in enumerate(out) if i not in dropped]


def drop_groups(widgets: Sequence[Element], texts: Sequence[Element] = ()) -> list[Element]:
    """Drop detector boxes that hold two or more other detector boxes (a toolbar, a dialog).

    Only detector boxes count as controls here: the classical segmenter's types are guesses that a real
    screen's list row (an avatar read as a radio, a badge as a button) would otherwise break up. A box
    whose controls cover less than :data:`GROUP_COVER` of it has a surface of its own (a search field
    with icons at its ends, a tappable card) and stays, beside the controls it holds, unless they lie on
    :data:`STACKED_ROWS` rows or more (a mail list's stars and dates: a list, whose texts would all join
    it). An inner box that
    is one of ``texts`` (IoU >= :data:`LABEL_BOX_IOU`) is a label, not a control: a tile with its icon
    and its caption detected apart is one control.
    """
    detected = np.asarray([w.source == "detector" for w in widgets])
    if detected.sum() < 3:
        return list(widgets)
    boxes = np.asarray([w.bbox for w in widgets], dtype=np.float64)[detected]
    inside = geometry.containment(boxes, boxes) >= GROUP_INSIDE  # [inner, outer]
    np.fill_diagonal(inside, False)
    areas = (boxes[:, 2:] - boxes[:, :2]).prod(axis=1)
    inside &= areas[:, None] < areas[None, :]
    covered = (inside * areas[:, None]).sum(axis=0) / np.maximum(areas, 1.0)
    text_boxes = np.asarray([t.bbox for t in texts], dtype=np.float64).reshape(-1, 4)
    is_label = (
        geometry.iou_matrix(boxes, text_boxes).max(axis=1) >= LABEL_BOX_IOU
        if len(text_boxes)
        else np.zeros(len(boxes), dtype=bool)
    )
    caption = caption_boxes(boxes, text_boxes, inside) & ~is_label
    controls = (inside & ~is_label[:, None]).sum(axis=0)
    # one caption box (padded round one text line) beside one other control: an icon and its caption
    # detected apart, a search field and its icon: one control, not a group
    captioned = ((inside & caption[:, None]).sum(axis=0) == 1) & (controls == 2)
    stacked = control_rows(boxes, inside & ~is_label[:, None]) >= STACKED_ROWS
    scrolled = own_scrollbar(boxes, inside & ~is_label[:, None])
    group = np.zeros(len(widgets), dtype=bool)
    group[np.flatnonzero(detected)] = (
        (controls >= 2) & ~captioned & ~scrolled & ((covered >= GROUP_COVER) | stacked)
    )
    return [w for w, is_group in zip(widgets, group, strict=True) if not is_group]


def drop_weak_spans(widgets: Sequence[Element], texts: Sequence[Element] = ()) -> list[Element]:
    """Drop detector boxes scored under :data:`WEAK_SPAN_SCORE` that span two or more surer detector boxes
    (each at least :data:`WEAK_SPAN_INSIDE` inside it) that are not words: a second, doubtful box round
    two neighbouring icons (a share row's `f` and bird) is neither of them. Pointer screens only (on
    phones it cost a clickable view of the `phone_real` test apps)."""
    detected = [i for i, w in enumerate(widgets) if w.source == DETECTOR_SOURCE]
    if len(detected) < 3:
        return list(widgets)
    boxes = geometry.boxes_of([widgets[i] for i in detected])
    scores = np.asarray([widgets[i].score or 0.0 for i in detected])
    inside = geometry.containment(boxes, boxes) >= WEAK_SPAN_INSIDE  # [inner, outer]
    np.fill_diagonal(inside, False)
    inside &= scores[:, None] > scores[None, :]
    inside &= (scores < WEAK_SPAN_SCORE)[None, :]
    if not (inside.sum(axis=0) >= 2).any():  # most screens: no doubtful box spans two, no text to read
        return list(widgets)
    words = [t for t in texts if not reads_a_drawing(t)]
    if words:
        worded = geometry.iou_matrix(boxes, geometry.boxes_of(words)).max(axis=1) >= LABEL_BOX_IOU
        inside &= ~worded[:, None]
    weak = inside.sum(axis=0) >= 2
    dropped = {detected[k] for k in np.flatnonzero(weak).tolist()}
    return [w for i, w in enumerate(widgets) if i not in dropped]


def drop_nested_twins(widgets: Sequence[Element]) -> list[Element]:
    """Drop a detector box that lies inside another (:data:`GROUP_INSIDE`), overlaps it at
    :data:`TWIN_IOU` or more and holds the same text, or that holds no text inside a textless box at most
    :data:`TWIN_GLYPH_SIDE` a side: the same control boxed twice, tight and padded (a nav link's words in
    its pill, a toolbar glyph in its button); the padded box, the clickable extent, stays. A larger
    textless pair can be a link and the row round it."""
    detected = [i for i, w in enumerate(widgets) if w.source == DETECTOR_SOURCE]
    if len(detected) < 2:
        return list(widgets)
    boxes = geometry.boxes_of([widgets[i] for i in detected])
    inside = geometry.containment(boxes, boxes) >= GROUP_INSIDE  # [inner, outer]
    np.fill_diagonal(inside, False)
    areas = (boxes[:, 2:] - boxes[:, :2]).prod(axis=1)
    twins = inside & (geometry.iou_matrix(boxes, boxes) >= TWIN_IOU) & (areas[:, None] < areas[None, :])
    glyph_sized = (boxes[:, 2:] - boxes[:, :2]).max(axis=1) <= TWIN_GLYPH_SIDE

    def text(k: int) -> str:
        return " ".join((widgets[detected[k]].text or "").split())

    dropped = {
        detected[inner]
        for inner, outer in zip(*np.nonzero(twins), strict=True)
        if text(inner) == text(outer) and (text(outer) or glyph_sized[outer])
    }
    return [w for i, w in enumerate(widgets) if i not in dropped]


def drop_crowded_pictures(widgets: Sequence[Element]) -> list[Element]:
    """Drop the segmenter's pictures that hold :data:`GROUP_MANY` detector boxes or more: a bar drawn in
    a colour of its own (a taskbar, a toolbar's strip), which the segmenter took for an image and the
    reader, seeing its texts, for a text or a field; its controls stay."""
    pictures = [i for i, w in enumerate(widgets) if w.source == "segment" and w.type is ElementType.IMAGE]
    detected = [i for i, w in enumerate(widgets) if w.source == DETECTOR_SOURCE]
    if not pictures or len(detected) < GROUP_MANY:
        return list(widgets)
    held = geometry.containment(
        geometry.boxes_of([widgets[i] for i in detected]), geometry.boxes_of([widgets[i] for i in pictures])
    )  # [detector box, picture]
    crowded = {pictures[j] for j in np.flatnonzero((held >= GROUP_INSIDE).sum(axis=0) >= GROUP_MANY)}
    return [w for i, w in enumerate(widgets) if i not in crowded]


def own_scrollbar(boxes: npt.NDArray[np.float64], members: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """For each outer box, whether every member box (``members``: [inner box, outer box]) lies in a strip
    along its right or its bottom side, :data:`SCROLLBAR_STRIP` of its width or height deep: the arrows and
    the thumb of its own scrollbar (a text area's), not controls that make it a group."""
    x0, y0, x1, y1 = boxes.T
    right = x0[:, None] >= x1[None, :] - SCROLLBAR_STRIP * (x1 - x0)[None, :]  # [inner, outer]
    bottom = y0[:, None] >= y1[None, :] - SCROLLBAR_STRIP * (y1 - y0)[None, :]
    held = members.any(axis=0)
    return held & ((~members | right).all(axis=0) | (~members | bottom).all(axis=0))


def control_rows(boxes: npt.NDArray[np.float64], members: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
    """For each outer box, on how many rows its member boxes lie (``members``: [inner box, outer box], the
    inner ones being ``boxes``).

    A member starts a row when no member above it (by top edge) overlaps it vertically by half the
    smaller height; the rows are those starts.
    """
    tops, bottoms = boxes[:, 1], boxes[:, 3]
    heights = np.maximum(bottoms - tops, 1.0)
    overlap = np.minimum(bottoms[:, None], bottoms[None, :]) - np.maximum(tops[:, None], tops[None, :])
    same_row = overlap >= 0.5 * np.minimum(heights[:, None], heights[None, :])
    order = np.lexsort((np.arange(len(boxes)), tops))
    rank = np.empty(len(boxes), dtype=np.int64)
    rank[order] = np.arange(len(boxes))
    earlier_same_row = same_row & (rank[:, None] < rank[None, :])  # [j above, i]
    # float32 counts are exact here and multiply on BLAS (an int64 product of 300 boxes took 9 ms)
    blocked = (earlier_same_row.T.astype(np.float32) @ members.astype(np.float32)) > 0  # [i, outer]
    return (members & ~blocked).sum(axis=0)


def caption_boxes(
    boxes: npt.NDArray[np.float64], text_boxes: npt.NDArray[np.float64], inside: npt.NDArray[np.bool_]
) -> npt.NDArray[np.bool_]:
    """Which detector ``boxes`` are a caption: round exactly one text line (at most
    :data:`CAPTION_HEIGHTS` of its height tall) and round no other detector box."""
    if not len(text_boxes):
        return np.zeros(len(boxes), dtype=bool)
    held = geometry.containment(text_boxes, boxes) >= TEXT_INSIDE  # [text, box]
    one_line = held.sum(axis=0) == 1
    line_height = (text_boxes[:, 3] - text_boxes[:, 1])[held.argmax(axis=0)]
    short = (boxes[:, 3] - boxes[:, 1]) <= CAPTION_HEIGHTS * line_height
    return one_line & short & ~inside.any(axis=0)


def drop_mark_rows(
    texts: Sequence[Element], widgets: Sequence[Element], pointer: bool = True
) -> list[Element]:
    """Drop a detector box around one checkbox or radio and its one-line label, or round the label alone
    right beside the mark: the mark is the control.

    The mark then takes the label (:func:`label_marks`) and its own box stays the click target. A box
    whose texts lie on several rows (a list item with a title and a subtitle) is no mark row. A box round
    the label alone that touches the mark is dropped on pointer screens only (``pointer``): on phones such a
    box is often a control of its own.
    """
    detected = np.asarray([w.source == "detector" and w.type not in LABELLED_MARKS for w in widgets])
    marks = np.asarray([w.type in LABELLED_MARKS for w in widgets])
    if not detected.any() or not marks.any():
        return list(widgets)
    boxes = np.asarray([w.bbox for w in widgets], dtype=np.float64)
    text_boxes = np.asarray([t.bbox for t in texts], dtype=np.float64).reshape(-1, 4)
    text_inside = geometry.containment(text_boxes, boxes[detected]) >= TEXT_INSIDE  # [text, detector box]
    held = geometry.containment(boxes[marks], boxes[detected]) >= GROUP_INSIDE  # [mark, detector box]
    held |= labels_beside_marks(boxes[marks], boxes[detected], text_boxes, text_inside, pointer)
    mark_heights = (boxes[marks, 3] - boxes[marks, 1])[:, None]
    row_heights = (boxes[detected, 3] - boxes[detected, 1])[None, :]
    one_mark = (held.sum(axis=0) == 1) & (held & (row_heights <= ROW_HEIGHTS * mark_heights)).any(axis=0)
    text_centres = (text_boxes[:, 1] + text_boxes[:, 3]) / 2
    mark_centres = ((boxes[marks, 1] + boxes[marks, 3]) / 2)[held.argmax(axis=0)]
    off_row = text_inside & (np.abs(text_centres[:, None] - mark_centres[None, :]) > mark_heights.max())
    drop = np.zeros(len(widgets), dtype=bool)
    drop[np.flatnonzero(detected)] = one_mark & ~off_row.any(axis=0)
    return [w for w, dropped in zip(widgets, drop, strict=True) if not dropped]


def labels_beside_marks(
    marks: npt.NDArray[np.float64],
    boxes: npt.NDArray[np.float64],
    text_boxes: npt.NDArray[np.float64],
    text_inside: npt.NDArray[np.bool_],
    take_touching_labels: bool = True,
) -> npt.NDArray[np.bool_]:
    """``[mark, box]``: the box is a label's row beside the mark (a phone-trained detector boxes a web
    checkbox's label from beside the mark to the page's edge): it starts right of the mark's middle and
    within a label's gap of its right edge, spans the mark's row, holds text and runs on past its text by
    :data:`ROW_RUN` mark heights (a link or a button beside a mark is drawn round its text or icon), or it
    is a row's height at most and starts within :data:`LABEL_TOUCH` mark heights of the mark (with
    ``take_touching_labels``)."""
    heights = (marks[:, 3] - marks[:, 1])[:, None]
    starts = boxes[None, :, 0]
    beside = (starts >= (marks[:, 0] + marks[:, 2])[:, None] / 2) & (
        starts - marks[:, 2, None] <= LABEL_TAKEN * heights
    )
    centres = ((marks[:, 1] + marks[:, 3]) / 2)[:, None]
    spans_row = (boxes[None, :, 1] <= centres) & (boxes[None, :, 3] >= centres)
    text_ends = np.where(text_inside, text_boxes[:, 2, None], -np.inf).max(axis=0, initial=-np.inf)
    text_ends[np.isinf(text_ends)] = np.inf  # a box without text runs on past nothing
    runs_on = boxes[None, :, 2] - text_ends[None, :] >= ROW_RUN * heights
    # or drawn round the label alone, touching the mark (a button or link beside a mark stands apart)
    touching = (starts - marks[:, 2, None] <= LABEL_TOUCH * heights) & (
        boxes[None, :, 3] - boxes[None, :, 1] <= ROW_HEIGHTS * heights
    )
    return np.asarray(beside & spans_row & (runs_on | (touching & take_touching_labels)), dtype=bool)


def drop_glyphs_in_controls(widgets: Sequence[Element]) -> list[Element]:
    """Drop untyped segments (a glyph, a picture) inside a detector box: the control is the box."""
    detected = np.asarray([w.source == "detector" for w in widgets])
    untyped = np.asarray([w.source != "detector" and w.type not in SPECIFIC_TYPES for w in widgets])
    if not detected.any() or not untyped.any():
        return list(widgets)
    boxes = np.asarray([w.bbox for w in widgets], dtype=np.float64)
    inside = geometry.containment(boxes[untyped], boxes[detected]) >= GROUP_INSIDE
    drop = np.zeros(len(widgets), dtype=bool)
    drop[np.flatnonzero(untyped)[inside.any(axis=1)]] = True
    return [w for w, dropped in zip(widgets, drop, strict=True) if not dropped]


def label_marks(texts: Sequence[Element], widgets: Sequence[Element]) -> tuple[list[Element], list[Element]]:
    """A checkbox, radio or toggle without text takes the text line right of it (else left) as its label."""
    text_boxes = np.asarray([t.bbox for t in texts], dtype=np.float64).reshape(-1, 4)
    taken: set[int] = set()
    out = []
    for widget in widgets:
        if widget.type in LABELLED_MARKS and not widget.text and len(text_boxes):
            x1, y1, x2, y2 = widget.bbox
            height = y2 - y1
            same_row = np.abs((text_boxes[:, 1] + text_boxes[:, 3]) / 2 - (y1 + y2) / 2) <= 0.75 * height
            right_gap = text_boxes[:, 0] - x2
            left_gap = x1 - text_boxes[:, 2]
            overlap = -LABEL_OVERLAP * height
            right = (right_gap >= overlap) & (right_gap <= LABEL_TAKEN * height)
            left = (left_gap >= overlap) & (left_gap <= LABEL_TAKEN * height / 2)
            # a label on the right comes first: any left one counts as farther
            gap = np.where(right, right_gap, np.where(left, left_gap + LABEL_TAKEN * height, np.inf))
            gap[~same_row] = np.inf
            gap[list(taken)] = np.inf
            gap[[is_glyph_text(t.text or "", t.score) for t in texts]] = np.inf  # a pictogram is no label
            nearest = int(gap.argmin())
            if np.isfinite(gap[nearest]):
                taken.add(nearest)
                widget = widget.replace(text=texts[nearest].text)
        out.append(widget)
    return [t for i, t in enumerate(texts) if i not in taken], out


def type_detected_boxes(widgets: Sequence[Element], screen_width: int) -> list[Element]:
    """Untyped detector boxes: with text a button (a list row when screen-wide), without an icon button."""
    out = []
    for widget in widgets:
        if widget.source == "detector" and widget.type is ElementType.ICON and widget.text:
            row = widget.width >= ROW_WIDTH * screen_width
            widget = widget.replace(type=ElementType.LIST_ITEM if row else ElementType.BUTTON)
        out.append(widget)
    return out


def text_owners(
    texts: Sequence[Element], widgets: Sequence[Element]
) -> tuple[list[int], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """The text-holding widgets (their indices), each line's smallest holder (a column of that list) and
    whether it has one."""
    holders = [i for i, w in enumerate(widgets) if w.type in TEXT_HOLDERS or w.source == "detector"]
    if not texts or not holders:
        return holders, np.zeros(len(texts), dtype=np.int64), np.zeros(len(texts), dtype=bool)
    text_boxes = geometry.boxes_of(texts)
    holder_boxes = geometry.boxes_of([widgets[i] for i in holders])
    inside: npt.NDArray[np.bool_] = geometry.containment(text_boxes, holder_boxes) >= TEXT_INSIDE
    holder_area = geometry.areas(holder_boxes)
    owner: npt.NDArray[np.int64] = np.where(inside, holder_area[None, :], np.inf).argmin(axis=1)
    return holders, owner, np.asarray(inside.any(axis=1), dtype=bool)


def drawn_outside_lines(image: RGBImage, box: Sequence[int], line_boxes: npt.NDArray[np.float64]) -> float:
    """The share of ``box`` outside its text lines (and a pixel round them) that is drawn, measured as
    :mod:`.ink_fit` measures ink."""
    height, width = image.shape[:2]
    x0, y0, x1, y1 = (int(v) for v in box)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return 0.0
    drawn, _ = ink_against_border(image[y0:y1, x0:x1])
    free = np.ones(drawn.shape, dtype=bool)
    for lx0, ly0, lx1, ly1 in np.round(line_boxes).astype(int).tolist():
        free[max(ly0 - y0 - 1, 0) : max(ly1 - y0 + 1, 0), max(lx0 - x0 - 1, 0) : max(lx1 - x0 + 1, 0)] = False
    return float(drawn[free].mean()) if free.any() else 0.0


def drop_text_panels(
    texts: Sequence[Element], widgets: Sequence[Element], image: RGBImage | None = None
) -> list[Element]:
    """Drop an untyped detector box of text alone: its own lines on :data:`PANEL_ROWS` rows or more, no
    other box inside it and at most :data:`PANEL_DRAWN` of it drawn beside the lines. Such a box is a
    column of links (a portal's `代步车 练手车 拉货车 准新车`) or a block of prose, whose lines would all
    join one element that no agent could click one link of; each line stays its own element. A card
    (a picture beside its lines) and a list row holding a checkbox or a star stay one control. Run on
    pointer screens only: on a phone such a box is a paragraph (the one of 60 `phone_real` val and
    test screens), better one element than its lines."""
    holders, owner, owned = text_owners(texts, widgets)
    if not owned.any() or image is None:
        return list(widgets)
    untyped = np.asarray(
        [widgets[i].source == DETECTOR_SOURCE and widgets[i].type is ElementType.ICON for i in holders]
    )
    text_boxes = geometry.boxes_of(texts)
    holder_boxes = geometry.boxes_of([widgets[i] for i in holders])
    members = np.zeros((len(texts), len(holders)), dtype=bool)  # [line, holder]: a line in its owner
    owned_lines = np.flatnonzero(owned)
    members[owned_lines, owner[owned_lines]] = True
    rows = control_rows(text_boxes, members)
    holds_widget = geometry.containment(geometry.boxes_of(widgets), holder_boxes) >= GROUP_INSIDE
    holds_widget[holders, np.arange(len(holders))] = False
    candidates = np.flatnonzero(untyped & (rows >= PANEL_ROWS) & ~holds_widget.any(axis=0))
    # a handful of candidates a screen (5 on 60 ScreenAgent desktops), each measured on its own crop
    dropped = {
        holders[column]
        for column in candidates.tolist()
        if drawn_outside_lines(image, widgets[holders[column]].bbox, text_boxes[owned & (owner == column)])
        <= PANEL_DRAWN
    }
    return [w for i, w in enumerate(widgets) if i not in dropped]


def attach_text(texts: Sequence[Element], widgets: Sequence[Element]) -> tuple[list[Element], list[Element]]:
    """Give text lines to the smallest text-holding widget that contains them; return (texts, widgets)."""
    holders, owner, owned = text_owners(texts, widgets)
    if not owned.any():
        return list(texts), list(widgets)

    widgets_out = list(widgets)
    for column, widget_index in enumerate(holders):
        lines = [texts[int(t)] for t in np.flatnonzero(owned & (owner == column))]
        if lines:
            joined = " ".join(line.text or "" for line in reading_order(lines)).strip()
            widget = widgets_out[widget_index]
            text = f"{widget.text} {joined}".strip() if widget.text else joined
            widgets_out[widget_index] = widget.replace(text=text or None)
    remaining = [texts[int(i)] for i in np.flatnonzero(~owned)]
    return remaining, widgets_out


def nested_detector_boxes(
    widgets: Sequence[Element],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """The detector boxes among ``widgets``: their indices, boxes, which holds which ([inner, outer],
    :data:`GROUP_INSIDE`) and which carry text."""
    detected = np.flatnonzero([w.source == DETECTOR_SOURCE for w in widgets])
    boxes = geometry.boxes_of([widgets[i] for i in detected.tolist()])
    inside = geometry.containment(boxes, boxes) >= GROUP_INSIDE
    np.fill_diagonal(inside, False)
    has_text = np.asarray([bool(widgets[i].text) for i in detected.tolist()], dtype=bool)
    return detected, boxes, inside, has_text


def label_padded_boxes(widgets: Sequence[Element]) -> list[Element]:
    """A detector box without text takes the text of the detector boxes it holds: the same control boxed
    at its padded hit area and round its content (a phone tab round its icon and label, a status bar's
    ``Page 1 of 1`` round ``Page 1`` and ``of 1``).

    It holds at least one box with text and at most one without (an icon); the boxes with text lie on at
    most :data:`LABEL_ROWS` rows and all it holds fills at least :data:`CHILD_SHARE` of it (a panel round
    a few labels is no control). The texts join in reading order.
    """
    detected, boxes, inside, has_text = nested_detector_boxes(widgets)
    if len(detected) < 2:
        return list(widgets)
    areas = geometry.areas(boxes)
    text_children = inside & has_text[:, None]
    filled = (inside * areas[:, None]).sum(axis=0) >= CHILD_SHARE * areas
    lending = (
        ~has_text
        & (text_children.sum(axis=0) >= 1)
        & ((inside & ~has_text[:, None]).sum(axis=0) <= 1)
        & (control_rows(boxes, text_children) <= LABEL_ROWS)
        & filled
    )
    out = list(widgets)
    for outer in np.flatnonzero(lending).tolist():
        children = [widgets[int(detected[i])] for i in np.flatnonzero(text_children[:, outer]).tolist()]
        joined = " ".join(child.text or "" for child in reading_order(children)).strip()
        out[int(detected[outer])] = widgets[int(detected[outer])].replace(text=joined or None)
    return out


def drop_blank_panels(widgets: Sequence[Element]) -> list[Element]:
    """Drop a detector box left without text that holds boxes with text on :data:`STACKED_ROWS` rows or
    more: a panel round a message's title, sender and lines (a reading pane), no control of its own."""
    detected, boxes, inside, has_text = nested_detector_boxes(widgets)
    if len(detected) < STACKED_ROWS + 1:
        return list(widgets)
    panel = ~has_text & (control_rows(boxes, inside & has_text[:, None]) >= STACKED_ROWS)
    dropped = set(detected[panel].tolist())
    return [w for i, w in enumerate(widgets) if i not in dropped]


def reading_order(elements: Sequence[Element]) -> list[Element]:
    """Top-to-bottom rows, left to right within a row (a row: centres within half a line height)."""
    if not elements:
        return []
    boxes = np.asarray([e.bbox for e in elements], dtype=np.float64)
    centers_y = (boxes[:, 1] + boxes[:, 3]) / 2
    heights = boxes[:, 3] - boxes[:, 1]
    order = np.argsort(centers_y, kind="stable")
    rows: list[list[int]] = []
    row_center = row_height = 0.0
    for index in order:
        if rows and abs(centers_y[index] - row_center) <= max(min(row_height, heights[index]) * 0.5, 4.0):
            rows[-1].append(int(index))
            continue
        rows.append([int(index)])
        row_center, row_height = centers_y[index], heights[index]
    return [elements[i] for row in rows for i in sorted(row, key=lambda i: (boxes[i, 0], boxes[i, 1]))]


def drop_misread_widgets(texts: Sequence[Element], widgets: Sequence[Element]) -> list[Element]:
    """Drop OCR lines that are widgets read as glyphs: a checkbox read as '口', a close icon as '×', a
    toolbar's icons as ``图三书三首だ``.

    Such a line lies inside a checkbox or radio (or is one letter or glyph round one), or is glyph-like
    and overlaps another widget's box, or is read with little confidence (:data:`WORD_CONFIDENCE`) and
    holds :data:`ICON_ROW` detector boxes or more. On the 60 ScreenAgent desktops the last kind are 21
    toolbar, window-button and tray rows (`日·Ω` at 0.58, `-口x` at 0.57, `入只4ENG` at 0.74) and one
    clipped heading, each a text element of nonsense over the icons the detector found one by one.
    """
    if not texts or not widgets:
        return list(texts)
    text_boxes, widget_boxes = geometry.boxes_of(texts), geometry.boxes_of(widgets)
    text_in_widget = geometry.containment(text_boxes, widget_boxes)
    widget_in_text = geometry.containment(widget_boxes, text_boxes).T
    is_control = np.asarray([w.type in MARK_CONTROLS for w in widgets])
    detected = np.asarray([w.source == DETECTOR_SOURCE for w in widgets])
    glyph = np.asarray([is_glyph_text(t.text or "", t.score) for t in texts])
    unsure = np.asarray([t.score < WORD_CONFIDENCE for t in texts])
    letter = np.asarray([is_letter_text(t.text) for t in texts])
    # a tick read as one letter ('V') round the mark: the mark's segment box is tighter than OCR's
    in_control = (text_in_widget[:, is_control] >= TEXT_INSIDE).any(axis=1) | (
        (glyph | letter) & (widget_in_text[:, is_control] >= GROUP_INSIDE).any(axis=1)
    )
    overlaps = ((text_in_widget >= TEXT_INSIDE) | (widget_in_text >= TEXT_INSIDE)).any(axis=1)
    on_line = boxes_on_lines(widget_boxes[detected], text_boxes).T  # [line, detector box]
    icon_row = unsure & (on_line.sum(axis=1) >= ICON_ROW)
    drop = in_control | (glyph & overlaps) | icon_row
    return [texts[int(i)] for i in np.flatnonzero(~drop)]


def unlabelled_marks_to_icons(texts: Sequence[Element], widgets: Sequence[Element]) -> list[Element]:
    """Radios and ticked checkboxes with no text label beside them become icons.

    A filled glyph and a ticked box look alike to a segmenter; a label on the same row, at most
    :data:`LABEL_GAP` control heights away, is what tells a control from a toolbar pictogram. An empty
    square box stays a checkbox (tables use those without labels).
    """
    if not widgets:
        return []
    text_boxes = geometry.boxes_of(texts)
    out = []
    for widget in widgets:
        needs_label = widget.type is ElementType.RADIO or (
            widget.type is ElementType.CHECKBOX and widget.state.checked is not False
        )
        if needs_label and not has_label(widget, text_boxes):
            widget = widget.replace(type=ElementType.ICON, state=ElementState())
        out.append(widget)
    return out


def has_label(control: Element, text_boxes: npt.NDArray[np.float64]) -> bool:
    """Whether some text box sits on the control's row, just left or right of it."""
    if len(text_boxes) == 0:
        return False
    x1, y1, x2, y2 = control.bbox
    height = y2 - y1
    centre_y = (y1 + y2) / 2
    same_row = np.abs((text_boxes[:, 1] + text_boxes[:, 3]) / 2 - centre_y) <= 0.75 * height
    right_gap = text_boxes[:, 0] - x2
    left_gap = x1 - text_boxes[:, 2]
    overlap = -LABEL_OVERLAP * height
    near = ((right_gap >= overlap) & (right_gap <= LABEL_GAP * height)) | (
        (left_gap >= overlap) & (left_gap <= LABEL_GAP * height)
    )
    return bool((same_row & near).any())


def status_bar(elements: Sequence[Element], width: int, height: int) -> list[Element]:
    """A phone's status bar (the clock, the battery, the signal) is no control: on a phone-shaped screen
    whose top :data:`STATUS_BAR_TOP` holds a clock (``17:43``, ``9:41 AM``), what lies
    above the clock's bottom (plus :data:`STATUS_BAR_MARGIN` of its height) keeps only its text, as
    plain non-interactive text; its glyphs go. No clickable view of the 290 `phone_real` screens lies there.
    """
    if height < PHONE_ASPECT * width:
        return list(elements)
    clocks = [e for e in elements if e.bbox[3] <= STATUS_BAR_TOP * height and CLOCK.search(e.text or "")]
    if not clocks:
        return list(elements)
    bottom = max(e.bbox[3] + STATUS_BAR_MARGIN * e.height for e in clocks)
    out = []
    for element in elements:
        if element.bbox[3] > bottom:
            out.append(element)
        elif element.text and not is_glyph_text(element.text, element.score):
            out.append(element.replace(type=ElementType.TEXT, state=ElementState(), interactive=False))
    return out


def drop_containers(widgets: Sequence[Element], screen_area: int) -> list[Element]:
    """Drop detector boxes over :data:`CONTAINER_SHARE` of the screen: a panel or a page, not a control."""
    return [
        w for w in widgets if w.source != "detector" or w.width * w.height <= CONTAINER_SHARE * screen_area
    ]


def merge_elements(
    elements: Sequence[Element],
    screen_width: int | None = None,
    screen_height: int | None = None,
    image: RGBImage | None = None,
    read: BoxReader | None = None,
) -> list[Element]:
    """The merge stage's work on one screen's raw elements (``image``: its screenshot, to cut OCR lines
    that run across several controls: :func:`.line_split.split_lines_at_boxes`; ``read``: the OCR stage's
    reader of boxes, for detector boxes in a line whose words the ink does not locate:
    :func:`.line_split.read_boxes_on_lines`)."""
    elements = admit_landscape_boxes(elements)
    if screen_width is not None and screen_height is not None:
        elements = drop_containers(elements, screen_width * screen_height)
    elements = drop_bare_boxes(image, fit_to_ink(image, elements))
    is_text = [e.type is ElementType.TEXT and e.source == "ocr" for e in elements]
    texts = [e for e, text in zip(elements, is_text, strict=True) if text]
    others = adopt_segment_types([e for e, text in zip(elements, is_text, strict=True) if not text])
    texts = split_lines_at_boxes(image, texts, others)
    others = drop_boxes_in_cjk_words(image, texts, others)
    pointer = (
        screen_width is not None and screen_height is not None and screen_height < PHONE_ASPECT * screen_width
    )
    others = drop_groups(deduplicate(others), texts)
    if pointer:
        others = drop_weak_spans(others, texts)
    others = drop_glyphs_in_controls(drop_crowded_pictures(others))
    texts = drop_misread_widgets(texts, others)
    others = drop_mark_rows(texts, others, pointer)
    if pointer:
        others = drop_text_panels(texts, others, image)
    lines = texts  # before a box takes its text: a box beside it on its line reads its own part
    texts, others = attach_text(texts, others)
    if pointer:
        others = drop_nested_twins(others)
    rules = screen_rules(image) if image is not None and min(image.shape[:2]) > 0 else None
    others = drop_frame_stretches(rules, others)
    others = words_for_boxes_on_lines(image, texts, others)
    others = read_boxes_on_lines(image, lines, others, read)  # lines a box round them took count too
    texts, others = fit_to_cells(image, texts, others, rules)
    others = label_padded_boxes(others)
    others = drop_blank_panels(others)
    others = unlabelled_marks_to_icons(texts, others)
    texts, others = label_marks(texts, others)
    if screen_width is not None:
        others = type_detected_boxes(others, screen_width)
    merged = [*texts, *others]
    if screen_width is not None and screen_height is not None:
        merged = status_bar(merged, screen_width, screen_height)
    ordered = reading_order(merged)
    return [element.replace(id=index) for index, element in enumerate(ordered)]


def box_reader(settings: Settings) -> BoxReader | None:
    """The settings' OCR engine's reader of boxes (:meth:`.OcrStage.read_boxes`; its model is the text
    stage's, loaded once), or None when that engine cannot run here or reads no boxes."""
    try:
        engine = backend_class("text", ocr_engine_name(settings), settings)
    except (ValueError, ImportError):
        return None
    if not issubclass(engine, OcrStage) or engine.available(settings) is not None:
        return None
    return engine(settings).read_boxes


@register("merge", "default")
class MergeStage(Backend):
    """The ``merge`` stage."""

    config = ("ocr",)

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.read = box_reader(settings)

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        return [
            parse.with_elements(merge_elements(parse.elements, parse.width, parse.height, image, self.read))
            for image, parse in zip(images, parses, strict=True)
        ]
