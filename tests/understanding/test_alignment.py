"""Boxes that line up: columns and rows."""

from __future__ import annotations

import numpy as np

from detact_service.understanding.alignment import column_groups, list_groups, row_groups


def test_a_menus_rows_are_one_column_and_a_toolbars_glyphs_one_row() -> None:
    menu = np.asarray([(100, 100 + 30 * i, 350, 130 + 30 * i) for i in range(4)], np.float64)
    toolbar = np.asarray([(180 + 34 * k, 53, 206 + 34 * k, 79) for k in range(5)], np.float64)
    assert column_groups(menu).tolist() == [0] * 4
    assert row_groups(toolbar).tolist() == [0] * 5
    assert (row_groups(menu) == -1).all()  # stacked, not side by side


def test_rows_far_apart_or_of_other_widths_are_no_column() -> None:
    spaced = np.asarray([(100, 100 + 80 * i, 350, 130 + 80 * i) for i in range(3)], np.float64)
    ragged = np.asarray([(100, 100 + 30 * i, 350 - 60 * i, 130 + 30 * i) for i in range(3)], np.float64)
    assert column_groups(spaced).tolist() == [-1] * 3
    assert column_groups(ragged).tolist() == [-1] * 3


def test_a_lists_touching_rows_of_one_and_two_lines_are_one_list() -> None:
    """A list's rows follow one another without a gap, one line (41 px) or two (57 px) high: one list,
    though no column by height. A table's narrow cells under their taller header stay out of it."""
    tops, heights = [69, 110, 167, 208], [41, 57, 41, 41]
    rows = np.asarray([(19, t, 841, t + h) for t, h in zip(tops, heights, strict=True)], np.float64)
    assert column_groups(rows).tolist() == [-1] * 4
    assert list_groups(rows).tolist() == [0] * 4
    cells = np.asarray([(300, 40, 420, 72), *((300, 72 + 20 * i, 420, 92 + 20 * i) for i in range(3))])
    header, *column = list_groups(cells.astype(np.float64)).tolist()
    assert header == -1
    assert column[0] >= 0 and column == [column[0]] * 3
