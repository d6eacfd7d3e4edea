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
    assert done.returncode == 2 and "detector or attributes" in done.stderr
