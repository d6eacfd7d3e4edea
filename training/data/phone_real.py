"""The real Android screenshots in ``../shared/data/phone_real/``: reader, app split and YOLO export.

Each screen has the views of its view hierarchy; the clickable ones are the detector's targets. Screens
are split by app (the foreground package), never by screenshot, with a fixed hash so every session and
every tool sees the same split. The set's licence is unclear (its NOTICE): it is used for training and
validation here and never redistributed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from detact_service import geometry

DEFAULT_ROOT = Path(__file__).resolve().parents[3] / "shared" / "data" / "phone_real"
SPLITS = ("train", "val", "test")
VAL_APPS = 10
TEST_APPS = 10
MAX_SCREEN_SHARE = 0.6
"""Clickable views covering more of the screen than this (whole pages, scroll containers) are no target."""
TEXT_INSIDE = 0.9
"""A labelled text belongs to a view when this share of its box lies inside the view's."""


@dataclass(frozen=True)
class PhoneScreen:
    """One screenshot with its clickable views (xyxy pixels of the stored image)."""

    id: str
    app: str
    image_path: Path
    width: int
    height: int
    clickable: npt.NDArray[np.float64]
    classes: tuple[str, ...]
    texts: tuple[str, ...] = ()
    """Each clickable view's visible text: the texts of the labelled views inside it, in hierarchy order."""


def app_split(apps: list[str]) -> dict[str, str]:
    """Apps ordered by a fixed hash: the first VAL_APPS are val, the next TEST_APPS test, the rest train."""
    ordered = sorted(set(apps), key=lambda app: hashlib.sha256(app.encode()).hexdigest())
    return {
        app: "val" if rank < VAL_APPS else "test" if rank < VAL_APPS + TEST_APPS else "train"
        for rank, app in enumerate(ordered)
    }


def _target_mask(boxes: npt.NDArray[np.float64], width: int, height: int) -> npt.NDArray[np.bool_]:
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return (areas > 0) & (areas <= MAX_SCREEN_SHARE * width * height)


def load_screens(root: Path = DEFAULT_ROOT, split: str | None = None) -> Iterator[PhoneScreen]:
    """Screens of one split (or all), in id order."""
    if split is not None and split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose one of {SPLITS}")
    label_paths = sorted((root / "labels").glob("*.json"))
    if not label_paths:
        raise FileNotFoundError(f"no phone_real labels under {root / 'labels'}")
    labels = {path.stem: json.loads(path.read_text()) for path in label_paths}
    splits = app_split([label["app"] for label in labels.values()])
    for screen_id, label in labels.items():
        if split is not None and splits[label["app"]] != split:
            continue
        width, height = label["image_size"]
        clickable = [e for e in label["elements"] if e["clickable"]]
        boxes = np.array([e["bbox"] for e in clickable], dtype=np.float64).reshape(-1, 4)
        boxes = boxes.clip(0, [width, height, width, height])  # a few views overhang the screen by a pixel
        keep = _target_mask(boxes, width, height)
        texts = view_texts(label["elements"], boxes[keep])
        yield PhoneScreen(
            id=screen_id,
            app=label["app"],
            image_path=root / "images" / f"{screen_id}.jpg",
            width=width,
            height=height,
            clickable=boxes[keep],
            classes=tuple(e["class"] for e, kept in zip(clickable, keep, strict=True) if kept),
            texts=texts,
        )


def view_texts(elements: list[dict[str, Any]], views: npt.NDArray[np.float64]) -> tuple[str, ...]:
    """The visible text of each view box: the ``text`` of every labelled element (nearly) inside it."""
    written = [(e["bbox"], e["text"].strip()) for e in elements if (e.get("text") or "").strip()]
    if not written or not len(views):
        return ("",) * len(views)
    boxes = np.array([box for box, _ in written], dtype=np.float64)
    inside = geometry.containment(boxes, views) >= TEXT_INSIDE  # [text, view]
    words = [text for _, text in written]
    return tuple(
        " ".join(dict.fromkeys(words[t] for t in np.flatnonzero(inside[:, v]))) for v in range(len(views))
    )


def export_yolo(out: Path, root: Path = DEFAULT_ROOT, splits: tuple[str, ...] = ("train", "val")) -> Path:
    """Write a one-class (``interactive``) Ultralytics dataset of the clickable views; returns its yaml."""
    for split in splits:
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
        for screen in load_screens(root, split):
            image_link = out / "images" / split / screen.image_path.name
            if not image_link.exists():
                image_link.symlink_to(screen.image_path.resolve())
            boxes = screen.clickable
            centres_x = (boxes[:, 0] + boxes[:, 2]) / 2 / screen.width
            centres_y = (boxes[:, 1] + boxes[:, 3]) / 2 / screen.height
            widths = (boxes[:, 2] - boxes[:, 0]) / screen.width
            heights = (boxes[:, 3] - boxes[:, 1]) / screen.height
            lines = [
                f"0 {x:.6f} {y:.6f} {w:.6f} {h:.6f}"
                for x, y, w, h in zip(centres_x, centres_y, widths, heights, strict=True)
            ]
            (out / "labels" / split / f"{screen.id}.txt").write_text("\n".join(lines) + "\n")
    yaml_path = out / "dataset.yaml"
    yaml_lines = [f"path: {out.resolve()}"] + [f"{split}: images/{split}" for split in splits]
    yaml_path.write_text("\n".join([*yaml_lines, "names:", "  0: interactive", ""]))
    return yaml_path
