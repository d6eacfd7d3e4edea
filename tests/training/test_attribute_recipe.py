"""The attribute-model recipe on a tiny set: prepare semi-masked views, train, export, run in the runtime."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from detact_service.core import Element, ElementState, ElementType, ScreenParse
from detact_service.pipeline import available_profiles
from detact_service.settings import Settings
from detact_service.understanding.attribute_codec import decode_attributes
from detact_service.understanding.attributes import UNREADABLE, Pix2StructAttributeStage
from tests.render import ScreenPainter
from training.data.export import split_of
from training.data.labels import ScreenLabels, write_labels


def labelled_folder(root: Path, screens: int = 8) -> Path:
    """Screens of buttons, ticked and unticked checkboxes and text, under templates in every split."""
    root.mkdir(parents=True)
    templates = [f"toy/t{i}" for i in range(60)]
    picked = [next(t for t in templates if split_of(t) == s) for s in ("train", "val", "test")]
    rng = np.random.default_rng(0)
    for index in range(screens):
        painter = ScreenPainter(640, 360)
        elements = []
        for row in range(3):
            x, y = int(rng.integers(10, 200)), 30 + row * 100
            button = painter.button((x, y, x + 120, y + 40), "OK", fill=(37, 99, 235)).bbox
            elements.append(Element(button, ElementType.BUTTON, text="OK", state=ElementState(focused=False)))
            checked = bool((row + index) % 2)
            box = painter.checkbox((x + 160, y + 10), checked=checked).bbox
            elements.append(Element(box, ElementType.CHECKBOX, state=ElementState(checked=checked)))
            label = painter.text((x + 200, y + 10), "Remember me").bbox
            elements.append(Element(label, ElementType.TEXT, text="Remember me"))
        template = picked[0] if index < screens - 2 else picked[1 + index % 2]
        painter.image.save(root / f"toy-{index}.png")
        labels = ScreenLabels(f"toy-{index}.png", 640, 360, "toy", template, index, elements=elements)
        write_labels(labels, root / f"toy-{index}.json")
    return root


@pytest.mark.slow
def test_prepare_train_export_and_run_in_the_runtime(tmp_path: Path) -> None:
    from training.attributes.data import prepare, read_samples
    from training.attributes.export import export
    from training.attributes.train import TrainConfig, train

    counts = prepare(labelled_folder(tmp_path / "rendered"), tmp_path / "views", per_image=9)
    # 6 controls + text capped at 30 % of 9 picks (2) per screen
    assert counts["train"] == 6 * 8 and counts["val"] + counts["test"] == 2 * 8
    samples = read_samples(tmp_path / "views", "train")
    assert all(decode_attributes(s.target) is not None for s in samples)
    assert {s.target for s in samples} >= {"checkbox|1|-|0|0|", "checkbox|0|-|0|0|", "button|-|-|0|0|OK"}

    config = TrainConfig(
        data=str(tmp_path / "views"),
        out=str(tmp_path / "run"),
        size="xs",
        max_patches=32,
        steps=30,
        batch=8,
        lr=3e-3,
        warmup=5,
        workers=0,
        eval_every=30,
        save_every=15,
        vocab_size=300,
        max_target_tokens=12,
    )
    best = train(config)
    losses = [json.loads(line)["loss"] for line in (tmp_path / "run" / "loss.jsonl").read_text().splitlines()]
    assert len(losses) == 30 and np.mean(losses[-5:]) < 0.5 * np.mean(losses[:5]), "training must learn"
    # a resumed run continues from the last checkpoint's step
    config.steps = 32
    train(config, resume=True)
    assert len((tmp_path / "run" / "loss.jsonl").read_text().splitlines()) == 32
    # a time budget stops the run early and still leaves a resumable checkpoint
    config.steps, config.minutes = 1000, 1e-6
    train(config, resume=True)
    assert len((tmp_path / "run" / "loss.jsonl").read_text().splitlines()) == 33
    assert json.loads((tmp_path / "run" / "last" / "state.json").read_text())["step"] == 33
    config.minutes = 0.0

    models = tmp_path / "models"
    models.mkdir()
    (models / "manifest.json").write_text('{"models": []}')
    folder = export(best, "toy-attributes", models, data_version="toy", metrics={"steps": 30})
    assert (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file()
    manifest = json.loads((models / "manifest.json").read_text())
    assert manifest["models"][0]["kind"] == "attributes" and manifest["models"][0]["sha256"]

    settings = Settings(models_dir=models, attributes={"model": "toy-attributes"}, device="cpu")
    stage = Pix2StructAttributeStage(settings)
    painter = ScreenPainter(640, 360)
    ticked = painter.checkbox((200, 100), checked=True).bbox
    button = painter.button((20, 90, 140, 130), "OK", fill=(37, 99, 235)).bbox
    parse = ScreenParse(
        640,
        360,
        [
            Element(ticked, ElementType.ICON, source="detector"),
            Element(button, ElementType.BUTTON, text="OK", source="detector"),
            Element((0, 0, 640, 360), ElementType.REGION, source="segmenter"),
        ],
    )
    image = np.asarray(painter.image.convert("RGB"))
    (out,) = stage.run([image], [parse])
    assert len(out.elements) == 3 and out.elements[2] == parse.elements[2], "regions are left alone"
    for before, after in zip(parse.elements[:2], out.elements[:2], strict=True):
        assert after.bbox == before.bbox
        assert after.source in (before.source, before.source + UNREADABLE)
    assert out.elements[1].text == "OK", "OCR/detector text wins over the model's"
    assert stage.model_version() and stage.model_version().startswith("toy-attributes:")  # type: ignore[union-attr]
    # the full profile needs a detector too: still unavailable with an attribute model alone
    assert "full" not in available_profiles(settings)

    from training.eval.attributes import main as evaluate

    text = evaluate(tmp_path / "ATTRIBUTES.md", tmp_path / "views", [], settings)
    (row,) = [line for line in text.splitlines() if line.startswith("| toy |")]
    assert row.count("(") >= 3, "type, checked, disabled and unparsed are measured on the toy test views"


def test_text_free_targets_and_balanced_sampling(tmp_path: Path) -> None:
    from training.attributes.data import balanced_batches, read_samples, state_key, without_text

    assert without_text("button|-|-|0|0|Save as") == "button|-|-|0|0|"
    assert without_text("checkbox|1|-|0|0|") == "checkbox|1|-|0|0|"
    common = {"target": "text|-|-|-|-|hello", "source": "s", "template": "t", "type": "text"}
    rows = [{"image": f"{i}.png", **common} for i in range(99)]
    rows.append({**common, "image": "rare.png", "target": "checkbox|1|-|0|0|", "type": "checkbox"})
    (tmp_path / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    samples = read_samples(tmp_path, "train", with_text=False)
    assert {s.target for s in samples} == {"text|-|-|-|-|", "checkbox|1|-|0|0|"}
    assert all(decode_attributes(s.target) is not None for s in samples)

    # one rare view among 99 common ones: uniform sampling shows it 1 % of the time, power 1 half of the time
    stream = balanced_batches(samples, 100, seed=0, power=1.0)
    drawn = [state_key(s) for _ in range(20) for s in next(stream)]
    rare_share = drawn.count("checkbox|1|-|0|0") / len(drawn)
    assert 0.4 < rare_share < 0.6
    uniform = balanced_batches(samples, 100, seed=0, power=0.0)
    drawn = [state_key(s) for _ in range(20) for s in next(uniform)]
    assert drawn.count("checkbox|1|-|0|0") / len(drawn) < 0.05


def test_learning_rate_decays_by_steps_or_by_the_time_budget() -> None:
    from training.attributes.train import TrainConfig, _lr

    config = TrainConfig(data="d", out="o", steps=1000, lr=1e-3, warmup=100, minutes=8)
    assert _lr(0, config, time_spent=0.9) == pytest.approx(1e-5), "warm-up ignores the clock"
    assert _lr(100, config) == pytest.approx(1e-3)
    assert _lr(550, config) == pytest.approx(5e-4)
    assert _lr(1000, config) == pytest.approx(0.0, abs=1e-12)
    # a slow machine: few steps done, but the budget is half spent -> half-way down the cosine
    assert _lr(150, config, time_spent=0.5) == pytest.approx(5e-4)
    assert _lr(150, config, time_spent=1.0) == pytest.approx(0.0, abs=1e-12)
