"""The current tab of a tab row, by how it is drawn."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from detact_service.core import Element, ElementState, ElementType
from detact_service.understanding.tab_looks import current_tabs, tab_rows

SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "samples" / "desktop-screenagent"
STRIP = (231, 232, 236)
PAGE = (255, 255, 255)


def tab_strip(
    fills: list[tuple[int, int, int]],
    inks: list[tuple[int, int, int]],
    outlined: int | None = None,
    strip: tuple[int, int, int] = STRIP,
) -> tuple[np.ndarray, list[Element]]:
    """A browser-like strip over a white page: one tab per fill, each with a title of strokes in its ink, the
    ``outlined`` one with a grey border on three sides; the tabs as ``tab`` elements with no selected
    state."""
    image = np.full((200, 900, 3), PAGE, dtype=np.uint8)
    image[:60] = strip
    elements = []
    for k, (fill, ink) in enumerate(zip(fills, inks, strict=True)):
        x0 = 10 + 230 * k
        image[20:52, x0 : x0 + 220] = fill
        if k == outlined:
            image[20, x0 : x0 + 220] = image[20:52, x0] = image[20:52, x0 + 219] = (160, 160, 160)
        for stroke in range(8):  # a title's letters
            left = x0 + 30 + 16 * stroke
            image[30:42, left : left + 3] = ink
            image[30:32, left : left + 9] = ink
        elements.append(Element((x0, 20, x0 + 220, 52), ElementType.TAB, text=f"Tab {k}", id=k))
    return image, elements


def selected(elements: list[Element]) -> list[bool | None]:
    return [e.state.selected for e in elements]


def test_the_tab_filled_unlike_its_row_is_the_current_one() -> None:
    grey_ink = (95, 99, 104)
    image, tabs = tab_strip([STRIP, PAGE, STRIP], [grey_ink] * 3)
    assert selected(current_tabs(image, tabs)) == [False, True, False]


def test_the_tab_lettered_in_another_colour_is_the_current_one() -> None:
    image, tabs = tab_strip([PAGE] * 4, [(95, 99, 104), (95, 99, 104), (95, 99, 104), (25, 118, 210)])
    assert selected(current_tabs(image, tabs)) == [False, False, False, True]


def test_of_two_tabs_the_one_unlike_the_strip_is_the_current_one() -> None:
    image, tabs = tab_strip([STRIP, PAGE], [(95, 99, 104)] * 2)
    assert selected(current_tabs(image, tabs)) == [False, True]


def test_the_tab_outlined_alone_is_the_current_one() -> None:
    """A Bootstrap-like tab bar: every tab white with dark titles, the open one bordered on three sides."""
    ink = [(33, 37, 41)] * 3
    image, tabs = tab_strip([PAGE] * 3, ink, outlined=1, strip=PAGE)
    assert selected(current_tabs(image, tabs)) == [False, True, False]
    image, tabs = tab_strip([PAGE] * 2, ink[:2], outlined=0, strip=PAGE)
    assert selected(current_tabs(image, tabs)) == [True, False]


def test_the_look_names_the_current_tab_over_the_readers_pick() -> None:
    """Tabs lettered in link blue, the open one in black: the reader, sure of the first blue one, was
    wrong."""
    blue, black = (76, 134, 236), (42, 42, 42)
    image, tabs = tab_strip([PAGE] * 4, [blue, black, blue, blue], strip=PAGE)
    tabs[0] = tabs[0].replace(state=ElementState(selected=True))  # the reader said so
    assert selected(current_tabs(image, tabs)) == [False, True, False, False]


def test_rows_where_none_or_two_stand_out_are_left_alone() -> None:
    ink = [(95, 99, 104)] * 4
    alike, tabs = tab_strip([STRIP] * 4, ink)
    tabs[2] = tabs[2].replace(state=ElementState(selected=True))  # the reader said so
    assert current_tabs(alike, tabs) == tabs
    two, tabs = tab_strip([STRIP, PAGE, STRIP, (200, 200, 205)], ink)  # current and hovered
    assert current_tabs(two, tabs) == tabs
    image, tabs = tab_strip([STRIP, PAGE, STRIP, STRIP], ink)
    buttons = [e.replace(type=ElementType.BUTTON) for e in tabs]
    assert current_tabs(image, buttons) == buttons
    image, tabs = tab_strip([STRIP, PAGE, STRIP, STRIP], ink)
    slivers = [e.replace(bbox=(e.bbox[0], 198, e.bbox[0] + 2, 205)) for e in tabs]  # off the screen's foot
    assert selected(current_tabs(image, slivers)) == [None] * 4


def test_tabs_on_one_line_are_a_row_however_far_apart() -> None:
    boxes = np.asarray(
        [(0, 20, 230, 52), (452, 21, 677, 52), (673, 21, 903, 53), (180, 106, 218, 147)], float
    )
    assert tab_rows(boxes).tolist()[:3] == [tab_rows(boxes)[0]] * 3
    assert tab_rows(boxes)[3] == -1  # alone on its line


@pytest.mark.slow
def test_a_real_browsers_open_tab_is_selected() -> None:
    """Firefox on a real desktop (bilibili): the open tab, a shade lighter than the three others, is the one
    selected; none was before this rule (the tabs are typed by their close buttons, after the reader)."""
    from PIL import Image

    from detact_service.pipeline import get_pipeline
    from detact_service.settings import Settings

    found = sorted(SAMPLES.glob("343e7861*.jpg"))
    if not found:
        pytest.skip(f"{SAMPLES} is not beside the checkout")
    with Image.open(found[0]) as opened:
        image = np.asarray(opened.convert("RGB"))
    parse = get_pipeline(Settings(device="cpu"), "full").parse(image)
    strip = [e for e in parse.elements if e.type is ElementType.TAB and e.bbox[1] < 60]
    assert [str(e.text)[:6] for e in strip if e.state.selected] == ["【转载】宝可"]
    assert sum(e.state.selected is False for e in strip) >= 2
