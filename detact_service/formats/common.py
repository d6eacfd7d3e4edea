"""Helpers shared by the formats."""

from __future__ import annotations

import json

from detact_service.core import Element, ScreenParse


def element_ids(parse: ScreenParse) -> list[int]:
    """Public id of each element: its own id, or its index when a stage left it unset (negative)."""
    return [element.id if element.id >= 0 else index for index, element in enumerate(parse.elements)]


def quote(text: str) -> str:
    """``text`` as a double-quoted one-line string (quotes, backslashes and newlines escaped)."""
    return json.dumps(text, ensure_ascii=False)


def has_text(element: Element) -> bool:
    """Whether the element carries non-blank text."""
    return element.text is not None and element.text.strip() != ""
