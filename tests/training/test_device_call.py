"""``training/device_call.sh``, the script a lent GPU machine runs, dry-run on this CPU (``DEVICE=cpu``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.training.test_attribute_recipe import labelled_folder

SCRIPT = Path(__file__).resolve().parents[2] / "training" / "device_call.sh"


def run_script(cwd: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DEVICE": "cpu",
        "OUT": str(out),
        "WORK": str(cwd / "work"),
        "PYTHON": sys.executable,
    }
    env["WORKERS"] = "0"
    return subprocess.run(
        ["bash", str(SCRIPT), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.mark.slow
def test_attribute_call_trains_from_packed_views_and_returns_a_loadable_model(tmp_path: Path) -> None:
    from transformers import Pix2StructForConditionalGeneration

    from training.attributes.data import prepare
    from training.data.pack import pack

    prepare(labelled_folder(tmp_path / "rendered"), tmp_path / "views", per_image=9)
    counts = pack(tmp_path / "views", tmp_path / "call" / ".carry" / "pack-attr", "attributes", 96,
                  splits=("train", "val"))  # fmt: skip
    assert counts["train"] == 48 and "test" not in counts

    out = tmp_path / "out"
    args = ["--size", "xs", "--max-patches", "32", "--batch", "4", "--steps", "4", "--eval-every", "4"]
    done = run_script(tmp_path / "call", out, "attributes", "5", *args, "--eval-samples", "4", "--no-text")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "val type accuracy" in done.stdout
    steps = [json.loads(line)["step"] for line in (out / "loss.jsonl").read_text().splitlines()]
    assert steps == [1, 2, 3, 4]
    parts = sorted(out.glob("attributes.tar.part-*"))
    assert parts and all(p.stat().st_size <= 15 * 2**20 for p in parts)
    joined = tmp_path / "joined.tar"
    joined.write_bytes(b"".join(p.read_bytes() for p in parts))
    with tarfile.open(joined) as archive:
        archive.extractall(tmp_path / "back", filter="data")
    model = Pix2StructForConditionalGeneration.from_pretrained(tmp_path / "back" / "best")
    assert model.config.vision_config.num_hidden_layers == 2, "the xs size"


def test_unknown_kind_fails_with_usage(tmp_path: Path) -> None:
    done = run_script(tmp_path, tmp_path / "out", "segmenter", "1")
    assert done.returncode == 2 and "detector, detector-sweep, reader or attributes" in done.stderr


@pytest.mark.slow
def test_detector_sweep_call_trains_judges_and_returns_the_best_checkpoint(tmp_path: Path) -> None:
    pytest.importorskip("ultralytics")
    import numpy as np

    from tests.training.test_detector_recipe import tiny_dataset
    from training.data.pack import pack
    from training.detector.train import train
    from training.eval.candidates import LabelledScreen, export_screens

    data = tiny_dataset(tmp_path / "data").parent
    carry = tmp_path / "call" / ".carry"
    assert pack(data, carry / "pack-yolo", "yolo", 320, splits=("train", "val"))["train"] == 6
    base = train(data / "dataset.yaml", imgsz=320, epochs=1, batch=2, project=tmp_path / "runs", name="base",
                 workers=0)  # fmt: skip
    (carry / "base.pt").write_bytes(base.read_bytes())
    labels = np.loadtxt(data / "labels" / "val" / "0.txt", ndmin=2)[:, 1:] * 320
    targets = np.column_stack([labels[:, :2] - labels[:, 2:] / 2, labels[:, :2] + labels[:, 2:] / 2])
    screens = [LabelledScreen("phone-val", data / "images" / "val" / "0.png", targets),
               LabelledScreen("qt", data / "images" / "val" / "1.png", targets),
               LabelledScreen("desktops", data / "images" / "val" / "2.png", np.zeros((0, 4)))]  # fmt: skip
    export_screens(screens, carry / "eval-screens", max_side=320)

    out = tmp_path / "out"
    done = run_script(tmp_path / "call", out, "detector-sweep", "20", "--recipes", "head", "--epochs", "1",
                      "--batch", "2")  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads((out / "sweep.json").read_text())
    assert set(report["scores"]) == {"base", "head/e1-a0.3", "head/e1-a0.6", "head/e1-a1.0"}
    assert report["best"] in report["scores"] and report["best_recipe"]["name"] == "head"
    groups = {row["group"] for row in report["rows"]}
    assert groups == {"phone-val", "qt", "desktops"}
    assert all("keep" in row for row in report["rows"] if row["group"] == "desktops")
    parts = sorted(out.glob("weights.tar.part-*"))
    joined = tmp_path / "joined.tar"
    joined.write_bytes(b"".join(p.read_bytes() for p in parts))
    with tarfile.open(joined) as archive:
        assert archive.getnames() == ["best-tuned.pt"]
