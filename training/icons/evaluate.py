"""Measure the icon classifier on icon sets it never saw.

Each glyph of the held-out sets (and of the validation set, which picks the threshold) is drawn twice:
``page`` (24 px, near-black on white, anti-aliased, a 6 px margin: an icon button on a plain page) and
``varied`` (the training augmentation with a fixed seed: 12-64 px, any colours, JPEG, noise). Reported:

* ``top1_common``: right name among glyphs whose meaning is one of the 100 most common (``unknown``
  counts as wrong);
* ``top1_vocab``: the same over every vocabulary meaning;
* ``unknown_or_right_oov``: among glyphs whose meaning is outside the vocabulary, the share answered
  ``unknown`` or with a meaning the glyph's contains ("bell" for "bell ring");
* ``unknown_oov_unrelated``: ``unknown`` among out-of-vocabulary glyphs that contain no vocabulary meaning;
* ``letters_named``: the share of single letters and digits (every TrueType font under
  ``/usr/share/fonts/truetype``, 14, 20 and 28 px, dark on white) that get a name, per threshold: the
  stage also tries elements whose OCR text is one letter, since OCR reads pictograms as letters;
* ``latency_ms_30``: median time to name 30 icon crops (normalisation + one ONNX call, 1 thread).

A vocabulary's ``aliases`` (``{"printer": "print"}``: one meaning listed under two names) are scored as
one meaning: a glyph's name is mapped to the meaning, and the model's classes are folded into the
meanings (summed) unless its export folded them already.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from detact_service.understanding.icon_classifier import UNKNOWN, IconClassifier, frames
from training.icons.data import Glyphs, draw_crop, load_glyphs, merged_meanings
from training.icons.sources import ICON_SETS

THRESHOLDS = (0.0, 0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 0.9)


def page_crop(mask: npt.NDArray[np.uint8], size: int = 24, margin: int = 6) -> npt.NDArray[np.uint8]:
    """A glyph at ``size`` px, colour (20, 20, 20) on white, with a margin."""
    import cv2

    alpha = cv2.resize(mask.astype(np.float32) / 255.0, (size, size), interpolation=cv2.INTER_AREA)
    full = np.zeros((size + 2 * margin, size + 2 * margin), dtype=np.float32)
    full[margin:-margin, margin:-margin] = alpha
    rgb = 255.0 + full[..., None] * (20.0 - 255.0) * np.ones(3)
    return np.clip(np.rint(rgb), 0, 255).astype(np.uint8)


def session(model: Path) -> Any:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])


def score(
    names: list[str], probs: npt.NDArray[np.float32], classes: list[str], common: set[str], threshold: float
) -> dict[str, float]:
    """The metrics of one condition at one threshold."""
    vocab = set(classes[1:])
    vocab_words = [frozenset(v.split()) for v in vocab]
    best = probs.argmax(axis=1)
    conf = probs[np.arange(len(best)), best]
    said = [
        None if classes[b] == UNKNOWN or c < threshold else classes[b]
        for b, c in zip(best, conf, strict=True)
    ]
    in_common = [i for i, n in enumerate(names) if n in common]
    in_vocab = [i for i, n in enumerate(names) if n in vocab]
    oov = [i for i, n in enumerate(names) if n not in vocab]
    unrelated = [i for i in oov if not any(v <= set(names[i].split()) for v in vocab_words)]

    def right(i: int) -> bool:
        return said[i] == names[i]

    def unknown_or_right(i: int) -> bool:
        s = said[i]
        return s is None or set(s.split()) <= set(names[i].split())

    def share(items: list[int], test: Any) -> float:
        return round(float(np.mean([test(i) for i in items])), 4) if items else float("nan")

    return {
        "top1_common": share(in_common, right),
        "top1_vocab": share(in_vocab, right),
        "unknown_or_right_oov": share(oov, unknown_or_right),
        "unknown_oov_unrelated": share(unrelated, lambda i: said[i] is None),
        "n_common": len(in_common),
        "n_vocab": len(in_vocab),
        "n_oov": len(oov),
    }


def conditions(glyphs: Glyphs, seed: int = 1) -> dict[str, list[npt.NDArray[np.uint8]]]:
    """The crops of every glyph for each condition."""
    rng = np.random.default_rng(seed)
    return {
        "page": [page_crop(m) for m in glyphs.masks],
        "varied": [draw_crop(m, rng) for m in glyphs.masks],
    }


def latency_ms(classifier: IconClassifier, crops: list[npt.NDArray[np.uint8]], repeats: int = 50) -> float:
    """Median ms to name 30 crops (normalisation + one ONNX call)."""
    batch = crops[:30]
    classifier.name(batch, 0.5)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        classifier.name(batch, 0.5)
        times.append((time.perf_counter() - start) * 1000.0)
    return round(float(np.median(times)), 2)


FONT_DIR = Path("/usr/share/fonts/truetype")


def letter_crops(sizes: tuple[int, ...] = (14, 20, 28)) -> list[npt.NDArray[np.uint8]]:
    """Every ASCII letter and digit in every TrueType font here, (30, 30, 30) on white, a few px of margin."""
    import string

    from PIL import Image, ImageDraw, ImageFont

    crops = []
    for font_file in sorted(FONT_DIR.glob("*/*.ttf")):
        for size in sizes:
            font = ImageFont.truetype(str(font_file), size)
            for char in string.ascii_letters + string.digits:
                image = Image.new("RGB", (2 * size + 8, 2 * size + 8), (255, 255, 255))
                ImageDraw.Draw(image).text((size // 2 + 4, size // 3 + 2), char, font=font, fill=(30, 30, 30))
                crops.append(np.asarray(image))
    return crops


def stage_latency_ms(model: Path, classes: tuple[str, ...], crops: list[npt.NDArray[np.uint8]]) -> float:
    """Median ms for the whole backend to name 30 crops: SSIM against the pack, then the classifier."""
    from detact_service.settings import Settings
    from detact_service.understanding.icon_classifier import IconClassifierStage

    stage = IconClassifierStage(Settings())
    classifier = IconClassifier(session(model), classes)
    stage.load = lambda: classifier  # type: ignore[method-assign]  # this model, not the shipped one
    batch = crops[:30]
    stage.name_rois(batch)
    times = []
    for _ in range(20):
        start = time.perf_counter()
        stage.name_rois(batch)
        times.append((time.perf_counter() - start) * 1000.0)
    return round(float(np.median(times)), 2)


def crop_probabilities(
    classifier: IconClassifier, crops: list[npt.NDArray[np.uint8]]
) -> npt.NDArray[np.float32]:
    """The classifier's probabilities for each crop, 512 at a time; a blank crop reads ``unknown``."""
    probs = np.zeros((len(crops), len(classifier.classes)), dtype=np.float32)
    probs[:, 0] = 1.0
    batch, valid = frames(crops)
    live = np.flatnonzero(valid)
    for start in range(0, len(live), 512):
        rows = live[start : start + 512]
        probs[rows] = classifier.probabilities(batch[rows])
    return probs


def fold_columns(
    probs: npt.NDArray[np.float32], column: npt.NDArray[np.int64], meanings: int
) -> npt.NDArray[np.float32]:
    """Each meaning's summed probability: the classes' columns folded as :func:`merged_meanings` says."""
    out = np.zeros((len(probs), meanings), dtype=np.float32)
    np.add.at(out, (slice(None), column), probs)
    return out


def evaluate(model: Path, vocab_file: Path) -> dict[str, Any]:
    """The report (see the module docstring), per split, condition, threshold and held-out set."""
    vocab = json.loads(vocab_file.read_text("utf-8"))
    aliases: dict[str, str] = vocab.get("aliases", {})
    classes, column = merged_meanings(vocab["classes"], aliases)
    common = {aliases.get(name, name) for name in vocab["common"]}
    runner = session(model)
    folded = runner.get_outputs()[0].shape[1] == len(classes)  # exported with the aliases folded in
    classifier = IconClassifier(runner, tuple(classes if folded else vocab["classes"]))

    def probabilities(crops: list[npt.NDArray[np.uint8]]) -> npt.NDArray[np.float32]:
        probs = crop_probabilities(classifier, crops)
        return probs if folded else fold_columns(probs, column, len(classes))

    report: dict[str, Any] = {"model": model.name, "classes": len(classes), "thresholds": {}}
    letters = letter_crops()
    if letters:
        probs = probabilities(letters)
        best, confidence = probs.argmax(axis=1), probs.max(axis=1)
        report["letters"] = len(letters)
        report["letters_named"] = {
            f"{t:g}": round(float(np.mean((best != 0) & (confidence >= t))), 4) for t in THRESHOLDS
        }
    for split in ("val", "held_out"):
        sets = [s for s in ICON_SETS if s.split == split]
        glyphs = load_glyphs(sets)
        names = [aliases.get(name, name) for name in glyphs.names]
        for condition, crops in conditions(glyphs).items():
            probs = probabilities(crops)
            for threshold in THRESHOLDS:
                key = f"{split}/{condition}/{threshold:g}"
                report["thresholds"][key] = score(names, probs, classes, common, threshold)
            for set_id in sorted(set(glyphs.sets)):
                rows = [i for i, s in enumerate(glyphs.sets) if s == set_id]
                report.setdefault("per_set", {})[f"{split}/{condition}/{set_id}"] = score(
                    [names[i] for i in rows], probs[rows], classes, common, 0.5
                )
            if split == "held_out" and condition == "page":
                report["latency_ms_30"] = latency_ms(classifier, crops)
                report["latency_ms_30_with_ssim"] = stage_latency_ms(model, classifier.classes, crops)
    return report


def summary(report: dict[str, Any], threshold: float) -> dict[str, Any]:
    """The manifest's metrics: the held-out and validation numbers at ``threshold``, and latency."""
    out: dict[str, Any] = {"threshold": threshold}
    for key, value in report["thresholds"].items():
        split, condition, at = key.split("/")
        if float(at) == threshold:
            for metric in ("top1_common", "top1_vocab", "unknown_or_right_oov"):
                out[f"{split}_{condition}_{metric}"] = value[metric]
    out["letters_named"] = report.get("letters_named", {}).get(f"{threshold:g}")
    out["latency_ms_30_icons"] = report.get("latency_ms_30")
    out["latency_ms_30_icons_with_ssim"] = report.get("latency_ms_30_with_ssim")
    return out


PAGE_GLYPHS = ("search", "settings", "x", "trash-2", "house", "bell", "pencil", "menu")


def icon_button_page(
    set_id: str = "lucide",
) -> tuple[npt.NDArray[np.uint8], list[tuple[tuple[int, int, int, int], str]]]:
    """The issue's page: plain 1920x1080, a title, eight common outline icons at 24 px in a toolbar."""
    import cv2
    from PIL import Image, ImageDraw, ImageFont

    from training.icons.render import load_set

    masks, names, glyphs = load_set(set_id)
    page = Image.new("RGB", (1920, 1080), (255, 255, 255))
    font_file = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    font = ImageFont.truetype(str(font_file), 28) if font_file.is_file() else ImageFont.load_default()
    ImageDraw.Draw(page).text((40, 24), "Dashboard", font=font, fill=(20, 20, 20))
    image = np.array(page)
    truth = []
    for index, glyph in enumerate(PAGE_GLYPHS):
        at = glyphs.index(glyph)
        alpha = cv2.resize(masks[at].astype(np.float32) / 255.0, (24, 24), interpolation=cv2.INTER_AREA)
        x, y = 1400 + index * 56, 28
        patch = image[y : y + 24, x : x + 24].astype(np.float32)
        image[y : y + 24, x : x + 24] = np.rint(patch + alpha[..., None] * (30.0 - patch)).astype(np.uint8)
        truth.append(((x, y, x + 24, y + 24), names[at]))
    return image, truth


def page_check(profile: str = "fast") -> list[dict[str, Any]]:
    """Parse the issue's page with a profile: each icon's covering element, its type and its name."""
    from detact_service.pipeline import get_pipeline
    from detact_service.settings import Settings

    image, truth = icon_button_page()
    parse = get_pipeline(Settings(), profile).parse(image)
    rows = []
    for (x1, y1, x2, y2), name in truth:
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        hits = [e for e in parse.elements if e.bbox[0] <= cx <= e.bbox[2] and e.bbox[1] <= cy <= e.bbox[3]]
        best = min(hits, key=lambda e: e.width * e.height, default=None)
        rows.append(
            {
                "truth": name,
                "type": None if best is None else str(best.type),
                "icon": None if best is None else best.icon,
                "bbox": None if best is None else list(best.bbox),
            }
        )
    return rows
