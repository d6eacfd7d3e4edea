"""The check-state recipe: detector-like train boxes, and prepare + train + export read by the runtime."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from detact_service.core import Element, ElementState, ElementType
from detact_service.settings import Settings
from detact_service.understanding.checks import CheckReader, check_views
from tests.training.screens import save_labelled_screen
from training.data.export import split_of
from training.reader import checks as recipe


def test_detector_like_boxes_stay_on_screen_and_stretch_away_from_the_indicator() -> None:
    rng = random.Random(0)
    bare = (100, 50, 120, 70)  # a 20 px indicator alone
    labelled = (100, 50, 260, 70)  # an indicator on the left with its label
    bare_boxes = [recipe.detector_like(bare, rng, 400, 200) for _ in range(300)]
    labelled_boxes = [recipe.detector_like(labelled, rng, 400, 200) for _ in range(300)]
    for x1, y1, x2, y2 in bare_boxes + labelled_boxes:
        assert 0 <= x1 < x2 <= 400 and 0 <= y1 < y2 <= 200
    assert any(b[0] < 60 for b in bare_boxes) and any(b[2] > 160 for b in bare_boxes)  # either side
    assert all(b[0] >= 100 - 13 for b in labelled_boxes)  # jittered, never stretched over its indicator
    assert any(b[2] > 300 for b in labelled_boxes)


def _screen(on: list[bool], shade: int = 235, dx: int = 0, dy: int = 0) -> tuple[np.ndarray, list[Element]]:
    """A light screen of labelled checkboxes (a dark filled square when on, an outlined one when off) and a
    button, all shifted by ``dx``, ``dy``."""
    pixels = np.full((140 + 40 * len(on), 400, 3), shade, dtype=np.uint8)
    elements = []
    for row, state in enumerate(on):
        x, y = 20 + dx, 30 + 40 * row + dy
        pixels[y : y + 18, x : x + 18] = 40
        if not state:
            pixels[y + 2 : y + 16, x + 2 : x + 16] = 250
        pixels[y + 6 : y + 12, x + 30 : x + 180] = 90  # the label's "text"
        elements.append(
            Element((x - 2, y - 2, x + 190, y + 20), ElementType.CHECKBOX, state=ElementState(checked=state))
        )
    x, y = 150 + dx, 30 + 40 * len(on) + dy  # a button: no indicator at either end
    pixels[y : y + 22, x : x + 150] = 120
    pixels[y + 8 : y + 14, x + 30 : x + 120] = 250
    elements.append(Element((x, y, x + 150, y + 22), ElementType.BUTTON, text="OK"))
    return pixels, elements


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    out = tmp_path / "rendered"
    out.mkdir()
    rng = np.random.default_rng(1)
    for i in range(60):
        template = f"checks/t{i}"
        states = [bool(v) for v in rng.random(int(rng.integers(2, 5))) < 0.5]
        pixels, elements = _screen(states, 190 + i, int(rng.integers(0, 80)), int(rng.integers(0, 60)))
        save_labelled_screen(out, f"s{i}", pixels, elements, template, rng)
    assert {split_of(f"checks/t{i}") for i in range(60)} == {"train", "val", "test"}
    return out


def test_train_export_and_read_in_the_runtime(folder: Path, tmp_path: Path) -> None:
    best = recipe.train(
        [folder], tmp_path / "run", hours=0.0, side=24, copies=2, max_epochs=20, pretrained=False
    )
    assert best["val"]["all"] >= 0.9 and best["test"]["all"] >= 0.9
    assert best["val"]["checkable"] >= 0.9 and best["test"]["checkable"] >= 0.9
    assert json.loads((tmp_path / "run" / "metrics.json").read_text())["epoch"] == best["epoch"]
    models = tmp_path / "models"
    models.mkdir()
    path = recipe.export(tmp_path / "run" / "best.pt", models, "ui-checks")
    entry = json.loads((models / "manifest.json").read_text())["models"][0]
    assert entry["kind"] == "checks" and entry["input_size"] == 24 and path.is_file()
    reader = CheckReader.configured(Settings(models_dir=models))
    assert reader is not None and reader.side == 24
    pixels, elements = _screen([True, False, True])
    views = check_views(pixels, np.array([e.bbox for e in elements]), reader.side)
    on, checkable = reader.probabilities(Settings(models_dir=models), views)
    assert (on[:3] >= 0.5).tolist() == [True, False, True]
    assert (checkable >= 0.5).tolist() == [True, True, True, False]  # the button has no indicator
