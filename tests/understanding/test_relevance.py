"""The task relevance stage (real MiniLM) and select_top."""

from __future__ import annotations

import time

import pytest

from detact_service.core import Element, ElementType, ScreenParse
from detact_service.formats import select_top, to_caap, to_public
from detact_service.settings import Settings
from detact_service.understanding.embeddings import WordEmbedder
from detact_service.understanding.relevance import (
    LexicalRelevanceStage,
    MiniLMRelevanceStage,
    TaskQuery,
    quoted_strings,
)

T = ElementType
TASK = "Click on the black location icon and enter Paris as destination"


def screen(task: str | None, *elements: Element) -> ScreenParse:
    return ScreenParse(
        width=800, height=600, elements=[e.replace(id=i) for i, e in enumerate(elements)], task=task
    )


def box(i: int) -> tuple[int, int, int, int]:
    return (10, 10 + 30 * i, 200, 34 + 30 * i)


def travel_screen(task: str | None = TASK) -> ScreenParse:
    return screen(
        task,
        Element(box(0), T.TEXT, text=TASK),  # the task itself shown on screen
        Element(box(1), T.ICON, icon="house", color="black"),
        Element(box(2), T.ICON, icon="location dot", color="red"),
        Element(box(3), T.INPUT, text="Origin"),
        Element(box(4), T.TEXT, text="Paris weather today"),
        Element(box(5), T.ICON, icon="location dot", color="black"),
        Element(box(6), T.INPUT, text="Destination"),
        Element(box(7), T.BUTTON, text="Search"),
        Element(box(8), T.LINK, text="Help"),
        Element(box(9), T.ICON, icon="gear", color="grey"),
    )


@pytest.fixture(scope="module")
def minilm() -> MiniLMRelevanceStage:
    return MiniLMRelevanceStage(Settings(relevance_embed_budget_ms=0))


def ranking(parse: ScreenParse) -> list[int]:
    return [e.id for e in sorted(parse.elements, key=lambda e: -(e.relevance or 0.0))]


def test_black_location_icon_and_destination_input_rank_above_distractors(
    minilm: MiniLMRelevanceStage,
) -> None:
    ranked = minilm.run([], [travel_screen()])[0]
    order = ranking(ranked)
    assert order[0] == 5  # the black location icon
    assert order.index(6) < min(order.index(i) for i in (0, 1, 3, 4, 7, 8, 9))  # destination input
    assert order.index(5) < order.index(2)  # black beats red
    assert all(e.relevance is not None and 0.0 <= e.relevance < 1.0 for e in ranked.elements)


def test_quoted_strings_win(minilm: MiniLMRelevanceStage) -> None:
    parse = screen(
        'Press the "Save draft" button',
        Element(box(0), T.BUTTON, text="Save"),
        Element(box(1), T.TEXT, text="Draft saved 2 minutes ago"),
        Element(box(2), T.LINK, text="Drafts"),
        Element(box(3), T.BUTTON, text="Save draft"),
        Element(box(4), T.BUTTON, text="Discard"),
    )
    assert ranking(minilm.run([], [parse])[0])[0] == 3


def test_type_words_pick_the_type() -> None:
    parse = screen(
        "Tick the checkbox",
        Element(box(0), T.TEXT, text="Newsletter"),
        Element(box(1), T.BUTTON, text="OK"),
        Element(box(2), T.CHECKBOX),
    )
    assert ranking(LexicalRelevanceStage(Settings()).run([], [parse])[0])[0] == 2


def test_semantic_match_without_shared_words(minilm: MiniLMRelevanceStage) -> None:
    parse = screen(
        "Log in to my account",
        Element(box(0), T.BUTTON, text="Sign in"),
        Element(box(1), T.BUTTON, text="Weather"),
        Element(box(2), T.LINK, text="Pricing"),
    )
    assert ranking(minilm.run([], [parse])[0])[0] == 0


def test_no_task_no_scores(minilm: MiniLMRelevanceStage) -> None:
    for task in (None, "   "):
        parse = travel_screen(task)
        assert parse.elements
        assert minilm.run([], [parse])[0] is parse
        assert all(e.relevance is None for e in parse.elements)


def test_select_top_keeps_ids_and_reading_order(minilm: MiniLMRelevanceStage) -> None:
    full = minilm.run([], [travel_screen()])[0]
    top = select_top(full, 3)
    assert len(top.elements) == 3
    ids = [e.id for e in top.elements]
    assert ids == sorted(ids) and set(ids) == set(ranking(full)[:3])
    for element in top.elements:
        assert full.by_id(element.id) == element
    assert all(line.startswith("- ID: element_") for line in to_caap(top).splitlines())
    assert {e.id for e in to_public(top).elements} == set(ids)
    assert select_top(full, None) is full and select_top(full, 50) is full


def test_select_top_gives_unset_ids_their_index() -> None:
    elements = [Element(box(i), T.TEXT, text=f"t{i}", relevance=float(i % 3)) for i in range(6)]
    top = select_top(ScreenParse(800, 600, elements, task="x"), 2)
    assert [e.id for e in top.elements] == [2, 5]
    no_scores = ScreenParse(800, 600, [e.replace(relevance=None) for e in elements])
    assert [e.id for e in select_top(no_scores, 2).elements] == [0, 1]


def test_relevance_is_in_the_public_json(minilm: MiniLMRelevanceStage) -> None:
    body = to_public(minilm.run([], [travel_screen()])[0]).model_dump(mode="json")
    assert all(isinstance(e["relevance"], float) for e in body["elements"])
    assert all(e["relevance"] is None for e in to_public(travel_screen(None)).model_dump()["elements"])


def test_budget_keeps_scoring_and_fills_the_cache_in_the_background(minilm: MiniLMRelevanceStage) -> None:
    tight = MiniLMRelevanceStage(Settings(relevance_embed_budget_ms=0.01))
    parse = screen(
        "open the zebra quokka settings",
        Element(box(0), T.BUTTON, text="Zebra quokka settings"),
        Element(box(1), T.BUTTON, text="Aardvark"),
    )
    assert ranking(tight.run([], [parse])[0])[0] == 0  # lexical cues alone
    embedder = tight.embedder()
    assert embedder is not None
    embedder.wait_backfill()
    assert {"zebra", "quokka", "aardvark"} <= set(embedder.words)


def test_task_query_cues() -> None:
    query = TaskQuery.parse('Click the red "OK" button, then type hello into the field')
    assert query.quotes == ("ok",)
    assert query.colors == {"red"}
    assert {T.BUTTON, T.INPUT} <= query.types and T.INPUT in query.implied
    assert "ok" in query.words and "hello" in query.words and "click" not in query.words
    assert quoted_strings("don't press 'Cancel' or “Stop”") == ["cancel", "stop"]


class SlowModel:
    """A stand-in sentence model: 0.2 s per call, constant vectors."""

    def encode(self, texts: list[str], **_: object) -> list[list[float]]:
        time.sleep(0.2)
        return [[1.0, 0.0] for _ in texts]


def test_close_stops_the_background_thread_between_batches() -> None:
    embedder = WordEmbedder(SlowModel())
    embedder.ms_per_word = embedder.call_ms = 1000.0  # any budget is too small: everything goes behind
    assert embedder.lookup([f"w{i}" for i in range(200)], budget_ms=1.0) == {}
    worker = embedder.worker
    assert worker is not None and worker.is_alive()
    start = time.perf_counter()
    embedder.close()
    assert not worker.is_alive()
    assert time.perf_counter() - start < 5.0  # the batch in progress, not the 200 words queued
    embedder.close()  # idempotent
    assert embedder.lookup(["late"], budget_ms=1.0) == {}  # closed: no new thread
    assert embedder.worker is worker
