"""The reader's dataset: semi-masked views of labelled elements, with their type and state targets.

Two kinds of screens:

- the data engine's renders (``python -m training.data render``): every type and state labelled, split by
  template (:func:`training.data.export.split_of`);
- ``phone_real`` (real Android screens, split by app): types from the Android view classes
  (:func:`phone_type`), states unknown (masked out of the loss).

Train views are made from augmented screens (rescaled between 0.5x and 2x, JPEG, blur) with jittered
boxes, because the runtime reads boxes from a detector and OCR on real screenshots; val and test views
are made from the screens as they are. Views come from the runtime's own
:func:`~detact_service.understanding.semimask.reader_views`, so training and serving see the same input.

    python -m training.reader prepare data/screens --out data/reader
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from detact_service.core import Element, ElementType
from detact_service.understanding.reader import STATES, TYPES, state_applies
from detact_service.understanding.semimask import ViewGeometry, box_features, reader_views
from training.attributes.data import jitter_box
from training.data.export import drop_cross_split_duplicates, load_items
from training.data.phone_real import DEFAULT_ROOT as PHONE_ROOT
from training.data.phone_real import app_split

TYPE_INDEX = {t: i for i, t in enumerate(TYPES)}
TEXT_SHARE = 0.3
WIDE = 0.6
"""A clickable Android container at least this share of the screen wide is a list row."""
ANDROID_TYPES: dict[str, ElementType] = {
    "Button": ElementType.BUTTON,
    "ImageButton": ElementType.ICON,
    "ImageButon": ElementType.ICON,
    "ImageView": ElementType.ICON,
    "Image": ElementType.ICON,
    "EditText": ElementType.INPUT,
    "AutoCompleteTextView": ElementType.INPUT,
    "Switch": ElementType.TOGGLE,
    "SwitchCompat": ElementType.TOGGLE,
    "ToggleButton": ElementType.TOGGLE,
    "CheckBox": ElementType.CHECKBOX,
    "FastCheckBox": ElementType.CHECKBOX,
    "RadioButton": ElementType.RADIO,
    "Spinner": ElementType.DROPDOWN,
    "SeekBar": ElementType.SLIDER,
}


def phone_type(
    android_class: str, box: Sequence[float], screen_width: int, clickable: bool
) -> ElementType | None:
    """The reader's type of an Android view; ``None`` when the view is no training example.

    Widgets map by class (:data:`ANDROID_TYPES`). A clickable container or text view is a list row when
    it spans most of the screen's width, else a button. A non-clickable text leaf is text and a
    non-clickable image leaf an image.
    """
    name = android_class.rsplit(".", 1)[-1]
    if not clickable:
        if name.endswith("TextView"):
            return ElementType.TEXT
        if name == "ImageView":
            return ElementType.IMAGE
        return None
    if name in ANDROID_TYPES:
        return ANDROID_TYPES[name]
    wide = (box[2] - box[0]) >= WIDE * screen_width
    return ElementType.LIST_ITEM if wide else ElementType.BUTTON


def state_targets(elements: Sequence[Element]) -> npt.NDArray[np.int8]:
    """N x 4 targets for :data:`STATES`: 1 set, 0 not set, -1 unknown or not applicable to the type."""
    applies = state_applies([e.type for e in elements])
    out = np.full((len(elements), len(STATES)), -1, dtype=np.int8)
    for row, element in enumerate(elements):
        s = element.state
        selected = None if s.selected is None and s.highlighted is None else bool(s.selected or s.highlighted)
        for col, value in enumerate((s.checked, selected, s.focused, s.disabled)):
            if value is not None and applies[row, col]:
                out[row, col] = int(value)
    return out


@dataclass
class ViewSet:
    """Views with their targets (one split, or a chunk of one)."""

    views: npt.NDArray[np.uint8]
    features: npt.NDArray[np.float32]
    types: npt.NDArray[np.int16]
    states: npt.NDArray[np.int8]
    sources: npt.NDArray[np.str_]

    def __len__(self) -> int:
        return len(self.types)

    def save(self, path: Path) -> None:
        np.savez(path, **self.__dict__)

    @classmethod
    def load(cls, path: Path) -> ViewSet:
        with np.load(path) as data:
            return cls(**{k: data[k] for k in ("views", "features", "types", "states", "sources")})

    @classmethod
    def concat(cls, parts: Sequence[ViewSet], size: int) -> ViewSet:
        if not parts:
            return cls(
                np.zeros((0, size, size, 3), np.uint8),
                np.zeros((0, 3), np.float32),
                np.zeros(0, np.int16),
                np.zeros((0, len(STATES)), np.int8),
                np.zeros(0, dtype="<U16"),
            )
        return cls(*(np.concatenate([getattr(p, k) for p in parts]) for k in cls.__dataclass_fields__))


def augment(image: npt.NDArray[np.uint8], rng: random.Random) -> tuple[npt.NDArray[np.uint8], float]:
    """A screen as a real screenshot shows it: rescaled (device pixel ratio), JPEG, blur; and the scale."""
    scale = 1.0
    if rng.random() < 0.5:
        scale = rng.choice((0.5, 0.67, 0.75, 1.25, 1.5, 2.0))
        size = (max(8, round(image.shape[1] * scale)), max(8, round(image.shape[0] * scale)))
        interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
        image = np.asarray(cv2.resize(image, size, interpolation=interpolation), dtype=np.uint8)
    if rng.random() < 0.4:
        ok, encoded = cv2.imencode(".jpg", image[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, rng.randint(35, 90)])
        if ok:
            image = np.ascontiguousarray(cv2.imdecode(encoded, cv2.IMREAD_COLOR)[:, :, ::-1])
    if rng.random() < 0.15:
        image = np.asarray(cv2.GaussianBlur(image, (0, 0), rng.uniform(0.4, 0.9)), dtype=np.uint8)
    return image, scale


def pick(elements: Sequence[Element], limit: int, rng: random.Random, balance: bool = True) -> list[Element]:
    """Up to ``limit`` elements (no regions, none under 2 px); ``balance``: controls first, text <= 30 %."""
    usable = [e for e in elements if e.type is not ElementType.REGION and e.width >= 2 and e.height >= 2]
    if not balance:
        rng.shuffle(usable)
        return usable[:limit]
    texts = [e for e in usable if e.type is ElementType.TEXT]
    others = [e for e in usable if e.type is not ElementType.TEXT]
    rng.shuffle(texts)
    rng.shuffle(others)
    n_text = min(len(texts), max(1, int(limit * TEXT_SHARE)))
    return (others[: limit - n_text] + texts[:n_text])[:limit]


def screen_views(
    image: npt.NDArray[np.uint8],
    boxes: npt.NDArray[np.int64],
    types: Sequence[ElementType],
    states: npt.NDArray[np.int8],
    source: str,
    geometry: ViewGeometry,
    rng: random.Random | None,
) -> ViewSet:
    """The views of one screen's elements; ``rng`` given: augmented screen and jittered boxes (train)."""
    height, width = image.shape[:2]
    if rng is not None:
        image, scale = augment(image, rng)
        height, width = image.shape[:2]
        boxes = np.round(boxes * scale).astype(np.int64)
        boxes = np.array([jitter_box(tuple(b), rng, width, height) for b in boxes.tolist()], dtype=np.int64)
    boxes = boxes.reshape(-1, 4).clip(0, [width, height, width, height])
    keep = (boxes[:, 2] > boxes[:, 0]) & (boxes[:, 3] > boxes[:, 1])
    boxes = boxes[keep]
    return ViewSet(
        reader_views(image, boxes, geometry),
        box_features(boxes, width, height),
        np.array([TYPE_INDEX[t] for t, k in zip(types, keep, strict=True) if k], dtype=np.int16),
        states[keep],
        np.full(len(boxes), source, dtype="<U16"),
    )


def engine_views(
    folder: Path, split: str, geometry: ViewGeometry, per_image: int, seed: int
) -> Iterator[ViewSet]:
    """Views of the data engine's screens of one split."""
    from PIL import Image

    items, _ = drop_cross_split_duplicates(load_items(folder))
    for item in items:
        if item.split != split:
            continue
        rng = random.Random(f"{seed}-{item.image_path.stem}")
        chosen = pick(item.labels.elements, per_image, rng, balance=split == "train")
        if not chosen:
            continue
        with Image.open(item.image_path) as opened:
            image = np.asarray(opened.convert("RGB"))
        boxes = np.array([e.bbox for e in chosen], dtype=np.int64)
        yield screen_views(
            image,
            boxes,
            [e.type for e in chosen],
            state_targets(chosen),
            item.labels.source,
            geometry,
            rng if split == "train" else None,
        )


def phone_views(split: str, geometry: ViewGeometry, seed: int, root: Path = PHONE_ROOT) -> Iterator[ViewSet]:
    """Views of ``phone_real`` screens of one split: clickable views (and, in train, some text and images)."""
    from PIL import Image

    labels = {p.stem: json.loads(p.read_text()) for p in sorted((root / "labels").glob("*.json"))}
    splits = app_split([label["app"] for label in labels.values()])
    for screen_id, label in labels.items():
        if splits[label["app"]] != split:
            continue
        width, height = label["image_size"]
        rng = random.Random(f"{seed}-{screen_id}")
        rows: list[tuple[list[int], ElementType]] = []
        for element in label["elements"]:
            box = [int(v) for v in element["bbox"]]
            box = [max(0, box[0]), max(0, box[1]), min(width, box[2]), min(height, box[3])]
            area = (box[2] - box[0]) * (box[3] - box[1])
            if box[2] - box[0] < 2 or box[3] - box[1] < 2 or area > 0.6 * width * height:
                continue
            leaf_extra = not element["clickable"] and element.get("leaf") and split == "train"
            if not element["clickable"] and not leaf_extra:
                continue
            kind = phone_type(element["class"], box, width, element["clickable"])
            if kind is not None:
                rows.append((box, kind))
        clickable = [r for r in rows if r[1] not in (ElementType.TEXT, ElementType.IMAGE)]
        extra = [r for r in rows if r[1] in (ElementType.TEXT, ElementType.IMAGE)]
        rng.shuffle(extra)
        rows = clickable + extra[: max(2, len(clickable) // 3)]
        if not rows:
            continue
        with Image.open(root / "images" / f"{screen_id}.jpg") as opened:
            image = np.asarray(opened.convert("RGB"))
        boxes = np.array([r[0] for r in rows], dtype=np.int64)
        states = np.full((len(rows), len(STATES)), -1, dtype=np.int8)
        yield screen_views(
            image, boxes, [r[1] for r in rows], states, "phone", geometry, rng if split == "train" else None
        )


def prepare(
    screens: Path | None,
    out: Path,
    geometry: ViewGeometry,
    per_image: int = 16,
    phone: bool = True,
    copies: int = 1,
    seed: int = 0,
) -> dict[str, int]:
    """Write ``out/<split>.npz`` for train, val and test; returns views per split.

    ``copies`` augmented passes are made over the train screens (each with its own augmentation).
    """
    out.mkdir(parents=True, exist_ok=True)
    counts = {}
    for split in ("train", "val", "test"):
        parts: list[ViewSet] = []
        for copy in range(copies if split == "train" else 1):
            if screens is not None:
                limit = per_image if split == "train" else 4 * per_image
                parts += engine_views(screens, split, geometry, limit, seed + copy)
            if phone:
                parts += phone_views(split, geometry, seed + copy)
        views = ViewSet.concat(parts, geometry.size)
        views.save(out / f"{split}.npz")
        counts[split] = len(views)
    (out / "geometry.json").write_text(json.dumps(geometry.__dict__, indent=1))
    return counts
