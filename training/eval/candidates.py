"""Detector checkpoints against the base, at the base's box count: ``python -m training.eval candidates``.

How a fine-tune is judged before it is exported (models/README.md, "CPU sessions"):

- recall at IoU 0.5 of the clickable views on the ``phone_real`` validation and test apps, and of the
  interactive labels of the data engine's test split per source, each candidate at the confidence that
  gives as many boxes per screen as the base at its shipped threshold ("matched": recall is not bought
  with more boxes);
- the keep-rate on unlabelled screenshots (the real desktops): the share of the base's confident boxes
  (score >= 0.3) that the candidate still draws at IoU 0.5 among its matched boxes. A fine-tune that
  forgets what the base knows of desktops shows up there.

Every model predicts once per screen at a low confidence; the matched thresholds are computed from those
predictions, so a checkpoint costs one pass over the screens.
"""

from __future__ import annotations

import hashlib
import json
import pickle
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from PIL import Image

from detact_service.core import Element
from detact_service.models import file_sha256
from training.data.phone_real import load_screens
from training.detector.pseudo import IMAGE_SUFFIXES
from training.eval.phone import matched_targets

Boxes = npt.NDArray[np.float64]
BASE_CONF = 0.05
LOW_CONF = 0.01
CONFIDENT = 0.3
IOU = 0.5  # as training.eval.phone's matching


@dataclass
class LabelledScreen:
    """One screenshot, the boxes that count as targets (none for an unlabelled screen) and its set."""

    group: str
    image_path: Path
    targets: Boxes


@dataclass
class Predictions:
    """One model's boxes and scores on every screen of every group, at ``LOW_CONF``."""

    boxes: dict[str, list[Boxes]] = field(default_factory=dict)
    scores: dict[str, list[Boxes]] = field(default_factory=dict)

    def add(self, group: str, boxes: Boxes, scores: Boxes) -> None:
        self.boxes.setdefault(group, []).append(boxes)
        self.scores.setdefault(group, []).append(scores)

    def above(self, group: str, conf: float) -> list[Boxes]:
        return [b[s >= conf] for b, s in zip(self.boxes[group], self.scores[group], strict=True)]

    def count(self, group: str, conf: float) -> int:
        return sum(int((s >= conf).sum()) for s in self.scores[group])

    def matched_conf(self, group: str, wanted: int) -> float:
        """The confidence at which this model gives about ``wanted`` boxes on the group."""
        scores = np.sort(np.concatenate(self.scores[group] or [np.zeros(0)]))[::-1]
        if wanted <= 0 or not len(scores):
            return 1.0
        return float(scores[min(wanted, len(scores)) - 1])


def interactive_boxes(elements: Sequence[Element]) -> Boxes:
    """The boxes of a rendered screen's interactive labels: the targets of a one-class detector."""
    return np.asarray([e.bbox for e in elements if e.is_interactive], dtype=np.float64).reshape(-1, 4)


def phone_screens(splits: Sequence[str] = ("val", "test")) -> Iterator[LabelledScreen]:
    """The clickable views of ``phone_real``'s held-out apps."""
    for split in splits:
        for screen in load_screens(split=split):
            yield LabelledScreen(f"phone-{split}", screen.image_path, screen.clickable)


def engine_screens(folder: Path, per_source: int) -> Iterator[LabelledScreen]:
    """Up to ``per_source`` test-split screens of each data-engine source, with their interactive labels."""
    from training.data.export import load_items

    taken: dict[str, int] = {}
    for item in load_items(folder):
        source = item.labels.source
        if item.split != "test" or taken.get(source, 0) >= per_source:
            continue
        taken[source] = taken.get(source, 0) + 1
        yield LabelledScreen(source, item.image_path, interactive_boxes(item.labels.elements))


def every_screen(folder: Path, group: str = "miniwob-eval") -> Iterator[LabelledScreen]:
    """Every labelled screen of a rendered folder, whatever its template's split (MiniWoB++ seeds 1000-1099
    are all held out), with its interactive labels."""
    from training.data.export import load_items

    for item in load_items(folder):
        yield LabelledScreen(group, item.image_path, interactive_boxes(item.labels.elements))


def unlabelled_screens(folder: Path, group: str = "desktops") -> Iterator[LabelledScreen]:
    """Every screenshot of a folder, with no targets (keep-rate only)."""
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() in IMAGE_SUFFIXES:
            yield LabelledScreen(group, path, np.zeros((0, 4)))


def export_screens(
    screens: Sequence[LabelledScreen], out: Path, max_side: int = 640, quality: int = 90
) -> Path:
    """Write screens shrunk to ``max_side`` (WebP, targets scaled) with ``screens.json``: how an evaluation
    set travels to a GPU machine, where ``../shared`` is not (the detector letterboxes to its input size
    anyway, so a screen already at that size reads the same)."""
    from training.data.pack import webp_bytes

    (out / "images").mkdir(parents=True, exist_ok=True)
    index = []
    for number, screen in enumerate(screens):
        with Image.open(screen.image_path) as opened:
            scale = min(1.0, max_side / max(opened.size))
        name = f"images/{number:04d}.webp"
        (out / name).write_bytes(webp_bytes(screen.image_path, max_side, quality))
        index.append({"group": screen.group, "image": name, "targets": (screen.targets * scale).tolist()})
    (out / "screens.json").write_text(json.dumps(index))
    return out


def exported_screens(folder: Path) -> list[LabelledScreen]:
    """The screens that :func:`export_screens` wrote."""
    return [
        LabelledScreen(row["group"], folder / row["image"], np.reshape(row["targets"], (-1, 4)).astype(float))
        for row in json.loads((folder / "screens.json").read_text())
    ]


def predict(
    weights: Path,
    screens: Sequence[LabelledScreen],
    imgsz: int = 640,
    cache: Path | None = None,
    device: str = "cpu",
) -> Predictions:
    """One Ultralytics model's boxes on every screen at ``LOW_CONF`` (class-agnostic NMS at 0.5), kept in
    ``cache`` under the weights' and the screens' digest, so a base is predicted once for many candidates."""
    key = hashlib.sha256(f"{file_sha256(weights)}|{imgsz}|{LOW_CONF}|".encode())
    key.update("|".join(str(s.image_path) for s in screens).encode())
    cached = cache / f"{weights.stem}-{key.hexdigest()[:16]}.pkl" if cache else None
    if cached is not None and cached.exists():
        loaded: Predictions = pickle.loads(cached.read_bytes())
        return loaded
    from training.detector.offline import go_offline

    go_offline()
    from ultralytics import YOLO  # imported late: it patches PIL.Image.open

    model = YOLO(str(weights))
    out = Predictions()
    for screen in screens:
        with Image.open(screen.image_path) as opened:
            image = opened.convert("RGB")
        results: Any = model.predict(
            source=image, imgsz=imgsz, conf=LOW_CONF, iou=IOU, agnostic_nms=True, verbose=False, device=device
        )
        found = results[0].boxes
        out.add(
            screen.group,
            found.xyxy.cpu().numpy().astype(np.float64),
            found.conf.cpu().numpy().astype(np.float64),
        )
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_bytes(pickle.dumps(out))
    return out


def recall(targets: Sequence[Boxes], predicted: Sequence[Boxes]) -> float:
    """Targets matched one-to-one at IoU >= 0.5, over all screens."""
    hits = sum(matched_targets(t, p) for t, p in zip(targets, predicted, strict=True) if len(t) and len(p))
    return hits / max(sum(len(t) for t in targets), 1)


def compare(
    screens: Sequence[LabelledScreen], base: Predictions, candidates: dict[str, Predictions]
) -> list[dict[str, float | str]]:
    """One row per model and group: recall (labelled groups) or keep-rate (unlabelled), at matched counts."""
    groups = list(dict.fromkeys(screen.group for screen in screens))
    targets = {g: [s.targets for s in screens if s.group == g] for g in groups}
    rows: list[dict[str, float | str]] = []
    for name, model in {"base": base, **candidates}.items():
        for group in groups:
            wanted = base.count(group, BASE_CONF)
            conf = BASE_CONF if name == "base" else model.matched_conf(group, wanted)
            kept = model.above(group, conf)
            row: dict[str, float | str] = {
                "model": name,
                "group": group,
                "conf": round(conf, 4),
                "per_screen": round(sum(len(k) for k in kept) / max(len(kept), 1), 1),
            }
            if sum(len(t) for t in targets[group]):
                row["recall"] = round(recall(targets[group], kept), 3)
            else:
                row["keep"] = round(recall(base.above(group, CONFIDENT), kept), 3)
            rows.append(row)
    return rows


def table(rows: Sequence[dict[str, float | str]]) -> str:
    """A Markdown table: a row per model, a column per group (recall or keep-rate, boxes per screen)."""
    groups = list(dict.fromkeys(str(row["group"]) for row in rows))
    models = list(dict.fromkeys(str(row["model"]) for row in rows))
    cell = {(row["model"], row["group"]): row for row in rows}
    lines = ["| model | " + " | ".join(groups) + " |", "|---|" + "---|" * len(groups)]
    for model in models:
        values = []
        for group in groups:
            row = cell[(model, group)]
            measure = row.get("recall", row.get("keep"))
            values.append(f"{measure} ({row['per_screen']})")
        lines.append(f"| {model} | " + " | ".join(values) + " |")
    return "\n".join(lines)


def main(
    cache: Path | None,
    base: Path,
    candidates: Sequence[Path],
    engine: Path | None,
    desktops: Path | None,
    per_source: int,
    imgsz: int,
    miniwob: Path | None = None,
    export: Path | None = None,
) -> str:
    screens = list(phone_screens())
    if engine is not None:
        screens += list(engine_screens(engine, per_source))
    if miniwob is not None:
        screens += list(every_screen(miniwob))
    if desktops is not None:
        screens += list(unlabelled_screens(desktops))
    if export is not None:
        export_screens(screens, export, imgsz)
        return f"{len(screens)} screens written to {export}"
    base_predictions = predict(base, screens, imgsz, cache)
    named = {
        f"{path.parent.parent.name}/{path.stem}": predict(path, screens, imgsz, cache) for path in candidates
    }
    return table(compare(screens, base_predictions, named))
