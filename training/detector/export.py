"""Export a trained detector to ONNX and record it in ``models/manifest.json``.

    python -m training.detector.export runs/detector/ui-yolov8n/weights/best.pt --imgsz 1024 \\
        --data-version web+qt-2026-11-23 --metrics '{"mAP50": 0.81}'
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

from detact_service.models import file_sha256, write_manifest_entry
from training.detector.offline import go_offline

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"


def export_onnx(weights: Path, imgsz: int, out_dir: Path, name: str = "ui-detector") -> Path:
    """ONNX with a dynamic batch axis (the runtime batches concurrent requests), copied to ``out_dir``."""
    go_offline()
    from ultralytics import YOLO

    onnx_path = Path(YOLO(str(weights)).export(format="onnx", imgsz=imgsz, dynamic=True, simplify=False))
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{name}.onnx"
    shutil.copyfile(onnx_path, target)
    return target


def record(
    onnx_file: Path,
    classes: list[str],
    imgsz: int,
    models_dir: Path,
    name: str = "ui-detector",
    **extra: Any,
) -> dict[str, Any]:
    """Add or replace the detector's entry in ``models_dir/manifest.json``."""
    entry = {
        "name": name,
        "kind": "detector",
        "file": onnx_file.name,
        "sha256": file_sha256(onnx_file),
        "classes": classes,
        "input_size": imgsz,
        **extra,
    }
    return write_manifest_entry(models_dir, entry).model_dump(mode="json", exclude_none=True)


def class_names(weights: Path) -> list[str]:
    """Class names stored in a trained Ultralytics checkpoint, in index order."""
    go_offline()
    from ultralytics import YOLO

    names = YOLO(str(weights)).names
    return [names[i] for i in sorted(names)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("weights", type=Path)
    parser.add_argument("--imgsz", type=int, default=1024)
    parser.add_argument("--models-dir", type=Path, default=MODELS_DIR)
    parser.add_argument("--name", default="ui-detector")
    parser.add_argument("--data-version", default="unknown")
    parser.add_argument("--metrics", default="{}", help="JSON object of evaluation metrics")
    parser.add_argument("--command", default="", help="the training command, for the record")
    args = parser.parse_args()
    onnx_file = export_onnx(args.weights, args.imgsz, args.models_dir, args.name)
    entry = record(
        onnx_file,
        class_names(args.weights),
        args.imgsz,
        args.models_dir,
        args.name,
        data_version=args.data_version,
        metrics=json.loads(args.metrics),
        command=args.command,
    )
    print(json.dumps(entry, indent=2))


if __name__ == "__main__":
    main()
