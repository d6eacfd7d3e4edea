"""Vocabulary and augmented training crops for the icon classifier.

Vocabulary: the meanings drawn by at least :data:`MIN_FAMILIES` of the training families (a family is
one design: Font Awesome 5 and 6 are one, Phosphor's five weights are one), most widespread first, at
most :data:`MAX_VOCAB`. Class 0 is ``unknown``: glyphs of the training sets whose meaning is outside the
vocabulary (and shares no meaning with it), letters and digits, and random strokes and shapes.

A sample is a glyph mask drawn the way a screenshot shows it: 12-64 px, any colours, on a plain
background with a margin, sometimes thicker or thinner, sometimes without anti-aliasing, sometimes
JPEG-compressed, sometimes noisy; then normalised exactly as at run time
(:func:`detact_service.understanding.icon_classifier.frames`): ink map, moment frame.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont

from detact_service.understanding.icon_classifier import UNKNOWN, frames
from detact_service.understanding.icons import INK_FLOOR, PREFILTER_BLUR, blur, frame_ink, prefilter_features
from training.icons.render import GLYPH_DIR, MASK_SIZE, load_set
from training.icons.sources import ICON_SETS, IconSet

MIN_FAMILIES = 3
LOOKALIKE = 0.9  # unknown glyphs at least this correlated with a vocabulary glyph are left out
MAX_VOCAB = 400
FONT_FILES = sorted(Path("/usr/share/fonts/truetype").glob("*/*.ttf"))


@dataclass
class Glyphs:
    """Masks of several sets with their meanings, set ids and family ids."""

    masks: npt.NDArray[np.uint8]
    names: list[str]
    sets: list[str]
    families: list[str]


def load_glyphs(sets: list[IconSet], glyph_dir: Path = GLYPH_DIR) -> Glyphs:
    """The rendered glyphs of ``sets`` (those rendered), concatenated."""
    masks, names, set_ids, families = [], [], [], []
    for icon_set in sets:
        if not (glyph_dir / f"{icon_set.set_id}.npz").is_file():
            continue
        m, n, _ = load_set(icon_set.set_id, glyph_dir)
        masks.append(m)
        names += n
        set_ids += [icon_set.set_id] * len(n)
        families += [icon_set.family] * len(n)
    return Glyphs(np.concatenate(masks), names, set_ids, families)


def family_counts(glyphs: Glyphs) -> Counter[str]:
    """How many families draw each meaning."""
    per_name: dict[str, set[str]] = defaultdict(set)
    for name, family in zip(glyphs.names, glyphs.families, strict=True):
        per_name[name].add(family)
    return Counter({name: len(fams) for name, fams in per_name.items()})


def build_vocabulary(
    train: Glyphs, held_out: Glyphs, max_vocab: int = MAX_VOCAB
) -> tuple[list[str], list[str]]:
    """(vocabulary, its 100 most common meanings): most training families first, then held-out ones."""
    train_counts = family_counts(train)
    held_counts = family_counts(held_out)
    ranked = sorted(
        (n for n, c in train_counts.items() if c >= MIN_FAMILIES),
        key=lambda n: (-train_counts[n], -held_counts.get(n, 0), n),
    )
    vocab = ranked[:max_vocab]
    common = sorted(vocab, key=lambda n: (-(train_counts[n] + held_counts.get(n, 0)), -train_counts[n], n))
    return vocab, common[:100]


def related(name: str, vocab_words: list[frozenset[str]]) -> bool:
    """Whether an out-of-vocabulary meaning contains a vocabulary meaning ("bell ring" has "bell")."""
    words = set(name.split())
    return any(v <= words for v in vocab_words)


def labels_for(glyphs: Glyphs, vocab: list[str]) -> npt.NDArray[np.int64]:
    """Class per glyph: 1 + vocabulary index, 0 for unrelated out-of-vocabulary, -1 to leave out."""
    index = {n: i + 1 for i, n in enumerate(vocab)}
    vocab_words = [frozenset(v.split()) for v in vocab]
    out = np.empty(len(glyphs.names), dtype=np.int64)
    for i, name in enumerate(glyphs.names):
        if name in index:
            out[i] = index[name]
        else:
            out[i] = -1 if related(name, vocab_words) else 0
    return out


def drop_lookalikes(
    glyphs: Glyphs, labels: npt.NDArray[np.int64], similarity: float = LOOKALIKE
) -> npt.NDArray[np.int64]:
    """Labels with unknown glyphs drawn like a vocabulary glyph left out (-1).

    Sets name one drawing differently ("world" for a globe, "trash-can" with extra words): such a glyph
    taught as ``unknown`` would contradict its twin. Compared as the SSIM pre-filter compares: blurred
    16x16 thumbnails of the moment frame, cross-correlation >= ``similarity``.
    """
    ink = glyphs.masks.astype(np.float64) / 255.0
    ink[ink < INK_FLOOR] = 0.0
    features = np.concatenate(
        [
            prefilter_features(blur(frame_ink(ink[i : i + 4096])[0], PREFILTER_BLUR))
            for i in range(0, len(ink), 4096)
        ]
    )
    known = features[labels > 0]
    out = labels.copy()
    unknown = np.flatnonzero(labels == 0)
    for start in range(0, len(unknown), 2048):
        rows = unknown[start : start + 2048]
        best = (features[rows] @ known.T).max(axis=1)
        out[rows[best >= similarity]] = -1
    return out


# --- drawing ---------------------------------------------------------------------------------------


def clutter_mask(rng: np.random.Generator) -> npt.NDArray[np.uint8]:
    """A non-icon: one to three letters or digits, or random strokes and shapes (MASK_SIZE px)."""
    canvas = Image.new("L", (MASK_SIZE * 2, MASK_SIZE * 2), 0)
    draw = ImageDraw.Draw(canvas)
    kind = rng.integers(3)
    if kind == 0 and FONT_FILES:
        font = ImageFont.truetype(str(FONT_FILES[rng.integers(len(FONT_FILES))]), int(rng.integers(40, 90)))
        chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789%&$#@?!"
        text = "".join(chars[rng.integers(len(chars))] for _ in range(int(rng.integers(1, 4))))
        draw.text((8, 8), text, font=font, fill=255)
    else:
        for _ in range(int(rng.integers(1, 5))):
            pts = [
                tuple(int(v) for v in rng.integers(4, MASK_SIZE * 2 - 4, 2))
                for _ in range(int(rng.integers(2, 5)))
            ]
            width = int(rng.integers(3, 12))
            if kind == 1:
                draw.line(pts, fill=255, width=width)
            else:
                draw.polygon(pts, fill=255 if rng.random() < 0.5 else None, outline=255, width=width)
    ink = np.asarray(canvas, dtype=np.float32) / 255.0
    from training.icons.render import square_mask

    mask = square_mask(ink)
    return mask if mask is not None else np.zeros((MASK_SIZE, MASK_SIZE), dtype=np.uint8)


def draw_crop(mask: npt.NDArray[np.uint8], rng: np.random.Generator) -> npt.NDArray[np.uint8]:
    """A mask drawn as a screenshot crop (RGB uint8): size, weight, colours, margin, AA, noise, JPEG."""
    ink = mask
    roll = rng.random()
    if roll < 0.15:
        ink = cv2.dilate(ink, np.ones((3, 3), np.uint8))
    elif roll < 0.25:
        ink = cv2.erode(ink, np.ones((2, 2), np.uint8))
    size = int(
        np.clip(rng.choice([rng.integers(12, 25), rng.integers(16, 40), rng.integers(24, 65)]), 12, 64)
    )
    alpha = cv2.resize(ink.astype(np.float32) / 255.0, (size, size), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.15:  # no anti-aliasing
        alpha = (alpha >= 0.5).astype(np.float32)
    pads = rng.integers(1, max(3, size // 2), 4)
    full = np.zeros((size + pads[0] + pads[1], size + pads[2] + pads[3]), dtype=np.float32)
    full[pads[0] : pads[0] + size, pads[2] : pads[2] + size] = alpha
    while True:
        bg = rng.integers(0, 256, 3).astype(np.float32)
        fg = rng.integers(0, 256, 3).astype(np.float32)
        if np.linalg.norm(fg - bg) >= 70:
            break
    rgb = bg + full[..., None] * (fg - bg)
    if rng.random() < 0.3:
        rgb = rgb + rng.normal(0.0, rng.uniform(1.0, 6.0), rgb.shape)
    crop = np.clip(np.rint(rgb), 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        ok, buf = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        if ok:
            crop = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    return crop


def make_frames(
    masks: npt.NDArray[np.uint8], labels: npt.NDArray[np.int64], rng: np.random.Generator
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
    """Draw each mask once and normalise it as at run time; crops that come out blank are dropped."""
    crops = [draw_crop(m, rng) for m in masks]
    out, valid = frames(crops)
    return out[valid], labels[valid]


def epoch_indices(
    labels: npt.NDArray[np.int64], per_class: int, unknown: int, rng: np.random.Generator
) -> npt.NDArray[np.int64]:
    """Indices for one epoch: ``per_class`` draws from each vocabulary class, ``unknown`` from class 0."""
    chosen = []
    for cls in np.unique(labels):
        if cls < 0:
            continue
        pool = np.flatnonzero(labels == cls)
        count = unknown if cls == 0 else per_class
        chosen.append(rng.choice(pool, count, replace=len(pool) < count))
    return rng.permutation(np.concatenate(chosen))


def merged_meanings(
    classes: Sequence[str], aliases: Mapping[str, str]
) -> tuple[list[str], npt.NDArray[np.int64]]:
    """The classes with each alias folded into the meaning it names (order kept), and the column of each
    class among them: a vocabulary that lists one meaning under two names (``printer`` and ``print``)
    splits its probability between them, so the two are summed."""
    for alias, meaning in aliases.items():
        known = alias in classes and meaning in classes
        if not known or meaning in aliases or UNKNOWN in (alias, meaning):
            raise ValueError(f"alias {alias!r} -> {meaning!r}: both must be classes, {meaning!r} no alias")
    meanings = [c for c in classes if c not in aliases]
    column = {m: i for i, m in enumerate(meanings)}
    return meanings, np.array([column[aliases.get(c, c)] for c in classes], dtype=np.int64)


def save_vocabulary(
    path: Path, vocab: list[str], common: list[str], train_sets: list[str], held_out: list[str]
) -> None:
    """``vocab.json``: classes (``unknown`` first), the 100 most common meanings and the sets."""
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "classes": [UNKNOWN, *vocab],
        "common": common,
        "train_sets": train_sets,
        "held_out_sets": held_out,
    }
    path.write_text(json.dumps(payload, indent=1), encoding="utf-8")


def split_sets() -> tuple[list[IconSet], list[IconSet]]:
    """(training sets, held-out sets)."""
    return [s for s in ICON_SETS if s.split == "train"], [s for s in ICON_SETS if s.split == "held_out"]
