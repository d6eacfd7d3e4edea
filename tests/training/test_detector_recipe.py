"""The detector recipe on a tiny set: Ultralytics trains offline, exports ONNX, the runtime runs it."""

from pathlib import Path

import numpy as np
import pytest

from detact_service.core import Element, ElementType, ScreenParse
from detact_service.detectors.yolo_onnx import YoloOnnxDetector
from detact_service.settings import Settings
from tests.render import ScreenPainter

CLASSES = ["button", "checkbox"]
SIZE = 320


def tiny_dataset(root: Path, count: int = 6) -> Path:
    """Buttons and checkboxes on plain screens, in YOLO format (train and val share the images)."""
    rng = np.random.default_rng(0)
    for split in ("train", "val"):
        (root / "images" / split).mkdir(parents=True)
        (root / "labels" / split).mkdir(parents=True)
    for index in range(count):
        painter = ScreenPainter(SIZE, SIZE)
        lines = []
        for row in range(3):
            x, y = int(rng.integers(10, 150)), 20 + row * 100
            button = painter.button((x, y, x + 120, y + 40), "OK", fill=(37, 99, 235)).bbox
            box = painter.checkbox((x + 140, y + 10), checked=bool(row % 2)).bbox
            for cls, (x1, y1, x2, y2) in ((0, button), (1, box)):
                cx, cy, w, h = (x1 + x2) / 2 / SIZE, (y1 + y2) / 2 / SIZE, (x2 - x1) / SIZE, (y2 - y1) / SIZE
                lines.append(f"{cls} {cx:.5f} {cy:.5f} {w:.5f} {h:.5f}")
        for split in ("train", "val"):
            painter.image.save(root / "images" / split / f"{index}.png")
            (root / "labels" / split / f"{index}.txt").write_text("\n".join(lines) + "\n")
    yaml = root / "dataset.yaml"
    yaml.write_text(
        f"path: {root}\ntrain: images/train\nval: images/val\nnames:\n  0: button\n  1: checkbox\n"
    )
    return yaml


@pytest.mark.slow
def test_train_export_and_run_in_the_runtime(tmp_path: Path) -> None:
    # Imported here, not at collection: ultralytics patches PIL.Image.open process-wide when imported.
    pytest.importorskip("ultralytics")
    from training.detector.export import class_names, export_onnx, record
    from training.detector.train import train

    data = tiny_dataset(tmp_path / "data")
    best = train(data, imgsz=SIZE, epochs=1, batch=2, project=tmp_path / "runs", name="smoke", workers=0)
    assert best.is_file()
    assert class_names(best) == CLASSES
    models = tmp_path / "models"
    onnx_file = export_onnx(best, SIZE, models)
    entry = record(onnx_file, CLASSES, SIZE, models, data_version="smoke")
    assert entry["sha256"] and (models / "manifest.json").is_file()

    settings = Settings(models_dir=models, device="cpu", detector={"conf": 0.0001})
    detector = YoloOnnxDetector(settings)
    image = np.full((400, 600, 3), 255, dtype=np.uint8)
    parse = detector.run([image, image], [ScreenParse(600, 400), ScreenParse(600, 400)])
    for result in parse:
        assert all(e.type in {ElementType.BUTTON, ElementType.CHECKBOX} for e in result.elements)
        assert all(
            0 <= e.bbox[0] < e.bbox[2] <= 600 and 0 <= e.bbox[1] < e.bbox[3] <= 400 for e in result.elements
        )
    assert parse[0].elements == parse[1].elements

    from training.eval.detector import Screen, evaluate, report

    painter = ScreenPainter(SIZE, SIZE)
    button = painter.button((20, 20, 140, 60), "OK", fill=(37, 99, 235)).bbox
    labels = [Element(button, ElementType.BUTTON, text="OK")]
    screen = Screen("toy", np.asarray(painter.image.convert("RGB")), labels)
    results, classes = evaluate(iter([screen, screen]), settings)
    assert classes == CLASSES and results["toy"].screens == 2 and results["toy"].total["button"] == 2
    assert "| toy | 2 |" in report(results, classes, "smoke")


def test_checkpoints_save_without_polars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The GPU machines lack polars: the trainer's results reader falls back to the csv module."""
    import sys

    from ultralytics.engine.trainer import BaseTrainer

    from training.detector.train import without_polars

    monkeypatch.setitem(sys.modules, "polars", None)  # import polars -> ImportError
    monkeypatch.setattr(BaseTrainer, "read_results_csv", BaseTrainer.read_results_csv)
    without_polars()
    csv = tmp_path / "results.csv"
    csv.write_text("epoch, metrics/mAP50(B)\n1,0.25\n2,0.5\n")

    class Run:
        pass

    run = Run()
    run.csv = csv  # type: ignore[attr-defined]
    assert BaseTrainer.read_results_csv(run) == {"epoch": ["1", "2"], "metrics/mAP50(B)": ["0.25", "0.5"]}
    run.csv = tmp_path / "missing.csv"  # type: ignore[attr-defined]
    assert BaseTrainer.read_results_csv(run) == {}


def test_interpolated_checkpoint_mixes_the_weights_and_predicts(tmp_path: Path) -> None:
    pytest.importorskip("ultralytics")
    import torch
    from ultralytics import YOLO
    from ultralytics.nn.tasks import DetectionModel

    from training.detector.interpolate import interpolate

    paths = []
    for seed in (0, 1):
        torch.manual_seed(seed)
        model = DetectionModel("yolov8n.yaml", nc=1, verbose=False)
        model.names = {0: "interactive"}
        path = tmp_path / f"model{seed}.pt"
        torch.save({"model": model.half(), "ema": None, "train_args": {}}, path)
        paths.append(path)
    weights = [torch.load(p, weights_only=False)["model"].float().state_dict() for p in paths]
    first, second = weights
    key = next(k for k, v in first.items() if v.is_floating_point() and not torch.equal(v, second[k]))
    for alpha in (0.0, 0.25, 1.0):
        out = interpolate(paths[0], paths[1], alpha, tmp_path / f"mix-{alpha}.pt")
        mixed = torch.load(out, weights_only=False)["model"].float().state_dict()
        expected = (1 - alpha) * weights[0][key] + alpha * weights[1][key]
        assert torch.allclose(mixed[key], expected.half().float(), atol=2e-3)
    results = YOLO(str(out)).predict(np.zeros((64, 64, 3), np.uint8), imgsz=64, verbose=False, device="cpu")
    assert results[0].boxes is not None
    with pytest.raises(ValueError):
        interpolate(paths[0], paths[1], 1.5, tmp_path / "bad.pt")


def test_checkpoint_rebuilt_from_onnx_computes_what_the_onnx_file_does(tmp_path: Path) -> None:
    pytest.importorskip("ultralytics")
    import onnxruntime as ort
    import torch
    from PIL import Image
    from ultralytics.nn.tasks import DetectionModel

    from training.detector.export import export_onnx
    from training.detector.from_onnx import detector_input, rebuild

    def checkpoint(seed: int, path: Path) -> Path:
        torch.manual_seed(seed)
        model = DetectionModel("yolo11n.yaml", nc=1, verbose=False)
        model.names = {0: "interactive"}
        with torch.no_grad():  # distinct values: the exporter shares equal initializers (Detect's biases)
            for parameter in model.parameters():
                parameter.add_(0.01 * torch.randn_like(parameter))
        for module in model.modules():  # trained-looking norms, so that folding them changes the weights
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
                module.weight.data.uniform_(0.5, 1.5)
                module.bias.data.uniform_(-0.2, 0.2)
        torch.save({"model": model, "ema": None, "train_args": {}}, path)
        return path

    tuned = checkpoint(0, tmp_path / "tuned.pt")
    base = checkpoint(1, tmp_path / "base.pt")  # same architecture, other weights
    onnx_path = export_onnx(tuned, 64, tmp_path / "models", name="tuned")
    screens = []
    for index, colour in enumerate(((240, 240, 240), (30, 30, 40), (200, 60, 60))):
        image = Image.new("RGB", (48, 96), colour)
        image.paste((20, 120, 220), (8, 10 + 20 * index, 40, 24 + 20 * index))
        screens.append(tmp_path / f"screen{index}.png")
        image.save(screens[-1])

    out = rebuild(onnx_path, base, screens, tmp_path / "rebuilt.pt", size=64)

    rebuilt = torch.load(out, weights_only=False)["model"].float().eval()
    images = np.concatenate([detector_input(screen, 64) for screen in screens])
    expected = ort.InferenceSession(str(onnx_path)).run(None, {"images": images})[0]
    with torch.no_grad():
        got = rebuilt(torch.from_numpy(images))[0].numpy()
    assert np.allclose(got, expected, atol=1e-2 * np.abs(expected).max())
    untouched = torch.load(base, weights_only=False)["model"].float().eval()
    with torch.no_grad():
        assert not np.allclose(untouched(torch.from_numpy(images))[0].numpy(), expected, atol=1e-2)
    norm = next(m for m in rebuilt.modules() if isinstance(m, torch.nn.BatchNorm2d))
    assert float(norm.running_var.min()) > 0  # measured on the screens, not left at one
