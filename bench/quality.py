"""Quality of a parse against data-engine labels: box recall/precision at IoU 0.5 and text recall.

Definitions (the same for our profiles and for every peer):

- **Interactive labels**: label elements whose ``interactive`` flag is true (the data engine sets it from
  the type: link, button, input, textarea, checkbox, radio, dropdown, tab, menu item, list item, icon,
  slider, scrollbar, toggle, or from the DOM). Text, image and region labels are not interactive.
- **Matching**: class-agnostic and one-to-one. All (prediction, label) pairs with IoU >= 0.5 are sorted by
  IoU, highest first, and taken greedily when neither side is taken yet. Types are ignored: a text line a
  parser emits over a button's caption matches the button when the boxes overlap enough.
- **Recall**: matched interactive labels / interactive labels (matching against interactive labels only).
- **Recall per control**: the same matches, counting a nested pair of labels once (an icon alone in its
  button, an ``<a>`` filling its ``<li>``, a list row's leading glyph: :mod:`training.eval.controls`),
  found when either is matched.
- **Precision**: matched predictions / predictions, matching against *all* labels (text, image and
  region labels included), so a correct box around plain text is not a false positive.
- **Text recall**: of the labels with a text (at least one letter or digit), the share whose text is
  found near them: the texts of the predictions that overlap the label (by at least half of the smaller
  box) are joined in reading order; the label's text is found when rapidfuzz's ``partial_ratio`` (joined
  text at least as long as the label) or ``ratio`` (shorter) is at least 80, case and spaces folded.

Counts are summed over screens before dividing (micro averages).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from detact_service.geometry import greedy_match, intersection_over_smaller, iou_matrix
from training.eval.controls import controls_found

IOU_THRESHOLD = 0.5
TEXT_THRESHOLD = 80.0
OVERLAP_FOR_TEXT = 0.5

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class Boxed:
    """A labelled or predicted box with its text (``None`` when it has none), interactivity and whether it is
    a bare glyph (an ``icon`` label: one control with the label round it)."""

    bbox: Box
    text: str | None = None
    interactive: bool = False
    glyph: bool = False


@dataclass
class Counts:
    """Summable counts behind recall, precision and text recall."""

    interactive: int = 0
    interactive_found: int = 0
    predictions: int = 0
    predictions_matched: int = 0
    texts: int = 0
    texts_found: int = 0
    screens: int = 0
    controls: int = 0
    controls_found: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.interactive + other.interactive,
            self.interactive_found + other.interactive_found,
            self.predictions + other.predictions,
            self.predictions_matched + other.predictions_matched,
            self.texts + other.texts,
            self.texts_found + other.texts_found,
            self.screens + other.screens,
            self.controls + other.controls,
            self.controls_found + other.controls_found,
        )

    @property
    def recall(self) -> float | None:
        """Interactive recall at IoU 0.5 (``None`` without interactive labels)."""
        return self.interactive_found / self.interactive if self.interactive else None

    @property
    def control_recall(self) -> float | None:
        """Recall per control (``None`` without interactive labels)."""
        return self.controls_found / self.controls if self.controls else None

    @property
    def precision(self) -> float | None:
        """Share of predictions matching some label (``None`` without predictions)."""
        return self.predictions_matched / self.predictions if self.predictions else None

    @property
    def text_recall(self) -> float | None:
        """Share of labelled texts found (``None`` without labelled texts)."""
        return self.texts_found / self.texts if self.texts else None


def normalise(text: str) -> str:
    """Lower case, whitespace runs folded to one space."""
    return re.sub(r"\s+", " ", text).strip().lower()


def has_text(text: str | None) -> bool:
    """Whether a label text has at least one letter or digit."""
    return text is not None and any(ch.isalnum() for ch in text)


def text_found(label: Boxed, predictions: Sequence[Boxed], threshold: float = TEXT_THRESHOLD) -> bool:
    """Whether the label's text is read by the predictions overlapping it (see the module docstring)."""
    from rapidfuzz import fuzz

    texts = [p for p in predictions if p.text]
    overlap = intersection_over_smaller([label.bbox], [p.bbox for p in texts])[0]
    near = [p for p, share in zip(texts, overlap.tolist(), strict=True) if share >= OVERLAP_FOR_TEXT]
    if not near:
        return False
    near.sort(key=lambda p: (p.bbox[1], p.bbox[0]))
    joined = normalise(" ".join(p.text or "" for p in near))
    wanted = normalise(label.text or "")
    score = fuzz.partial_ratio(wanted, joined) if len(joined) >= len(wanted) else fuzz.ratio(wanted, joined)
    return bool(score >= threshold)


def score_screen(labels: Sequence[Boxed], predictions: Sequence[Boxed]) -> Counts:
    """Counts for one screen (see the module docstring for the definitions)."""
    interactive = [lab.bbox for lab in labels if lab.interactive]
    glyphs = [lab.glyph for lab in labels if lab.interactive]
    pred_boxes = [p.bbox for p in predictions]
    pairs = greedy_match(iou_matrix(pred_boxes, interactive), IOU_THRESHOLD)
    matched_labels = np.zeros(len(interactive), dtype=bool)
    matched_labels[[label for _, label in pairs]] = True
    controls, found_controls = controls_found(interactive, matched_labels, glyphs)
    matched = len(greedy_match(iou_matrix(pred_boxes, [lab.bbox for lab in labels]), IOU_THRESHOLD))
    texts = [lab for lab in labels if has_text(lab.text)]
    texts_found = sum(text_found(lab, predictions) for lab in texts)
    return Counts(
        interactive=len(interactive),
        interactive_found=len(pairs),
        predictions=len(predictions),
        predictions_matched=matched,
        texts=len(texts),
        texts_found=texts_found,
        screens=1,
        controls=controls,
        controls_found=found_controls,
    )


def total(counts: Iterable[Counts]) -> Counts:
    """The sum of several screens' counts."""
    out = Counts()
    for c in counts:
        out = out + c
    return out
