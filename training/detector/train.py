"""Train the UI element detector from scratch (no pretrained weights can be downloaded here).

    python -m training.detector.train --data DATA/dataset.yaml --model yolov8n.yaml --imgsz 1024 \\
        --epochs 60 --batch 16 --device cpu --project runs/detector --name ui-yolov8n

Resumes an interrupted run with ``--resume`` (Ultralytics keeps ``last.pt`` every epoch). On a GPU pass
``--device 0``. Then export with ``python -m training.detector.export``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from training.detector.offline import go_offline


def train(
    data: Path,
    model: str = "yolov8n.yaml",
    imgsz: int = 1024,
    epochs: int = 60,
    batch: int = 16,
    device: str = "cpu",
    project: Path = Path("runs/detector"),
    name: str = "ui-yolov8n",
    resume: bool = False,
    workers: int = 2,
    fraction: float = 1.0,
) -> Path:
    """Run Ultralytics training; returns the path of ``best.pt``."""
    go_offline()
    from ultralytics import YOLO

    run_dir = project / name
    last = run_dir / "weights" / "last.pt"
    if resume and last.is_file():
        yolo = YOLO(str(last))
        results: Any = yolo.train(resume=True)
    else:
        yolo = YOLO(model)
        results = yolo.train(
            data=str(data),
            imgsz=imgsz,
            epochs=epochs,
            batch=batch,
            device=device,
            project=str(project.resolve()),
            name=name,
            exist_ok=True,
            pretrained=False,
            workers=workers,
            fraction=fraction,
            plots=False,  # plotting fetches a font from the internet
            amp=device != "cpu",
            # UI screens are not natural photos: no flips (text reads one way) and mild colour jitter.
            fliplr=0.0,
            mosaic=0.5,
            hsv_h=0.01,
            hsv_s=0.4,
            hsv_v=0.3,
            save_period=1,
            verbose=False,
        )
    save_dir = Path(getattr(results, "save_dir", run_dir)) if results is not None else run_dir
    return save_dir / "weights" / "best.pt"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, required=True, help="dataset.yaml from `training.data export-yolo`"
    )
    parser.add_argument("--model", default="yolov8n.yaml", help="yolov8n.yaml or yolov8s.yaml (from scratch)")
    parser.add_argument("--imgsz", type=int, default=1024)
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--device", default="cpu", help="cpu, or a CUDA index such as 0")
    parser.add_argument("--project", type=Path, default=Path("runs/detector"))
    parser.add_argument("--name", default="ui-yolov8n")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--fraction", type=float, default=1.0, help="share of the training images to use")
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args()
    best = train(
        args.data,
        args.model,
        args.imgsz,
        args.epochs,
        args.batch,
        args.device,
        args.project,
        args.name,
        args.resume,
        args.workers,
        args.fraction,
    )
    print(best)


if __name__ == "__main__":
    main()
