"""The task relevance ranker's latency on a 200-element screen (``python -m bench.relevance_latency``).

Cold = first screen of a fresh process (model loaded beforehand, every word new); warm = the same screen
again (agent loop); similar = a screen where 10% of the elements changed their text. The words come from
the icon pack's names (about 3,000 distinct English words), so a screen's vocabulary looks like a UI's.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from pathlib import Path

from detact_service.core import COLOR_NAMES, Element, ElementType, ScreenParse
from detact_service.settings import Settings
from detact_service.understanding.relevance import LexicalRelevanceStage, MiniLMRelevanceStage

ROOT = Path(__file__).resolve().parents[2]
TASK = "Click on the black location icon and enter Paris as destination"
TYPES = (ElementType.TEXT, ElementType.BUTTON, ElementType.LINK, ElementType.INPUT, ElementType.ICON)


def vocabulary() -> list[str]:
    """Distinct words of the icon pack's names."""
    index = json.loads((ROOT / "icons" / "index.json").read_text())
    return sorted({word for row in index["templates"] for word in str(row[0]).split() if word.isalpha()})


def screen(n: int, seed: int, words: list[str]) -> ScreenParse:
    """A synthetic parse of ``n`` elements with 1-4 word texts, icon names and colours."""
    rng = random.Random(seed)
    elements = []
    for i in range(n):
        kind = rng.choice(TYPES)
        text = " ".join(rng.sample(words, rng.randint(1, 4))).capitalize()
        row, col = divmod(i, 10)
        elements.append(
            Element(
                bbox=(col * 100, row * 30, col * 100 + 90, row * 30 + 24),
                type=kind,
                id=i,
                text=None if kind is ElementType.ICON else text,
                icon=" ".join(rng.sample(words, 2)) if kind is ElementType.ICON else None,
                color=rng.choice(COLOR_NAMES),
            )
        )
    return ScreenParse(width=1000, height=n * 3 + 30, elements=elements, task=TASK)


def timed(stage: LexicalRelevanceStage, parse: ScreenParse, repeats: int = 1) -> float:
    """Median ms of ``repeats`` runs of the stage on ``parse``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        stage.run([], [parse])
        times.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(times)


def measure(n: int = 200, budget_ms: float = 0.0) -> dict[str, float]:
    """Cold, similar-screen and warm ms of the minilm ranker (and the lexical one) on ``n`` elements."""
    words = vocabulary()
    first = screen(n, 1, words)
    similar = first.with_elements(
        e.replace(text=" ".join(random.Random(i).sample(words, 2))) if i % 10 == 0 and e.text else e
        for i, e in enumerate(first.elements)
    )
    settings = Settings(relevance_embed_budget_ms=budget_ms)
    minilm = MiniLMRelevanceStage(settings)
    start = time.perf_counter()
    embedder = minilm.embedder()
    assert embedder is not None
    embedder.task("warm the model up")
    load_ms = (time.perf_counter() - start) * 1000.0
    embedder.wait_backfill()
    with embedder.lock:  # a cold start: nothing cached (the model stays loaded)
        embedder.words.clear()
        embedder.tasks.clear()
    cold = timed(minilm, first)
    embedder.wait_backfill()
    similar_ms = timed(minilm, similar)
    embedder.wait_backfill()
    warm = timed(minilm, first, repeats=5)
    lexical = timed(LexicalRelevanceStage(settings), first, repeats=5)
    return {
        "elements": n,
        "budget_ms": budget_ms,
        "model_load_ms": round(load_ms),
        "cold_ms": round(cold, 1),
        "similar_ms": round(similar_ms, 1),
        "warm_ms": round(warm, 1),
        "lexical_ms": round(lexical, 1),
    }
