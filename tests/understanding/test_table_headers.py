import numpy as np

from detact_service.core import DETECTOR_SOURCE, Element, ElementType
from detact_service.geometry import boxes_of
from detact_service.understanding.alignment import stacked
from detact_service.understanding.reader import TYPES, Reading, apply_reading, header_types
from detact_service.understanding.table_headers import HEADER_GAP, HEADER_HEIGHT, header_sections

TEXT, BUTTON, ROW = ElementType.TEXT, ElementType.BUTTON, ElementType.LIST_ITEM
COLUMNS = ((1, 60), (60, 180), (180, 260), (260, 420))
"""A file list's columns (x0, x1), as a Qt table view draws them."""


def table(header: bool, rows: int = 3) -> list[Element]:
    """A header row 18 px high (when ``header``) over ``rows`` rows of cells 29 px high."""
    out = []
    if header:
        out += [Element((x0, 70, x1, 88), TEXT, source=DETECTOR_SOURCE) for x0, x1 in COLUMNS]
    for r in range(rows):
        top = 88 + 30 * r
        out += [Element((x0, top, x1, top + 29), ROW, source=DETECTOR_SOURCE) for x0, x1 in COLUMNS]
    return out


def reading_of(types: list[ElementType]) -> Reading:
    index = np.asarray([TYPES.index(t) for t in types])
    return Reading(index, np.full(len(types), 0.9, np.float32), np.zeros((len(types), 4), np.float32))


def test_stacked_needs_the_same_edges_and_no_gap() -> None:
    boxes = np.array([[0, 0, 100, 18], [1, 18, 99, 47], [30, 18, 100, 47], [0, 80, 100, 109]], dtype=float)
    under = stacked(boxes, size_ratio=HEADER_HEIGHT, max_gap=HEADER_GAP)
    assert under[0].tolist() == [False, True, False, False]  # shifted edges, or far below: not its column
    assert not under[1, 0]  # only downwards


def test_the_sections_atop_a_tables_columns_are_found() -> None:
    elements = table(header=True)
    types = [e.type for e in elements]
    assert header_sections(boxes_of(elements), types).tolist() == [True] * 4 + [False] * 12
    # a header the reader partly called buttons is a header too
    types[1] = BUTTON
    assert header_sections(boxes_of(elements), types)[:4].all()
    # read as list rows like the body, the sections are told by their height (18 px over rows of 29)
    types[:4] = [ROW] * 4
    assert header_sections(boxes_of(elements), types).tolist() == [True] * 4 + [False] * 12


def test_a_first_row_read_as_the_rows_below_is_no_header() -> None:
    """A table whose header was not boxed: its first row, read as list rows like the rest, stays rows; so
    does a row of text over a column of one cell (a form's labels over their fields)."""
    elements = table(header=False, rows=4)
    assert not header_sections(boxes_of(elements), [e.type for e in elements]).any()
    labels_over_fields = table(header=True, rows=1)
    types = [e.type for e in labels_over_fields]
    assert not header_sections(boxes_of(labels_over_fields), types).any()


def test_the_reader_types_a_header_row_buttons() -> None:
    elements = table(header=True)
    ocr_line = Element((430, 70, 500, 88), TEXT, source="ocr")
    elements.append(ocr_line)
    reading = reading_of([e.type for e in elements])
    fixed = header_types(elements, reading)
    assert [TYPES[i] for i in fixed.type_index[:4]] == [BUTTON] * 4
    assert [TYPES[i] for i in fixed.type_index[4:]] == [ROW] * 12 + [TEXT]
    assert [e.type for e in apply_reading(elements, reading, 0.5)][:5] == [BUTTON] * 4 + [ROW]
