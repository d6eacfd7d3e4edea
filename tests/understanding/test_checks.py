"""The check-state model: its views keep the indicator at full scale, and the shipped model reads it."""

from __future__ import annotations

import numpy as np
import pytest

from detact_service.core import Element, ElementState, ElementType, ScreenParse
from detact_service.settings import Settings
from detact_service.understanding.checks import CheckReader, check_views, end_squares
from detact_service.understanding.reader import STATES, TYPES, ReaderAttributeStage, Reading
from tests.browser import page_with_boxes

# Checkboxes and radios boxed with their labels, light and dark, and Android-like switches at the right end
# of their rows: the reader's squeezed view loses such a mark, the check view keeps it.
PAGE = """<!doctype html><html><head><style>
body { margin: 0; font: 14px sans-serif; display: flex }
.pane { width: 50%; padding: 24px; box-sizing: border-box }
.dark { background: #2b2b2e; color: #ddd; color-scheme: dark }
label { display: inline-block; margin: 8px 0 }
.row { display: flex; align-items: center; justify-content: space-between; width: 420px; padding: 14px 8px }
.sw { width: 40px; height: 22px; border-radius: 11px; background: #9e9e9e; position: relative; border: 0 }
.sw::after { content: ''; position: absolute; top: 2px; left: 2px; width: 18px; height: 18px;
  border-radius: 9px; background: #fff }
.sw.on { background: #1a73e8 } .sw.on::after { left: 20px }
</style></head><body>
<div class="pane">
 <label id="a-on"><input type="checkbox" checked> Remember me on this computer</label><br>
 <label id="a-off"><input type="checkbox"> Show hidden files</label><br>
 <label id="r-on"><input type="radio" name="r" checked> Automatic updates</label><br>
 <label id="r-off"><input type="radio" name="r"> Manual</label>
 <div class="row" id="s-on"><span>Wi-Fi</span><button class="sw on"></button></div>
 <div class="row" id="s-off"><span>Bluetooth</span><button class="sw"></button></div>
</div>
<div class="pane dark">
 <label id="d-on"><input type="checkbox" checked> Send usage statistics</label><br>
 <label id="d-off"><input type="checkbox"> Open in new window</label><br>
</div>
</body></html>"""
BUTTON = """<button id="save" style="position:absolute;left:700px;top:300px;font:15px sans-serif;
 padding:8px 24px">Save changes</button>"""
ON = ("a-on", "r-on", "s-on", "d-on")
OFF = ("a-off", "r-off", "s-off", "d-off")


def test_end_squares_sit_at_both_ends_of_the_long_axis() -> None:
    boxes = np.array([[100, 10, 300, 30], [5, 50, 25, 150], [40, 40, 60, 60]])
    start, end = end_squares(boxes)
    side = start[:, 2] - start[:, 0]
    assert (side == start[:, 3] - start[:, 1]).all() and (side == end[:, 2] - end[:, 0]).all()
    assert side.tolist() == [26, 26, 26]  # 1.3 times the short side
    assert start[0, 0] < 100 < start[0, 2] < 130 and end[0, 0] > 270 and end[0, 2] > 300  # the wide box
    assert start[1, 1] < 50 < start[1, 3] and end[1, 3] > 150  # the tall box: along y
    assert np.array_equal(start[2], end[2])  # a square box: one square, twice


def test_views_keep_the_mark_at_its_own_scale() -> None:
    screen = np.full((200, 600, 3), 240, dtype=np.uint8)
    screen[100:116, 40:56] = 20  # a filled 16 px indicator at the left end of a 400 x 16 box
    views = check_views(screen, np.array([[40, 100, 440, 116], [590, 190, 640, 230]]), side=32)
    assert views.shape == (2, 32, 64, 3) and views.dtype == np.uint8
    left, right = views[0, :, :32].astype(int), views[0, :, 32:].astype(int)
    assert left.mean() < 140 and right.mean() > 230  # the dark mark fills the start square only
    assert (views[1] == 240).all()  # a box past the screen's edge repeats its edge pixels


def same_reading(count: int, probabilities: dict[ElementType, float]) -> Reading:
    """A reader's answer, the same for ``count`` elements: these type probabilities, no state set."""
    probs = np.zeros((count, len(TYPES)), dtype=np.float32)
    for kind, probability in probabilities.items():
        probs[:, TYPES.index(kind)] = probability
    best = int(probs[0].argmax())
    return Reading(
        np.full(count, best), probs[:, best].copy(), np.zeros((count, len(STATES)), np.float32), probs
    )


@pytest.fixture(scope="module")
def checks() -> CheckReader:
    reader = CheckReader.configured(Settings())
    if reader is None:
        pytest.fail("the shipped check-state model (ui-checks) is missing")
    return reader


def test_shipped_model_reads_labelled_checkboxes_radios_and_switches(checks: CheckReader) -> None:
    image, boxes = page_with_boxes(PAGE, ON + OFF, (1280, 480))
    views = check_views(image, np.array([boxes[i] for i in ON + OFF]), checks.side)
    on, checkable = checks.probabilities(Settings(), views)
    assert on.shape == checkable.shape == (len(ON) + len(OFF),)
    assert (checkable >= 0.5).all(), checkable.round(2).tolist()
    assert (on[: len(ON)] >= 0.5).all(), dict(zip(ON, on[: len(ON)].round(2).tolist(), strict=True))
    assert (on[len(ON) :] < 0.5).all(), dict(zip(OFF, on[len(ON) :].round(2).tolist(), strict=True))


def test_the_reader_stage_takes_checked_from_the_check_model_and_drops_checkables_without_indicator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stage = ReaderAttributeStage(Settings())
    assert stage.checks is not None and "ui-checks" in (stage.model_version() or "")
    ids = ("a-on", "a-off", "save")
    image, boxes = page_with_boxes(PAGE.replace("</body>", BUTTON + "</body>"), ids, (1280, 480))
    # a reader that calls all three unchecked checkboxes (its view of a wide box hides the tick)
    reading = same_reading(3, {ElementType.CHECKBOX: 0.8, ElementType.BUTTON: 0.2})
    monkeypatch.setattr(stage, "read_picked", lambda *args: reading)
    elements = [Element(boxes[i], ElementType.TEXT, id=n, source="test") for n, i in enumerate(ids)]
    parse = ScreenParse(width=image.shape[1], height=image.shape[0], elements=elements)
    on, off, button = stage.run([image], [parse])[0].elements
    assert on.type is ElementType.CHECKBOX and on.state.checked is True
    assert off.type is ElementType.CHECKBOX and off.state.checked is False
    assert button.type is ElementType.BUTTON and button.state.checked is None  # no indicator: next type
    without = ReaderAttributeStage(Settings(attributes={"check_model": ""}))
    assert without.checks is None and without.model_version() == stage.spec.model.version_tag()


TOOL = """<div id="tool" style="position:absolute;left:900px;top:120px;width:30px;height:30px;
 background:#1a73e8;border-radius:4px;color:#fff;font:20px sans-serif;text-align:center;
 line-height:30px">A</div>"""


def test_a_segmenter_mark_without_an_indicator_is_no_checkable_and_a_real_one_keeps_its_exact_state(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stage = ReaderAttributeStage(Settings())
    ids = ("a-on", "d-off", "tool")
    image, boxes = page_with_boxes(PAGE.replace("</body>", TOOL + "</body>"), ids, (1280, 480))
    # the reader leans to "button" for all three, not surely enough to overrule a mark
    reading = same_reading(3, {ElementType.BUTTON: 0.6, ElementType.CHECKBOX: 0.4})
    monkeypatch.setattr(stage, "read_picked", lambda *args: reading)
    marks = [  # what the segmenter reads: a filled square is a ticked box to its rules
        Element(boxes[i], ElementType.CHECKBOX, id=n, source="segment", state=ElementState(checked=state))
        for n, (i, state) in enumerate(zip(ids, (True, False, True), strict=True))
    ]
    parse = ScreenParse(width=image.shape[1], height=image.shape[0], elements=marks)
    ticked, empty, tool = stage.run([image], [parse])[0].elements
    assert (ticked.type, ticked.state.checked) == (ElementType.CHECKBOX, True)
    assert (empty.type, empty.state.checked) == (ElementType.CHECKBOX, False)
    assert tool.type is ElementType.BUTTON and tool.state.checked is None
