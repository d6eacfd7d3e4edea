"""Evaluate the CPU type and state reader: ``python -m training.eval reader``.

Every number comes through the runtime's own stage (:class:`~detact_service.understanding.reader.
ReaderAttributeStage`: the same views, geometry and ONNX session as ``detact parse``):

- the data engine's test split (templates never trained on), per source, on the labelled boxes;
- MiniWoB++ seeds 1000-1099: on the labelled boxes, and through the full ``detact parse`` (the ``full``
  profile) beside the ``fast`` profile (the classical type rules), scored on the parse elements that
  match a labelled element at IoU >= 0.5;
- ``phone_real``'s validation and test apps: the type of each clickable view (types from the Android
  classes, :func:`training.reader.data.phone_type`), on the view boxes and through the
  ``fast`` (classical type rules) and ``full`` (reader) parses;
- the reader's latency for 50 elements of a 1920x1080 screen (views + one batched call, median).

Accuracy columns: ``type`` over all elements; ``checked`` on checkboxes, radios and toggles; ``selected``
on tabs, list and menu items and options; ``focused`` and ``disabled`` where the element's label says.
``type*`` also accepts the type of another label drawn at the same box (IoU >= 0.9: a ``<li>`` and its
``<a>``, a grid cell and its button): no view can tell those apart. ``type max`` is the most that ``type``
can reach when each box is answered once: a label counts when its type is the commonest among the labels
at its box (the first of them on a tie), so a ``<li>`` and its ``<a>`` at one box give one of two. On
phones, ``type*`` also accepts ``button`` for a clickable image view (labelled ``icon``): the issue's
convention types an icon button ``button``, and the runtime turns a named icon into one. ``selected+``
and ``disabled+`` are the same accuracies over the labels that are selected or disabled only (their
recall). A state counts as right only when the reader answers it (a state left unknown because the reader
read another type is wrong).
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Sequence
from itertools import islice
from pathlib import Path

import numpy as np
from PIL import Image

from detact_service.core import DETECTOR_SOURCE, Element, ElementType, ScreenParse
from detact_service.geometry import iou_matrix
from detact_service.settings import Settings
from detact_service.understanding.list_looks import current_rows
from detact_service.understanding.reader import ReaderAttributeStage, state_applies
from detact_service.understanding.semimask import box_features, reader_views
from detact_service.understanding.tab_looks import current_tabs
from training.eval.attributes import Tally, tally_table

OUT = Path(__file__).resolve().parents[2] / "docs" / "READER.md"
METRICS = (
    "type",
    "type*",
    "type max",
    "checked",
    "selected",
    "focused",
    "disabled",
    "selected+",
    "disabled+",
)
LATENCY_ELEMENTS = 50
RECALLED = ("selected", "disabled")
"""States also scored on their positives alone (``selected+``, ``disabled+``): few elements are selected or
disabled, so the plain accuracy hides how many of those the reader finds."""
MATCH_IOU = 0.5
AS_DETECTED = ", as detected"
"""Suffix of the engine rows whose labelled boxes the stage reads as detector boxes (its layout rules on)."""
COINCIDENT_IOU = 0.9
PROFILES = ("fast", "full")
"""``fast`` types elements by the classical rules; ``full`` by the reader."""


def selected_of(element: Element) -> bool | None:
    """The label's selected flag (a highlighted item counts as selected, as in training)."""
    s = element.state
    return None if s.selected is None and s.highlighted is None else bool(s.selected or s.highlighted)


def coincident_types(elements: Sequence[Element]) -> list[frozenset[ElementType]]:
    """For each label, the types of every label drawn at (nearly) its box: a view cannot tell them apart."""
    if not elements:
        return []
    same = iou_matrix([e.bbox for e in elements], [e.bbox for e in elements]) >= COINCIDENT_IOU
    types = [e.type for e in elements]
    return [frozenset(types[j] for j in np.flatnonzero(row)) for row in same]


def answerable_types(elements: Sequence[Element]) -> list[ElementType]:
    """For each label, the one type a reader answering its box once would best give: the commonest type
    among the labels drawn at (nearly) its box, the first of them on a tie."""
    if not elements:
        return []
    same = iou_matrix([e.bbox for e in elements], [e.bbox for e in elements]) >= COINCIDENT_IOU
    types = [e.type for e in elements]
    best = []
    for row in same:
        group = [types[j] for j in np.flatnonzero(row)]
        best.append(max(dict.fromkeys(group), key=group.count))
    return best


def phone_accepted(kind: ElementType) -> frozenset[ElementType]:
    """The types ``type*`` accepts for a phone view: a clickable image view is an icon or a button."""
    return frozenset({kind, ElementType.BUTTON}) if kind is ElementType.ICON else frozenset({kind})


def score(
    tally: Tally, truth: Element, said: Element, accepted: frozenset[ElementType] | None = None
) -> None:
    """Compare the reader's element with its label (``accepted``: the coincident labels' types)."""
    tally.add("type", said.type is truth.type)
    tally.add("type*", said.type in (accepted or {truth.type}))
    pairs = (
        ("checked", truth.state.checked, said.state.checked),
        ("selected", selected_of(truth), said.state.selected),
        ("focused", truth.state.focused, said.state.focused),
        ("disabled", truth.state.disabled, said.state.disabled),
    )
    applies = state_applies([truth.type])[0]
    for (metric, expected, answered), applicable in zip(pairs, applies.tolist(), strict=True):
        if expected is not None and applicable:
            tally.add(metric, answered is not None and answered == expected)
            if expected and metric in RECALLED:
                tally.add(f"{metric}+", answered is True)


def labelled(elements: Sequence[Element]) -> list[Element]:
    """The elements the reader reads (no regions, none under 2 px)."""
    return [e for e in elements if e.type is not ElementType.REGION and e.width >= 2 and e.height >= 2]


def read_labelled(
    stage: ReaderAttributeStage, image: np.ndarray, elements: Sequence[Element], detected: bool = False
) -> list[Element]:
    """The reader's answers for labelled boxes (the labels' types and states hidden from it). ``detected``
    gives them as a detector's boxes, so that the stage's layout rules, which only retype detector boxes
    (a column's rows typed alike, a row of tabs), apply as in a parse, and then the looks that a parse's
    layout rules read after the reader (the open tab of a row, the selected row of a list)."""
    height, width = image.shape[:2]
    source = DETECTOR_SOURCE if detected else "label"
    blank = [Element(e.bbox, ElementType.TEXT, text=e.text, source=source) for e in elements]
    parse = ScreenParse(width=width, height=height, elements=blank)
    read = list(stage.run([image], [parse])[0].elements)
    return current_rows(image, current_tabs(image, read)) if detected else read


def engine_tallies(stage: ReaderAttributeStage, folder: Path) -> dict[str, Tally]:
    """Per-source tallies on the test split of a rendered folder."""
    from training.data.export import drop_cross_split_duplicates, load_items

    tallies: dict[str, Tally] = defaultdict(Tally)
    items, _ = drop_cross_split_duplicates(load_items(folder))
    for item in items:
        if item.split != "test":
            continue
        elements = labelled(item.labels.elements)
        if not elements:
            continue
        with Image.open(item.image_path) as opened:
            image = np.asarray(opened.convert("RGB"))
        accepted = coincident_types(elements)
        answerable = answerable_types(elements)
        for suffix, detected in (("", False), (AS_DETECTED, True)):
            read = read_labelled(stage, image, elements, detected)
            for truth, said, same, best in zip(elements, read, accepted, answerable, strict=True):
                for source in (item.labels.source + suffix, "all (engine)" + suffix):
                    score(tallies[source], truth, said, same)
                    tallies[source].add("type max", truth.type is best)
    return dict(tallies)


def miniwob_tallies(
    stage: ReaderAttributeStage, seeds: Sequence[int], settings: Settings
) -> dict[str, Tally]:
    """MiniWoB++ evaluation seeds: labelled boxes, and the full parse matched to the labels."""
    from detact_service.pipeline import get_pipeline
    from training.data.sources.miniwob import MiniWobRenderer

    if any(seed < 1000 or seed >= 1100 for seed in seeds):
        raise ValueError("MiniWoB++ evaluation seeds must lie within 1000-1099")
    tallies: dict[str, Tally] = defaultdict(Tally)
    pipelines = {name: get_pipeline(settings, name) for name in PROFILES}
    with MiniWobRenderer() as renderer:
        for seed in seeds:
            screenshot, labels = renderer.render(seed)
            image = np.asarray(screenshot.convert("RGB"))
            elements = labelled(labels.elements)
            if not elements:
                continue
            accepted = coincident_types(elements)
            read = read_labelled(stage, image, elements)
            labelled_tally = tallies["miniwob, labelled boxes"]
            answerable = answerable_types(elements)
            for truth, said, same, best in zip(elements, read, accepted, answerable, strict=True):
                score(labelled_tally, truth, said, same)
                labelled_tally.add("type max", truth.type is best)
            for name, pipeline in pipelines.items():
                tally = tallies[f"miniwob, `{name}` parse (matched)"]
                score_matched(tally, elements, accepted, pipeline.parse(image).elements)
    return dict(tallies)


def score_matched(
    tally: Tally,
    truths: Sequence[Element],
    accepted: Sequence[frozenset[ElementType]],
    parsed: Sequence[Element],
) -> None:
    """Score the parse element that best matches each label (IoU >= 0.5); unmatched labels are skipped."""
    parsed = [e for e in parsed if e.type is not ElementType.REGION]
    if not parsed or not truths:
        return
    overlap = iou_matrix([e.bbox for e in truths], [e.bbox for e in parsed])
    best = overlap.argmax(axis=1)
    for row, truth in enumerate(truths):
        if overlap[row, best[row]] >= MATCH_IOU:
            score(tally, truth, parsed[best[row]], accepted[row])


def phone_tallies(stage: ReaderAttributeStage) -> dict[str, Tally]:
    """Type accuracy of the clickable views of phone_real's val and test apps."""
    from detact_service.understanding.reader import TYPES, read
    from training.reader.data import phone_views

    tallies: dict[str, Tally] = defaultdict(Tally)
    session = stage.load()
    geometry = stage.spec.geometry
    for split in ("val", "test"):
        for views in phone_views(split, geometry, seed=0):
            reading = read(session, views.views, views.features, stage.settings.attributes.batch_size)
            for said, truth in zip(reading.type_index.tolist(), views.types.tolist(), strict=True):
                tally = tallies[f"phone_real {split}, view boxes"]
                tally.add("type", TYPES[said] is TYPES[truth])
                tally.add("type*", TYPES[said] in phone_accepted(TYPES[truth]))
    return dict(tallies)


def phone_parse_tallies(settings: Settings, limit: int | None = None) -> dict[str, Tally]:
    """Types of the clickable views of phone_real's val and test apps through the ``fast`` and ``full``
    parses (``limit``: screens per split)."""
    from detact_service.pipeline import get_pipeline
    from training.data.phone_real import load_screens
    from training.reader.data import phone_type

    tallies: dict[str, Tally] = defaultdict(Tally)
    pipelines = {name: get_pipeline(settings, name) for name in PROFILES}
    screens = [(split, s) for split in ("val", "test") for s in islice(load_screens(split=split), limit)]
    for split, screen in screens:
        truths = []
        for box, android_class in zip(screen.clickable.tolist(), screen.classes, strict=True):
            kind = phone_type(android_class, box, screen.width, clickable=True)
            if kind is not None:
                truths.append(Element(tuple(round(v) for v in box), kind))
        with Image.open(screen.image_path) as opened:
            image = np.asarray(opened.convert("RGB"))
        accepted = [phone_accepted(t.type) for t in truths]
        for name, pipeline in pipelines.items():
            tally = tallies[f"phone_real {split}, `{name}` parse (matched)"]
            score_matched(tally, truths, accepted, pipeline.parse(image).elements)
    return dict(tallies)


def reader_latency(stage: ReaderAttributeStage, runs: int = 10) -> float:
    """Median seconds to read 50 elements of a 1920x1080 screen (views + the batched call)."""
    from detact_service.understanding.reader import read

    rng = np.random.default_rng(0)
    image = rng.integers(0, 255, (1080, 1920, 3), dtype=np.uint8)
    x = rng.integers(0, 1700, LATENCY_ELEMENTS)
    y = rng.integers(0, 1000, LATENCY_ELEMENTS)
    boxes = np.stack([x, y, x + rng.integers(16, 220, LATENCY_ELEMENTS), y + rng.integers(16, 60, 50)], 1)
    session = stage.load()
    times = []
    for _ in range(runs + 1):
        start = time.perf_counter()
        views = reader_views(image, boxes, stage.spec.geometry)
        read(session, views, box_features(boxes, 1920, 1080), stage.settings.attributes.batch_size)
        times.append(time.perf_counter() - start)
    return float(np.median(times[1:]))


def report(tallies: dict[str, Tally], models: Sequence[str], latency: float | None) -> str:
    """The Markdown table (accuracy, with the number of elements in brackets)."""
    lines = [
        "# Type and state reader",
        "",
        f"Generated by `python -m training.eval reader` for {' and '.join(f'`{m}`' for m in models)}. "
        "Engine rows: test-split templates",
        "(never trained on), labelled boxes, each read alone; the `as detected` rows give the stage the same",
        "boxes as a detector's, so that its layout rules (a column's rows typed alike, a row of tabs,",
        "paragraph lines), which retype only detector boxes, apply as in a parse, and then the looks a",
        "parse reads after the reader (the open tab of a row, a list's selected row). MiniWoB++: seeds",
        "1000-1099. Phone rows: the clickable views of",
        "the val and test apps, types from the Android classes. Accuracy (elements in brackets).",
        "Since `ui-reader` v3 (2026-11-26) the reader's final fit includes the val templates and the val",
        "apps (its recipe was chosen on them first): the `phone_real val` rows measure fit, not",
        "generalisation; `phone_real test` and the engine's test templates are still never trained on.",
        "`type*` also accepts the type of another label at the same box (a `<li>` and its `<a>`), and on",
        "phones `button` for a clickable image view; `type max` is the most `type` can reach when each box",
        "is answered once (such a pair gives one of two).",
        "",
        *tally_table(tallies, METRICS),
    ]
    if latency is not None:
        lines += [
            "",
            f"Reader latency, {LATENCY_ELEMENTS} elements of a 1920x1080 screen (views + one batched ONNX "
            f"call, median of 10, this 2-core CPU): **{latency * 1000:.0f} ms**.",
        ]
    return "\n".join(lines) + "\n"


def main(out: Path, data: Path | None, seeds: Sequence[int], settings: Settings, phone: bool = True) -> str:
    """Evaluate, write ``out`` (and a JSON of the numbers beside it), return the report."""
    stage = ReaderAttributeStage(settings)
    tallies: dict[str, Tally] = {}
    if data is not None:
        tallies |= engine_tallies(stage, data)
    if len(seeds):
        tallies |= miniwob_tallies(stage, seeds, settings)
    if phone:
        tallies |= phone_tallies(stage)
        tallies |= phone_parse_tallies(settings)
    latency = reader_latency(stage)
    models = [stage.spec.model.name] + ([stage.checks.spec.name] if stage.checks is not None else [])
    text = report(tallies, models, latency)
    out.write_text(text)
    numbers = {
        source: {m: t.right[m] / t.total[m] for m in METRICS if t.total[m]} for source, t in tallies.items()
    }
    out.with_suffix(".json").write_text(json.dumps({"accuracy": numbers, "latency_s": latency}, indent=1))
    return text
