"""Types that a control's neighbours and names show, set after the icons are named.

The reader sees one element at a time, and on real desktops it reads with confidence
and wrongly three common layouts (``docs/ARCHITECTURE.md``, the icons stage):

- **A dropdown's arrow.** A combo box (a font name, a zoom level, a sheet's name box) is a box with text
  and a down arrow at its right end. The detector boxes the combo box and the arrow, the icon stage
  names the arrow (``chevron down``, ``menu down``), and the reader called the combo box a list item,
  text or a button (LibreOffice's sidebar: ``list_item`` at 0.77-0.95). Such a box becomes a
  ``dropdown``, its arrow goes (it is part of it), and an OCR ``v`` read from the arrow leaves its text.
- **A menu bar.** ``File Edit View ... Help`` side by side: the reader called LibreOffice's and GIMP's
  menu bars buttons (0.6-0.96) on 24 of the 60 ScreenAgent desktops. A row that starts with ``File``
  and holds two more menu titles takes ``menu_item``, as the data engine labels a menu bar's entries.
  An Office ribbon's row (``File Home Insert ...``) holds tabs, and is left alone.
- **A toolbar's glyphs.** A toolbar is a row of glyph buttons; the reader, reading each alone, called
  some of them bare icons, and the icon stage makes only the glyphs it names buttons, so one toolbar came
  out part buttons, part icons. In a row of three or more buttons and icons where the buttons are at least
  as many, the icons become buttons.
- **A search field by its magnifier.** A search box (a page's, a taskbar's, an app's top bar) is a wide
  box with a magnifier at one end and a placeholder (``Search ...``, ``Type here to search``) or a query
  beside it; the reader called them buttons, list rows, links, text or tabs (16 of the 60 ScreenAgent
  desktops hold one). A box the magnifier (named ``search``) sits at the left or right end of, 4.5 or more
  of it wide and at most three of it tall, becomes an ``input``; the magnifier stays (it is often the
  field's submit button). A browser tab's favicon is no magnifier's field: a box that holds a close button,
  or lies in a landscape screen's tab strip, keeps its type; so do a row of a list (a box of its extent
  just above or below it: a row's trailing magnifier is an action) and an app bar filled in a
  colour (a field is white, grey or black). OCR reads a magnifier drawn just before the placeholder as a
  ``Q`` (``Q搜索或输入网址``, ``QSearch products``, ``Q 搜索``; 21 elements on the 290 phone_real screens):
  such a text says the magnifier as well, so a wide box whose text starts so where no word does (before a
  space and a letter, or a CJK character) is a field under the same guards; the ``Q`` leaves the text of
  such an element, and of a field glued to a capitalised word (``QSearch``, where ``QWidget`` is a word).
  Where no box holds the magnifier and its words, a text line that starts just right of the magnifier
  (at most two magnifiers away, centred on it) and is a placeholder (``Type here to search``, ``Search
  with Bing or enter address``, ``在此键入进行搜索``: at most six words) is the field.
- **A tab by its close button.** A browser's (or an editor's) tab is a title with a close button (``×``)
  at its right end, across the top of the window; the reader, which never saw a browser's tab strip, called
  them buttons, text, links or list rows. Such a box in the top fifth of the screen becomes a ``tab``; its
  close button stays (it is a control of its own), and an OCR ``X`` read from it leaves the title.
- **A browser's address bar by its URL.** A box near the top of the screen whose whole text is one web
  address (``https://...``, ``www....``, ``host.tld/path``), several times as wide as tall, is the
  address bar an agent types a URL into; the reader, which never saw a browser's toolbar, called them
  buttons, text, list rows or menu items (18 of the 23 on the 60 ScreenAgent desktops; 5 were inputs), and
  read Firefox's pale ``https://`` as a disabled control. Such a box becomes an enabled ``input``; a tab
  titled by its URL stays a tab, and a URL further down (a status bar's link preview, a search result's
  address) keeps its type.
- **The open tab by its look.** In a row of tabs none of which is selected, the one drawn unlike the others
  is the open one (:mod:`~detact_service.understanding.tab_looks`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from detact_service.core import Element, ElementState, ElementType, ScreenParse
from detact_service.stages import RGBImage
from detact_service.understanding.alignment import COLUMN_ROWS, row_groups
from detact_service.understanding.attribute_codec import CHECKABLE, SELECTABLE
from detact_service.understanding.colors import rgb_to_hsv
from detact_service.understanding.glyph_text import starts_with_magnifier, without_magnifier
from detact_service.understanding.list_looks import current_rows
from detact_service.understanding.list_rows import list_rows
from detact_service.understanding.tab_looks import current_tabs

DROPDOWN_ARROWS = frozenset({"chevron down", "menu down", "caret down", "triangle down"})
"""Icon names of a combo box's arrow."""
ARROW_RIGHT_GAP = 0.5
"""At most this share of the box's height between the arrow's right edge and the box's (and 4 px more)."""
ARROW_CENTRE = 0.25
"""The arrow's centre at most this share of the box's height above or below the box's."""
MIN_BOX_ARROWS, MAX_BOX_ARROWS = 2.5, 20.0
"""A combo box is at least this many arrows wide (a toolbar's split button is an icon and an arrow) and
at most this many (a list row that expands, an accordion's header, is a row's width)."""
NOT_DROPDOWNS = frozenset(
    {ElementType.CHECKBOX, ElementType.RADIO, ElementType.TOGGLE, ElementType.DROPDOWN, ElementType.TEXTAREA}
)
"""Types a box with an arrow keeps: a text area's arrow scrolls it."""
ARROW_READ_AS_TEXT = re.compile(r"\s+[vV∨˅⌄]$")
"""OCR's reading of a dropdown's arrow at the end of its text (``Qty: 1 v``)."""
MIN_TEXT = 2
"""Characters a combo box's text has at least, the arrow's ``v`` left out (one letter is a toolbar icon's
reading: a split button)."""

CLOSE_BUTTONS = frozenset({"close", "close circle"})
"""Icon names of a tab's close button."""
TAB_STRIP = 0.2
"""A tab with a close button lies in this top share of the screen (a browser's or an editor's tab strip)."""
CLOSE_READ_AS_TEXT = re.compile(r"\s+[xX×]$")
"""OCR's reading of a tab's close button at the end of its title."""
TITLE_GAP_CLOSES = 1.0
"""A tab's title drawn apart from its close button ends at most this many close buttons before it ..."""
MIN_TITLE_CLOSES = 3.0
"""... and is at least this many close buttons wide (a formula bar's `fx` before its cancel cross is none)."""
WINDOW_BUTTONS = 1.5
"""A small textless button this many close buttons or less left of a close button makes it a window's."""
TAB_TYPES = frozenset({ElementType.BUTTON, ElementType.TEXT, ElementType.LINK, ElementType.LIST_ITEM})
"""Types a tab with a close button was read as (not a field: a search box's clear button is no tab's)."""

# fmt: off
MENU_TITLES = frozenset({
    "file", "edit", "view", "insert", "format", "tools", "window", "windows", "help", "select", "selection",
    "image", "layer", "colors", "filters", "search", "document", "terminal", "tabs", "go", "run", "history",
    "bookmarks", "profiles", "sheet", "data", "table", "form", "styles", "slide", "navigate", "code",
    "refactor", "build", "debug", "project", "options", "settings", "actions", "tab", "preferences",
    "文件", "编辑", "视图", "插入", "格式", "工具", "窗口", "帮助", "查看", "选择",
})
# fmt: on
"""Titles of a desktop application's menus (English and Chinese); a menu bar starts with ``File``."""
FIRST_TITLES = frozenset({"file", "文件"})
RIBBON_TITLES = frozenset({"home", "开始", "design", "设计"})
"""An Office ribbon's tabs (``File Home Insert Design ...``): its row holds tabs, not menus."""
MIN_MORE_TITLES = 2
"""Menu titles besides ``File`` that make a row a menu bar."""
TITLE_CENTRE = 0.35
"""Items of a menu bar: centres at most this share of ``File``'s height above or below its centre."""
TITLE_HEIGHT = 2.0
"""...heights within this factor of ``File``'s (its box may reach up into the title bar)..."""
TITLE_GAP = 4.0
"""...and at most this many of its heights after the item before."""
TITLE_MAX_WORDS = 2
MENU_BAR_TYPES = frozenset(
    {
        ElementType.BUTTON,
        ElementType.TEXT,
        ElementType.LINK,
        ElementType.TAB,
        ElementType.LIST_ITEM,
        ElementType.ICON,
        ElementType.MENU_ITEM,
    }
)


SEARCH_GLYPHS = frozenset({"search"})
"""Icon names of a search field's magnifier."""
MIN_FIELD_GLYPHS = 4.5
"""A search field is at least this many magnifiers wide (a ``Search`` button with its magnifier is less)."""
MAX_FIELD_GLYPHS = 3.0
"""... and at most this many magnifiers tall (a panel or a card that holds one is taller)."""
FIELD_END_GAP = 0.6
"""The magnifier's outer edge at most this share of the field's height (and 4 px more) from its end."""
SEARCH_FIELD_TYPES = frozenset(
    {ElementType.BUTTON, ElementType.TEXT, ElementType.LINK, ElementType.LIST_ITEM, ElementType.TAB}
)
"""Types a search field was read as."""
ROW_SLACK = 0.01
"""A list's rows start and end within this share of the screen's width of each other ..."""
ROW_GAP = 0.5
"""... and lie at most this share of a row's height apart ..."""
ROW_HEIGHTS = 0.5
"""... and differ in height by at most this share of it (a row with a second line or a larger avatar is
taller than its neighbours: 70 px between rows of 50 and 48 on a rendered inbox)."""
Q_FIELD_ASPECT = 4.0
"""A box whose text starts with a magnifier read as ``Q`` is a field when at least this many times as wide
as tall (Google Play's ``Q Search`` tab is 1.6)."""
FIELD_FILL_SATURATION = 0.3
"""A box whose commonest colour is at least this saturated (and not dark) is an app bar, not a field."""
PLACEHOLDER = re.compile(
    r"^(?:(?:search|enter|type)(?:\s+\S|\s*(?:\.\.\.|…))|搜索|输入|请输入|在此键入)", re.IGNORECASE
)
"""A field's placeholder: ``Search ...``, ``Enter ...``, ``Type ...`` (a word after it, or an ellipsis), or
Chinese ``搜索`` (search), ``输入`` / ``请输入`` (enter), ``在此键入`` (type here)."""
PLACEHOLDER_WORDS = 6
"""A placeholder has at most this many words (an instruction, ``Enter the "rex" and ...``, has more)."""
PLACEHOLDER_GAP = 2.0
"""A placeholder read as a text line starts at most this many magnifiers right of the magnifier."""
URL_TEXT = re.compile(
    r"^(?:https?://\S+|www\.[^\s/]+\.\S+|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/\S*)$", re.IGNORECASE
)
"""A whole text that is one web address: with its scheme, from ``www.``, or a host with a path."""
ADDRESS_BAR_TOP = 0.2
"""An address bar ends within this top share of the screen (a browser's toolbar)."""
ADDRESS_BAR_ASPECT = 4.0
"""... and is at least this many times as wide as tall."""
ADDRESS_BAR_TYPES = frozenset(
    {ElementType.BUTTON, ElementType.TEXT, ElementType.LINK, ElementType.LIST_ITEM, ElementType.MENU_ITEM}
)
"""Types an address bar was read as."""
TAB_STRIP_TOP = 0.08
"""A landscape screen's tab strip lies in this top share: its tabs' favicons may be magnifiers (a search
engine's results page), and its tabs are no fields."""


def title_word(text: str | None) -> str:
    """A menu title as a word to look up: lower case, without the mnemonic (``&File``, ``文件(F)``)."""
    if not text:
        return ""
    word = re.sub(r"\s*\(&?[A-Za-z]\)$", "", text.strip()).replace("&", "").replace("_", "")
    return word.strip().lower()


def retyped(element: Element, kind: ElementType) -> Element:
    """``element`` as ``kind``: the checked and selected states kept only where they apply."""
    state = element.state
    new_state = ElementState(
        checked=state.checked if kind in CHECKABLE else None,
        focused=state.focused,
        highlighted=state.highlighted,
        selected=state.selected if kind in SELECTABLE else None,
        disabled=state.disabled,
    )
    return element.replace(type=kind, state=new_state)


def as_field(element: Element) -> Element:
    """``element`` as an enabled ``input``: a field's pale text is its placeholder (or a browser's pale
    ``https://``), which the reader reads as a disabled control's."""
    field = retyped(element, ElementType.INPUT)
    return field.replace(state=dataclasses.replace(field.state, disabled=False))


def titled(elements: Sequence[Element], read_as_text: re.Pattern[str]) -> npt.NDArray[np.bool_]:
    """Whether each element has a title: no icon name, and text of :data:`MIN_TEXT` characters or more
    besides a glyph's ``read_as_text`` reading (an arrow read as ``v``, a close button as ``X``)."""
    return np.asarray(
        [len(read_as_text.sub("", e.text or "").strip()) >= MIN_TEXT and not e.icon for e in elements],
        dtype=bool,
    )


def holders_at_right_end(
    elements: Sequence[Element], names: frozenset[str], read_as_text: re.Pattern[str], widest: bool = False
) -> list[tuple[int, int]]:
    """(box, glyph) pairs: each element named one of ``names`` and the tightest (or ``widest``) box with
    text (two characters or more besides the glyph's ``read_as_text`` reading) that holds it at its right
    end (the glyph's right edge at most :data:`ARROW_RIGHT_GAP` of the box's height and 4 px from the
    box's, in its right half, centred within :data:`ARROW_CENTRE` of its height, the box 2.5-20 glyphs
    wide)."""
    glyphs = [i for i, e in enumerate(elements) if e.icon in names]
    if not glyphs:
        return []
    boxes = np.asarray([e.bbox for e in elements], dtype=np.float64)
    texts = titled(elements, read_as_text)
    x0, y0, x1, y1 = boxes.T
    height = y1 - y0
    pairs = []
    for g in glyphs:
        gx0, gy0, gx1, gy1 = boxes[g]
        holds = (x0 <= gx0 + 1) & (y0 <= gy0 + 2) & (x1 >= gx1 - 1) & (y1 >= gy1 - 2)
        at_end = (x1 - gx1 <= ARROW_RIGHT_GAP * height + 4) & (gx0 >= (x0 + x1) / 2)
        centred = np.abs((y0 + y1) / 2 - (gy0 + gy1) / 2) <= ARROW_CENTRE * height
        glyphs_wide = (x1 - x0) / max(gx1 - gx0, 1.0)
        wide = (glyphs_wide >= MIN_BOX_ARROWS) & (glyphs_wide <= MAX_BOX_ARROWS)
        candidates = np.flatnonzero(holds & at_end & centred & wide & texts)
        candidates = candidates[candidates != g]
        if len(candidates):
            widths = (x1 - x0)[candidates]
            pairs.append((int(candidates[np.argmax(widths) if widest else np.argmin(widths)]), g))
    return pairs


def dropdowns(elements: Sequence[Element]) -> tuple[list[Element], set[int]]:
    """The elements with each box that holds text and a named down arrow at its right end typed
    ``dropdown``, and the indices of those arrows (to drop)."""
    out = list(elements)
    taken: set[int] = set()
    for box, arrow in holders_at_right_end(elements, DROPDOWN_ARROWS, ARROW_READ_AS_TEXT):
        element = out[box]
        if element.type in NOT_DROPDOWNS:
            continue
        text = ARROW_READ_AS_TEXT.sub("", element.text or "")
        out[box] = retyped(element, ElementType.DROPDOWN).replace(text=text or element.text)
        taken.add(arrow)
    return out, taken


def tabs_by_close(elements: Sequence[Element], screen_height: int) -> list[Element]:
    """The elements with each box that holds a title and a close button at its right end, in the top
    :data:`TAB_STRIP` of the screen, typed ``tab`` (the widest such box: a tab's title can be boxed in
    parts)."""
    out = list(elements)
    for box, _ in holders_at_right_end(elements, CLOSE_BUTTONS, CLOSE_READ_AS_TEXT, widest=True):
        element = out[box]
        if element.type in TAB_TYPES and element.bbox[1] < TAB_STRIP * screen_height:
            text = CLOSE_READ_AS_TEXT.sub("", element.text or "")
            out[box] = retyped(element, ElementType.TAB).replace(text=text or element.text)
    return out


def tabs_beside_close(elements: Sequence[Element], screen_height: int) -> list[Element]:
    """The elements with each title that ends just before a close button that no tab holds, in the top
    :data:`TAB_STRIP` of the screen, typed ``tab`` and reaching to the close button's right edge: a
    detector that draws a tab in pieces (its title, its close button) still gives one tab."""
    out = list(elements)
    boxes = np.asarray([e.bbox for e in elements], dtype=np.float64).reshape(-1, 4)
    x0, y0, x1, y1 = boxes.T
    tabs = np.asarray([e.type is ElementType.TAB for e in elements], dtype=bool)
    kinds = np.asarray([e.type in TAB_TYPES for e in elements], dtype=bool)
    titles = titled(elements, CLOSE_READ_AS_TEXT) & kinds
    centre_x, centre_y, width = (x0 + x1) / 2, (y0 + y1) / 2, x1 - x0
    for c in (i for i, e in enumerate(elements) if e.icon in CLOSE_BUTTONS):
        cx0, cy0, cx1, cy1 = boxes[c]
        side = cy1 - cy0
        if cy0 >= TAB_STRIP * screen_height:
            continue
        level = np.abs(centre_y - (cy0 + cy1) / 2) <= side / 2
        if (tabs & level & (x0 <= cx0 + 1) & (x1 >= cx1 - 1)).any():  # a tab holds it already
            continue
        beside = (
            (centre_x >= cx0 - WINDOW_BUTTONS * side) & (centre_x < cx0) & (width <= WINDOW_BUTTONS * side)
        )
        if (level & beside & ~titles & ~tabs).any():  # a maximise button: a window's close, not a tab's
            continue
        ends_before = (x1 >= cx0 - TITLE_GAP_CLOSES * side) & (x1 <= cx1) & (width >= MIN_TITLE_CLOSES * side)
        candidates = np.flatnonzero(titles & ~tabs & ends_before & level & (y1 - y0 <= 2 * side))
        if len(candidates):
            t = int(candidates[np.argmax(x1[candidates])])
            title = out[t]
            box = (title.bbox[0], min(title.bbox[1], int(cy0)), int(cx1), max(title.bbox[3], int(cy1)))
            text = CLOSE_READ_AS_TEXT.sub("", title.text or "")
            out[t] = retyped(title, ElementType.TAB).replace(bbox=box, text=text or title.text)
            tabs[t] = True
    return out


def menu_bars(elements: Sequence[Element]) -> list[Element]:
    """The elements with each menu bar's items (a row from ``File`` holding two more menu titles, no
    ribbon tab) typed ``menu_item``."""
    out = list(elements)
    words = [title_word(e.text) for e in elements]
    firsts = [i for i, word in enumerate(words) if word in FIRST_TITLES]
    if not firsts:
        return out
    boxes = np.asarray([e.bbox for e in elements], dtype=np.float64)
    x0, y0, x1, y1 = boxes.T
    height, centre = y1 - y0, (y0 + y1) / 2
    short = np.asarray([0 < len(w.split()) <= TITLE_MAX_WORDS for w in words], dtype=bool)
    kinds = np.asarray([e.type in MENU_BAR_TYPES for e in elements], dtype=bool)
    menu_title = np.asarray([w in MENU_TITLES for w in words], dtype=bool)
    for first in firsts:
        h = height[first]
        beside = short & kinds & (np.abs(centre - centre[first]) <= TITLE_CENTRE * h) & (x0 > x0[first])
        # the other titles' height, not File's alone: File's box may reach up into the title bar
        others = beside & menu_title
        low = min(h, float(np.median(height[others]))) if others.any() else h
        in_line = beside & (height <= TITLE_HEIGHT * h) & (height * TITLE_HEIGHT >= low)
        row = [first]
        end = x1[first]
        for i in np.flatnonzero(in_line)[np.argsort(x0[in_line], kind="stable")].tolist():
            if x0[i] - end > TITLE_GAP * h:
                break
            if x0[i] >= end - 2:  # side by side, not a box over another
                row.append(i)
                end = max(end, x1[i])
        titles = {words[i] for i in row}
        if titles & RIBBON_TITLES or len((titles & MENU_TITLES) - FIRST_TITLES) < MIN_MORE_TITLES:
            continue
        for i in row:
            out[i] = retyped(out[i], ElementType.MENU_ITEM)
    return out


def in_a_list(boxes: np.ndarray, width: int) -> npt.NDArray[np.bool_]:
    """Which boxes have another of their extent (start, end and height) just above or below them: a list's
    rows, whatever the reader called each."""
    x0, y0, x1, y1 = boxes.T
    height = y1 - y0
    slack = ROW_SLACK * width
    aligned = (np.abs(x0[:, None] - x0) <= slack) & (np.abs(x1[:, None] - x1) <= slack)
    alike = np.abs(height[:, None] - height) <= ROW_HEIGHTS * height[:, None]
    gap = np.maximum(y0[None, :] - y1[:, None], y0[:, None] - y1[None, :])
    near = (gap >= -0.25 * height[:, None]) & (gap <= ROW_GAP * height[:, None])
    rows = aligned & alike & near
    np.fill_diagonal(rows, False)
    return np.asarray(rows.any(axis=1), dtype=bool)


def filled_in_colour(image: RGBImage, box: tuple[int, int, int, int]) -> bool:
    """Whether ``box``'s commonest colour (quantised) is saturated and not dark: an app bar's fill."""
    x0, y0, x1, y1 = (max(v, 0) for v in box)
    pixels = image[y0:y1, x0:x1].reshape(-1, 3).astype(np.int32) // 16
    if len(pixels) == 0:
        return False
    codes, counts = np.unique(pixels[:, 0] * 256 + pixels[:, 1] * 16 + pixels[:, 2], return_counts=True)
    code = int(codes[counts.argmax()])
    colour = np.asarray([code // 256, code // 16 % 16, code % 16], dtype=np.float64) * 16 + 8
    _, saturation, value = rgb_to_hsv(colour[None, :])
    return bool(saturation[0] >= FIELD_FILL_SATURATION and value[0] >= 0.25)


def search_fields(
    elements: Sequence[Element], screen_width: int, screen_height: int, image: RGBImage | None = None
) -> list[Element]:
    """The elements with each box that holds a magnifier at its left or right end typed ``input`` (the
    tightest such box, 4.5 or more magnifiers wide, three or less tall, holding no close button, not in a
    landscape screen's tab strip, not a list's row, not filled in a colour where ``image`` is given; see
    the module), each text line that starts just right of a magnifier and is a placeholder
    (:func:`says_placeholder`: a field no box holds), and each box as guarded whose text starts with a
    magnifier read as ``Q`` (:func:`.glyph_text.starts_with_magnifier`), :data:`Q_FIELD_ASPECT` or more
    times as wide as tall."""
    glyphs = [i for i, e in enumerate(elements) if e.icon in SEARCH_GLYPHS]
    read_q = [i for i, e in enumerate(elements) if starts_with_magnifier(e.text or "")]
    if not glyphs and not read_q:
        return list(elements)
    boxes = np.asarray([e.bbox for e in elements], dtype=np.float64)
    x0, y0, x1, y1 = boxes.T
    height = y1 - y0
    kinds = np.asarray([e.type in SEARCH_FIELD_TYPES for e in elements], dtype=bool)
    closes = boxes[[i for i, e in enumerate(elements) if e.icon in CLOSE_BUTTONS]].reshape(-1, 4)
    holds_close = (
        (x0[:, None] <= closes[:, 0] + 1)
        & (y0[:, None] <= closes[:, 1] + 2)
        & (x1[:, None] >= closes[:, 2] - 1)
        & (y1[:, None] >= closes[:, 3] - 2)
    ).any(axis=1)
    in_tab_strip = (y0 < TAB_STRIP_TOP * screen_height) & (screen_width > screen_height)
    rows = in_a_list(boxes, screen_width)
    lines = np.asarray(
        [e.type is ElementType.TEXT and says_placeholder(e.text) for e in elements], dtype=bool
    )
    out = list(elements)
    for g in glyphs:
        gx0, gy0, gx1, gy1 = boxes[g]
        side = max(gx1 - gx0, gy1 - gy0, 1.0)
        holds = (x0 <= gx0 + 1) & (y0 <= gy0 + 2) & (x1 >= gx1 - 1) & (y1 >= gy1 - 2)
        reach = FIELD_END_GAP * height + 4
        at_end = (gx0 - x0 <= reach) | (x1 - gx1 <= reach)
        centred = np.abs((y0 + y1) / 2 - (gy0 + gy1) / 2) <= ARROW_CENTRE * height
        shaped = ((x1 - x0) >= MIN_FIELD_GLYPHS * side) & (height <= MAX_FIELD_GLYPHS * side)
        fits = holds & at_end & centred & shaped & kinds & ~holds_close & ~in_tab_strip & ~rows
        candidates = np.flatnonzero(fits)
        candidates = candidates[candidates != g]
        if len(candidates):
            field = int(candidates[np.argmin((x1 - x0)[candidates])])
            if image is None or not filled_in_colour(image, out[field].bbox):
                out[field] = as_field(out[field])
        after = (x0 - gx1 >= -2) & (x0 - gx1 <= PLACEHOLDER_GAP * side) & centred
        for line in np.flatnonzero(after & lines & ~in_tab_strip).tolist():
            if image is None or not filled_in_colour(image, out[line].bbox):
                out[line] = as_field(out[line])
    read_fits = ((x1 - x0) >= Q_FIELD_ASPECT * height) & kinds & ~holds_close & ~in_tab_strip & ~rows
    for q in (q for q in read_q if read_fits[q]):
        if image is None or not filled_in_colour(image, out[q].bbox):
            out[q] = as_field(out[q])
    return out


def says_placeholder(text: str | None) -> bool:
    """Whether a text is a field's placeholder (:data:`PLACEHOLDER`, at most :data:`PLACEHOLDER_WORDS`
    words): ``Type here to search``, ``Search with Bing or enter address``, ``在此键入进行搜索``."""
    words = (text or "").strip()
    return len(words.split()) <= PLACEHOLDER_WORDS and PLACEHOLDER.match(words) is not None


def address_bars(elements: Sequence[Element], screen_height: int) -> list[Element]:
    """The elements with each box near the top whose whole text is a web address (:data:`URL_TEXT`),
    :data:`ADDRESS_BAR_ASPECT` or more times as wide as tall, typed an enabled ``input`` (see the module)."""
    if not elements:
        return []
    x0, y0, x1, y1 = np.asarray([e.bbox for e in elements], dtype=np.float64).T
    placed = (y1 <= ADDRESS_BAR_TOP * screen_height) & (x1 - x0 >= ADDRESS_BAR_ASPECT * (y1 - y0))
    kinds = np.asarray([e.type in ADDRESS_BAR_TYPES and bool(e.text) for e in elements], dtype=bool)
    out = list(elements)
    for index in np.flatnonzero(placed & kinds).tolist():
        if URL_TEXT.match((out[index].text or "").strip()):
            out[index] = as_field(out[index])
    return out


def magnifier_letters(elements: Sequence[Element]) -> list[Element]:
    """The elements without the ``Q`` OCR read from a magnifier before their text
    (:func:`.glyph_text.without_magnifier`; a glued ``QSearch`` only in a field)."""
    out = list(elements)
    for index in (i for i, e in enumerate(elements) if (e.text or "").startswith("Q")):
        element = elements[index]
        text = without_magnifier(element.text or "", element.type is ElementType.INPUT)
        if text != element.text:
            out[index] = element.replace(text=text)
    return out


def toolbar_buttons(elements: Sequence[Element]) -> list[Element]:
    """The elements with the icons of each row of buttons and icons (:func:`.alignment.row_groups`, three or
    more, at least as many buttons as icons) typed buttons: a toolbar's glyphs are its buttons."""
    members = [i for i, e in enumerate(elements) if e.type in (ElementType.BUTTON, ElementType.ICON)]
    if len(members) < COLUMN_ROWS:
        return list(elements)
    rows = row_groups(np.asarray([elements[i].bbox for i in members], dtype=np.float64))
    in_row = rows >= 0
    if not in_row.any():
        return list(elements)
    button = np.asarray([elements[i].type is ElementType.BUTTON for i in members], dtype=np.bool_)
    buttons = np.bincount(rows[in_row], weights=button[in_row])
    icons = np.bincount(rows[in_row]) - buttons
    retype = in_row & np.logical_not(button) & (buttons >= icons)[np.maximum(rows, 0)]
    out = list(elements)
    for index in np.flatnonzero(retype).tolist():
        out[members[index]] = retyped(elements[members[index]], ElementType.BUTTON)
    return out


def layout_types(parse: ScreenParse, image: RGBImage | None = None) -> ScreenParse:
    """``parse`` with its dropdowns, tabs, menu bars, toolbars and search fields typed (see the module) and
    the rows of its edgeless lists built (:mod:`~detact_service.understanding.list_rows`); ids renumbered
    when elements go. ``image``, the screen, shows which boxes with a magnifier are filled in a colour."""
    elements, arrows = dropdowns(parse.elements)
    elements = menu_bars(tabs_beside_close(tabs_by_close(elements, parse.height), parse.height))
    elements = magnifier_letters(search_fields(toolbar_buttons(elements), parse.width, parse.height, image))
    elements = address_bars(elements, parse.height)
    if image is not None:
        elements = current_rows(image, current_tabs(image, elements))
    if arrows:
        kept = [e for i, e in enumerate(elements) if i not in arrows]
        elements = [e.replace(id=index) for index, e in enumerate(kept)]
    return list_rows(parse.with_elements(elements))
