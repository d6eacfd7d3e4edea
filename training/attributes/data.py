"""The attribute dataset: one semi-masked view per labelled element, with its target string.

Views are made by the runtime's own :func:`~detact_service.understanding.semimask.semi_masked_views`
(the model is trained on exactly what the stage will feed it). Boxes of the train split are jittered
(the runtime's boxes come from a detector, OCR or a segmenter, never pixel-exact); val and test keep the
labelled boxes. Text elements dominate screens, so at most :data:`TEXT_SHARE` of an image's picks are
text. Splits follow the data engine's template splits.

    python -m training.attributes prepare data/rendered --out data/attributes-sm [--per-image 24]
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from PIL import Image

from detact_service.core import Element, ElementType
from detact_service.understanding.attribute_codec import encode_attributes
from detact_service.understanding.semimask import semi_masked_views
from training.data.export import SPLITS, drop_cross_split_duplicates, load_items, split_writers

TEXT_SHARE = 0.3
JITTER = 0.08
"""Largest box jitter, as a fraction of the element's size, per side (train split only)."""


def jitter_box(
    box: tuple[int, int, int, int], rng: random.Random, width: int, height: int
) -> tuple[int, int, int, int]:
    """``box`` with each side moved by up to :data:`JITTER` of its size (at least 1 px), inside the image."""
    x1, y1, x2, y2 = box
    dx = max(1, round((x2 - x1) * JITTER))
    dy = max(1, round((y2 - y1) * JITTER))
    nx1 = min(max(x1 + rng.randint(-dx, dx), 0), x2 - 1)
    ny1 = min(max(y1 + rng.randint(-dy, dy), 0), y2 - 1)
    nx2 = max(min(x2 + rng.randint(-dx, dx), width), nx1 + 1)
    ny2 = max(min(y2 + rng.randint(-dy, dy), height), ny1 + 1)
    return nx1, ny1, nx2, ny2


def pick_elements(elements: Sequence[Element], limit: int, key: str) -> list[Element]:
    """Up to ``limit`` elements (no regions), controls first, text at most :data:`TEXT_SHARE` of them."""
    rng = random.Random(key)
    usable = [e for e in elements if e.type is not ElementType.REGION and e.width >= 2 and e.height >= 2]
    texts = [e for e in usable if e.type is ElementType.TEXT]
    others = [e for e in usable if e.type is not ElementType.TEXT]
    rng.shuffle(texts)
    rng.shuffle(others)
    n_text = min(len(texts), max(1, int(limit * TEXT_SHARE)))
    picked = others[: limit - n_text] + texts[:n_text]
    return picked[:limit]


@dataclass(frozen=True)
class Sample:
    """One training row: the view's file, its target, and where it came from."""

    image: str
    target: str
    source: str
    template: str
    type: str


def prepare(folder: Path, out: Path, per_image: int = 24, dedupe: bool = True) -> dict[str, int]:
    """Write ``images/<split>/*.png`` views and ``<split>.jsonl`` rows; returns rows per split."""
    items = load_items(folder)
    if dedupe:
        items, _ = drop_cross_split_duplicates(items)
    counts = dict.fromkeys(SPLITS, 0)
    with split_writers(out) as handles:
        for item in items:
            labels = item.labels
            with Image.open(item.image_path) as opened:
                image = np.asarray(opened.convert("RGB"))
            stem = item.image_path.stem
            chosen = pick_elements(labels.elements, per_image, stem)
            rng = random.Random(hashlib.sha1(stem.encode()).hexdigest())
            boxes = [
                jitter_box(e.bbox, rng, labels.width, labels.height) if item.split == "train" else e.bbox
                for e in chosen
            ]
            views = semi_masked_views(image, boxes)  # type: ignore[arg-type]
            for i, (element, view) in enumerate(zip(chosen, views, strict=True)):
                name = f"images/{item.split}/{stem}-{i}.png"
                Image.fromarray(view).save(out / name, compress_level=1)
                target = encode_attributes(element)
                row = Sample(name, target, labels.source, labels.template, element.type.value)
                handles[item.split].write(json.dumps(row.__dict__, ensure_ascii=False) + "\n")
                counts[item.split] += 1
    return counts


def read_samples(folder: Path, split: str, with_text: bool = True) -> list[Sample]:
    """The rows of one split; ``with_text=False`` empties each target's text field."""
    path = folder / f"{split}.jsonl"
    rows = [Sample(**json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line]
    if with_text:
        return rows
    return [replace(row, target=without_text(row.target)) for row in rows]


def without_text(target: str) -> str:
    """``target`` with an empty text field (type and state flags kept)."""
    return target.rsplit("|", 1)[0] + "|"


def state_key(sample: Sample) -> str:
    """What balanced sampling balances: the type and the state flags of a view."""
    return "|".join(sample.target.split("|")[:5])


def batches(samples: Sequence[Sample], size: int, rng: random.Random) -> Iterator[list[Sample]]:
    """Shuffled batches, forever."""
    order = list(samples)
    while True:
        rng.shuffle(order)
        for start in range(0, len(order) - size + 1, size):
            yield order[start : start + size]


def balanced_batches(samples: Sequence[Sample], size: int, seed: int, power: float) -> Iterator[list[Sample]]:
    """Batches drawn with weight ``count(key) ** -power`` per view, forever (rare types and states recur)."""
    keys = [state_key(s) for s in samples]
    counts = Counter(keys)
    weights = np.array([counts[k] ** -power for k in keys], dtype=np.float64)
    weights /= weights.sum()
    rng = np.random.default_rng(seed)
    while True:
        yield [samples[i] for i in rng.choice(len(samples), size=size, p=weights)]
