"""The CPU reader: its views are what it was trained on, and the shipped model reads a rendered page right."""

from __future__ import annotations

import numpy as np
import pytest

from detact_service.core import Element, ElementState, ElementType, ScreenParse
from detact_service.settings import Settings
from detact_service.stages import StageUnavailable
from detact_service.understanding.alignment import column_groups, list_groups, row_groups
from detact_service.understanding.reader import (
    APPLIES,
    STATES,
    TYPES,
    ReaderAttributeStage,
    Reading,
    apply_reading,
    column_types,
    current_tabs,
    label_types,
    list_types,
    near_checkable,
    paragraph_types,
    state_applies,
    tab_types,
    textless_glyphs,
    toolbar_types,
    with_check_answers,
    without_checkables,
)
from detact_service.understanding.semimask import (
    OUTLINE,
    ViewGeometry,
    box_features,
    context_windows,
    reader_views,
)
from tests.browser import page_with_boxes

PAGE = """<!doctype html><html><body style="font: 15px sans-serif; margin: 40px; background: #fff">
<div style="display: flex; border-bottom: 1px solid #ccc; margin-bottom: 30px">
  <div id="tab-home" style="padding: 10px 22px; border-bottom: 3px solid #1a73e8; color: #1a73e8;
       font-weight: 600">Overview</div>
  <div id="tab-other" style="padding: 10px 22px; color: #555">Activity</div>
  <div style="padding: 10px 22px; color: #555">Billing</div>
</div>
<p><label><input id="on" type="checkbox" checked style="width: 18px; height: 18px">
  Email me the news</label></p>
<p><label><input id="off" type="checkbox" style="width: 18px; height: 18px"> Share my profile</label></p>
<p style="margin-top: 30px">
  <button id="save" style="font: 15px sans-serif; padding: 8px 24px">Save changes</button>
  <button id="gone" disabled style="font: 15px sans-serif; padding: 8px 24px">Delete account</button>
</p>
<p style="margin-top: 30px"><input id="name" type="text" placeholder="Your name" style="font: 15px sans-serif;
   padding: 6px; width: 260px"></p>
</body></html>"""
IDS = ("tab-home", "tab-other", "on", "off", "save", "gone", "name")
Page = tuple[np.ndarray, dict[str, tuple[int, int, int, int]]]


def test_views_batch_the_semimask_the_model_was_trained_on() -> None:
    rng = np.random.default_rng(3)
    screen = rng.integers(40, 255, size=(800, 1280, 3), dtype=np.uint8)
    boxes = np.array([[100, 100, 200, 140], [0, 0, 30, 30], [1200, 700, 1280, 800], [400, 300, 1000, 360]])
    geometry = ViewGeometry(size=64, context=3.0, min_window=64, max_window=1024)
    views = reader_views(screen, boxes, geometry)
    assert views.shape == (4, 64, 64, 3) and views.dtype == np.uint8
    windows = context_windows(boxes, 1280, 800, geometry)
    assert (windows[:, :2] <= boxes[:, :2]).all() and (windows[:, 2:] >= boxes[:, 2:]).all()
    assert (windows >= 0).all() and (windows[:, 2] <= 1280).all() and (windows[:, 3] <= 800).all()
    # the first box sits in the middle of its 300 x 300 window: its centre is kept, the corner darkened
    centre = views[0, 30:34, 30:34].astype(int)
    corner = views[0, :4, :4].astype(int)
    assert centre.mean() > 0.9 * screen[110:130, 140:160].mean() - 5
    assert corner.mean() < 0.5 * screen.mean()
    assert (views[0] == OUTLINE).all(axis=-1).sum() > 50  # the outline ring
    # one view alone is the same as in the batch
    assert np.array_equal(reader_views(screen, boxes[1:2], geometry)[0], views[1])
    features = box_features(boxes, 1280, 800)
    assert features.shape == (4, 3) and np.isclose(features[0, 2], np.log(100 / 40) / 3)


def test_geometry_comes_from_the_manifest_entry_with_defaults() -> None:
    geometry = ViewGeometry.from_mapping({"size": 80, "context": 2.5, "unknown": 1})
    assert geometry.size == 80 and geometry.context == 2.5 and geometry.max_window == ViewGeometry.max_window
    assert ViewGeometry.from_mapping(None) == ViewGeometry()


def test_states_apply_only_to_their_types() -> None:
    checked, selected = STATES.index("checked"), STATES.index("selected")
    assert APPLIES[TYPES.index(ElementType.CHECKBOX), checked]
    assert not APPLIES[TYPES.index(ElementType.BUTTON), checked]
    assert APPLIES[TYPES.index(ElementType.TAB), selected]
    assert not APPLIES[TYPES.index(ElementType.TEXT), STATES.index("disabled")]


def test_links_are_read_for_selected_but_not_trained_for_it() -> None:
    selected, link = STATES.index("selected"), TYPES.index(ElementType.LINK)
    assert APPLIES[link, selected] and not APPLIES[TYPES.index(ElementType.BUTTON), selected]
    assert not state_applies([ElementType.LINK])[0, selected]


@pytest.fixture(scope="module")
def stage() -> ReaderAttributeStage:
    settings = Settings()
    try:
        return ReaderAttributeStage(settings)
    except StageUnavailable as exc:
        pytest.fail(f"the shipped reader is missing: {exc}")


@pytest.fixture(scope="module")
def page() -> Page:
    """The page's screenshot and the box of each element (CSS pixels at device scale 1)."""
    return page_with_boxes(PAGE, IDS, (1280, 800))


def read_page(stage: ReaderAttributeStage, page: Page) -> dict[str, Element]:
    """The reader's answer for each element of the page, by id (the boxes given, types hidden)."""
    image, boxes = page
    elements = [Element(boxes[i], ElementType.TEXT, id=n, source="test") for n, i in enumerate(IDS)]
    parse = ScreenParse(width=image.shape[1], height=image.shape[0], elements=elements)
    return {i: e for i, e in zip(IDS, stage.run([image], [parse])[0].elements, strict=True)}


def test_shipped_reader_reads_checkboxes_buttons_and_inputs_of_a_rendered_page(
    stage: ReaderAttributeStage, page: Page
) -> None:
    read = read_page(stage, page)
    assert read["on"].type is ElementType.CHECKBOX and read["on"].state.checked is True
    assert read["off"].type is ElementType.CHECKBOX and read["off"].state.checked is False
    assert read["save"].type is ElementType.BUTTON and read["save"].state.disabled is False
    assert read["gone"].type is ElementType.BUTTON
    assert read["name"].type is ElementType.INPUT
    # states that do not apply stay unknown, and every element is tagged as read
    assert read["save"].state.checked is None and read["name"].state.selected is None
    assert all(e.source.endswith("+reader") for e in read.values())


def test_what_the_merge_settled_as_plain_text_is_not_read_again(
    stage: ReaderAttributeStage, page: Page
) -> None:
    image, boxes = page
    settled = Element(boxes["save"], ElementType.TEXT, text="Save", source="detector", interactive=False)
    parse = ScreenParse(width=image.shape[1], height=image.shape[0], elements=[settled])
    assert stage.run([image], [parse])[0].elements == [settled]


def test_shipped_reader_reads_a_selected_tab(stage: ReaderAttributeStage, page: Page) -> None:
    read = read_page(stage, page)
    assert read["tab-home"].type is ElementType.TAB and read["tab-home"].state.selected is True
    assert read["tab-other"].type is ElementType.TAB and read["tab-other"].state.selected is False


@pytest.mark.xfail(
    strict=True, reason="issue 20: ui-reader misses Chromium's default disabled button (p = 0.2)"
)
def test_shipped_reader_reads_a_disabled_button(stage: ReaderAttributeStage, page: Page) -> None:
    read = read_page(stage, page)
    assert read["gone"].state.disabled is True


def test_the_opt_in_dimmed_model_reads_the_disabled_button(page: Page) -> None:
    settings = Settings()
    attributes = settings.attributes.model_copy(update={"disabled_model": "ui-dimmed"})
    with_dimmed = ReaderAttributeStage(settings.model_copy(update={"attributes": attributes}))
    assert with_dimmed.dimmed is not None, "ui-dimmed is not in the manifest"
    read = read_page(with_dimmed, page)
    assert read["gone"].state.disabled is True and read["save"].state.disabled is False
    assert read["name"].state.disabled is False


def test_a_marked_checkbox_stays_one_unless_the_reader_is_sure() -> None:
    marked = Element(
        (10, 10, 40, 40), ElementType.CHECKBOX, state=ElementState(checked=True), source="detector"
    )
    plain = Element((50, 10, 90, 40), ElementType.TEXT, text="Go", source="ocr")
    button, checkbox = TYPES.index(ElementType.BUTTON), TYPES.index(ElementType.CHECKBOX)
    states = np.array([[0.1, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.9]], dtype=np.float32)

    def reading(types: list[int], confidence: list[float]) -> Reading:
        return Reading(np.array(types), np.array(confidence, dtype=np.float32), states)

    kept, retyped = apply_reading([marked, plain], reading([button, button], [0.7, 0.7]), 0.0)
    assert kept.type is ElementType.CHECKBOX and kept.state.checked is True  # the mark's fill, not p = 0.1
    assert (
        retyped.type is ElementType.BUTTON
        and retyped.state.disabled is True
        and retyped.state.checked is None
    )
    overruled, _ = apply_reading([marked, plain], reading([button, checkbox], [0.95, 0.7]), 0.0)
    assert overruled.type is ElementType.BUTTON and overruled.state.checked is None
    unsure, _ = apply_reading([marked, plain], reading([button, button], [0.3, 0.3]), 0.5)
    assert unsure is marked


def test_a_square_textless_box_read_as_text_keeps_its_own_type() -> None:
    """A toolbar's ``A`` or a paint program's ``T``: the reader's text for a small square detector box
    that holds no text gives way to the merge's type; a wide one (a word OCR missed) stays text, and so do
    a box with text and an OCR line."""
    glyph = Element((10, 10, 34, 34), ElementType.ICON, source="detector")
    word = Element((40, 10, 120, 34), ElementType.ICON, source="detector")
    named = Element((130, 10, 154, 34), ElementType.BUTTON, text="A", source="detector")
    line = Element((160, 10, 184, 34), ElementType.TEXT, text="B", source="ocr")
    big = Element((200, 10, 300, 110), ElementType.ICON, source="detector")
    text = TYPES.index(ElementType.TEXT)
    elements = [glyph, word, named, line, big]
    reading = Reading(np.full(5, text), np.full(5, 0.9, np.float32), np.zeros((5, 4), np.float32))
    fixed = textless_glyphs(elements, reading)
    assert fixed.type_index.tolist() == [TYPES.index(ElementType.ICON), text, text, text, text]
    assert [e.type for e in apply_reading(elements, reading, 0.0)] == [
        ElementType.ICON,
        *[ElementType.TEXT] * 4,
    ]


def test_a_checkable_without_an_indicator_takes_the_readers_next_type() -> None:
    probs = np.zeros((2, len(TYPES)), dtype=np.float32)
    probs[:, TYPES.index(ElementType.RADIO)] = 0.5
    probs[:, TYPES.index(ElementType.CHECKBOX)] = 0.3
    probs[:, TYPES.index(ElementType.ICON)] = 0.15
    probs[:, TYPES.index(ElementType.TEXT)] = 0.05
    radio = TYPES.index(ElementType.RADIO)
    reading = Reading(
        np.array([radio, radio]), np.array([0.5, 0.5], np.float32), np.zeros((2, 4), np.float32), probs
    )
    overruled = without_checkables(reading, np.array([1]))
    assert overruled.type_index.tolist() == [radio, TYPES.index(ElementType.ICON)]
    assert overruled.type_confidence.tolist() == pytest.approx([0.5, 0.15])
    assert without_checkables(reading, np.array([], dtype=np.int64)) is reading


def test_a_near_checkable_with_a_sure_indicator_takes_a_checkable_type() -> None:
    button, radio, checkbox = (
        TYPES.index(t) for t in (ElementType.BUTTON, ElementType.RADIO, ElementType.CHECKBOX)
    )
    probs = np.zeros((3, len(TYPES)), dtype=np.float32)
    probs[:, button], probs[:, radio], probs[:, checkbox] = 0.4, 0.35, 0.05
    reading = Reading(np.full(3, button), np.full(3, 0.4, np.float32), np.zeros((3, 4), np.float32), probs)
    assert near_checkable(reading).all()
    answered = with_check_answers(
        reading,
        np.arange(3),
        on=np.array([0.9, 0.1, 0.2], np.float32),
        indicator=np.array([0.95, 0.95, 0.5], np.float32),
        own_types=np.array([-1, checkbox, -1]),  # the second is a segmenter mark, a checkbox to its rules
    )
    # sure of an indicator: the reader's best checkable type, or the mark's own; unsure: the reader's answer
    assert answered.type_index.tolist() == [radio, checkbox, button]
    assert answered.type_confidence.tolist() == pytest.approx([0.35, 0.05, 0.4])
    assert answered.state_probability[:, STATES.index("checked")].tolist() == pytest.approx([0.9, 0.1, 0.2])


def reading_of_types(read: list[tuple[ElementType, float, ElementType, float]]) -> Reading:
    """A reading whose rows give two types their probabilities (the first the answer)."""
    probs = np.zeros((len(read), len(TYPES)), dtype=np.float32)
    for row, (first, p_first, second, p_second) in enumerate(read):
        probs[row, TYPES.index(first)] = p_first
        probs[row, TYPES.index(second)] = p_second
    index = probs.argmax(axis=1)
    return Reading(index, probs[np.arange(len(read)), index], np.zeros((len(read), 4), np.float32), probs)


def test_a_column_of_rows_takes_its_menu_type() -> None:
    """A context menu: seven stacked rows the reader calls menu items, inputs or text become menu items;
    a dropdown in the column and a box beside it keep their own types."""
    rows = [
        Element((100, 100 + 30 * i, 350, 130 + 30 * i), ElementType.ICON, source="detector") for i in range(7)
    ]
    beside = Element((400, 100, 650, 130), ElementType.ICON, source="detector")
    line = Element((100, 310, 350, 340), ElementType.TEXT, text="Quit", source="ocr")
    menu, field, text = ElementType.MENU_ITEM, ElementType.INPUT, ElementType.TEXT
    read = [
        (menu, 0.8, field, 0.2),
        (field, 0.55, menu, 0.45),
        (menu, 0.7, text, 0.3),
        (text, 0.6, menu, 0.4),
        (field, 0.5, menu, 0.4),
        (menu, 0.9, text, 0.1),
        (ElementType.DROPDOWN, 0.9, menu, 0.1),
        (field, 0.9, menu, 0.1),
        (text, 0.9, menu, 0.1),
    ]
    elements = [*rows, beside, line]
    assert column_groups(np.asarray([e.bbox for e in rows], np.float64)).tolist() == [0] * 7
    fixed = column_types(elements, reading_of_types(read))
    assert [TYPES[i] for i in fixed.type_index] == [menu] * 6 + [ElementType.DROPDOWN, field, text]
    assert fixed.type_confidence[1] == pytest.approx(0.45)


def test_lines_of_a_selected_paragraph_are_text() -> None:
    """A word processor's selected paragraph (LibreOffice on a ScreenAgent desktop, its OCR boxes): the
    reader, seeing each line on the selection's blue, called some list rows and buttons; they are text, and
    a line it called a link keeps that. A menu's rows (short, further apart) and a list of long rows
    spaced a height apart stay what the reader called them."""
    item, button, link, text = ElementType.LIST_ITEM, ElementType.BUTTON, ElementType.LINK, ElementType.TEXT
    paragraph = [
        ((153, 243, 736, 263), "ChatGPT is a language model developed by Large Model Systems", text),
        ((151, 259, 745, 283), "Organization (LMSYS). It is a deep learning model that uses a", item),
        ((152, 280, 773, 300), "transformer architecture to generate human-like text. ChatGPT is", item),
        ((152, 299, 791, 319), "trained on a large corpus of text data and can be used for various", link),
        ((152, 318, 716, 338), "natural language processing tasks such as text generation,", button),
        ((152, 336, 587, 356), "question answering, and language translation.", text),
    ]
    menu = [  # tightly stacked items of three words: short lines, no prose
        ((600, 400 + 22 * i, 700, 418 + 22 * i), name, item)
        for i, name in enumerate(("Save as PDF", "Print to file", "Send by mail"))
    ]
    rows = [
        ((100, 500 + 40 * i, 700, 520 + 40 * i), f"Report number {i} for the quarter and the year", item)
        for i in range(3)
    ]
    drawn = [*paragraph, *menu, *rows]
    elements = [Element(box, ElementType.TEXT, text=words, source="ocr") for box, words, _ in drawn]
    read = [(kind, 0.7, text if kind is not text else item, 0.3) for _, _, kind in drawn]
    fixed = paragraph_types(elements, reading_of_types(read))
    assert [TYPES[i] for i in fixed.type_index] == [text, text, text, link, text, text] + [item] * 6
    # a detector's boxes are controls, not lines of prose
    boxed = [e.replace(source="detector") for e in elements]
    assert paragraph_types(boxed, reading_of_types(read)).type_index.tolist() == [
        TYPES.index(kind) for _, _, kind in drawn
    ]


def test_a_form_label_is_text() -> None:
    """A settings form's labels (Qt's, LibreOffice's), in a row with their fields, read as tabs, links and
    list rows: text ending in a colon is a label. A navigation line's link read with the next label
    (``Structures, Up:``), a longer sentence and a field's text stay what the reader called them."""
    tab, link, item, text = ElementType.TAB, ElementType.LINK, ElementType.LIST_ITEM, ElementType.TEXT
    read_as = [
        ("Username:", tab),
        ("Font size:", link),
        ("端口：", item),
        ("Structures, Up:", link),
        ("The following packages will be upgraded:", item),
        ("8080", ElementType.INPUT),
        ("Save", ElementType.BUTTON),
    ]
    elements = [
        Element((100, 100 + 30 * i, 200, 124 + 30 * i), ElementType.TEXT, text=words, source="ocr")
        for i, (words, _) in enumerate(read_as)
    ]
    read = [(kind, 0.7, text if kind is not text else item, 0.3) for _, kind in read_as]
    fixed = label_types(elements, reading_of_types(read))
    assert [TYPES[i] for i in fixed.type_index] == [
        text,
        text,
        text,
        link,
        item,
        ElementType.INPUT,
        ElementType.BUTTON,
    ]


def test_a_lists_framed_row_read_as_a_field_is_one_of_its_rows() -> None:
    """A web list of touching rows of one and two lines (41 and 57 px): the reader called its first row,
    drawn in a frame, a field. It is one of the list's rows; a table's header touching its first row, read
    as a button, stays a button, and inputs in a list of inputs stay inputs."""
    tops = [69, 110, 167, 219, 271, 312]
    heights = [41, 57, 52, 52, 41, 41]
    rows = [
        Element((19, top, 841, top + high), ElementType.ICON, source="detector")
        for top, high in zip(tops, heights, strict=True)
    ]
    item, field, button = ElementType.LIST_ITEM, ElementType.INPUT, ElementType.BUTTON
    read = [(field, 0.7, item, 0.3)] + [(item, 0.9, field, 0.1)] * 5
    boxes = np.asarray([e.bbox for e in rows], np.float64)
    assert column_groups(boxes)[0] == -1  # one line high against two: no column by height alone
    fixed = list_types(rows, reading_of_types(read))
    assert [TYPES[i] for i in fixed.type_index] == [item] * 6
    header = Element((19, 40, 841, 69), ElementType.ICON, source="detector")  # touches the first row
    with_header = [header, *rows]
    assert len(set(list_groups(np.asarray([e.bbox for e in with_header], np.float64)).tolist())) == 1
    fixed = list_types(with_header, reading_of_types([(button, 0.8, item, 0.2), *read]))
    assert [TYPES[i] for i in fixed.type_index] == [button] + [item] * 6
    fields = list_types(rows, reading_of_types([(field, 0.8, item, 0.2)] * 6))
    assert [TYPES[i] for i in fields.type_index] == [field] * 6


def test_a_column_whose_rows_read_as_fields_stays_fields() -> None:
    fields = [
        Element((100, 100 + 40 * i, 350, 130 + 40 * i), ElementType.ICON, source="detector") for i in range(3)
    ]
    read = [(ElementType.INPUT, 0.8, ElementType.MENU_ITEM, 0.2)] * 3
    assert (
        column_types(fields, reading_of_types(read)).type_index.tolist()
        == [TYPES.index(ElementType.INPUT)] * 3
    )


def test_a_row_of_items_read_mostly_as_tabs_is_tabs() -> None:
    """A category bar: four boxes side by side with the same top and bottom, of any widths, two read as
    tabs, one as a button, one as a link; a box lower down and a picture in the row keep their types."""
    widths = (80, 140, 60, 110)
    starts = np.cumsum((100, *[w + 20 for w in widths[:-1]]))
    items = [
        Element((int(x), 50, int(x) + w, 86), ElementType.ICON, source="detector")
        for x, w in zip(starts, widths, strict=True)
    ]
    lower = Element((100, 120, 180, 156), ElementType.ICON, source="detector")
    tab, button, link = ElementType.TAB, ElementType.BUTTON, ElementType.LINK
    read = [(tab, 0.6, button, 0.4), (button, 0.5, tab, 0.4), (tab, 0.7, link, 0.3), (link, 0.5, tab, 0.45)]
    read += [(button, 0.9, tab, 0.1)]
    elements = [*items, lower]
    assert row_groups(np.asarray([e.bbox for e in elements], np.float64)).tolist() == [0] * 4 + [-1]
    fixed = tab_types(elements, reading_of_types(read))
    assert [TYPES[i] for i in fixed.type_index] == [tab] * 4 + [button]


def test_a_toolbars_glyphs_read_as_icons_are_its_buttons() -> None:
    """A word processor's toolbar (LibreOffice on a ScreenAgent desktop): six glyph buttons side by side, two
    read as bare icons, become buttons like the rest; a phone's status bar, a row of glyphs read as icons,
    keeps them icons, and a picture in the toolbar's row keeps its type."""
    button, icon = ElementType.BUTTON, ElementType.ICON
    toolbar = [Element((180 + 34 * k, 53, 206 + 34 * k, 79), icon, source="detector") for k in range(6)]
    picture = Element((400, 53, 426, 79), icon, source="detector")
    read = [(button, 0.7, icon, 0.3), (icon, 0.6, button, 0.4), (button, 0.8, icon, 0.2)]
    read += [(icon, 0.55, button, 0.45), (button, 0.6, icon, 0.4), (button, 0.7, icon, 0.3)]
    read += [(ElementType.IMAGE, 0.9, icon, 0.1)]
    fixed = toolbar_types([*toolbar, picture], reading_of_types(read))
    assert [TYPES[i] for i in fixed.type_index] == [button] * 6 + [ElementType.IMAGE]
    assert fixed.type_confidence[1] == pytest.approx(0.4)
    status_bar = [Element((400 + 30 * k, 5, 420 + 30 * k, 25), icon, source="detector") for k in range(4)]
    glyphs = [(icon, 0.8, button, 0.2), (icon, 0.7, button, 0.3), (button, 0.6, icon, 0.4)]
    glyphs += [(icon, 0.9, button, 0.1)]
    kept = toolbar_types(status_bar, reading_of_types(glyphs))
    assert [TYPES[i] for i in kept.type_index] == [icon, icon, button, icon]


def test_a_tab_bar_with_no_tab_read_selected_takes_its_clear_favourite() -> None:
    """Bing's WEB / IMAGES / VIDEOS bar: the reader gives the current tab a small chance that stands far above
    the others'; a bar whose best is no clear favourite, or that already has a selected tab, is left."""
    tab, selected = ElementType.TAB, STATES.index("selected")
    bar = [Element((100 + 90 * k, 50, 180 + 90 * k, 80), tab, source="detector") for k in range(4)]

    def reading(chances: list[float]) -> Reading:
        states = np.zeros((len(chances), 4), np.float32)
        states[:, selected] = chances
        index = np.full(len(chances), TYPES.index(tab))
        return Reading(index, np.full(len(chances), 0.9, np.float32), states)

    def chosen(chances: list[float]) -> list[bool]:
        answered = current_tabs(bar, reading(chances)).state_probability[:, selected] >= 0.5
        return answered.tolist()

    assert chosen([0.0, 0.02, 0.001, 0.0]) == [False, True, False, False]
    assert chosen([0.0, 0.02, 0.01, 0.0]) == [False] * 4  # not three times the next
    assert chosen([0.0, 0.003, 0.0, 0.0]) == [False] * 4  # below the floor
    assert chosen([0.9, 0.2, 0.0, 0.0]) == [True, False, False, False]  # one already selected
    pair = current_tabs(bar[:2], reading([0.0, 0.3])).state_probability[:, selected]
    assert (pair < 0.5).all()  # two tabs are no bar (a menu bar's two items read as tabs)


def test_a_control_drawn_as_dark_as_its_enabled_row_is_not_disabled() -> None:
    """A row of four menu labels, the reader calling the third disabled: cleared when it is drawn like the
    others, kept when it is greyed out (the dim `Next >` beside `Cancel`)."""
    from PIL import Image, ImageDraw

    from detact_service.understanding.reader import relative_disabled

    def row(grey_third: bool) -> tuple[np.ndarray, list[Element]]:
        image = Image.new("RGB", (500, 60), (235, 235, 235))
        draw = ImageDraw.Draw(image)
        elements = []
        for i, word in enumerate(["File", "Edit", "View", "Help"]):
            x = 20 + 110 * i
            ink = (200, 200, 200) if grey_third and i == 2 else (40, 40, 40)
            draw.rectangle((x + 10, 24, x + 70, 36), fill=ink)  # the label's ink
            state = ElementState(disabled=i == 2)
            elements.append(Element((x, 15, x + 80, 45), ElementType.MENU_ITEM, text=word, state=state))
        return np.asarray(image), elements

    image, elements = row(grey_third=False)
    assert [e.state.disabled for e in relative_disabled(image, elements)] == [False] * 4
    image, elements = row(grey_third=True)
    assert [e.state.disabled for e in relative_disabled(image, elements)] == [False, False, True, False]
    alone = elements[2:3]  # no row to compare with: the reader's answer stands
    assert relative_disabled(image, alone) == alone


def test_a_control_no_paler_than_the_screens_enabled_ones_of_its_kind_is_not_disabled() -> None:
    """A status bar's `100%` and an address bar's URL, grey on their own and with no row of their kind to
    compare with, read as disabled; a control is disabled when it is drawn paler than the screen's enabled
    ones of its type, or stands in a mostly disabled column (a disabled table)."""
    from PIL import Image, ImageDraw

    from detact_service.understanding.reader import paler_than_its_kind

    image = Image.new("RGB", (900, 500), (240, 240, 240))
    draw = ImageDraw.Draw(image)
    elements = []

    def button(x: int, y: int, ink: tuple[int, int, int], disabled: bool) -> None:
        draw.rectangle((x + 10, y + 10, x + 70, y + 20), fill=ink)  # the caption's ink
        box = (x, y, x + 80, y + 30)
        elements.append(Element(box, ElementType.BUTTON, state=ElementState(disabled=disabled)))

    for k in range(4):  # enabled buttons, dark captions, scattered
        button(20 + 200 * k, 20 + 60 * (k % 2), (30, 30, 30), False)
    button(20, 300, (110, 110, 110), True)  # grey, but not much paler: a status bar's text
    button(300, 300, (205, 205, 205), True)  # a greyed-out button
    for k in range(3):  # a disabled table's column: grey, the reader unsure of one cell
        button(600, 200 + 32 * k, (80, 80, 80), k != 1)
    said = [e.state.disabled for e in paler_than_its_kind(np.asarray(image), elements)]
    assert said == [False] * 4 + [False, True] + [True, False, True]
    alone = elements[4:6]  # no enabled ones of their kind: the reader's answers stand
    assert paler_than_its_kind(np.asarray(image), alone) == alone


def test_a_fields_pale_text_is_no_disabled_field_outside_a_disabled_panel() -> None:
    """A search box's query or placeholder, pale, reads as disabled; a field is disabled only in a mostly
    disabled column (a disabled form), and other controls keep the reader's answer."""
    from detact_service.understanding.reader import enabled_fields

    dimmed, enabled = ElementState(disabled=True), ElementState(disabled=False)
    search = Element((430, 106, 704, 150), ElementType.INPUT, text="Search", state=dimmed)
    button = Element((720, 106, 800, 150), ElementType.BUTTON, text="Go", state=dimmed)
    form = [
        Element((40, 300 + 40 * k, 300, 330 + 40 * k), kind, state=dimmed if k != 2 else enabled)
        for k, kind in enumerate(
            (ElementType.INPUT, ElementType.TEXTAREA, ElementType.INPUT, ElementType.INPUT)
        )
    ]
    said = [e.state.disabled for e in enabled_fields([search, button, *form])]
    assert said == [False, True, True, True, False, True]


FORM = """<!doctype html><html><body style="font: 16px sans-serif; margin: 60px; background: #2b2b2b;
color: #ddd"><div id="row" style="width: 420px; padding: 6px 4px">
<label id="label"><input type="checkbox" checked style="width: 16px; height: 16px"> Remember me</label>
</div></body></html>"""


def test_a_check_box_boxed_across_its_form_row_is_a_check_box_its_labels_width() -> None:
    """The detector boxes a desktop form's check box across the form's row, as on a phone; the reader,
    seeing a row, reads a list row, and the check model, sure of the indicator, makes it a check box that
    ends where its label does."""
    stage = ReaderAttributeStage(Settings())
    image, boxes = page_with_boxes(FORM, ("row", "label"), (1024, 768))
    row = Element(boxes["row"], ElementType.TEXT, text="Remember me", source="detector")
    read = stage.run([image], [ScreenParse(1024, 768, [row])])[0].elements[0]
    assert read.type is ElementType.CHECKBOX and read.state.checked is True
    label = boxes["label"]
    assert read.bbox[0] == row.bbox[0] and abs(read.bbox[2] - label[2]) <= 8
    phone = np.ascontiguousarray(np.resize(image, (1800, 1024, 3)))  # the same row on a phone-shaped screen
    kept = stage.run([phone], [ScreenParse(1024, 1800, [row])])[0].elements[0]
    assert kept.type is not ElementType.CHECKBOX and kept.bbox == row.bbox
