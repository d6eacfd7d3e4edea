from pathlib import Path

import numpy as np
import pytest

from detact_service.core import Element, ElementState, ElementType, ScreenParse
from detact_service.understanding.layout_types import layout_types, title_word

SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "samples" / "desktop-screenagent"


def parse_of(*elements: Element) -> ScreenParse:
    return ScreenParse(1024, 768, [e.replace(id=i) for i, e in enumerate(elements)])


def test_a_box_with_text_and_a_down_arrow_at_its_end_is_a_dropdown() -> None:
    combo = Element(
        (240, 683, 324, 717), ElementType.BUTTON, text="Qty: 1 v", state=ElementState(disabled=False)
    )
    arrow = Element((295, 690, 316, 710), ElementType.BUTTON, icon="chevron down")
    after = Element((400, 683, 480, 717), ElementType.BUTTON, text="Buy now")
    parse = layout_types(parse_of(combo, arrow, after))
    assert [(e.id, e.type, e.text) for e in parse.elements] == [
        (0, ElementType.DROPDOWN, "Qty: 1"),  # the arrow read as 'v' leaves the text
        (1, ElementType.BUTTON, "Buy now"),  # the arrow is part of the dropdown; ids run on
    ]
    assert parse.elements[0].state.disabled is False


def test_a_split_button_and_an_arrow_in_the_middle_are_not_dropdowns() -> None:
    split = Element((649, 46, 702, 84), ElementType.BUTTON)  # a toolbar's icon and its arrow: no text
    split_arrow = Element((688, 61, 700, 73), ElementType.BUTTON, icon="chevron down")
    label = Element((100, 200, 400, 230), ElementType.TEXT, text="Show more below")
    middle = Element((240, 205, 260, 225), ElementType.ICON, icon="chevron down")  # not at its right end
    textless = Element((1, 681, 1023, 719), ElementType.LIST_ITEM)
    end_arrow = Element((1000, 690, 1018, 710), ElementType.ICON, icon="chevron down")
    row = Element((20, 333, 1000, 411), ElementType.LIST_ITEM, text="Jonas - Analytics backup")  # expands
    row_arrow = Element((960, 360, 979, 372), ElementType.ICON, icon="chevron down")
    only_arrow = Element((20, 420, 300, 450), ElementType.LIST_ITEM, text="V")  # OCR read the arrow alone
    only_arrow_arrow = Element((280, 427, 296, 443), ElementType.ICON, icon="chevron down")
    area = Element((0, 170, 310, 241), ElementType.TEXTAREA, text="Diam tristique commodo")
    area_arrow = Element((275, 180, 305, 210), ElementType.BUTTON, icon="menu down")  # its scroll arrow
    before = parse_of(
        split,
        split_arrow,
        label,
        middle,
        textless,
        end_arrow,
        row,
        row_arrow,
        only_arrow,
        only_arrow_arrow,
        area,
        area_arrow,
    )
    assert layout_types(before).elements == before.elements


def test_a_row_from_file_with_menu_titles_is_a_menu_bar() -> None:
    titles = ["&File", "Edit", "View", "Insert", "Slide Show", "Help"]
    x = 0
    items = []
    for i, title in enumerate(titles):
        width = 12 * len(title)
        kind = ElementType.TAB if i == 3 else ElementType.BUTTON
        items.append(
            Element((x, 18 + i % 2, x + width, 45), kind, text=title, state=ElementState(checked=False))
        )
        x += width + 4
    far = Element((x + 400, 18, x + 460, 45), ElementType.BUTTON, text="Share")  # beyond the bar
    below = Element((0, 60, 40, 90), ElementType.BUTTON, text="Edit")
    parse = layout_types(parse_of(*items, far, below))
    types = [e.type for e in parse.elements]
    assert types == [ElementType.MENU_ITEM] * len(titles) + [ElementType.BUTTON, ElementType.BUTTON]
    assert all(e.state.checked is None for e in parse.elements[: len(titles)])  # no check on a menu title


def test_a_menu_bar_whose_file_box_reaches_into_the_title_bar_keeps_its_last_title() -> None:
    """LibreOffice Writer on a real desktop, read by the desktop detector: ``File`` boxed from the screen's
    top (45 px tall), ``Help`` 22 px tall."""
    boxes = {"File": (0, 0, 40, 45), "Edit": (39, 18, 81, 45), "View": (80, 17, 129, 45)}
    boxes |= {"Insert": (128, 18, 180, 45), "Format": (181, 19, 242, 45), "Styles": (244, 19, 297, 45)}
    boxes |= {"Table": (301, 19, 348, 45), "Form": (349, 22, 396, 45), "Tools": (398, 20, 447, 45)}
    boxes |= {"Window": (447, 18, 515, 45), "Help": (518, 22, 557, 44)}
    items = [Element(box, ElementType.BUTTON, text=title) for title, box in boxes.items()]
    parse = layout_types(parse_of(*items))
    assert [(e.text, e.type) for e in parse.elements] == [(title, ElementType.MENU_ITEM) for title in boxes]


def test_a_title_just_before_a_close_button_in_the_tab_strip_is_a_tab_reaching_to_it() -> None:
    """Firefox's tab strip read in pieces; a window's title bar and a formula bar's cancel cross are not
    tabs."""
    title = Element((234, 27, 415, 47), ElementType.TEXT, text="[2108.12987] CAST: En")
    close = Element((418, 21, 449, 55), ElementType.BUTTON, icon="close")
    window = Element((89, 63, 333, 100), ElementType.LIST_ITEM, text="Calculator")
    maximise = Element((316, 64, 360, 99), ElementType.BUTTON, icon="square")
    window_close = Element((360, 64, 404, 99), ElementType.BUTTON, icon="close")
    fx = Element((574, 25, 600, 55), ElementType.BUTTON, text="fx")
    cancel = Element((606, 28, 626, 50), ElementType.BUTTON, icon="close")
    parse = layout_types(parse_of(title, close, window, maximise, window_close, fx, cancel))
    assert [(e.type, e.bbox, e.text) for e in parse.elements] == [
        (ElementType.TAB, (234, 21, 449, 55), "[2108.12987] CAST: En"),
        *[(e.type, e.bbox, e.text) for e in (close, window, maximise, window_close, fx, cancel)],
    ]


def test_a_screen_without_elements_stays_empty() -> None:
    assert layout_types(parse_of()).elements == []


def test_a_ribbon_and_a_lone_file_button_stay_as_they_are() -> None:
    def row(titles: list[str]) -> list[Element]:
        return [
            Element((60 * i, 30, 60 * i + 50, 60), ElementType.TAB, text=title)
            for i, title in enumerate(titles)
        ]

    ribbon = parse_of(*row(["文件", "开始", "插入", "设计", "视图", "帮助"]))
    assert layout_types(ribbon).elements == ribbon.elements
    dialog = parse_of(*row(["File", "Save", "Cancel"]))
    assert layout_types(dialog).elements == dialog.elements
    assert title_word("文件(F)") == "文件" and title_word(" &File ") == "file"


def full_parse(sample: str) -> ScreenParse:
    """The ``full`` parse of one of the team's ScreenAgent desktops (skipped when they are not beside the
    checkout)."""
    from PIL import Image

    from detact_service.pipeline import get_pipeline
    from detact_service.settings import Settings

    found = sorted(SAMPLES.glob(f"{sample}*.jpg"))
    if not found:
        pytest.skip(f"{SAMPLES} is not beside the checkout")
    with Image.open(found[0]) as opened:
        image = np.asarray(opened.convert("RGB"))
    return get_pipeline(Settings(device="cpu"), "full").parse(image)


def texts_of(parse: ScreenParse, kind: ElementType) -> set[str | None]:
    return {e.text for e in parse.elements if e.type is kind}


def test_a_real_libreoffice_screen_gets_its_menu_bar_and_dropdowns() -> None:
    """LibreOffice Impress on a real desktop: the reader alone called the menu bar's titles buttons and the
    sidebar's combo boxes list items."""
    parse = full_parse("6d2d79fb")
    assert {"File", "Edit", "View", "Format", "Tools", "Help"} <= texts_of(parse, ElementType.MENU_ITEM)
    assert {"Screen 16:9", "Landscape", "Blue_Curve"} <= texts_of(parse, ElementType.DROPDOWN)
    assert [e.id for e in parse.elements] == list(range(len(parse.elements)))


def test_a_real_browser_screen_gets_its_tabs_and_its_search_fields_dropdown() -> None:
    """arXiv in Firefox on a real desktop: the tab strip's titles (read as buttons) and the search form's
    field chooser (read as an image). ``ui-detector-desktop`` draws the active tab in pieces (its favicon,
    its title's text, its close button): the title reaches to its close button (``tabs_beside_close``)."""
    parse = full_parse("c75e3289")
    assert any(str(text).startswith("[2108.12987] CAST") for text in texts_of(parse, ElementType.TAB))
    assert "All fields" in texts_of(parse, ElementType.DROPDOWN)
    assert "https://arxiv.org/abs/2108.12987" in texts_of(parse, ElementType.INPUT)  # the address bar


def test_a_placeholder_just_right_of_a_magnifier_that_no_box_holds_is_a_field() -> None:
    """The Windows taskbar's search box: its magnifier and its words, no box round both."""
    magnifier = Element((49, 728, 84, 768), ElementType.BUTTON, icon="search")
    words = Element((82, 738, 219, 758), ElementType.TEXT, text="Type here to search")
    other = Element((449, 728, 484, 768), ElementType.BUTTON, icon="search")
    label = Element((490, 738, 560, 758), ElementType.TEXT, text="Search")  # a button's label: one word
    far = Element((600, 738, 760, 758), ElementType.TEXT, text="Search the docs")  # beyond two magnifiers
    parse = layout_types(parse_of(magnifier, words, other, label, far))
    assert [e.type for e in parse.elements] == [
        ElementType.BUTTON,
        ElementType.INPUT,
        ElementType.BUTTON,
        ElementType.TEXT,
        ElementType.TEXT,
    ]


def test_a_wide_box_near_the_top_whose_text_is_a_url_is_an_enabled_address_bar() -> None:
    dimmed = ElementState(disabled=True)
    bar = Element(
        (193, 59, 826, 88), ElementType.BUTTON, text="https://www.bilibili.com/video/BV1", state=dimmed
    )
    edge_bar = Element((100, 38, 400, 66), ElementType.LIST_ITEM, text="https://unsplash.com")
    hostname = Element((240, 100, 500, 124), ElementType.TEXT, text="bilibili.com/video/BV1")
    tab = Element((222, 20, 448, 54), ElementType.TAB, text="https://example.org/page")  # titled by its URL
    status = Element((0, 722, 853, 741), ElementType.TEXT, text="https://cc.58.com/ershouche/")  # a preview
    result = Element((213, 303, 362, 323), ElementType.LINK, text="https://www.lssjt.com")  # a result's URL
    words = Element((600, 100, 900, 124), ElementType.BUTTON, text="Search or enter address")
    tile = Element((152, 20, 261, 60), ElementType.BUTTON, text="cn.bing")  # a top site: no path, no scheme
    parse = layout_types(parse_of(bar, edge_bar, hostname, tab, status, result, words, tile))
    assert [(e.type, e.state.disabled) for e in parse.elements] == [
        (ElementType.INPUT, False),
        (ElementType.INPUT, False),
        (ElementType.INPUT, False),
        (ElementType.TAB, None),
        (ElementType.TEXT, None),
        (ElementType.LINK, None),
        (ElementType.BUTTON, None),
        (ElementType.BUTTON, None),
    ]


def test_a_title_with_a_close_button_across_the_top_is_a_tab() -> None:
    tab = Element((222, 20, 448, 54), ElementType.BUTTON, text="[2108.12987] CAST: En X")
    part = Element((380, 22, 446, 52), ElementType.BUTTON, text="En X")  # a part of the title, boxed too
    close = Element((425, 31, 439, 45), ElementType.BUTTON, icon="close")
    chip = Element((222, 420, 330, 450), ElementType.BUTTON, text="Python")  # lower down: a filter's chip
    chip_close = Element((308, 428, 322, 442), ElementType.BUTTON, icon="close")
    search = Element((500, 20, 800, 54), ElementType.INPUT, text="today in history")  # a field's clear button
    clear = Element((772, 28, 790, 46), ElementType.ICON, icon="close")
    parse = layout_types(parse_of(tab, part, close, chip, chip_close, search, clear))
    assert [(e.type, e.text) for e in parse.elements] == [
        (ElementType.TAB, "[2108.12987] CAST: En"),  # the widest box round the close button, its X gone
        (ElementType.BUTTON, "En X"),
        (ElementType.BUTTON, None),  # the close button stays: a control of its own
        (ElementType.BUTTON, "Python"),
        (ElementType.BUTTON, None),
        (ElementType.INPUT, "today in history"),
        (ElementType.ICON, None),
    ]


def test_a_toolbars_icons_are_buttons_where_most_of_its_row_are() -> None:
    """A toolbar (five glyphs side by side, two read as bare icons) is all buttons; a status bar's row of
    glyphs read mostly as icons, and an icon on its own, stay icons."""
    icon, button = ElementType.ICON, ElementType.BUTTON
    kinds = (button, icon, button, icon, button)
    toolbar = [Element((180 + 34 * k, 53, 206 + 34 * k, 79), kind) for k, kind in enumerate(kinds)]
    glyphs = (icon, icon, button)
    status = [Element((700 + 30 * k, 5, 720 + 30 * k, 25), kind) for k, kind in enumerate(glyphs)]
    alone = Element((500, 300, 524, 324), icon)
    parse = layout_types(parse_of(*toolbar, *status, alone))
    assert [e.type for e in parse.elements] == [button] * 5 + [icon, icon, button, icon]


def test_a_real_word_processors_toolbar_is_buttons() -> None:
    """LibreOffice Writer on a real desktop: its standard toolbar's glyphs, read one by one, came out part
    buttons, part icons."""
    parse = full_parse("session47")
    toolbar = [e for e in parse.elements if e.bbox[1] >= 45 and e.bbox[3] <= 85 and e.height >= 20]
    assert len(toolbar) >= 20
    assert not [e.bbox for e in toolbar if e.type is ElementType.ICON]


def test_a_wide_box_with_a_magnifier_at_one_end_is_a_search_field() -> None:
    """A page's search box (magnifier at its left) and a taskbar's (magnifier at its left, read as a list
    row) are fields; a ``Search`` button with its magnifier, a card holding one, a box with the magnifier
    in its middle, a browser tab whose favicon is a magnifier and a field with a clear button keep their
    types."""
    page_field = Element((67, 80, 449, 122), ElementType.TAB, text="Search high-resolution images")
    page_glyph = Element((86, 90, 106, 110), ElementType.BUTTON, icon="search")
    taskbar = Element((48, 728, 248, 767), ElementType.LIST_ITEM, text="Type here to search")
    taskbar_glyph = Element((49, 727, 84, 768), ElementType.BUTTON, icon="search")
    right_field = Element((430, 406, 705, 449), ElementType.BUTTON, text="数码宝贝新世纪")
    right_glyph = Element((666, 417, 689, 441), ElementType.BUTTON, icon="search")
    button = Element((318, 195, 376, 222), ElementType.BUTTON, text="Bing")  # under 4.5 glyphs wide
    button_glyph = Element((318, 196, 338, 221), ElementType.BUTTON, icon="search")
    card = Element((600, 500, 900, 600), ElementType.LIST_ITEM, text="Find anything")  # 4 glyphs tall
    card_glyph = Element((610, 540, 635, 565), ElementType.ICON, icon="search")
    middle = Element((100, 300, 400, 330), ElementType.TEXT, text="Tip: press to find")
    middle_glyph = Element((240, 305, 260, 325), ElementType.ICON, icon="search")
    tab = Element((0, 21, 229, 54), ElementType.LINK, text="today in history - Search")  # the tab strip
    tab_glyph = Element((9, 30, 24, 45), ElementType.BUTTON, icon="search")
    filled = Element((500, 250, 800, 284), ElementType.BUTTON, text="cats")
    filled_glyph = Element((505, 257, 525, 277), ElementType.ICON, icon="search")
    clear = Element((772, 258, 790, 276), ElementType.ICON, icon="close")
    parse = layout_types(
        parse_of(
            page_field,
            page_glyph,
            taskbar,
            taskbar_glyph,
            right_field,
            right_glyph,
            button,
            button_glyph,
            card,
            card_glyph,
            middle,
            middle_glyph,
            tab,
            tab_glyph,
            filled,
            filled_glyph,
            clear,
        )
    )
    assert [e.type for e in parse.elements][::2] == [
        ElementType.INPUT,
        ElementType.INPUT,
        ElementType.INPUT,
        ElementType.BUTTON,
        ElementType.LIST_ITEM,
        ElementType.TEXT,
        ElementType.LINK,
        ElementType.BUTTON,
        ElementType.ICON,
    ]
    assert parse.elements[0].text == "Search high-resolution images"
    assert parse.elements[1].icon == "search"  # the magnifier stays: a control of its own


def test_a_phone_shaped_screens_top_search_field_is_a_field() -> None:
    """The tab-strip guard is a landscape screen's: a phone's search bar lies in its top twelfth."""
    field = Element((40, 120, 1040, 240), ElementType.LIST_ITEM, text="Search apps")
    glyph = Element((70, 150, 130, 210), ElementType.ICON, icon="search")
    parse = layout_types(ScreenParse(1080, 2340, [field.replace(id=0), glyph.replace(id=1)]))
    assert parse.elements[0].type is ElementType.INPUT


def test_a_real_web_page_and_taskbar_get_their_search_fields() -> None:
    """Unsplash in Edge on a real Windows desktop: its two search boxes (read as a tab and a link) and the
    taskbar's (read as a list row) are inputs."""
    parse = full_parse("task017")
    inputs = [e.text for e in parse.elements if e.type is ElementType.INPUT]
    assert "Type here to search" in inputs
    assert inputs.count("Search high-resolution images") == 2


def test_a_list_row_or_a_coloured_app_bar_with_a_magnifier_is_no_field() -> None:
    """A list's row whose trailing action is a magnifier (rows of its type and extent above and below it)
    stays a row; a bar filled in red with a title and a magnifier (MiniWoB++'s inbox) is an app bar, while
    the same box filled white is a field."""
    rows = [
        Element((60, 100 + 110 * k, 960, 207 + 110 * k), ElementType.LIST_ITEM, text=f"Row {k}")
        for k in range(3)
    ]
    row_glyph = Element((880, 135, 920, 175), ElementType.ICON, icon="search")
    bar = Element((0, 600, 430, 664), ElementType.BUTTON, text="Primary")
    bar_glyph = Element((380, 615, 414, 649), ElementType.BUTTON, icon="search")
    image = np.full((768, 1024, 3), 255, dtype=np.uint8)
    image[600:664, 0:430] = (230, 40, 40)
    elements = [e.replace(id=i) for i, e in enumerate([*rows, row_glyph, bar, bar_glyph])]
    red = layout_types(ScreenParse(1024, 768, elements), image)
    kinds = [ElementType.LIST_ITEM] * 3 + [ElementType.ICON, ElementType.BUTTON, ElementType.BUTTON]
    assert [e.type for e in red.elements] == kinds
    image[600:664, 0:430] = 255
    white = layout_types(ScreenParse(1024, 768, elements), image)
    assert white.elements[4].type is ElementType.INPUT
    assert [e.type for e in white.elements[:3]] == [ElementType.LIST_ITEM] * 3


def test_a_taller_list_row_with_a_magnifier_stays_a_row() -> None:
    """A rendered inbox's row of 70 px between rows of 50 and 48 px, a magnifier at its right end, is a
    row: rows of a list differ in height (a second line, a larger avatar)."""
    rows = [
        Element((31, 467, 1501, 517), ElementType.LIST_ITEM, text="Nora - Document sound"),
        Element((32, 516, 1501, 586), ElementType.LIST_ITEM, text="Omar - Notification update"),
        Element((32, 586, 1501, 634), ElementType.LIST_ITEM, text="Hiro - Calendar product"),
    ]
    glyph = Element((1450, 535, 1474, 560), ElementType.BUTTON, icon="search")
    elements = [e.replace(id=i) for i, e in enumerate([*rows, glyph])]
    parse = layout_types(ScreenParse(1920, 1080, elements))
    assert [e.type for e in parse.elements[:3]] == [ElementType.LIST_ITEM] * 3


def test_a_magnifier_read_as_q_makes_a_field_and_leaves_the_text() -> None:
    """OCR reads a magnifier before a placeholder as ``Q``: a wide box whose text starts so is a field, and
    the ``Q`` leaves its text; a narrow tab (``Q Search``) keeps its type, a field its glued ``QSearch``
    placeholder's word, and a code line its ``QWidget``."""
    bar = Element((10, 56, 570, 120), ElementType.LIST_ITEM, text="Q搜索或输入网址")
    tab = Element((285, 1123, 434, 1217), ElementType.BUTTON, text="Q Search")
    field = Element((9, 400, 566, 460), ElementType.INPUT, text="QSearch products")
    code = Element((20, 700, 560, 730), ElementType.TEXT, text="QWidget *window = new QWidget;")
    elements = [e.replace(id=i) for i, e in enumerate([bar, tab, field, code])]
    parse = layout_types(ScreenParse(575, 1280, elements))
    assert [(e.type, e.text) for e in parse.elements] == [
        (ElementType.INPUT, "搜索或输入网址"),
        (ElementType.BUTTON, "Search"),
        (ElementType.INPUT, "Search products"),
        (ElementType.TEXT, "QWidget *window = new QWidget;"),
    ]
