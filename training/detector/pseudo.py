"""Distillation labels: add the base detector's confident boxes to a YOLO set before fine-tuning.

A fine-tune on view-hierarchy labels alone treats every box the base finds but the labels lack as
background, and forgets what the base knows of desktops (models/README.md, fine-tunes 2 and 3).
Keeping the base's confident boxes as extra targets holds on to that while the labels teach the rest.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import numpy as np
from PIL import Image

from detact_service import geometry
from detact_service.core import ScreenParse
from detact_service.settings import Settings
from detact_service.stages import create_stage

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


def read_yolo_boxes(path: Path, width: int, height: int) -> np.ndarray:
    """(n, 4) x1 y1 x2 y2 pixel boxes of a YOLO label file (missing file: none)."""
    text = path.read_text() if path.exists() else ""
    if not text.strip():
        return np.zeros((0, 4))
    rows = np.loadtxt(text.splitlines(), ndmin=2).reshape(-1, 5)
    centre, size = rows[:, 1:3], rows[:, 3:5]
    boxes = np.hstack([centre - size / 2, centre + size / 2])
    return boxes * np.array([width, height, width, height])


def yolo_rows(boxes: np.ndarray, width: int, height: int) -> list[str]:
    """Class-0 YOLO label lines of pixel boxes."""
    scale = np.array([width, height, width, height], float)
    norm = np.clip(np.asarray(boxes, float).reshape(-1, 4) / scale, 0.0, 1.0)
    centre, size = (norm[:, :2] + norm[:, 2:]) / 2, norm[:, 2:] - norm[:, :2]
    return [f"0 {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}" for (cx, cy), (w, h) in zip(centre, size, strict=True)]


def extra_boxes(truth: np.ndarray, predicted: np.ndarray, max_iou: float) -> np.ndarray:
    """The predicted boxes that overlap no labelled box above max_iou."""
    if not len(truth) or not len(predicted):
        return predicted
    overlap = geometry.iou_matrix(predicted, truth).max(axis=1)
    return predicted[overlap <= max_iou]


def add_pseudo_labels(
    dataset: Path, out: Path, models_dir: Path, min_score: float = 0.3, max_iou: float = 0.3
) -> dict[str, int]:
    """Copy a one-class YOLO set to out; its train labels gain the base's boxes scoring >= min_score."""
    detector = create_stage(
        "detect",
        "yolo-onnx",
        # the teacher is the first detector alone, in fp32: not the int8 copy, not the landscape detector
        Settings(models_dir=models_dir, detector={"conf": min_score, "int8": False, "landscape_model": ""}),
    )
    counts = {"screens": 0, "labels": 0, "added": 0}
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
        for image_path in sorted((dataset / "images" / split).iterdir()):
            if image_path.suffix.lower() not in IMAGE_SUFFIXES:
                continue
            target = out / "images" / split / image_path.name
            if not target.exists():
                target.symlink_to(image_path.resolve())
            label_path = dataset / "labels" / split / f"{image_path.stem}.txt"
            out_label = out / "labels" / split / label_path.name
            if split == "val":
                if label_path.exists():
                    shutil.copyfile(label_path, out_label)
                continue
            image = np.asarray(Image.open(image_path).convert("RGB"))
            height, width = image.shape[:2]
            truth = read_yolo_boxes(label_path, width, height)
            parse = detector.run([image], [ScreenParse(width=width, height=height)])[0]
            predicted = np.asarray([element.bbox for element in parse.elements], float).reshape(-1, 4)
            added = extra_boxes(truth, predicted, max_iou)
            out_label.write_text("\n".join(yolo_rows(np.vstack([truth, added]), width, height)) + "\n")
            counts["screens"] += 1
            counts["labels"] += len(truth)
            counts["added"] += len(added)
    (out / "dataset.yaml").write_text(
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: interactive\n"
    )
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path, help="a one-class YOLO set (images/, labels/)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--models-dir", type=Path, default=Path("models"), help="holds the base ui-detector.onnx"
    )
    parser.add_argument("--min-score", type=float, default=0.3)
    parser.add_argument(
        "--max-iou", type=float, default=0.3, help="a base box overlapping a label more is dropped"
    )
    args = parser.parse_args()
    print(add_pseudo_labels(args.dataset, args.out, args.models_dir, args.min_score, args.max_iou))


if __name__ == "__main__":
    main()
