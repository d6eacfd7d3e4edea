"""The icon classifier's export contract: a checkpoint (or several) becomes a model the backend runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime
import pytest
import torch

from detact_service.settings import Settings
from detact_service.understanding.icon_classifier import IconClassifierStage, classifier_spec, load_classifier
from training.icons.export import combine_onnx, export
from training.icons.model import IconNet, build


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


def test_a_pretrained_network_exports_as_it_computes(tmp_path: Path) -> None:
    """The MobileNetV2 variant (enlargement, inversion and normalisation inside the graph) answers in
    ONNX what it answers in torch, and joins an ensemble of exported files as their mean softmax."""
    torch.manual_seed(2)
    net = build(3, "mobilenet").eval()
    path = tmp_path / "m.pt"
    torch.save(
        {"model": net.state_dict(), "classes": ["unknown", "bell", "close"], "arch": "mobilenet"}, path
    )
    export([path], tmp_path / "mobile", name="toy-icons")
    export([checkpoint(tmp_path / "a.pt", 0)], tmp_path / "small", name="toy-icons")
    frames = np.random.default_rng(1).random((4, 32, 32), dtype=np.float32)
    with torch.no_grad():
        expected = net(torch.from_numpy(frames)[:, None]).softmax(dim=1).numpy()

    def probabilities(models: Path) -> np.ndarray:
        spec = classifier_spec(Settings(models_dir=models, icons={"classifier_model": "toy-icons"}))
        return load_classifier(spec).probabilities(frames)

    mobile = probabilities(tmp_path / "mobile")
    assert np.allclose(mobile, expected, atol=1e-4)
    small = probabilities(tmp_path / "small")
    files = [tmp_path / "small" / "toy-icons.onnx", tmp_path / "mobile" / "toy-icons.onnx"]
    for weights, expected_mean in ((None, (small + mobile) / 2), ([3.0, 1.0], 0.75 * small + 0.25 * mobile)):
        combined = combine_onnx(files, tmp_path / "both.onnx", weights)
        log_mean = onnxruntime.InferenceSession(str(combined), providers=["CPUExecutionProvider"]).run(
            None, {"frames": frames[:, None]}
        )[0]
        assert np.allclose(np.exp(log_mean), expected_mean, atol=1e-5)


def test_aliases_fold_into_their_meaning(tmp_path: Path) -> None:
    """An export with aliases answers the meanings, each with its names' summed probability: the same
    numbers the eval gets by folding an export without them."""
    from training.icons.data import merged_meanings
    from training.icons.evaluate import fold_columns

    one, two = checkpoint(tmp_path / "a.pt", 0), checkpoint(tmp_path / "b.pt", 1)
    plain, folded = tmp_path / "plain", tmp_path / "folded"
    export([one, two], plain, name="toy-icons")
    export([one, two], folded, name="toy-icons", aliases={"close": "bell"})
    spec = classifier_spec(Settings(models_dir=folded, icons={"classifier_model": "toy-icons"}))
    assert spec.classes == ("unknown", "bell")
    assert (spec.entry.model_extra or {})["aliases"] == {"close": "bell"}
    frames = np.random.default_rng(0).random((6, 32, 32), dtype=np.float32)
    unfolded = load_classifier(
        classifier_spec(Settings(models_dir=plain, icons={"classifier_model": "toy-icons"}))
    ).probabilities(frames)
    classes, column = merged_meanings(["unknown", "bell", "close"], {"close": "bell"})
    assert classes == ["unknown", "bell"] and column.tolist() == [0, 1, 1]
    expected = fold_columns(unfolded, column, len(classes))
    assert np.allclose(load_classifier(spec).probabilities(frames), expected, atol=1e-5)


@pytest.mark.parametrize(
    "aliases", [{"close": "gone"}, {"close": "bell", "bell": "unknown"}, {"unknown": "bell"}]
)
def test_an_alias_must_name_a_meaning(aliases: dict[str, str]) -> None:
    from training.icons.data import merged_meanings

    with pytest.raises(ValueError, match="alias"):
        merged_meanings(["unknown", "bell", "close"], aliases)
