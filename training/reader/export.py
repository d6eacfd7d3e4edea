"""Export a trained reader to one ONNX file in ``models/`` with its manifest entry (geometry included).

python -m training.reader export runs/reader/r1/best.pt --data data/reader --name ui-reader
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch

from detact_service.models import file_sha256, write_manifest_entry
from detact_service.understanding.reader import STATES, TYPES
from detact_service.understanding.semimask import ViewGeometry
from training.reader.model import ExportedReader, build, imagenet_base


def export(
    checkpoint: Path,
    geometry: ViewGeometry,
    models_dir: Path,
    name: str = "ui-reader",
    pretrained: bool = True,
    metrics: dict[str, Any] | None = None,
    data_version: str = "",
    command: str = "",
) -> Path:
    """Write ``models_dir/<name>.onnx`` (dynamic batch) and upsert its manifest entry; returns the file."""
    trunk, top = build(pretrained)
    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    top.load_state_dict({k: v.float() for k, v in state["top"].items()})
    if "trunk" in state:  # a GPU fine-tune (training.reader.finetune) trained the trunk too
        trunk.load_state_dict({k: v.float() for k, v in state["trunk"].items()})
    model = ExportedReader(trunk, top).eval()
    size = geometry.size
    views = torch.zeros((2, size, size, 3), dtype=torch.uint8)
    boxes = torch.zeros((2, 3), dtype=torch.float32)
    models_dir.mkdir(parents=True, exist_ok=True)
    path = models_dir / f"{name}.onnx"
    torch.onnx.export(
        model,
        (views, boxes),
        str(path),
        input_names=["views", "boxes"],
        output_names=["types", "states"],
        dynamic_axes={"views": {0: "n"}, "boxes": {0: "n"}, "types": {0: "n"}, "states": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    write_manifest_entry(
        models_dir,
        {
            "name": name,
            "kind": "attributes",
            "backend": "reader",
            "file": path.name,
            "sha256": file_sha256(path),
            "classes": [t.value for t in TYPES],
            "states": list(STATES),
            "input_size": size,
            "geometry": geometry.__dict__,
            "base": imagenet_base(),
            "data_version": data_version,
            "metrics": metrics or {},
            "command": command,
        },
    )
    return path


def geometry_of(data: Path) -> ViewGeometry:
    """The view geometry a prepared dataset was made with."""
    return ViewGeometry.from_mapping(json.loads((data / "geometry.json").read_text()))
