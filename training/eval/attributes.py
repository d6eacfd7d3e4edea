"""Evaluate the attribute model: ``python -m training.eval attributes``.

Held-out views come from the TEST split of a prepared attribute folder (``python -m training.attributes
prepare``: semi-masked views of labelled boxes of templates never trained on) and from MiniWoB++ episodes
with seeds 1000-1099, semi-masked here with the runtime's own function. Reported per source: type
accuracy; ``checked`` accuracy on checkboxes, radios and toggles; ``focused`` accuracy on inputs and
text areas; ``selected`` accuracy on tabs and list/menu items; ``disabled`` accuracy on interactive
elements; the share of outputs that did not parse.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

from detact_service.core import ElementType
from detact_service.settings import Settings
from detact_service.understanding.attribute_codec import (
    CHECKABLE,
    NOT_FOCUSABLE,
    SELECTABLE,
    decode_attributes,
    encode_attributes,
)
from detact_service.understanding.semimask import semi_masked_views

OUT = Path(__file__).resolve().parents[2] / "docs" / "ATTRIBUTES.md"
SEEDS = range(1000, 1100)
INPUTS = frozenset({ElementType.INPUT, ElementType.TEXTAREA})


@dataclass
class View:
    """One semi-masked element view and its labelled target string."""

    source: str
    image: np.ndarray
    target: str


def prepared_views(folder: Path, split: str = "test") -> Iterator[View]:
    """Views of a prepared attribute folder's split."""
    from training.attributes.data import read_samples

    for sample in read_samples(folder, split):
        with Image.open(folder / sample.image) as opened:
            yield View(sample.source, np.asarray(opened.convert("RGB")), sample.target)


def miniwob_views(seeds: Sequence[int] = SEEDS) -> Iterator[View]:
    """Every labelled element (not regions) of MiniWoB++ evaluation episodes (seeds 1000-1099 only)."""
    from training.data.sources.miniwob import MiniWobRenderer

    if any(seed < 1000 or seed >= 1100 for seed in seeds):
        raise ValueError("MiniWoB++ evaluation seeds must lie within 1000-1099")
    with MiniWobRenderer() as renderer:
        for seed in seeds:
            screenshot, labels = renderer.render(seed)
            elements = [e for e in labels.elements if e.type is not ElementType.REGION]
            image = np.asarray(screenshot.convert("RGB"))
            views = semi_masked_views(image, [e.bbox for e in elements])
            for element, view in zip(elements, views, strict=True):
                yield View("miniwob-eval", view, encode_attributes(element))


@dataclass
class Tally:
    """Right / total per metric for one source."""

    right: defaultdict[str, int] = field(default_factory=lambda: defaultdict(int))
    total: defaultdict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, metric: str, ok: bool) -> None:
        self.total[metric] += 1
        self.right[metric] += int(ok)

    def rate(self, metric: str) -> str:
        total = self.total[metric]
        return f"{self.right[metric] / total:.3f} ({total})" if total else "-"


METRICS = ("type", "checked", "focused", "selected", "disabled", "unparsed")


def score(tally: Tally, target: str, output: str) -> None:
    """Compare one output with its target."""
    truth, said = decode_attributes(target), decode_attributes(output)
    if truth is None:
        return
    tally.add("unparsed", said is None)
    tally.add("type", said is not None and said.type is truth.type)
    if truth.type in CHECKABLE:
        tally.add("checked", said is not None and said.checked == truth.checked)
    if truth.type in INPUTS:
        tally.add("focused", said is not None and said.focused == truth.focused)
    if truth.type in SELECTABLE:
        tally.add("selected", said is not None and said.selected == truth.selected)
    if truth.type not in NOT_FOCUSABLE:
        tally.add("disabled", said is not None and said.disabled == truth.disabled)


def evaluate(views: Iterator[View], settings: Settings, chunk: int = 256) -> dict[str, Tally]:
    """Run the shipped attribute model over the views; tallies per source."""
    from detact_service.models import resolve_device
    from detact_service.understanding.attributes import (
        attribute_model_spec,
        load_attribute_model,
        read_attributes,
    )

    spec = attribute_model_spec(settings)
    loaded = load_attribute_model(spec.folder, resolve_device(settings))
    tallies: dict[str, Tally] = defaultdict(Tally)
    pending: list[View] = []

    def flush() -> None:
        images = [v.image for v in pending]
        batch, tokens = settings.attributes.batch_size, settings.attributes.max_new_tokens
        outputs = read_attributes(loaded, images, batch, tokens)
        for view, output in zip(pending, outputs, strict=True):
            score(tallies[view.source], view.target, output)
        pending.clear()

    for view in views:
        pending.append(view)
        if len(pending) >= chunk:
            flush()
    if pending:
        flush()
    return dict(tallies)


def report(tallies: dict[str, Tally], model: str) -> str:
    """The Markdown table (accuracy, with the number of views in brackets)."""
    lines = [
        "# Attribute model evaluation",
        "",
        f"Generated by `python -m training.eval attributes` for `{model}`: held-out views (test-split",
        "templates of the data engine, per source) and MiniWoB++ seeds 1000-1099 (`miniwob-eval`).",
        "`unparsed` is the share of outputs that did not parse (lower is better).",
        "",
        *tally_table(tallies, METRICS),
    ]
    return "\n".join(lines) + "\n"


def tally_table(tallies: dict[str, Tally], metrics: Sequence[str]) -> list[str]:
    """Markdown table rows: a source per row, a metric per column (rate, with the count in brackets)."""
    rows = ["| source | " + " | ".join(metrics) + " |", "|---|" + "---|" * len(metrics)]
    rows += [
        f"| {source} | " + " | ".join(t.rate(m) for m in metrics) + " |"
        for source, t in sorted(tallies.items())
    ]
    return rows


def main(out: Path, data: Path | None, seeds: Sequence[int], settings: Settings) -> str:
    """Evaluate, write ``out``, return the report."""

    def views() -> Iterator[View]:
        if data is not None:
            yield from prepared_views(data)
        if len(seeds):
            yield from miniwob_views(seeds)

    text = report(evaluate(views(), settings), settings.attributes.model)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    return text
