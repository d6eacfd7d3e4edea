"""Pack an exported dataset into size-capped shards that can travel to a GPU machine.

The lent GPU machines cannot render (no Chromium, no Qt, no network) and a call carries at most 64 MiB,
so training data goes there packed: YOLO images shrunk to the training size and re-encoded as WebP
(lossy, quality ``--quality``; UI text survives quality 85 at training resolution) with their label
files, attribute views re-encoded the same way with their JSONL rows, cut into shards of at most
``--max-mb``. ``unpack`` rebuilds the dataset layout (``dataset.yaml`` pointing at the new place).

    python -m training.data pack data/yolo --out data/pack-yolo --kind yolo --imgsz 1024
    python -m training.data pack data/attributes-sm --out data/pack-attr --kind attributes
    python -m training.data unpack data/pack-yolo/shard-000 data/pack-yolo/shard-001 --out /tmp/yolo
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

from PIL import Image

from detact_service.batch.inputs import IMAGE_SUFFIXES
from training.data.export import SPLITS


def webp_bytes(path: Path, max_side: int | None, quality: int) -> bytes:
    """The image at ``path`` as WebP, its longest side at most ``max_side``."""
    with Image.open(path) as opened:
        image = opened.convert("RGB")
    if max_side is not None and max(image.size) > max_side:
        image.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    image.save(buffer, format="WEBP", quality=quality, method=4)
    return buffer.getvalue()


class _Shards:
    """Writes files into ``shard-NNN`` folders of at most ``max_bytes`` each."""

    def __init__(self, out: Path, max_bytes: int) -> None:
        self.out, self.max_bytes = out, max_bytes
        self.index, self.size = 0, 0
        self.folder = self._open()

    def _open(self) -> Path:
        folder = self.out / f"shard-{self.index:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def add(self, files: dict[str, bytes]) -> None:
        """Add a group of files (an image and its labels) to the shard; a full shard opens the next."""
        size = sum(len(data) for data in files.values())
        if self.size and self.size + size > self.max_bytes:
            self.index, self.size = self.index + 1, 0
            self.folder = self._open()
        for name, data in files.items():
            target = self.folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("ab") as handle:
                handle.write(data)
        self.size += size


def yolo_classes(folder: Path) -> list[str]:
    """A YOLO export's class names: its ``class_map.json``, else the ``names`` of its ``dataset.yaml``."""
    class_map = folder / "class_map.json"
    if class_map.exists():
        classes: list[str] = json.loads(class_map.read_text())["classes"]
        return classes
    import yaml

    names = yaml.safe_load((folder / "dataset.yaml").read_text())["names"]
    return [names[i] for i in sorted(names)] if isinstance(names, dict) else list(names)


def pack(
    folder: Path,
    out: Path,
    kind: str = "yolo",
    imgsz: int | None = 1024,
    quality: int = 85,
    max_mb: float = 60,
    splits: tuple[str, ...] = SPLITS,
) -> dict[str, int]:
    """Pack a YOLO export (``kind='yolo'``) or a prepared attribute folder (``'attributes'``) into shards.

    ``imgsz`` bounds the longest side of every image (attribute views: ``None`` keeps them as they are);
    ``splits`` picks what travels (a training call needs no test split).
    """
    unknown = set(splits) - set(SPLITS)
    if unknown:
        raise ValueError(f"unknown splits {sorted(unknown)}: choose from {', '.join(SPLITS)}")
    if out.exists():
        shutil.rmtree(out)
    shards = _Shards(out, int(max_mb * 1024 * 1024))
    counts: dict[str, int] = {}
    if kind == "yolo":
        for split in splits:
            found = (folder / "images" / split).iterdir()
            images = sorted(path for path in found if path.suffix.lower() in IMAGE_SUFFIXES)
            for image in images:
                label = folder / "labels" / split / f"{image.stem}.txt"
                shards.add(
                    {
                        f"images/{split}/{image.stem}.webp": webp_bytes(image, imgsz, quality),
                        f"labels/{split}/{image.stem}.txt": label.read_bytes() if label.exists() else b"",
                    }
                )
            counts[split] = len(images)
        (out / "class_map.json").write_text(json.dumps({"classes": yolo_classes(folder)}))
    elif kind == "attributes":
        for split in splits:
            rows = (folder / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()
            for line in rows:
                row = json.loads(line)
                name = str(Path(row["image"]).with_suffix(".webp"))
                data = webp_bytes(folder / row["image"], imgsz, quality)
                row["image"] = name
                record = (json.dumps(row, ensure_ascii=False) + "\n").encode()
                shards.add({name: data, f"{split}.jsonl": record})
            counts[split] = len(rows)
    else:
        raise ValueError(f"unknown kind {kind!r}: yolo or attributes")
    counts["shards"] = shards.index + 1
    return counts


def unpack(shards: list[Path], out: Path) -> Path:
    """Merge shards into one dataset folder; for YOLO data also write ``dataset.yaml``."""
    out.mkdir(parents=True, exist_ok=True)
    for shard in shards:
        for path in sorted(p for p in shard.rglob("*") if p.is_file()):
            target = out / path.relative_to(shard)
            target.parent.mkdir(parents=True, exist_ok=True)
            if path.suffix == ".jsonl":
                with target.open("ab") as handle:
                    handle.write(path.read_bytes())
            else:
                shutil.copyfile(path, target)
    class_map = next(
        (s.parent / "class_map.json" for s in shards if (s.parent / "class_map.json").exists()), None
    )
    if class_map is not None:
        classes = json.loads(class_map.read_text())["classes"]
        yaml = [f"path: {out.resolve()}", "train: images/train", "val: images/val", "test: images/test"]
        yaml += [f"nc: {len(classes)}", "names:", *[f"  {i}: {name}" for i, name in enumerate(classes)]]
        (out / "dataset.yaml").write_text("\n".join(yaml) + "\n")
    return out
