"""The detector and attribute evaluations' arithmetic on hand-made boxes and strings."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from detact_service.core import Element, ElementState, ElementType, ScreenParse
from training.eval.attributes import Tally, score
from training.eval.detector import (
    Screen,
    SourceResult,
    greedy_matches,
    mean_average_precision,
    peer_table,
    score_peer,
    score_screen,
    stacked,
)


def test_greedy_matching_uses_each_prediction_once() -> None:
    truth = np.array([[0, 0, 10, 10], [20, 0, 30, 10]], dtype=float)
    # one prediction over the first box, one duplicate of it, one that misses everything
    predicted = np.array([[0, 0, 10, 11], [1, 0, 10, 10], [50, 50, 60, 60]], dtype=float)
    assert greedy_matches(truth, predicted, np.array([0.9, 0.8, 0.7])) == 1
    assert greedy_matches(truth, predicted[:0], np.zeros(0)) == 0
    both = np.array([[0, 0, 10, 10], [21, 0, 30, 10]], dtype=float)
    assert greedy_matches(truth, both, np.array([0.5, 0.6])) == 2


def login_screen() -> Screen:
    """A 300x100 screen labelled with an OK button, a checked checkbox and its label text."""
    labels = [
        Element((0, 0, 100, 40), ElementType.BUTTON, text="OK"),
        Element((0, 50, 20, 70), ElementType.CHECKBOX, state=ElementState(checked=True)),
        Element((30, 50, 200, 70), ElementType.TEXT, text="Remember me"),
    ]
    return Screen("toy", np.zeros((100, 300, 3), dtype=np.uint8), labels)


def test_screen_scoring_per_class_interactive_recall_and_precision() -> None:
    screen = login_screen()
    predictions = [
        Element((0, 0, 100, 41), ElementType.BUTTON, score=0.9, source="detector"),
        Element((0, 50, 20, 70), ElementType.BUTTON, score=0.8, source="detector"),  # right box, wrong class
        Element((250, 80, 290, 95), ElementType.ICON, score=0.4, source="detector"),  # nothing there
    ]
    result = SourceResult()
    classes = ["text", "button", "checkbox", "icon"]
    score_screen(result, screen, ScreenParse(300, 100, predictions), classes)
    assert result.found["button"] == 1 and result.total["button"] == 1
    assert result.found["checkbox"] == 0 and result.total["checkbox"] == 1
    assert result.interactive_found == 2 and result.interactive_total == 2, "class-agnostic: both found"
    assert result.predictions == 3 and result.predictions_matched == 2
    map50, map5095 = mean_average_precision(result)
    assert 0 < map5095 <= map50 + 1e-9 and map50 < 1


def test_a_one_class_detector_counts_for_every_interactive_label() -> None:
    screen = login_screen()
    predictions = [
        Element((0, 0, 100, 41), ElementType.ICON, score=0.9, source="detector"),
        Element((30, 50, 200, 70), ElementType.ICON, score=0.5, source="detector"),  # the label's text
    ]
    result = SourceResult()
    score_screen(result, screen, ScreenParse(300, 100, predictions), ["icon"])
    assert result.interactive_total == 2 and result.interactive_found == 1
    assert result.total["icon"] == 2 and result.found["icon"] == 1
    assert result.predictions_matched == 2


def test_peer_is_scored_class_agnostically_on_the_same_screen() -> None:
    screen = login_screen()
    seen: list[tuple[int, ...]] = []

    def peer(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        seen.append(image.shape)
        # finds the checkbox, boxes the text line (not interactive) and one empty spot
        boxes = np.array([[0, 50, 20, 71], [30, 50, 200, 70], [250, 80, 290, 95]], dtype=float)
        return boxes, np.array([0.9, 0.8, 0.3])

    result = SourceResult(screens=1, interactive_total=2, interactive_found=2)
    result.controls_total = result.controls_found = 2
    result.predictions = result.predictions_matched = 2
    classes = ["text", "button", "checkbox", "icon"]
    score_peer(result, screen, peer, classes)
    assert seen == [(100, 300, 3)]
    assert result.peer is not None
    assert result.peer.interactive_found == 1, "the checkbox, not the button"
    assert result.peer.predictions == 3 and result.peer.predictions_matched == 2
    (row,) = [line for line in peer_table({"toy": result}, "test") if line.startswith("| toy |")]
    assert result.peer.controls_found == 1
    assert row.startswith("| toy | 1.000 | 0.500 | 1.000 | 0.500 | 1.000 | 0.667 |")


def test_attribute_scoring() -> None:
    tally = Tally()
    score(tally, "checkbox|1|-|0|0|Remember me", "checkbox|1|-|0|0|Remember me")
    score(tally, "checkbox|0|-|0|0|", "checkbox|1|-|0|0|")
    score(tally, "input|-|-|1|0|", "input|-|-|0|0|")
    score(tally, "button|-|-|0|0|OK", "garbage")
    assert tally.rate("type") == "0.750 (4)"
    assert tally.rate("checked") == "0.500 (2)"
    assert tally.rate("focused") == "0.000 (1)"
    assert tally.rate("unparsed") == "0.250 (4)"
    assert tally.rate("selected") == "-"


def test_candidates_are_compared_at_the_base_box_count_with_a_desktop_keep_rate() -> None:
    from training.eval.candidates import BASE_CONF, LabelledScreen, Predictions, compare

    target = np.array([[0.0, 0.0, 100.0, 40.0]])
    other = np.array([[200.0, 0.0, 300.0, 40.0]])
    screens = [
        LabelledScreen("phone-val", Path("a.png"), target),
        LabelledScreen("desktops", Path("b.png"), np.zeros((0, 4))),
    ]
    base, tuned = Predictions(), Predictions()
    base.add("phone-val", np.vstack([other, target + 30]), np.array([0.9, 0.06]))
    base.add("desktops", np.vstack([target, other]), np.array([0.8, 0.5]))
    # The candidate draws the target, but only the third-best box: at the base's count of two it is cut.
    tuned.add("phone-val", np.vstack([other, other + 5, target]), np.array([0.9, 0.8, 0.7]))
    tuned.add("desktops", np.vstack([target, other + 500]), np.array([0.9, 0.6]))
    rows = {(row["model"], row["group"]): row for row in compare(screens, base, {"tuned": tuned})}
    assert rows[("base", "phone-val")]["recall"] == 0.0 and rows[("base", "phone-val")]["conf"] == BASE_CONF
    assert rows[("tuned", "phone-val")]["recall"] == 0.0 and rows[("tuned", "phone-val")]["per_screen"] == 2
    assert rows[("base", "desktops")]["keep"] == 1.0
    assert rows[("tuned", "desktops")]["keep"] == 0.5
    tuned.scores["phone-val"][0] = np.array([0.9, 0.1, 0.7])
    rows = {(row["model"], row["group"]): row for row in compare(screens, base, {"tuned": tuned})}
    assert rows[("tuned", "phone-val")]["recall"] == 1.0


def test_every_held_out_miniwob_screen_travels_with_its_labels_scaled(tmp_path: Path) -> None:
    from tests.training.test_attribute_recipe import labelled_folder
    from training.eval.candidates import every_screen, export_screens, exported_screens

    folder = labelled_folder(tmp_path / "rendered", screens=4)
    screens = list(every_screen(folder))
    assert len(screens) == 4, "every screen, whatever its template's split"
    assert all(s.group == "miniwob-eval" and len(s.targets) for s in screens)
    back = exported_screens(export_screens(screens, tmp_path / "eval", max_side=100))
    with Image.open(back[0].image_path) as image, Image.open(screens[0].image_path) as original:
        assert max(image.size) == 100
        factor = 100 / max(original.size)
    assert factor < 1 and np.allclose(back[0].targets, screens[0].targets * factor)


def test_reader_type_star_accepts_a_button_for_a_phone_icon_view_only() -> None:
    from training.eval.reader import phone_accepted
    from training.eval.reader import score as score_reader

    tally = Tally()
    icon_view = Element((0, 0, 40, 40), ElementType.ICON)
    list_row = Element((0, 50, 400, 100), ElementType.LIST_ITEM)
    score_reader(
        tally, icon_view, Element((0, 0, 40, 40), ElementType.BUTTON), phone_accepted(icon_view.type)
    )
    score_reader(
        tally, list_row, Element((0, 50, 400, 100), ElementType.BUTTON), phone_accepted(list_row.type)
    )
    assert tally.rate("type") == "0.000 (2)"
    assert tally.rate("type*") == "0.500 (2)"


def test_reader_recall_columns_count_only_the_labels_in_that_state() -> None:
    from training.eval.reader import score as score_reader

    tally = Tally()
    box = (0, 0, 80, 30)
    disabled, enabled = ElementState(disabled=True), ElementState(disabled=False)
    score_reader(
        tally,
        Element(box, ElementType.BUTTON, state=disabled),
        Element(box, ElementType.BUTTON, state=enabled),
    )
    score_reader(
        tally,
        Element(box, ElementType.BUTTON, state=enabled),
        Element(box, ElementType.BUTTON, state=enabled),
    )
    score_reader(tally, Element(box, ElementType.BUTTON, state=disabled), Element(box, ElementType.TEXT))
    assert tally.rate("disabled") == "0.333 (3)"
    assert tally.rate("disabled+") == "0.000 (2)"
    assert tally.rate("selected+") == "-"


def test_stacked_pages_put_screens_one_above_another_with_their_labels() -> None:
    wide = Screen("qt", np.full((100, 300, 3), 10, np.uint8), [Element((10, 20, 50, 40), ElementType.BUTTON)])
    narrow = Screen(
        "qt", np.full((50, 200, 3), 20, np.uint8), [Element((0, 0, 30, 10), ElementType.CHECKBOX)]
    )

    pages = list(stacked([wide, narrow, wide], 2))

    assert [(p.source, p.image.shape) for p in pages] == [("qt x2", (150, 300, 3)), ("qt x2", (100, 300, 3))]
    first = pages[0]
    assert [(e.bbox, e.type) for e in first.labels] == [
        ((10, 20, 50, 40), ElementType.BUTTON),
        ((0, 100, 30, 110), ElementType.CHECKBOX),
    ]
    assert (first.image[100:, :200] == 20).all() and (first.image[100:, 200:] == 255).all()


def test_reader_type_max_gives_one_of_two_labels_at_one_box() -> None:
    from training.eval.reader import answerable_types

    item = Element((0, 0, 200, 30), ElementType.LIST_ITEM)
    its_link = Element((0, 0, 200, 31), ElementType.LINK)
    twin_link = Element((0, 40, 200, 70), ElementType.LINK)
    twin_link_again = Element((0, 40, 200, 70), ElementType.LINK)
    alone = Element((0, 80, 90, 110), ElementType.BUTTON)
    answerable = answerable_types([item, its_link, twin_link, twin_link_again, alone])
    assert answerable == [
        ElementType.LIST_ITEM,
        ElementType.LIST_ITEM,
        ElementType.LINK,
        ElementType.LINK,
        ElementType.BUTTON,
    ]
