"""The phone_real reader, its app split, its YOLO export and the recall scoring."""

from dataclasses import replace
from pathlib import Path

import numpy as np

from detact_service.core import Element
from training.data.phone_real import MAX_SCREEN_SHARE, export_yolo, load_screens, view_texts
from training.eval.phone import centre_hits, matched_targets, score, texts_right


def test_the_split_is_by_app_and_covers_every_screen() -> None:
    splits = {split: list(load_screens(split=split)) for split in ("train", "val", "test")}
    apps = {split: {screen.app for screen in screens} for split, screens in splits.items()}
    assert sum(len(screens) for screens in splits.values()) == 290
    assert len(apps["val"]) == len(apps["test"]) == 10 and len(apps["train"]) == 63
    assert not (apps["train"] & apps["val"]) and not (apps["train"] & apps["test"])
    assert not (apps["val"] & apps["test"])


def test_targets_are_clickable_views_smaller_than_the_page() -> None:
    screens = list(load_screens(split="val"))
    assert screens and all(len(s.clickable) == len(s.classes) for s in screens)
    for screen in screens:
        boxes = screen.clickable
        areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
        assert (areas > 0).all() and (areas <= MAX_SCREEN_SHARE * screen.width * screen.height).all()


def test_yolo_export_writes_normalised_boxes_for_each_image(tmp_path: Path) -> None:
    yaml_path = export_yolo(tmp_path / "yolo", splits=("val",))
    assert "names:" in yaml_path.read_text()
    labels = sorted((tmp_path / "yolo" / "labels" / "val").glob("*.txt"))
    assert len(labels) == len(list(load_screens(split="val")))
    rows = np.loadtxt(labels[0], ndmin=2)
    assert rows.shape[1] == 5 and (rows[:, 0] == 0).all() and ((rows[:, 1:] > 0) & (rows[:, 1:] <= 1)).all()


def test_recall_matches_one_to_one_and_centre_hits_count_targets() -> None:
    targets = np.array([[0, 0, 10, 10], [20, 20, 30, 30]], dtype=float)
    twice = np.array([[0, 0, 10, 9], [0, 0, 10, 10], [40, 40, 50, 50]], dtype=float)
    assert matched_targets(targets, twice) == 1
    assert centre_hits(targets, twice) == 1
    assert matched_targets(targets, np.zeros((0, 4))) == 0


def test_a_layout_and_its_text_view_at_one_box_are_one_control_found_once() -> None:
    screen = next(iter(load_screens(split="val")))
    layout_and_text = [[100, 100, 300, 150], [100, 101, 300, 150]]
    apart = [[100, 300, 300, 350]]
    screen = replace(
        screen, clickable=np.array(layout_and_text + apart, dtype=float), classes=("a", "b", "c")
    )
    one_box = [Element((100, 100, 300, 150)), Element((100, 300, 140, 320))]
    totals = score([screen], lambda image: one_box)
    assert (totals.targets, totals.matched) == (3, 1)
    assert (totals.controls, totals.controls_matched) == (2, 1)


def test_a_view_shows_the_texts_inside_it_and_a_match_reads_it_in_any_order() -> None:
    elements = [
        {"bbox": [0, 0, 200, 60], "text": None},
        {"bbox": [10, 5, 90, 25], "text": "Wi-Fi"},
        {"bbox": [10, 30, 120, 55], "text": "Connected"},
        {"bbox": [150, 100, 190, 130], "text": "OK"},
    ]
    views = np.array([[0, 0, 200, 60], [140, 95, 195, 135], [0, 200, 50, 250]], dtype=float)
    texts = view_texts(elements, views)
    assert texts == ("Wi-Fi Connected", "OK", "")
    pairs = [(0, 1), (1, 0), (2, 2)]
    assert texts_right(pairs, texts, ["Cancel", "Connected Wi-Fi", None]) == (2, 1)


def test_every_val_view_has_a_text_entry_and_some_show_text() -> None:
    screens = list(load_screens(split="val"))
    assert all(len(s.texts) == len(s.clickable) for s in screens)
    assert sum(bool(t) for s in screens for t in s.texts) > 100
