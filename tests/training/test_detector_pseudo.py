"""Distillation labels: the shipped base detector's confident boxes join a YOLO set's own labels."""

from pathlib import Path

import numpy as np

from detact_service import geometry
from detact_service.settings import get_settings
from tests.render import ScreenPainter
from training.detector.pseudo import add_pseudo_labels, extra_boxes, read_yolo_boxes, yolo_rows

WIDTH, HEIGHT = 1280, 800


def test_label_rows_round_trip_to_pixel_boxes(tmp_path: Path) -> None:
    boxes = np.array([[100.0, 50.0, 300.0, 90.0], [0.0, 700.0, 1280.0, 800.0]])
    label = tmp_path / "a.txt"
    label.write_text("\n".join(yolo_rows(boxes, WIDTH, HEIGHT)) + "\n")
    assert np.allclose(read_yolo_boxes(label, WIDTH, HEIGHT), boxes, atol=0.01)
    assert read_yolo_boxes(tmp_path / "missing.txt", WIDTH, HEIGHT).shape == (0, 4)


def test_only_predictions_that_overlap_no_label_are_extra() -> None:
    truth = np.array([[0.0, 0.0, 100.0, 40.0]])
    predicted = np.array([[2.0, 1.0, 98.0, 41.0], [300.0, 300.0, 340.0, 340.0]])
    assert extra_boxes(truth, predicted, max_iou=0.3).tolist() == [[300.0, 300.0, 340.0, 340.0]]
    assert len(extra_boxes(np.zeros((0, 4)), predicted, max_iou=0.3)) == 2


def test_the_base_finds_the_unlabelled_buttons_of_a_train_screen(tmp_path: Path) -> None:
    painter = ScreenPainter(WIDTH, HEIGHT, background=(240, 240, 240))
    buttons = [
        painter.button((80 + 260 * i, 300, 300 + 260 * i, 356), label, fill=(37, 99, 235)).bbox
        for i, label in enumerate(("Save", "Open", "Print", "Close"))
    ]
    dataset = tmp_path / "set"
    for split in ("train", "val"):
        (dataset / "images" / split).mkdir(parents=True)
        (dataset / "labels" / split).mkdir(parents=True)
        painter.image.save(dataset / "images" / split / "screen.png")
        labelled = np.asarray(buttons[:1], float)
        (dataset / "labels" / split / "screen.txt").write_text("\n".join(yolo_rows(labelled, WIDTH, HEIGHT)))
    counts = add_pseudo_labels(dataset, tmp_path / "out", get_settings().models_dir)
    train = read_yolo_boxes(tmp_path / "out" / "labels" / "train" / "screen.txt", WIDTH, HEIGHT)
    val = read_yolo_boxes(tmp_path / "out" / "labels" / "val" / "screen.txt", WIDTH, HEIGHT)
    assert counts["screens"] == 1 and counts["labels"] == 1 and counts["added"] >= 3
    assert len(val) == 1, "validation labels stay as they were"
    found = geometry.iou_matrix(np.asarray(buttons, float), train).max(axis=1)
    assert (found >= 0.5).all(), "every unlabelled button became a label, the labelled one kept once"
    assert (tmp_path / "out" / "images" / "train" / "screen.png").resolve() == (
        dataset / "images" / "train" / "screen.png"
    ).resolve()
