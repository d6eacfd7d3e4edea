"""The disabled-state model's views, and the reader stage taking ``disabled`` from it."""

from __future__ import annotations

import numpy as np
import pytest

from detact_service.settings import Settings
from detact_service.understanding.dimmed import HEIGHT, WIDTH, DimmedReader, dimmed_boxes, dimmed_views
from detact_service.understanding.reader import DISABLED, Reading, with_dimmed_answers


def test_views_hold_the_control_with_a_margin_of_its_surroundings() -> None:
    boxes = np.array([[100, 50, 200, 80], [0, 0, 20, 20]])
    grown = dimmed_boxes(boxes)
    assert grown.tolist() == [[91, 41, 209, 89], [-6, -6, 26, 26]]  # 0.3 of the short side on every side
    screen = np.full((200, 300, 3), 240, dtype=np.uint8)
    screen[50:80, 100:200] = 30  # a dark button
    views = dimmed_views(screen, boxes)
    assert views.shape == (2, HEIGHT, WIDTH, 3) and views.dtype == np.uint8
    # the button fills the middle of its view, its light surroundings show at the edges
    assert views[0, HEIGHT // 2, WIDTH // 2].max() < 60 and views[0, 0, 0].min() > 200
    # a box at the corner repeats the edge pixels instead of going off the screen
    assert views[1].min() == 240


def test_the_model_s_answer_raises_the_readers_disabled_chance_for_its_rows_only() -> None:
    states = np.full((3, 4), 0.2, dtype=np.float32)
    reading = Reading(np.zeros(3, np.int64), np.ones(3, np.float32), states)
    answered = with_dimmed_answers(reading, np.array([0, 2]), np.array([0.9, 0.1], np.float32))
    assert answered.state_probability[:, DISABLED].tolist() == pytest.approx([0.9, 0.2, 0.2])
    assert reading.state_probability[0, DISABLED] == pytest.approx(0.2)  # the input is left as it was


def test_no_model_named_means_none() -> None:
    settings = Settings()
    settings = settings.model_copy(
        update={"attributes": settings.attributes.model_copy(update={"disabled_model": ""})}
    )
    assert DimmedReader.configured(settings) is None


def test_the_models_threshold_becomes_the_readers_half_way_cut() -> None:
    reader = DimmedReader(spec=None, height=HEIGHT, width=WIDTH, threshold=0.8)  # type: ignore[arg-type]
    mapped = reader.as_state_probability(np.array([0.0, 0.4, 0.79, 0.8, 0.9, 1.0], dtype=np.float32))
    assert mapped.tolist() == pytest.approx([0.0, 0.25, 0.49375, 0.5, 0.75, 1.0])
    assert ((mapped >= 0.5) == (np.array([0.0, 0.4, 0.79, 0.8, 0.9, 1.0]) >= 0.8)).all()
