"""The disabled-state recipe: prepare + train + export, read by the runtime."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch

from detact_service.core import Element, ElementState, ElementType
from detact_service.settings import Settings
from detact_service.understanding.dimmed import DimmedReader, dimmed_views
from tests.training.screens import save_labelled_screen
from training.data.export import split_of
from training.reader import dimmed as recipe


def _screen(disabled: list[bool], shade: int = 235, dx: int = 0) -> tuple[np.ndarray, list[Element]]:
    """A light screen of buttons: dark with white text when enabled, pale with grey text when disabled."""
    pixels = np.full((60 + 40 * len(disabled), 360, 3), shade, dtype=np.uint8)
    elements = []
    for row, off in enumerate(disabled):
        x, y = 30 + dx, 20 + 40 * row
        pixels[y : y + 24, x : x + 160] = 215 if off else 60
        pixels[y + 9 : y + 15, x + 30 : x + 130] = 185 if off else 250
        state = ElementState(disabled=off, focused=False)
        elements.append(Element((x, y, x + 160, y + 24), ElementType.BUTTON, text="Go", state=state))
    return pixels, elements


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    out = tmp_path / "rendered"
    out.mkdir()
    rng = np.random.default_rng(2)
    for i in range(60):
        template = f"dimmed/t{i}"
        states = [bool(v) for v in rng.random(int(rng.integers(2, 5))) < 0.4]
        pixels, elements = _screen(states, 200 + i // 2, int(rng.integers(0, 120)))
        save_labelled_screen(out, f"s{i}", pixels, elements, template, rng)
    assert {split_of(f"dimmed/t{i}") for i in range(60)} == {"train", "val", "test"}
    return out


@pytest.fixture
def one_thread() -> Iterator[None]:
    """Training on one thread: the same seed then gives the same model on every run (threaded float sums
    do not: a CI run once ended at a test balanced accuracy of 0.75)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_train_export_and_read_in_the_runtime(folder: Path, tmp_path: Path, one_thread: None) -> None:
    best = recipe.train(
        [folder], tmp_path / "run", hours=0.0, copies=2, max_epochs=12, pretrained=False, batch=16
    )
    assert best["val"]["balanced"] >= 0.9 and best["test"]["balanced"] >= 0.9
    assert json.loads((tmp_path / "run" / "metrics.json").read_text())["epoch"] == best["epoch"]
    models = tmp_path / "models"
    models.mkdir()
    path = recipe.export(tmp_path / "run" / "best.pt", models, "ui-dimmed")
    entry = json.loads((models / "manifest.json").read_text())["models"][0]
    assert entry["kind"] == "dimmed" and entry["view"] == [32, 128] and path.is_file()
    settings = Settings(models_dir=models)
    settings = settings.model_copy(
        update={"attributes": settings.attributes.model_copy(update={"disabled_model": "ui-dimmed"})}
    )
    assert DimmedReader.configured(Settings(models_dir=models)) is None  # opt-in: off unless named
    reader = DimmedReader.configured(settings)
    assert reader is not None and (reader.height, reader.width) == (32, 128)
    pixels, elements = _screen([True, False, False, True])
    chance = reader.probabilities(settings, dimmed_views(pixels, np.array([e.bbox for e in elements])))
    assert (chance >= 0.5).tolist() == [True, False, False, True]
