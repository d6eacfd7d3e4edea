"""The whole DetACT profile on a rendered 1920x1080 form: real OCR, segmenter, SSIM icons and colours."""

import threading
from typing import Any

import numpy as np
import pytest

from detact_service.core import Element, ElementType, ScreenParse
from detact_service.pipeline import Pipeline, get_pipeline
from detact_service.settings import Settings
from tests.render import RenderedScreen, render_form_with_icons


@pytest.fixture(scope="module")
def screen() -> RenderedScreen:
    return render_form_with_icons(1920, 1080)


@pytest.fixture(scope="module")
def pipeline() -> Pipeline:
    return get_pipeline(Settings(device="cpu"), "detact")


@pytest.fixture(scope="module")
def parse(screen: RenderedScreen, pipeline: Pipeline) -> ScreenParse:
    return pipeline.parse(np.asarray(screen.image), task="sign up")


def covering(parse: ScreenParse, box: tuple[int, int, int, int]) -> Element:
    """The element whose centre lies in ``box`` and whose box is closest in size."""
    x1, y1, x2, y2 = box
    inside = [e for e in parse.elements if x1 <= e.center[0] <= x2 and y1 <= e.center[1] <= y2]
    assert inside, f"nothing found at {box}"
    return min(inside, key=lambda e: abs(e.width * e.height - (x2 - x1) * (y2 - y1)))


def test_visible_words_come_back_with_boxes(parse: ScreenParse) -> None:
    texts = " ".join(e.text for e in parse.elements if e.text)
    for phrase in [
        "Acme Portal",
        "Create your account",
        "Email address",
        "Password",
        "Remember me",
        "Send me the newsletter",
        "Personal",
        "Business",
        "Submit",
        "Cancel",
        "Forgot your password?",
    ]:
        assert phrase in texts


def test_toolbar_icons_are_named(screen: RenderedScreen, parse: ScreenParse) -> None:
    icons = [d for d in screen.of_kind("icon")]
    assert len(icons) == 6  # the toolbar
    named = [covering(parse, d.bbox).icon for d in icons]
    assert named == [d.text for d in icons]


def test_controls_are_typed_with_state(screen: RenderedScreen, parse: ScreenParse) -> None:
    controls = screen.of_kind("checkbox") + screen.of_kind("radio")
    buttons, inputs = screen.of_kind("button"), screen.of_kind("input")
    assert len(controls) == 4 and len(buttons) == 2 and len(inputs) == 2  # the form draws them all
    for drawn in controls:
        element = covering(parse, drawn.bbox)
        assert element.type.value == drawn.kind
        assert element.state.checked is drawn.checked
    for drawn in buttons:
        element = covering(parse, drawn.bbox)
        assert (element.type, element.text, element.color) == (ElementType.BUTTON, drawn.text, drawn.color)
    for drawn in inputs:
        assert covering(parse, drawn.bbox).type is ElementType.INPUT


def test_every_element_has_a_colour_an_id_and_a_valid_box(parse: ScreenParse) -> None:
    assert len(parse.elements) > 10
    assert [e.id for e in parse.elements] == list(range(len(parse.elements)))
    for element in parse.elements:
        assert element.color is not None
        x1, y1, x2, y2 = element.bbox
        assert 0 <= x1 < x2 <= parse.width and 0 <= y1 < y2 <= parse.height


def test_timings_and_models_are_reported(parse: ScreenParse) -> None:
    assert {"text", "regions", "merge", "icons", "colors", "total"} <= set(parse.timings_ms)
    assert parse.models["profile"] == "detact" and parse.models["text"].startswith("rapidocr")
    assert parse.task == "sign up"


def test_batch_gives_the_same_parses_as_one_by_one(
    screen: RenderedScreen, pipeline: Pipeline, parse: ScreenParse
) -> None:
    small = np.asarray(screen.image.resize((960, 540)))
    batch = pipeline.parse_batch([np.asarray(screen.image), small], [parse.task, None])
    # Relevance may differ: with the default embedding budget, words are embedded across runs.
    assert [e.replace(relevance=None) for e in batch[0].elements] == [
        e.replace(relevance=None) for e in parse.elements
    ]
    assert all(e.relevance is not None for e in parse.elements)  # a task: scored by the relevance stage
    assert all(e.relevance is None for e in batch[1].elements)  # no task: not scored
    assert batch[1].elements == pipeline.parse(small).elements


def test_the_detector_overlaps_the_text_stage_and_the_parse_is_the_same(screen: RenderedScreen) -> None:
    image = np.asarray(screen.image)
    in_order = get_pipeline(Settings(device="cpu", overlap_stages=False), "fast")
    overlapped = get_pipeline(Settings(device="cpu"), "fast")
    assert overlapped is not in_order
    (detector,) = [s for s in overlapped.stages if s.slot == "detect"]
    threads: list[str] = []
    run = detector.run

    def recording_run(*args: Any) -> list[ScreenParse]:
        threads.append(threading.current_thread().name)
        return run(*args)

    detector.run = recording_run  # type: ignore[method-assign]
    try:
        parse = overlapped.parse(image)
    finally:
        del detector.run
    assert threads and threads[0].startswith("detact-stage")  # not the caller's thread
    assert parse.elements == in_order.parse(image).elements
    assert any(e.source == "detector" for e in parse.elements) and parse.timings_ms["detect"] > 0


def test_the_pipeline_cache_is_keyed_by_the_model_settings_only() -> None:
    base = get_pipeline(Settings(device="cpu", max_queue=1), "detact")
    assert get_pipeline(Settings(device="cpu", max_queue=50, port=9000, api_keys=("k",)), "detact") is base
    assert get_pipeline(Settings(device="cpu", ocr={"min_score": 0.3}), "detact") is not base
    assert get_pipeline(Settings(device="cpu", llm={"model": "other"}), "detact") is base  # not a stage of it
    # the re-parse bound is applied by the pipeline itself, so it keys the cache too
    other_bound = get_pipeline(Settings(device="cpu", reparse_max_changed=0.1), "detact")
    assert other_bound is not base and other_bound.settings.reparse_max_changed == 0.1
