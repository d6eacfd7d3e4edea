"""The DetACT format: the three sections of the OmniACT/DetACT prompt.

Text elements (OCR text and its centre), icons (template name and centre) and colours (colour name
and centre), one element per line, in parse order::

    Text elements:
    "Submit" <x: 50, y: 96>
    Icons:
    search <x: 1210, y: 40>
    Colours:
    blue <x: 50, y: 96>

An empty section reads ``(none)``.
"""

from __future__ import annotations

from detact_service.core import Element, ScreenParse
from detact_service.formats.common import has_text, quote

NONE = "(none)"


def _at(element: Element) -> str:
    x, y = element.center
    return f"<x: {x}, y: {y}>"


def detact_sections(parse: ScreenParse) -> dict[str, list[str]]:
    """The three sections as lists of lines (without headers)."""
    return {
        "Text elements": [f"{quote(e.text or '')} {_at(e)}" for e in parse.elements if has_text(e)],
        "Icons": [f"{e.icon} {_at(e)}" for e in parse.elements if e.icon],
        "Colours": [f"{e.color} {_at(e)}" for e in parse.elements if e.color],
    }


def to_detact(parse: ScreenParse) -> str:
    """The DetACT prompt block of ``parse``."""
    lines: list[str] = []
    for header, entries in detact_sections(parse).items():
        lines.append(f"{header}:")
        lines.extend(entries or [NONE])
    return "\n".join(lines)
