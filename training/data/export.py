"""Exports of a rendered folder: a YOLO detection dataset and a per-element attribute dataset.

Splits are by SOURCE TEMPLATE: a template's split comes from a stable hash (SHA-1) of its name, so a
template never appears in two splits and a rerun or a bigger dataset keeps every template where it was.
Near-duplicate screenshots across splits (64-bit difference hash within :data:`DUP_BITS` bits) are
dropped from the less precious split (test is kept over val, val over train).

YOLO classes merge rare or look-alike types (:data:`YOLO_MERGE`); the mapping is written into
``dataset.yaml`` as comments and as ``class_map.json``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

import numpy as np
from PIL import Image, ImageDraw

from detact_service.core import Element, ElementType
from training.data.labels import ScreenLabels, read_labels

SPLITS = ("train", "val", "test")
SPLIT_FRACTIONS = (0.8, 0.1, 0.1)
DUP_BITS = 4  # Hamming distance on the 64-bit dHash at or below which two screenshots are near-duplicates

# YOLO class of each element type: rare or look-alike types merge into a common one.
YOLO_MERGE: dict[ElementType, str] = {
    ElementType.TEXT: "text",
    ElementType.LINK: "link",
    ElementType.BUTTON: "button",
    ElementType.INPUT: "input",
    ElementType.TEXTAREA: "input",  # a multi-line input; rare, same look as input
    ElementType.CHECKBOX: "checkbox",
    ElementType.TOGGLE: "checkbox",  # two-state control like a checkbox; rare on the web
    ElementType.RADIO: "radio",
    ElementType.DROPDOWN: "dropdown",
    ElementType.TAB: "tab",
    ElementType.MENU_ITEM: "list_item",  # a row in a vertical stack either way
    ElementType.LIST_ITEM: "list_item",
    ElementType.ICON: "icon",
    ElementType.IMAGE: "image",
    ElementType.SLIDER: "slider",
    ElementType.SCROLLBAR: "slider",  # a track with a thumb; rare
    ElementType.REGION: "region",
}
YOLO_CLASSES: tuple[str, ...] = tuple(dict.fromkeys(YOLO_MERGE.values()))


# Sources with only a handful of templates would land wholly in train by hash; these are held out by name
# so every source has val and test screens (still template-disjoint).
SPLIT_OVERRIDES: dict[str, str] = {
    "qt/settings-dialog/v1": "val",
    "qt/table-editor/v1": "test",
    "grid/sparse/v1": "val",
    "grid/keypad/v1": "test",
}


def split_of(template: str) -> str:
    """The split of a template: :data:`SPLIT_OVERRIDES`, else a stable hash of its name on the fractions."""
    if template in SPLIT_OVERRIDES:
        return SPLIT_OVERRIDES[template]
    digest = hashlib.sha1(template.encode("utf-8")).digest()
    u = int.from_bytes(digest[:8], "big") / 2**64
    edge = 0.0
    for name, fraction in zip(SPLITS, SPLIT_FRACTIONS, strict=True):
        edge += fraction
        if u < edge:
            return name
    return SPLITS[-1]


def dhash(path: Path) -> int:
    """64-bit difference hash of an image (grey 9x8, left-right gradient signs)."""
    with Image.open(path) as image:
        image.draft("L", (64, 64))
        small = np.asarray(image.convert("L").resize((9, 8), Image.Resampling.BILINEAR), dtype=np.int16)
    bits = (small[:, 1:] > small[:, :-1]).ravel()
    return int(np.packbits(bits).view(">u8")[0])


@dataclass
class Item:
    """One labelled screenshot of a rendered folder."""

    json_path: Path
    labels: ScreenLabels
    split: str

    @property
    def image_path(self) -> Path:
        return self.json_path.parent / self.labels.image


def load_items(folder: Path) -> list[Item]:
    """Every labels JSON in ``folder`` (sorted) with its template split."""
    items = []
    for path in sorted(folder.glob("*.json")):
        labels = read_labels(path)
        items.append(Item(path, labels, split_of(labels.template)))
    return items


def drop_cross_split_duplicates(items: Sequence[Item], max_bits: int = DUP_BITS) -> tuple[list[Item], int]:
    """Items without near-duplicates of a more precious split's images; and how many were dropped."""
    if not items:
        return [], 0
    hashes = np.array([dhash(item.image_path) for item in items], dtype=np.uint64)
    rank = np.array([SPLITS.index(item.split) for item in items])
    keep = np.ones(len(items), dtype=bool)
    for lower, higher in ((0, 1), (0, 2), (1, 2)):  # train vs val/test, val vs test
        low_idx = np.flatnonzero((rank == lower) & keep)
        high_idx = np.flatnonzero(rank == higher)
        if not len(low_idx) or not len(high_idx):
            continue
        xor = hashes[low_idx][:, None] ^ hashes[high_idx][None, :]
        distance = np.unpackbits(xor.view(np.uint8).reshape(*xor.shape, 8), axis=-1).sum(axis=-1)
        keep[low_idx[(distance <= max_bits).any(axis=1)]] = False
    return [item for item, k in zip(items, keep, strict=True) if k], int((~keep).sum())


def _place(src: Path, dst: Path) -> None:
    """Hard-link (or copy) a file."""
    if dst.exists():
        dst.unlink()
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def yolo_lines(labels: ScreenLabels, one_class: bool = False) -> list[str]:
    """YOLO label lines ``class cx cy w h`` (normalised) for a screenshot's elements; with ``one_class``
    every line is class 0."""
    lines = []
    for element in labels.elements:
        x1, y1, x2, y2 = element.bbox
        x1, y1 = max(x1, 0), max(y1, 0)
        x2, y2 = min(x2, labels.width), min(y2, labels.height)
        if x2 <= x1 or y2 <= y1:
            continue
        cls = 0 if one_class else YOLO_CLASSES.index(YOLO_MERGE[element.type])
        cx, cy = (x1 + x2) / 2 / labels.width, (y1 + y2) / 2 / labels.height
        w, h = (x2 - x1) / labels.width, (y2 - y1) / labels.height
        lines.append(f"{cls} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}")
    return lines


def export_yolo(folder: Path, out: Path, dedupe: bool = True) -> dict[str, int]:
    """Write a YOLO dataset (``images/<split>``, ``labels/<split>``, ``dataset.yaml``); returns counts."""
    items = load_items(folder)
    dropped = 0
    if dedupe:
        items, dropped = drop_cross_split_duplicates(items)
    counts = dict.fromkeys(SPLITS, 0)
    for split in SPLITS:
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    for item in items:
        stem = item.image_path.stem
        _place(item.image_path, out / "images" / item.split / item.image_path.name)
        text = "\n".join(yolo_lines(item.labels))
        (out / "labels" / item.split / f"{stem}.txt").write_text(text + ("\n" if text else ""))
        counts[item.split] += 1
    merges = [f"#   {t.value} -> {c}" for t, c in YOLO_MERGE.items() if t.value != c]
    yaml = [
        "# detact-service data engine: YOLO detection dataset (python -m training.data export-yolo)",
        "# splits are by source template (stable hash of the template name); near-duplicates across",
        f"# splits dropped: {dropped}",
        "# merged element types:",
        *merges,
        f"path: {out.resolve()}",
        "train: images/train",
        "val: images/val",
        "test: images/test",
        f"nc: {len(YOLO_CLASSES)}",
        "names:",
        *[f"  {i}: {name}" for i, name in enumerate(YOLO_CLASSES)],
    ]
    (out / "dataset.yaml").write_text("\n".join(yaml) + "\n")
    class_map = {"classes": list(YOLO_CLASSES), "type_to_class": {t.value: c for t, c in YOLO_MERGE.items()}}
    (out / "class_map.json").write_text(json.dumps(class_map, indent=1) + "\n")
    return {**counts, "duplicates_dropped": dropped}


def export_interactive_yolo(
    folder: Path,
    out: Path,
    per_source: dict[str, int],
    split: str = "train",
    seed: int = 0,
    labelled: bool = True,
) -> dict[str, int]:
    """Add ``per_source[source]`` screens of ``split`` to a one-class (``interactive``) YOLO set in ``out``.

    The labels are the screens' interactive elements, the convention of a one-class detector of
    interactable regions; how a phone fine-tune also sees desktop and web screens. Screens are drawn
    evenly at random (``seed``) from each source; returns the count per source. ``labelled=False`` writes
    empty label files: replay screens, which ``training.detector.pseudo`` labels with a teacher's boxes.
    """
    (out / "images" / split).mkdir(parents=True, exist_ok=True)
    (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    counts = dict.fromkeys(per_source, 0)
    items = [item for item in load_items(folder) if item.split == split and item.labels.source in per_source]
    for source, wanted in per_source.items():
        pool = [item for item in items if item.labels.source == source]
        for index in sorted(rng.choice(len(pool), size=min(wanted, len(pool)), replace=False)):
            item = pool[index]
            link = out / "images" / split / item.image_path.name
            if not link.exists():
                link.symlink_to(item.image_path.resolve())
            interactive = [e for e in item.labels.elements if e.is_interactive] if labelled else []
            lines = yolo_lines(replace(item.labels, elements=interactive), one_class=True)
            label_file = out / "labels" / split / f"{item.image_path.stem}.txt"
            label_file.write_text("".join(f"{line}\n" for line in lines))
            counts[source] += 1
    return counts


def attribute_target(element: Element) -> str:
    """The attribute string a model learns, e.g. ``type: checkbox, checked: true, text: "Remember me"``.

    ``checked`` and ``selected`` are written whenever known (true or false); ``focused``, ``disabled`` and
    ``highlighted`` only when true; then ``icon``, ``color`` and ``text`` when present.
    """
    parts = [f"type: {element.type.value}"]
    state = element.state
    for name in ("checked", "selected"):
        value = getattr(state, name)
        if value is not None:
            parts.append(f"{name}: {str(value).lower()}")
    parts += [f"{name}: true" for name in ("focused", "disabled", "highlighted") if getattr(state, name)]
    if element.icon:
        parts.append(f"icon: {element.icon}")
    if element.color:
        parts.append(f"color: {element.color}")
    if element.text:
        parts.append(f"text: {json.dumps(element.text, ensure_ascii=False)}")
    return ", ".join(parts)


def context_box(bbox: tuple[int, int, int, int], width: int, height: int, context: float) -> tuple[int, ...]:
    """The crop around ``bbox`` with ``context`` times its size (at least 16 px) on every side."""
    x1, y1, x2, y2 = bbox
    mx = max(16, int((x2 - x1) * context))
    my = max(16, int((y2 - y1) * context))
    return max(0, x1 - mx), max(0, y1 - my), min(width, x2 + mx), min(height, y2 + my)


def _pick(elements: Sequence[Element], limit: int, key: str) -> list[tuple[int, Element]]:
    """Up to ``limit`` elements (not regions), a stable choice per screenshot."""
    indexed = [(i, e) for i, e in enumerate(elements) if e.type is not ElementType.REGION]
    if len(indexed) <= limit:
        return indexed
    order = sorted(indexed, key=lambda ie: hashlib.sha1(f"{key}-{ie[0]}".encode()).digest())
    return sorted(order[:limit], key=lambda ie: ie[0])


@contextmanager
def split_writers(out: Path) -> Iterator[dict[str, TextIO]]:
    """A ``<split>.jsonl`` writer per split (and the ``images/<split>/`` folders); closed on exit."""
    with ExitStack() as stack:
        handles: dict[str, TextIO] = {}
        for split in SPLITS:
            (out / "images" / split).mkdir(parents=True, exist_ok=True)
            handles[split] = stack.enter_context((out / f"{split}.jsonl").open("w", encoding="utf-8"))
        yield handles


def export_attributes(
    folder: Path,
    out: Path,
    context: float = 0.5,
    per_image: int = 40,
    mark: bool = False,
    dedupe: bool = True,
) -> dict[str, int]:
    """Per element a context crop (``images/<split>/<stem>-<i>.png``) and ``<split>.jsonl`` rows.

    Each row: ``image`` (relative path), ``box`` (the element inside the crop), ``target`` (see
    :func:`attribute_target`), ``template``, ``source``. ``mark`` draws the box on the crop.
    """
    items = load_items(folder)
    dropped = 0
    if dedupe:
        items, dropped = drop_cross_split_duplicates(items)
    counts = dict.fromkeys(SPLITS, 0)
    with split_writers(out) as indexes:
        for item in items:
            labels = item.labels
            with Image.open(item.image_path) as opened:
                image = opened.convert("RGB")
            stem = item.image_path.stem
            for i, element in _pick(labels.elements, per_image, stem):
                cx1, cy1, cx2, cy2 = context_box(element.bbox, image.width, image.height, context)
                crop = image.crop((cx1, cy1, cx2, cy2))
                x1, y1, x2, y2 = element.bbox
                box = [x1 - cx1, y1 - cy1, x2 - cx1, y2 - cy1]
                if mark:
                    ImageDraw.Draw(crop).rectangle(
                        [box[0], box[1], box[2] - 1, box[3] - 1], outline="#ff00ff", width=2
                    )
                name = f"images/{item.split}/{stem}-{i}.png"
                crop.save(out / name, compress_level=3)
                row = {
                    "image": name,
                    "box": box,
                    "target": attribute_target(element),
                    "template": labels.template,
                    "source": labels.source,
                }
                indexes[item.split].write(json.dumps(row, ensure_ascii=False) + "\n")
                counts[item.split] += 1
    return {**counts, "duplicates_dropped": dropped}


def templates_by_split(items: Iterable[Item]) -> dict[str, set[str]]:
    """Which templates each split holds."""
    out: dict[str, set[str]] = {s: set() for s in SPLITS}
    for item in items:
        out[item.split].add(item.labels.template)
    return out
