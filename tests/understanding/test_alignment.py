"""Boxes that line up: columns and rows."""

from __future__ import annotations

import numpy as np

from detact_service.understanding.alignment import column_groups, row_groups


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
