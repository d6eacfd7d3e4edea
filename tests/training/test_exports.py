"""Exports and reports: template-disjoint splits, valid YOLO lines, near-duplicate removal, sheets."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from detact_service.core import Element, ElementState, ElementType
from training.data.__main__ import main
from training.data.engine import render, source_for_seed
from training.data.export import SPLITS, YOLO_CLASSES, export_interactive_yolo, split_of
from training.data.labels import ScreenLabels, write_labels


def _write(folder: Path, stem: str, template: str, pixels: np.ndarray) -> None:
    h, w = pixels.shape[:2]
    Image.fromarray(pixels).save(folder / f"{stem}.png")
    elements = [
        Element(bbox=(10, 10, 60, 30), type=ElementType.BUTTON, text="OK", color="blue"),
        Element(bbox=(10, 40, 24, 54), type=ElementType.CHECKBOX, state=ElementState(checked=True)),
        Element(bbox=(30, 40, 90, 54), type=ElementType.TEXT, text="Remember me"),
        Element(bbox=(0, 0, w, h), type=ElementType.REGION),
        Element(bbox=(5, 60, 80, 80), type=ElementType.TEXTAREA),
    ]
    labels = ScreenLabels(f"{stem}.png", w, h, "test", template, 0, elements=elements)
    write_labels(labels, folder / f"{stem}.json")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    out = tmp_path / "rendered"
    out.mkdir()
    templates = [f"test/t{i}" for i in range(40)]
    for i, template in enumerate(templates):
        for j in range(2):
            pixels = (rng.random((8, 12, 3)) * 255).astype(np.uint8).repeat(10, 0).repeat(10, 1)
            _write(out, f"s{i}-{j}", template, pixels)
    # the same screenshot under two templates that fall into different splits
    train_t = next(t for t in templates if split_of(t) == "train")
    test_t = next(t for t in templates if split_of(t) == "test")
    dup = (rng.random((8, 12, 3)) * 255).astype(np.uint8).repeat(10, 0).repeat(10, 1)
    _write(out, "dup-train", train_t, dup)
    _write(out, "dup-test", test_t, dup)
    return out


def test_split_is_stable_and_covers_all_splits() -> None:
    assert split_of("web/login/v1") == split_of("web/login/v1")
    splits = [split_of(f"t/{i}") for i in range(1000)]
    share = {s: splits.count(s) / 1000 for s in SPLITS}
    assert 0.75 < share["train"] < 0.85 and 0.06 < share["val"] < 0.14 and 0.06 < share["test"] < 0.14


def test_export_yolo(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "yolo"
    assert main(["export-yolo", str(folder), "--out", str(out)]) == 0
    seen: dict[str, str] = {}
    for split in SPLITS:
        for label_file in (out / "labels" / split).glob("*.txt"):
            template = json.loads((folder / f"{label_file.stem}.json").read_text())["template"]
            assert seen.setdefault(template, split) == split, f"{template} in two splits"
            assert (out / "images" / split / f"{label_file.stem}.png").exists()
            for line in label_file.read_text().splitlines():
                cls, *xywh = line.split()
                assert 0 <= int(cls) < len(YOLO_CLASSES)
                values = [float(v) for v in xywh]
                assert len(values) == 4 and all(0 <= v <= 1 for v in values)
    assert {"train", "val", "test"} <= set(seen.values())
    assert not (out / "images" / "train" / "dup-train.png").exists()  # near-duplicate of a test image
    assert (out / "images" / "test" / "dup-test.png").exists()
    yaml = (out / "dataset.yaml").read_text()
    assert f"nc: {len(YOLO_CLASSES)}" in yaml and "textarea -> input" in yaml


def test_export_interactive_yolo_adds_one_class_train_screens(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "mixed"
    counts = export_interactive_yolo(folder, out, {"test": 5, "absent": 3})
    assert counts == {"test": 5, "absent": 0}
    label_files = sorted((out / "labels" / "train").glob("*.txt"))
    assert len(label_files) == 5
    for label_file in label_files:
        template = json.loads((folder / f"{label_file.stem}.json").read_text())["template"]
        assert split_of(template) == "train"
        assert (out / "images" / "train" / f"{label_file.stem}.png").is_symlink()
        lines = label_file.read_text().splitlines()
        # the button, the checkbox and the textarea; not the text or the region
        assert len(lines) == 3 and {line.split()[0] for line in lines} == {"0"}
    export_interactive_yolo(folder, tmp_path / "again", {"test": 5})  # the same seed draws the same screens
    assert [f.name for f in sorted((tmp_path / "again" / "labels" / "train").glob("*.txt"))] == [
        f.name for f in label_files
    ]
    export_interactive_yolo(folder, tmp_path / "replay", {"test": 5}, labelled=False)
    replay = sorted((tmp_path / "replay" / "labels" / "train").glob("*.txt"))
    assert [f.name for f in replay] == [f.name for f in label_files]
    assert all(f.read_text() == "" for f in replay), "replay screens wait for a teacher's boxes"


def test_export_attributes_contact_sheet_datasheet(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "attrs"
    assert main(["export-attributes", str(folder), "--out", str(out)]) == 0
    lines = [line for split in SPLITS for line in (out / f"{split}.jsonl").read_text().splitlines()]
    rows = [json.loads(line) for line in lines]
    assert rows and all((out / r["image"]).exists() for r in rows)
    assert "type: checkbox, checked: true" in {r["target"] for r in rows}
    assert not any(r["target"].startswith("type: region") for r in rows)
    sheet = tmp_path / "sheet.png"
    assert main(["contact-sheet", str(folder), "--out", str(sheet), "--n", "6"]) == 0
    with Image.open(sheet) as image:
        assert image.width > 0 and image.format == "PNG"
    doc = tmp_path / "DATASHEET.md"
    assert main(["datasheet", str(folder), "--out", str(doc)]) == 0
    assert "| button |" in doc.read_text()


def test_mixed_sources_are_stable() -> None:
    mix = {"web": 0.5, "miniwob": 0.5}
    picks = [source_for_seed("mixed", s, mix) for s in range(1000, 1100)]
    assert picks == [source_for_seed("mixed", s, mix) for s in range(1000, 1100)]
    assert set(picks) == {"web", "miniwob"}


@pytest.mark.slow
@pytest.mark.skipif(not Path("/usr/bin/chromedriver").exists(), reason="needs chromium-driver")
def test_render_cli_end_to_end_and_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = [
        "render",
        "--source",
        "mixed",
        "--mix",
        "web=0.5,miniwob=0.5",
        "--n",
        "4",
        "--out",
        str(out),
        "--seed",
        "1100",
        "--no-progress",
    ]
    assert main(args) == 0
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert len(pngs) == 4 and len(list(out.glob("*.json"))) == 4
    assert all(p.split("-")[0] in {"web", "miniwob"} for p in pngs)
    report = render("mixed", 4, out, seed=1100, mix={"web": 0.5, "miniwob": 0.5}, progress=False)
    assert report.skipped == 4 and report.rendered == 0
    with pytest.raises(ValueError, match="reserved"):
        render("miniwob", 2, out, seed=10, progress=False)
    with pytest.raises(ValueError, match="reserved"):  # this project's own evaluation episodes
        render("miniwob", 2, out, seed=1050, progress=False)


def test_render_cli_refuses_evaluation_seeds(tmp_path: Path) -> None:
    args = [
        "render",
        "--source",
        "miniwob",
        "--n",
        "2",
        "--out",
        str(tmp_path),
        "--seed",
        "10",
        "--no-progress",
    ]
    assert main(args) == 2
    assert not list(tmp_path.glob("*.png"))


def test_pack_and_unpack_a_yolo_export(folder: Path, tmp_path: Path) -> None:
    from training.data.pack import pack, unpack

    export = tmp_path / "yolo"
    assert main(["export-yolo", str(folder), "--out", str(export)]) == 0
    counts = pack(export, tmp_path / "pack", "yolo", imgsz=64, max_mb=0.002)
    assert counts["shards"] > 1, "a tiny cap cuts the data into several shards"
    shard_sizes = [
        sum(f.stat().st_size for f in s.rglob("*") if f.is_file())
        for s in (tmp_path / "pack").glob("shard-*")
    ]
    assert max(shard_sizes) <= 0.002 * 1024 * 1024 + 8000, "a shard may overshoot by one image only"
    merged = unpack(sorted((tmp_path / "pack").glob("shard-*")), tmp_path / "merged")
    for split in SPLITS:
        originals = sorted(p.stem for p in (export / "images" / split).glob("*.png"))
        assert sorted(p.stem for p in (merged / "images" / split).glob("*.webp")) == originals
        for stem in originals:
            assert (merged / "labels" / split / f"{stem}.txt").read_text() == (
                export / "labels" / split / f"{stem}.txt"
            ).read_text()
    with Image.open(next((merged / "images" / "train").glob("*.webp"))) as image:
        assert max(image.size) <= 64
    assert f"nc: {len(YOLO_CLASSES)}" in (merged / "dataset.yaml").read_text()


def test_pack_takes_photos_and_the_class_names_of_a_set_without_a_class_map(tmp_path: Path) -> None:
    from training.data.pack import pack, unpack

    folder = tmp_path / "phone-set"
    for split in ("train", "val"):
        (folder / "images" / split).mkdir(parents=True)
        (folder / "labels" / split).mkdir(parents=True)
        Image.new("RGB", (90, 200), (240, 240, 240)).save(folder / "images" / split / "app_1.jpg")
        (folder / "labels" / split / "app_1.txt").write_text("0 0.5 0.5 0.2 0.1\n")
    yaml = "path: x\ntrain: images/train\nval: images/val\nnames:\n  0: interactive\n"
    (folder / "dataset.yaml").write_text(yaml)
    assert pack(folder, tmp_path / "pack", "yolo", imgsz=100, splits=("train", "val"))["train"] == 1
    merged = unpack(sorted((tmp_path / "pack").glob("shard-*")), tmp_path / "merged")
    with Image.open(merged / "images" / "train" / "app_1.webp") as image:
        assert image.size == (45, 100)
    assert "nc: 1\nnames:\n  0: interactive" in (merged / "dataset.yaml").read_text()


def test_sources_with_few_templates_still_have_every_split() -> None:
    from training.data.sources.grid import LAYOUTS
    from training.data.sources.qt import TEMPLATES

    assert {split_of(f"qt/{name}/v1") for name in TEMPLATES} == set(SPLITS)
    assert {split_of(f"grid/{name}/v1") for name in LAYOUTS} == set(SPLITS)
