"""Interactive labels grouped into controls (recall per control)."""

from __future__ import annotations

import numpy as np

from bench.quality import Boxed, score_screen
from training.eval.controls import control_groups, controls_found

BUTTON, ICON_IN_BUTTON = (100, 100, 160, 150), (115, 110, 145, 140)
ITEM, ANCHOR = (0, 200, 400, 240), (4, 201, 398, 239)
ROW, CHECKBOX, STAR = (0, 300, 600, 350), (10, 315, 30, 335), (560, 310, 590, 340)


def test_a_nested_pair_is_one_control_and_a_row_of_controls_is_not() -> None:
    groups = control_groups([BUTTON, ICON_IN_BUTTON, ITEM, ANCHOR, ROW, CHECKBOX, STAR])
    assert groups[0] == groups[1]  # the icon alone in its button
    assert groups[2] == groups[3]  # <a> filling its <li>
    assert len({groups[4], groups[5], groups[6]}) == 3  # a row holding two controls keeps them apart
    assert len(set(groups.tolist())) == 5


def test_a_bare_glyph_is_one_control_with_the_row_round_it() -> None:
    lead = (8, 310, 28, 330)  # a row's leading icon, beside its check box and star
    boxes = [ROW, CHECKBOX, STAR, lead, BUTTON, ICON_IN_BUTTON]
    groups = control_groups(boxes, [False, False, False, True, False, True])
    assert groups[3] == groups[0] and len({groups[0], groups[1], groups[2]}) == 3
    assert groups[4] == groups[5]
    assert len(set(control_groups(boxes).tolist())) == 5  # without types the glyph stays apart
    found = np.array([True, True, True, False, True, False])
    assert controls_found(boxes, found, [0, 0, 0, 1, 0, 1]) == (4, 4)


def test_a_control_is_found_when_either_of_its_labels_is() -> None:
    assert controls_found([BUTTON, ICON_IN_BUTTON, STAR], np.array([False, True, False])) == (2, 1)
    assert controls_found([], np.zeros(0, dtype=bool)) == (0, 0)


def test_quality_counts_a_button_found_once_as_its_whole_control() -> None:
    labels = [Boxed(box, interactive=True) for box in (BUTTON, ICON_IN_BUTTON, STAR)]
    counts = score_screen(labels, [Boxed(BUTTON)])
    assert (counts.interactive, counts.interactive_found, counts.recall) == (3, 1, 1 / 3)
    assert (counts.controls, counts.controls_found, counts.control_recall) == (2, 1, 0.5)
