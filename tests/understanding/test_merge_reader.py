"""The ``reader`` merge: the shipped reader tells a list row's avatar from a checkbox on a rendered page."""

from __future__ import annotations

import numpy as np
import pytest

from detact_service.core import Element, ElementState, ElementType, ScreenParse
from detact_service.pipeline import PROFILES, resolve_backend
from detact_service.settings import Settings
from detact_service.stages import StageUnavailable
from detact_service.understanding.merge import merge_elements
from detact_service.understanding.merge_reader import ReaderMergeStage, marks_in_detector_boxes
from tests.browser import page_with_boxes

PAGE = """<!doctype html><html><body style="font: 17px sans-serif; margin: 0; background: #fff">
<div id="row-alice" style="display: flex; align-items: center; gap: 16px; padding: 14px 18px;
     border-bottom: 1px solid #e5e5e5">
  <div id="avatar" style="width: 44px; height: 44px; border-radius: 50%; background: #e8710a; color: #fff;
       display: flex; align-items: center; justify-content: center; font-weight: 700">A</div>
  <span id="name">Alice Martin</span>
</div>
<div id="row-news" style="display: flex; align-items: center; gap: 12px; padding: 14px 18px">
  <input id="news" type="checkbox" checked style="width: 20px; height: 20px; margin: 0">
  <span id="label">Email me the news</span>
</div>
</body></html>"""
IDS = ("row-alice", "avatar", "name", "row-news", "news", "label")


@pytest.fixture(scope="module")
def page() -> tuple[np.ndarray, dict[str, tuple[int, int, int, int]]]:
    return page_with_boxes(PAGE, IDS, (420, 860))


def test_an_avatar_taken_for_a_radio_leaves_its_row_whole_and_a_checkbox_takes_its_label(
    page: tuple[np.ndarray, dict[str, tuple[int, int, int, int]]],
) -> None:
    image, boxes = page
    try:
        stage = ReaderMergeStage(Settings())
    except StageUnavailable as exc:
        pytest.fail(f"the shipped reader is missing: {exc}")
    # what the segmenter, the detector and OCR report on such a screen: the avatar and the box as marks
    elements = [
        Element(boxes["row-alice"], ElementType.ICON, source="detector", score=0.6),
        Element(boxes["avatar"], ElementType.RADIO, state=ElementState(checked=True), source="segment"),
        Element(boxes["name"], ElementType.TEXT, text="Alice Martin", source="ocr"),
        Element(boxes["row-news"], ElementType.ICON, source="detector", score=0.6),
        Element(boxes["news"], ElementType.CHECKBOX, state=ElementState(checked=True), source="segment"),
        Element(boxes["label"], ElementType.TEXT, text="Email me the news", source="ocr"),
    ]
    parse = ScreenParse(width=image.shape[1], height=image.shape[0], elements=elements)
    assert marks_in_detector_boxes(elements).tolist() == [1, 4]
    merged = stage.run([image], [parse])[0].elements
    assert [(e.type, e.bbox, e.text) for e in merged] == [
        (ElementType.LIST_ITEM, boxes["row-alice"], "Alice Martin"),
        (ElementType.CHECKBOX, boxes["news"], "Email me the news"),
    ]
    assert merged[1].state.checked is True
    # the rules alone take the avatar for a radio and its row for a mark row
    by_rules = merge_elements(elements, parse.width, parse.height)
    assert [e.type for e in by_rules] == [ElementType.RADIO, ElementType.CHECKBOX]


def test_the_full_profile_merges_with_the_reader_when_the_reader_is_its_attribute_stage() -> None:
    settings = Settings()
    assert ("merge", None) in PROFILES["full"].stages and ("merge", "default") in PROFILES["fast"].stages
    assert resolve_backend("merge", None, settings) == "reader"


TILE_PAGE = """<!doctype html><html><body style="font: 15px sans-serif; margin: 0; background: #fff">
<div id="tile" style="display: inline-flex; flex-direction: column; align-items: center; gap: 8px;
     padding: 14px; width: 110px">
  <div id="app" style="width: 64px; height: 64px; border-radius: 16px; background: #f1f1f1; color: #d33;
       display: flex; align-items: center; justify-content: center; font-size: 34px">&#9993;</div>
  <span id="caption">Mail</span>
</div>
</body></html>"""


def test_the_check_model_sees_no_indicator_in_an_app_icon_and_one_in_a_checkbox(
    page: tuple[np.ndarray, dict[str, tuple[int, int, int, int]]],
) -> None:
    tile_image, tile_boxes = page_with_boxes(TILE_PAGE, ("tile", "app", "caption"), (420, 860))
    image, boxes = page
    stage = ReaderMergeStage(Settings())
    assert stage.reader.checks is not None, "ui-checks ships with the reader"
    app = [Element(tile_boxes["app"], ElementType.RADIO, source="segment")]
    box = [Element(boxes["news"], ElementType.CHECKBOX, source="segment")]
    picks = [np.array([0]), np.array([0])]
    assert stage.without_indicator([tile_image, image], [app, box], picks).tolist() == [True, False]
    unchecked = ReaderMergeStage(Settings(attributes={"check_model": ""}))
    assert unchecked.without_indicator([tile_image, image], [app, box], picks).tolist() == [False, False]
