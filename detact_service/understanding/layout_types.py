"""Types that a control's neighbours and names show, set after the icons are named.

The reader sees one element at a time, and on real desktops it reads two common layouts with confidence
and wrongly (``docs/ARCHITECTURE.md``, the icons stage):

- **A dropdown's arrow.** A combo box (a font name, a zoom level, a sheet's name box) is a box with text
  and a down arrow at its right end. The detector boxes the combo box and the arrow, the icon stage
  names the arrow (``chevron down``, ``menu down``), and the reader called the combo box a list item,
  text or a button (LibreOffice's sidebar: ``list_item`` at 0.77-0.95). Such a box becomes a
  ``dropdown``, its arrow goes (it is part of it), and an OCR ``v`` read from the arrow leaves its text.
- **A menu bar.** ``File Edit View ... Help`` side by side: the reader called LibreOffice's and GIMP's
  menu bars buttons (0.6-0.96) on 24 of the 60 ScreenAgent desktops. A row that starts with ``File``
  and holds two more menu titles takes ``menu_item``, as the data engine labels a menu bar's entries.
  An Office ribbon's row (``File Home Insert ...``) holds tabs, and is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from detact_service.core import Element, ElementState, ElementType, ScreenParse

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


def title_word(text: str | None) -> str:
    """A menu title as a word to look up: lower case, without the mnemonic (``&File``, ``文件(F)``)."""
    if not text:
        return ""
    word = re.sub(r"\s*\(&?[A-Za-z]\)$", "", text.strip()).replace("&", "").replace("_", "")
    return word.strip().lower()


def retyped(element: Element, kind: ElementType) -> Element:
    """``element`` as ``kind``: the checked and selected states kept only where they apply."""
    state = element.state
    checkable = kind in (ElementType.CHECKBOX, ElementType.RADIO, ElementType.TOGGLE)
    selectable = kind in (ElementType.TAB, ElementType.LIST_ITEM, ElementType.MENU_ITEM)
    new_state = ElementState(
        checked=state.checked if checkable else None,
        focused=state.focused,
        highlighted=state.highlighted,
        selected=state.selected if selectable else None,
        disabled=state.disabled,
    )
    return element.replace(type=kind, state=new_state)


def dropdowns(elements: Sequence[Element]) -> tuple[list[Element], set[int]]:
    """The elements with each box that holds text and a named down arrow at its right end typed
    ``dropdown``, and the indices of those arrows (to drop)."""
    out = list(elements)
    arrows = [i for i, e in enumerate(elements) if e.icon in DROPDOWN_ARROWS]
    if not arrows:
        return out, set()
    boxes = np.asarray([e.bbox for e in elements], dtype=np.float64)
    texts = np.asarray(
        [len(ARROW_READ_AS_TEXT.sub("", e.text or "").strip()) >= MIN_TEXT and not e.icon for e in elements],
        dtype=bool,
    )
    allowed = np.asarray([e.type not in NOT_DROPDOWNS for e in elements], dtype=bool)
    x0, y0, x1, y1 = boxes.T
    height = y1 - y0
    taken: set[int] = set()
    for a in arrows:
        ax0, ay0, ax1, ay1 = boxes[a]
        holds = (x0 <= ax0 + 1) & (y0 <= ay0 + 2) & (x1 >= ax1 - 1) & (y1 >= ay1 - 2)
        at_end = (x1 - ax1 <= ARROW_RIGHT_GAP * height + 4) & (ax0 >= (x0 + x1) / 2)
        centred = np.abs((y0 + y1) / 2 - (ay0 + ay1) / 2) <= ARROW_CENTRE * height
        arrows_wide = (x1 - x0) / max(ax1 - ax0, 1.0)
        wide = (arrows_wide >= MIN_BOX_ARROWS) & (arrows_wide <= MAX_BOX_ARROWS)
        candidates = np.flatnonzero(holds & at_end & centred & wide & texts & allowed)
        candidates = candidates[candidates != a]
        if not len(candidates):
            continue
        box = int(candidates[np.argmin((x1 - x0)[candidates])])  # the tightest box round the arrow
        element = out[box]
        text = ARROW_READ_AS_TEXT.sub("", element.text or "")
        out[box] = retyped(element, ElementType.DROPDOWN).replace(text=text or element.text)
        taken.add(a)
    return out, taken


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
    for first in firsts:
        h = height[first]
        in_line = (
            short
            & kinds
            & (np.abs(centre - centre[first]) <= TITLE_CENTRE * h)
            & (height <= TITLE_HEIGHT * h)
            & (height * TITLE_HEIGHT >= h)
            & (x0 > x0[first])
        )
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


def layout_types(parse: ScreenParse) -> ScreenParse:
    """``parse`` with its dropdowns and menu bars typed (see the module); ids renumbered when arrows go."""
    elements, arrows = dropdowns(parse.elements)
    elements = menu_bars(elements)
    if arrows:
        kept = [e for i, e in enumerate(elements) if i not in arrows]
        elements = [e.replace(id=index) for index, e in enumerate(kept)]
    return parse.with_elements(elements)
