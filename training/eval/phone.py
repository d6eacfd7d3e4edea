"""Clickable-view recall on real Android screens: ``python -m training.eval phone``.

A clickable view of ``phone_real`` counts as found when some predicted box overlaps it at IoU >= 0.5
(each prediction used once, the best overlaps first) and as centre-hit when the centre of some
predicted box lies inside it. Elements per screen is the number of boxes a method returns: recall bought
by flooding an agent's prompt shows up there. Text: among the found views that show text (the texts of
the labelled views inside them), the share whose matched element's text says the same (rapidfuzz
``token_set_ratio`` >= :data:`TEXT_MATCH`: word order and extra words aside); a detector alone has none.
Per control: a view hierarchy often holds one control as two clickable views (a layout and its text view
at the same box, a row round its only clickable child), of which a one-to-one match can find only one; the
views grouped into controls as the data engine's labels are (:mod:`training.eval.controls`), a control
counts as found when any of its views is.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from PIL import Image

from detact_service import geometry
from detact_service.core import Element, ScreenParse
from detact_service.settings import Settings
from training.data.phone_real import PhoneScreen
from training.eval.controls import controls_found

OUT = Path(__file__).resolve().parents[2] / "docs" / "PHONE.md"
Boxes = npt.NDArray[np.float64]
ElementFinder = Callable[[npt.NDArray[np.uint8]], list[Element]]
IOU = 0.5
TEXT_MATCH = 70


@dataclass
class PhoneScore:
    """Totals over a set of screens for one method."""

    targets: int = 0
    matched: int = 0
    centre_hits: int = 0
    predicted: int = 0
    screens: int = 0
    seconds: float = 0.0
    with_text: int = 0
    text_right: int = 0
    controls: int = 0
    controls_matched: int = 0

    @property
    def recall(self) -> float:
        return self.matched / max(self.targets, 1)

    @property
    def per_control(self) -> float:
        return self.controls_matched / max(self.controls, 1)

    @property
    def centre_hit(self) -> float:
        return self.centre_hits / max(self.targets, 1)

    @property
    def per_screen(self) -> float:
        return self.predicted / max(self.screens, 1)

    @property
    def ms_per_screen(self) -> float:
        return 1000.0 * self.seconds / max(self.screens, 1)

    @property
    def text(self) -> float:
        return self.text_right / max(self.with_text, 1)


def matched_pairs(targets: Boxes, predicted: Boxes, iou_threshold: float = IOU) -> list[tuple[int, int]]:
    """(target, prediction) pairs matched one-to-one at IoU >= threshold (greedy, best pairs first)."""
    return geometry.greedy_match(geometry.iou_matrix(targets, predicted), iou_threshold)


def matched_targets(targets: Boxes, predicted: Boxes, iou_threshold: float = IOU) -> int:
    """Targets matched one-to-one by a prediction at IoU >= threshold (greedy, best pairs first)."""
    return len(matched_pairs(targets, predicted, iou_threshold))


def texts_right(
    pairs: Sequence[tuple[int, int]], truths: Sequence[str], said: Sequence[str | None]
) -> tuple[int, int]:
    """(matched views that show text, those whose element's text says the same)."""
    from rapidfuzz import fuzz

    shown = [(truths[t], said[p] or "") for t, p in pairs if t < len(truths) and truths[t]]
    right = sum(fuzz.token_set_ratio(truth, text) >= TEXT_MATCH for truth, text in shown)
    return len(shown), right


def centre_hits(targets: Boxes, predicted: Boxes) -> int:
    """Targets that hold the centre of at least one predicted box."""
    if len(targets) == 0 or len(predicted) == 0:
        return 0
    cx = (predicted[:, 0] + predicted[:, 2]) / 2
    cy = (predicted[:, 1] + predicted[:, 3]) / 2
    inside = (
        (cx[None, :] >= targets[:, 0:1])
        & (cx[None, :] <= targets[:, 2:3])
        & (cy[None, :] >= targets[:, 1:2])
        & (cy[None, :] <= targets[:, 3:4])
    )
    return int(inside.any(axis=1).sum())


def score(screens: Iterable[PhoneScreen], finder: ElementFinder) -> PhoneScore:
    """Run ``finder`` on every screen and total its recall, centre hits, boxes, texts and time."""
    totals = PhoneScore()
    for screen in screens:
        with Image.open(screen.image_path) as opened:
            image = np.asarray(opened.convert("RGB"))
        start = time.perf_counter()
        elements = finder(image)
        totals.seconds += time.perf_counter() - start
        predicted = np.asarray([e.bbox for e in elements], dtype=np.float64).reshape(-1, 4)
        pairs = matched_pairs(screen.clickable, predicted)
        totals.screens += 1
        totals.targets += len(screen.clickable)
        totals.predicted += len(predicted)
        totals.matched += len(pairs)
        found = np.zeros(len(screen.clickable), dtype=bool)
        found[[target for target, _ in pairs]] = True
        controls, controls_matched = controls_found(screen.clickable, found)
        totals.controls += controls
        totals.controls_matched += controls_matched
        totals.centre_hits += centre_hits(screen.clickable, predicted)
        shown, right = texts_right(pairs, screen.texts, [e.text for e in elements])
        totals.with_text += shown
        totals.text_right += right
    return totals


def detector_finder(settings: Settings) -> ElementFinder:
    """The shipped detector stage alone (its boxes, no OCR and no merge)."""
    from detact_service.stages import create_stage

    stage = create_stage("detect", "yolo-onnx", settings)

    def find(image: npt.NDArray[np.uint8]) -> list[Element]:
        parse = ScreenParse(width=image.shape[1], height=image.shape[0])
        return list(stage.run([image], [parse])[0].elements)

    return find


def omniparser_finder(imgsz: int = 640) -> ElementFinder:
    """OmniParser v2's icon detector alone, as its server runs it (the issue's base; the bench's peer)."""
    from training.eval.detector import omniparser_peer

    detect, _ = omniparser_peer(imgsz)

    def find(image: npt.NDArray[np.uint8]) -> list[Element]:
        boxes, scores = detect(image)
        height, width = image.shape[:2]
        clipped = np.clip(np.rint(boxes), 0, [width, height, width, height]).astype(int)
        return [
            Element(bbox=(int(b[0]), int(b[1]), int(b[2]), int(b[3])), score=float(c))
            for b, c in zip(clipped, scores, strict=True)
            if b[2] > b[0] and b[3] > b[1]
        ]

    return find


def parse_finder(settings: Settings, profile: str) -> ElementFinder:
    """Every element of a full parse with ``profile``."""
    from detact_service.pipeline import get_pipeline

    pipeline = get_pipeline(settings, profile)

    def find(image: npt.NDArray[np.uint8]) -> list[Element]:
        return list(pipeline.parse(image).elements)

    return find


def report(split: str, methods: dict[str, ElementFinder], limit: int | None = None) -> str:
    """A Markdown table of every method on one split of ``phone_real``."""
    from training.data.phone_real import load_screens

    screens = list(load_screens(split=split))[:limit]
    lines = [
        f"phone_real `{split}` split: {len(screens)} screens of "
        f"{len({s.app for s in screens})} apps, {sum(len(s.clickable) for s in screens)} clickable views.",
        "",
        "| method | recall@0.5 | per control | centre-hit | elements / screen "
        "| text (found views that show text) | ms / screen |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, finder in methods.items():
        totals = score(screens, finder)
        text = f"{totals.text:.3f} ({totals.with_text})" if name not in ("detector", "omniparser") else "-"
        lines.append(
            f"| {name} | {totals.recall:.3f} | {totals.per_control:.3f} ({totals.controls}) "
            f"| {totals.centre_hit:.3f} | {totals.per_screen:.1f} "
            f"| {text} | {totals.ms_per_screen:.0f} |"
        )
        print(lines[-1], flush=True)
    return "\n".join(lines) + "\n"


def main(out: Path, split: str, methods: Sequence[str], limit: int | None, settings: Settings) -> str:
    """Evaluate each method (``detector`` alone, or a profile's whole parse) and write ``out``."""
    special = {"detector": lambda: detector_finder(settings), "omniparser": omniparser_finder}
    finders = {
        name: special[name]() if name in special else parse_finder(settings, name)
        for name in (m.strip() for m in methods)
        if name
    }
    conf = settings.detector.conf if settings.detector.conf is not None else "the model's own"
    header = (
        "# Clickable views found on real phone screens\n\n"
        "Made by `python -m training.eval phone` (`training/eval/phone.py`): recall of the clickable views "
        "at IoU >= 0.5, per control (clickable views of one control counted once, found when any of them "
        "is), centre-hit (the centre of some returned box lies inside the view), elements per "
        f"screen and time per screen on this machine. Detector confidence: {conf}."
        + (
            " `omniparser`: OmniParser v2's icon detector alone as its server runs it (conf 0.05, NMS IoU "
            "0.1, 640 px; the weights our detectors start from: issue 19's base)."
            if "omniparser" in finders
            else ""
        )
        + "\n\n"
    )
    text = header + report(split, finders, limit)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    return text
