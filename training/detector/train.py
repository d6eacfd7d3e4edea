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
    init: Path | None = None,
    threads: int = 0,
    cache: str | bool = False,
    warmup_epochs: float = 3.0,
    close_mosaic: int = 10,
    hours: float = 0.0,
    freeze: int = 0,
    mosaic: float = 0.5,
    lr0: float = 0.0,
) -> Path:
    """Run Ultralytics training; returns the path of ``best.pt``.

    ``init`` starts from this project's own earlier weights (a ``.pt`` of a previous run, e.g. the shipped
    ``models/ui-yolov8.pt``) with a fresh schedule: how one time-boxed GPU call continues another's.
    ``threads`` overrides Ultralytics' CPU thread count (it uses all cores but one). ``hours`` > 0 bounds
    the run by time instead of ``epochs`` (Ultralytics re-plans the epochs and the schedule after the first):
    how a run fits a GPU machine's 10-minute call. ``freeze`` keeps the first N layers fixed (11: the YOLO11
    backbone), what makes fine-tuning a pretrained detector fit a CPU session. ``lr0`` > 0 sets AdamW's
    initial learning rate (0: Ultralytics' automatic choice, AdamW at 0.002 for one class).
    """
    go_offline()
    without_polars()
    if threads:
        import ultralytics.utils.torch_utils as torch_utils

        torch_utils.NUM_THREADS = threads  # select_device() applies it with torch.set_num_threads
    from ultralytics import YOLO

    if device != "cpu":
        import ultralytics.engine.trainer as trainer

        # AMP's self-check fetches a model from the internet, which a lent GPU machine cannot reach.
        trainer.check_amp = lambda model: True
    run_dir = project / name
    last = run_dir / "weights" / "last.pt"
    if resume and last.is_file():
        yolo = YOLO(str(last))
        results: Any = yolo.train(resume=True)
    else:
        yolo = YOLO(str(init) if init else model)
        results = yolo.train(
            data=str(data),
            imgsz=imgsz,
            epochs=epochs,
            batch=batch,
            device=device,
            project=str(project.resolve()),
            name=name,
            exist_ok=True,
            pretrained=init is not None,  # False would drop the init weights and train from scratch
            cache=cache,
            warmup_epochs=warmup_epochs,
            close_mosaic=close_mosaic,
            workers=workers,
            fraction=fraction,
            plots=False,  # plotting fetches a font from the internet
            amp=device != "cpu",
            # UI screens are not natural photos: no flips (text reads one way) and mild colour jitter.
            fliplr=0.0,
            mosaic=mosaic,
            freeze=freeze or None,
            hsv_h=0.01,
            hsv_s=0.4,
            hsv_v=0.3,
            save_period=1,
            time=hours or None,
            verbose=False,
            **({"optimizer": "AdamW", "lr0": lr0} if lr0 > 0 else {}),
        )
    save_dir = Path(getattr(results, "save_dir", run_dir)) if results is not None else run_dir
    return save_dir / "weights" / "best.pt"


def without_polars() -> None:
    """Let Ultralytics save checkpoints where polars is missing (the lent GPU machines lack it).

    Its trainer reads ``results.csv`` with polars only to copy it into each checkpoint; polars is a
    wheel of about 40 MB and a device call carries 64 MiB, so the stdlib ``csv`` reader stands in.
    """
    try:
        import polars  # noqa: F401
    except ImportError:
        import csv

        from ultralytics.engine.trainer import BaseTrainer

        def read_results_csv(self: Any) -> dict[str, list[str]]:
            try:
                with open(self.csv, newline="") as handle:
                    rows = list(csv.DictReader(handle))
            except OSError:
                return {}
            return {key.strip(): [row[key] for row in rows] for key in (rows[0] if rows else {})}

        BaseTrainer.read_results_csv = read_results_csv  # type: ignore[method-assign]


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
    parser.add_argument("--init", type=Path, default=None, help="start from this project's earlier .pt")
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: Ultralytics')")
    parser.add_argument("--cache", default="", choices=["", "ram", "disk"], help="cache decoded images")
    parser.add_argument("--warmup-epochs", type=float, default=3.0)
    parser.add_argument("--close-mosaic", type=int, default=10, help="last epochs without mosaic")
    parser.add_argument("--hours", type=float, default=0.0, help="bound the run by time (overrides --epochs)")
    parser.add_argument("--freeze", type=int, default=0, help="keep the first N layers fixed (11: backbone)")
    parser.add_argument("--mosaic", type=float, default=0.5, help="share of mosaic-augmented training images")
    parser.add_argument("--lr0", type=float, default=0.0, help="AdamW's initial rate (0: Ultralytics')")
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
        args.init,
        args.threads,
        args.cache or False,
        args.warmup_epochs,
        args.close_mosaic,
        args.hours,
        args.freeze,
        args.mosaic,
        args.lr0,
    )
    print(best)


if __name__ == "__main__":
    main()
