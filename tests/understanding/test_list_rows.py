"""Rows of edgeless lists built from alignment (``list_rows``), on element layouts of real parses."""

import itertools

from detact_service.core import Element, ElementType, ScreenParse
from detact_service.understanding.list_rows import LIST_ROW_SOURCE, list_rows

TEXT, BUTTON, ICON, CHECKBOX = ElementType.TEXT, ElementType.BUTTON, ElementType.ICON, ElementType.CHECKBOX

# The `full` parse of a rendered 1920x1080 list page (data engine, web-synthetic test template): each row's
# icon and title came out as one text, four rows have an action button at the right end; nothing is drawn
# round the rows.
PEOPLE = [
    ((2, 5, 121, 38), ElementType.LINK, "BILLING"),
    ((1888, 10, 1908, 25), BUTTON, None),
    ((17, 63, 233, 97), TEXT, "Nora - Privacy billing"),
    ((1867, 66, 1889, 88), BUTTON, None),
    ((20, 111, 269, 142), TEXT, "Grace - Language sound"),
    ((18, 161, 278, 191), TEXT, "Priya - Document calendar"),
    ((1855, 152, 1897, 197), BUTTON, None),
    ((22, 206, 273, 241), TEXT, "Omar - Document update"),
    ((17, 254, 252, 287), TEXT, "Alice - Display storage"),
    ((1868, 258, 1887, 277), BUTTON, None),
    ((15, 305, 262, 339), TEXT, "Nora - Password activity"),
    ((1868, 308, 1889, 330), BUTTON, None),
    ((15, 357, 277, 389), TEXT, "Deepak - Update calendar"),
]


def parse_of(
    rows: list[tuple[tuple[int, int, int, int], ElementType, str | None]],
    size: tuple[int, int] = (1920, 1080),
) -> ScreenParse:
    return ScreenParse(size[0], size[1], [Element(b, t, id=i, text=x) for i, (b, t, x) in enumerate(rows)])


def test_a_list_with_no_edges_gets_one_element_per_row_out_to_its_actions() -> None:
    parse = list_rows(parse_of(PEOPLE))
    rows = [e for e in parse.elements if e.source == LIST_ROW_SOURCE]
    assert [e.text for e in rows] == [text for _, kind, text in PEOPLE if kind is TEXT]
    assert all(e.type is ElementType.LIST_ITEM for e in rows)
    for row in rows:
        x1, _y1, x2, _y2 = row.bbox
        assert x1 <= 17 and x2 >= 1889, "from the row's start to the action buttons' right end"
    tops = [e.bbox[1] for e in rows]
    assert tops == sorted(tops) and all(a.bbox[3] <= b.bbox[1] + 1 for a, b in itertools.pairwise(rows))
    buttons = [e for e in parse.elements if e.type is BUTTON]
    assert len(buttons) == 5, "the action buttons stay controls of their own"
    assert [e.id for e in parse.elements] == list(range(len(parse.elements)))
    texts = [e for e in parse.elements if e.type is TEXT]
    assert not texts, "each title is its row's text"


def test_an_inbox_row_holds_its_check_box_and_star_and_ends_at_the_date() -> None:
    lines = []
    for k, (name, date) in enumerate(
        [("Deepak", "20 Nov"), ("Ines", "21 Nov"), ("Lena", "21 Nov"), ("Ines", "8 Nov")]
    ):
        top = 90 + 52 * k
        lines += [
            ((17, top, 40, top + 23), CHECKBOX, None),
            ((53, top - 2, 76, top + 21), BUTTON, None),
            ((87, top - 4, 480, top + 25), TEXT, f"{name} Subject of message {k}"),
            ((622, top, 677, top + 25), TEXT, date),
        ]
    parse = list_rows(parse_of(lines, (1366, 768)))
    rows = [e for e in parse.elements if e.source == LIST_ROW_SOURCE]
    assert len(rows) == 4
    assert rows[0].text == "Deepak Subject of message 0 20 Nov"
    assert all(e.bbox[0] <= 17 and e.bbox[2] >= 677 for e in rows)
    assert (
        sum(e.type is CHECKBOX for e in parse.elements) == 4
        and sum(e.type is BUTTON for e in parse.elements) == 4
    )


def test_tables_forms_number_columns_and_phones_get_no_rows() -> None:
    table = []  # ruled cells side by side: a table's rows are its cells
    for k in range(5):
        top = 80 + 30 * k
        table += [
            ((16, top, 40, top + 28), ICON, None),
            ((40, top, 140, top + 28), TEXT, f"Name {k}"),
            ((140, top, 400, top + 28), TEXT, f"Owner {k}"),
            ((700, top + 4, 720, top + 24), BUTTON, None),
        ]
    assert list_rows(parse_of(table)).elements == parse_of(table).elements
    form = []  # a label, its field and a button at the field's end
    for k in range(4):
        top = 60 + 26 * k
        form += [
            ((1320, top, 1370, top + 20), TEXT, f"Field {k}:"),
            ((1378, top - 2, 1650, top + 22), ElementType.INPUT, None),
            ((1655, top, 1675, top + 20), BUTTON, None),
        ]
    assert list_rows(parse_of(form)).elements == parse_of(form).elements
    numbered = [(b, t, str(i) if t is TEXT else x) for i, (b, t, x) in enumerate(PEOPLE)]  # row headers
    assert not any(e.source == LIST_ROW_SOURCE for e in list_rows(parse_of(numbered)).elements)
    phone = parse_of(PEOPLE, (1080, 2340))
    assert list_rows(phone).elements == phone.elements
