"""The icon classifier's export contract: a checkpoint (or several) becomes a model the backend runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from detact_service.settings import Settings
from detact_service.understanding.icon_classifier import IconClassifierStage, classifier_spec, load_classifier
from training.icons.export import export
from training.icons.model import IconNet


def checkpoint(path: Path, seed: int) -> Path:
    torch.manual_seed(seed)
    torch.save({"model": IconNet(3).state_dict(), "classes": ["unknown", "bell", "close"], "epoch": 0}, path)
    return path


def test_exported_runs_load_in_the_backend(tmp_path: Path) -> None:
    models = tmp_path / "models"
    one = checkpoint(tmp_path / "a.pt", 0)
    settings = Settings(models_dir=models, icons={"classifier_model": "toy-icons"})
    assert IconClassifierStage.available(settings) is not None
    export([one, checkpoint(tmp_path / "b.pt", 1)], models, name="toy-icons", metrics={"top1": 0.5})
    assert IconClassifierStage.available(settings) is None
    spec = classifier_spec(settings)
    assert spec.classes == ("unknown", "bell", "close") and spec.entry.model_extra is not None
    classifier = load_classifier(spec)
    probs = classifier.probabilities(np.random.default_rng(0).random((5, 32, 32), dtype=np.float32))
    assert probs.shape == (5, 3) and np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    roi = np.full((30, 30, 3), 255, dtype=np.uint8)
    roi[8:22, 8:22] = 0
    assert len(classifier.name([roi, np.zeros((20, 20, 3), np.uint8)], 0.0)) == 2
