"""Relevance ranking on MiniWoB++ episodes: is the element the utterance names among the top k?

Episodes are MiniWoB++ seeds 1000-1099 only (never below 1000), rendered by the data engine's
:class:`~training.data.sources.miniwob.MiniWobRenderer` restricted to tasks whose utterance names its
target: a text (``Click on the "no" button.``, ``Select EiTE and click Submit.``, ``Click on Tab #3.``)
or a field (``Enter "x" into the text field``, ``Focus into the textbox.``; the topmost input). Each
screenshot is parsed by the real pipeline (profile ``detact``) with the utterance as the task; the target
is found among the DOM labels, and a parsed element *hits* it when their IoU is at least 0.3 or the parsed
element's centre lies inside the target and it is at most 4x its area. The target's rank is the best rank
of a hit; recall@k counts episodes whose target ranks within k, over the episodes where the parse found
the target at all (detection misses are counted apart, and end-to-end recall counts them as failures).
"""

from __future__ import annotations

import re
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from detact_service.core import Element, ElementType, ScreenParse
from detact_service.geometry import iou
from detact_service.pipeline import get_pipeline
from detact_service.settings import Settings
from detact_service.understanding.relevance import LexicalRelevanceStage, MiniLMRelevanceStage

SEEDS = range(1000, 1100)
ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "RELEVANCE.md"

TEXT_RULES: dict[str, str] = {
    "click-button": r'Click on the "(.+)" button',
    "click-link": r'Click on the link "(.+)"',
    "click-button-sequence": r"Click button (\w+)",
    "click-test-2": r"Click button (\w+)",
    "click-dialog-2": r'labeled "(.+)"',
    "click-option": r"Select (.+?) and click Submit",
    "click-checkboxes": r"Select (.+?) and click Submit",
    "click-tab": r"Click on (Tab #\d+)",
}
FIELD_TASKS = ("enter-text", "focus-text", "login-user", "enter-password")
TASKS = (*TEXT_RULES, *FIELD_TASKS)
QUERY_JS = "var q = document.getElementById('query'); return q ? q.innerText : null;"


@dataclass
class Episode:
    """One evaluated screen: the rank of its target for each ranker (``None``: not detected)."""

    seed: int
    task: str
    utterance: str
    elements: int
    ranks: dict[str, int | None] = field(default_factory=dict)
    ms: dict[str, float] = field(default_factory=dict)


def targets(task: str, utterance: str, labels: Sequence[Element]) -> list[Element]:
    """The DOM label elements the utterance names (empty when it names none unambiguously)."""
    if task in FIELD_TASKS:
        fields = [e for e in labels if e.type in (ElementType.INPUT, ElementType.TEXTAREA)]
        return sorted(fields, key=lambda e: (e.bbox[1], e.bbox[0]))[:1]
    match = re.search(TEXT_RULES[task], utterance)
    if match is None:
        return []
    name = match.group(1).split(",")[0].strip()
    if not name or name.lower() == "nothing":
        return []
    return [e for e in labels if e.text is not None and e.text.strip().lower() == name.lower()]


def hits(element: Element, target: Element) -> bool:
    """Whether a parsed element stands for the target (see the module docstring)."""
    if iou(element.bbox, target.bbox) >= 0.3:
        return True
    cx, cy = element.center
    x1, y1, x2, y2 = target.bbox
    area = element.width * element.height
    return x1 <= cx < x2 and y1 <= cy < y2 and area <= 4 * target.width * target.height


def target_rank(parse: ScreenParse, wanted: Sequence[Element]) -> int | None:
    """1-based rank of the best-ranked parsed element hitting a target; ties keep parse order."""
    order = sorted(range(len(parse.elements)), key=lambda i: (-(parse.elements[i].relevance or 0.0), i))
    for rank, index in enumerate(order, start=1):
        if any(hits(parse.elements[index], t) for t in wanted):
            return rank
    return None


Ranker = Callable[[ScreenParse], ScreenParse]


def rankers() -> dict[str, Ranker]:
    """The rankers compared: MiniLM (no budget; 50 ms budget with its own cold cache), lexical, none."""
    full = MiniLMRelevanceStage(Settings(relevance={"embed_budget_ms": 0}))
    budget = MiniLMRelevanceStage(Settings(relevance={"embed_budget_ms": 50, "cache_size": 49_999}))
    lexical = LexicalRelevanceStage(Settings())
    return {
        "minilm": lambda p: full.run([], [p])[0],
        "minilm, 50 ms budget": lambda p: budget.run([], [p])[0],
        "lexical": lambda p: lexical.run([], [p])[0],
        "none (reading order)": lambda p: p,
    }


@dataclass
class Screen:
    """One MiniWoB++ episode with a named target: its parse (no task) and the target's DOM labels."""

    seed: int
    task: str
    utterance: str
    parse: ScreenParse
    wanted: list[Element]


def screens(seeds: Sequence[int] = SEEDS, log: Callable[[str], None] = print) -> Iterator[Screen]:
    """Render and parse (profile ``detact``, no task) every seed whose utterance names its target."""
    from training.data.sources.miniwob import MiniWobRenderer

    if min(seeds) < 1000:
        raise ValueError("the MiniWoB++ evaluations use seeds 1000-1099 only")
    pipeline = get_pipeline(Settings(relevance={"embed_budget_ms": 0}), "detact")
    with MiniWobRenderer(TASKS) as renderer:
        assert renderer.driver is not None
        for seed in seeds:
            image, labels = renderer.render(seed)
            task = str(labels.meta["task"])
            utterance = str(renderer.driver.execute_script(QUERY_JS) or "").strip()
            wanted = targets(task, utterance, labels.elements)
            if not utterance or not wanted:
                log(f"{seed} {task}: no named target in {utterance!r}, skipped")
                continue
            yield Screen(seed, task, utterance, pipeline.parse(np.asarray(image), task=None), wanted)


def run(seeds: Sequence[int] = SEEDS, log: Callable[[str], None] = print) -> list[Episode]:
    """Render, parse and rank every seed; episodes without a named target are skipped."""
    compared = rankers()
    episodes: list[Episode] = []
    for screen in screens(seeds, log):
        parse = screen.parse
        parse.task = screen.utterance
        episode = Episode(screen.seed, screen.task, screen.utterance, len(parse.elements))
        for name, ranker in compared.items():
            start = time.perf_counter()
            ranked = ranker(parse)
            episode.ms[name] = (time.perf_counter() - start) * 1000.0
            episode.ranks[name] = target_rank(ranked, screen.wanted)
        episodes.append(episode)
        log(
            f"{screen.seed} {screen.task} {screen.utterance!r}: {len(parse.elements)} elements, "
            f"ranks {episode.ranks}"
        )
    return episodes


def recall(episodes: Sequence[Episode], name: str, k: int, end_to_end: bool = False) -> float:
    """Share of episodes whose target ranks within ``k`` (detected ones only, unless ``end_to_end``)."""
    pool = [e for e in episodes if end_to_end or e.ranks[name] is not None]
    ranks = [e.ranks[name] for e in pool]
    good = sum(1 for rank in ranks if rank is not None and rank <= k)
    return good / len(pool) if pool else 0.0


def report(episodes: Sequence[Episode]) -> str:
    """The Markdown section written to docs/RELEVANCE.md."""
    names = list(episodes[0].ranks) if episodes else []
    detected = [e for e in episodes if e.ranks[names[0]] is not None] if names else []
    sizes = [e.elements for e in episodes]
    lines = [
        "## Task relevance (MiniWoB++)",
        "",
        "`python -m training.eval relevance`: MiniWoB++ seeds 1000-1099, tasks whose utterance names the "
        "target (" + ", ".join(f"`{t}`" for t in TASKS) + "), parsed with profile `detact`, ranked for "
        "the utterance. Recall over the episodes whose target the parse found; end-to-end counts "
        "detection misses as failures.",
        "",
        f"Episodes: {len(episodes)} (target found by the parse in {len(detected)}); parsed elements per "
        f"screen: median {statistics.median(sizes) if sizes else 0:g}, max {max(sizes, default=0)}.",
        "",
        "| ranker | recall@1 | recall@5 | recall@10 | end-to-end recall@5 | mean ms / screen |",
        "|---|---|---|---|---|---|",
    ]
    for name in names:
        ms = statistics.mean(e.ms[name] for e in episodes)
        lines.append(
            f"| {name} | {recall(episodes, name, 1):.2f} | {recall(episodes, name, 5):.2f} | "
            f"{recall(episodes, name, 10):.2f} | {recall(episodes, name, 5, end_to_end=True):.2f} | "
            f"{ms:.1f} |"
        )
    per_task = Counter(e.task for e in episodes)
    lines += ["", "Per task (minilm): episodes, targets the parse found, recall@1 and @5 over those.", ""]
    lines += ["| task | n | found | @1 | @5 |", "|---|---|---|---|---|"]
    for task, count in sorted(per_task.items()):
        subset = [e for e in episodes if e.task == task]
        found = sum(1 for e in subset if e.ranks["minilm"] is not None)
        at1, at5 = (f"{recall(subset, 'minilm', k):.2f}" if found else "-" for k in (1, 5))
        lines.append(f"| `{task}` | {count} | {found} | {at1} | {at5} |")
    return "\n".join(lines) + "\n"


def latency_section() -> str:
    """Cold / similar / warm ms of the rankers on a synthetic 200-element screen (ranker_latency)."""
    import os

    from training.eval.ranker_latency import measure

    rows = [measure(200, budget) for budget in (50.0, 0.0)]
    lines = [
        "## Ranker latency, 200 elements",
        "",
        "`python -m bench.relevance_latency [BUDGET_MS]`, run after the evaluation (the model was loaded "
        "then; the word cache is emptied before each row). "
        f"CPU cores: {os.cpu_count()}; load average at the time: {os.getloadavg()[0]:.1f} (shared machine). "
        "Cold = first screen, every word new; similar = 10% of the texts changed; warm = the same screen "
        "again (an agent loop). Loading the model (once per process, on the first task) takes 10-50 s on "
        "this machine (10 s idle, up to 50 s when busy), not counted here.",
        "",
        "| embed budget | cold ms | similar ms | warm ms | lexical only ms |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        budget = f"{row['budget_ms']:g} ms" if row["budget_ms"] else "none (all words now)"
        lines.append(
            f"| {budget} | {row['cold_ms']:g} | {row['similar_ms']:g} | "
            f"{row['warm_ms']:g} | {row['lexical_ms']:g} |"
        )
    return "\n".join(lines) + "\n"


def main(out: Path = OUT, seeds: Sequence[int] = SEEDS) -> str:
    """Run the evaluation and the latency measurement, write ``out`` and return the Markdown."""
    episodes = run(seeds)
    text = "# Relevance benchmark\n\n" + report(episodes) + "\n" + latency_section()
    out.write_text(text)
    return text
