"""The selected row of a list, by how it is drawn."""

from __future__ import annotations

import numpy as np

from detact_service.core import Element, ElementState, ElementType
from detact_service.understanding.list_looks import current_rows

PAGE = (250, 250, 250)
INK = (40, 40, 40)


def list_of_rows(
    fills: list[tuple[int, int, int]], gap: int = 0, width: int = 600, height: int = 40
) -> tuple[np.ndarray, list[Element]]:
    """Rows one under another (``gap`` pixels apart), each filled in its colour with a line of text's
    strokes at its left; the rows as list rows with no selected state."""
    image = np.full((60 + len(fills) * (height + gap), width + 40, 3), PAGE, dtype=np.uint8)
    elements = []
    for k, fill in enumerate(fills):
        top = 20 + k * (height + gap)
        image[top : top + height, 20 : 20 + width] = fill
        for stroke in range(10):
            left = 36 + 14 * stroke
            image[top + 14 : top + 26, left : left + 3] = INK if sum(fill) > 380 else PAGE
        elements.append(Element((20, top, 20 + width, top + height), ElementType.LIST_ITEM, text=f"Row {k}"))
    return image, elements


def selected(elements: list[Element]) -> list[bool | None]:
    return [e.state.selected for e in elements]


def test_the_row_filled_unlike_its_list_is_the_selected_one() -> None:
    image, rows = list_of_rows([PAGE, PAGE, (33, 37, 41), PAGE, PAGE])
    assert selected(current_rows(image, rows)) == [False, False, True, False, False]
    image, rows = list_of_rows([PAGE, (220, 220, 220), PAGE, PAGE])  # a grey fill on white
    assert selected(current_rows(image, rows)) == [False, True, False, False]


def test_lists_whose_look_names_no_row_or_that_may_be_no_list_are_left_alone() -> None:
    dark = (33, 37, 41)
    alike, rows = list_of_rows([PAGE] * 5)
    assert current_rows(alike, rows) == rows
    image, rows = list_of_rows([PAGE, dark, PAGE, PAGE])
    chosen = rows[3].replace(state=ElementState(selected=True))  # the reader selected another row
    assert current_rows(image, [*rows[:3], chosen]) == [*rows[:3], chosen]
    header, rows = list_of_rows([dark, PAGE, PAGE, PAGE, PAGE])  # a table's header above its rows
    assert current_rows(header, rows) == rows
    three, rows = list_of_rows([PAGE, dark, PAGE])  # a striped table's three rows
    assert current_rows(three, rows) == rows
    form, rows = list_of_rows([PAGE, PAGE, dark, PAGE], gap=12)  # a form's fields and its button
    assert current_rows(form, rows) == rows
    cells, rows = list_of_rows([PAGE, dark, PAGE, PAGE], width=160)  # a table's narrow cells
    assert current_rows(cells, rows) == rows
    buttons = [e.replace(type=ElementType.BUTTON) for e in list_of_rows([PAGE, dark, PAGE, PAGE])[1]]
    assert current_rows(image, buttons) == buttons
