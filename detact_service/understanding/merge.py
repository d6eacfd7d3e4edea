"""Merge: OCR lines, segments and detector boxes become one de-duplicated list in reading order.

- Boxes from segmenters and detectors that overlap (IoU above a threshold) are de-duplicated, keeping the
  more trusted source (detector over segmenter) and then the higher score.
- Text inside an atomic widget (button, input, link, tab, ...) becomes that widget's text; text inside a
  container (region, image) stays its own element.
- Ids are assigned 0..N-1 in reading order: rows top to bottom, left to right within a row.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from detact_service import geometry
from detact_service.core import Element, ElementState, ElementType, ScreenParse
from detact_service.stages import BaseStage, RGBImage

DUPLICATE_IOU = 0.7
TEXT_INSIDE = 0.6  # share of a text line's area that must lie in a widget for the text to join it
SOURCE_TRUST = {"detector": 2.0, "segment": 1.0}
LABEL_GAP = 3.0  # how far (in control heights) a checkbox's or radio's label may sit from it
MARK_CONTROLS = frozenset({ElementType.CHECKBOX, ElementType.RADIO})
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


def deduplicate(elements: Sequence[Element], iou: float = DUPLICATE_IOU) -> list[Element]:
    """Non-maximum suppression over non-text boxes, trusting detectors over segmenters."""
    priority = [SOURCE_TRUST.get(e.source, 0.0) + min(e.score, 0.999) for e in elements]
    return geometry.deduplicate(elements, geometry.boxes_of(elements), priority, iou)


def attach_text(texts: Sequence[Element], widgets: Sequence[Element]) -> tuple[list[Element], list[Element]]:
    """Give text lines to the smallest text-holding widget that contains them; return (texts, widgets)."""
    holders = [i for i, w in enumerate(widgets) if w.type in TEXT_HOLDERS]
    if not texts or not holders:
        return list(texts), list(widgets)
    text_boxes = geometry.boxes_of(texts)
    holder_boxes = geometry.boxes_of([widgets[i] for i in holders])
    inside = geometry.containment(text_boxes, holder_boxes) >= TEXT_INSIDE
    holder_area = geometry.areas(holder_boxes)
    owner = np.where(inside, holder_area[None, :], np.inf).argmin(axis=1)
    owned = inside.any(axis=1)

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


def is_glyph_text(text: str) -> bool:
    """OCR's reading of a pictogram: one or two symbols, no ASCII letter or digit (a menu icon as '三')."""
    stripped = text.strip()
    return 0 < len(stripped) <= 2 and not any(c.isascii() and c.isalnum() for c in stripped)


def drop_misread_widgets(texts: Sequence[Element], widgets: Sequence[Element]) -> list[Element]:
    """Drop OCR lines that are a widget read as a glyph: a checkbox read as '口', a close icon as '×'.

    Such a line lies inside a checkbox or radio, or is glyph-like and overlaps another widget's box.
    """
    if not texts or not widgets:
        return list(texts)
    text_boxes, widget_boxes = geometry.boxes_of(texts), geometry.boxes_of(widgets)
    text_in_widget = geometry.containment(text_boxes, widget_boxes)
    widget_in_text = geometry.containment(widget_boxes, text_boxes).T
    is_control = np.asarray([w.type in MARK_CONTROLS for w in widgets])
    glyph = np.asarray([is_glyph_text(t.text or "") for t in texts])
    in_control = (text_in_widget[:, is_control] >= TEXT_INSIDE).any(axis=1)
    overlaps = ((text_in_widget >= TEXT_INSIDE) | (widget_in_text >= TEXT_INSIDE)).any(axis=1)
    drop = in_control | (glyph & overlaps)
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
    near = ((right_gap >= -2) & (right_gap <= LABEL_GAP * height)) | (
        (left_gap >= -2) & (left_gap <= LABEL_GAP * height)
    )
    return bool((same_row & near).any())


def merge_elements(elements: Sequence[Element]) -> list[Element]:
    """The merge stage's work on one screen's raw elements."""
    texts = [e for e in elements if e.type is ElementType.TEXT and e.source == "ocr"]
    others = deduplicate([e for e in elements if not (e.type is ElementType.TEXT and e.source == "ocr")])
    texts = drop_misread_widgets(texts, others)
    texts, others = attach_text(texts, others)
    others = unlabelled_marks_to_icons(texts, others)
    ordered = reading_order([*texts, *others])
    return [element.replace(id=index) for index, element in enumerate(ordered)]


class MergeStage(BaseStage):
    """The ``merge`` stage."""

    slot = "merge"
    name = "default"

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        return [parse.with_elements(merge_elements(parse.elements)) for parse in parses]
