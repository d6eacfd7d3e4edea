"""The CAAP format: one line per element, as in the CAAP prompt (Context-Aware Action Planning).

``- ID: element_3, data: {type: button, X: 50 [1-98], Y: 96 [80-112], text: "Submit", focused: False}``

``X`` is the centre x then the ``[left-right]`` pixel range (inclusive), ``Y`` likewise. ``icon``,
``color``, ``checked``, ``selected`` and ``disabled`` appear only when known; ``focused`` always
(unknown reads as ``False``).
"""

from __future__ import annotations

from detact_service.core import Element, ScreenParse
from detact_service.formats.common import element_ids, has_text, quote


def caap_line(element: Element, element_id: int) -> str:
    """The CAAP line of one element."""
    x1, y1, x2, y2 = element.bbox
    cx, cy = element.center
    fields = [
        f"type: {element.type.value}",
        f"X: {cx} [{x1}-{x2 - 1}]",
        f"Y: {cy} [{y1}-{y2 - 1}]",
    ]
    if has_text(element):
        fields.append(f"text: {quote(element.text or '')}")
    if element.icon:
        fields.append(f"icon: {element.icon}")
    if element.color:
        fields.append(f"color: {element.color}")
    state = element.state
    optional = (("checked", state.checked), ("selected", state.selected), ("disabled", state.disabled))
    for name, value in optional:
        if value is not None:
            fields.append(f"{name}: {value}")
    fields.append(f"focused: {state.focused is True}")
    return f"- ID: element_{element_id}, data: {{{', '.join(fields)}}}"


def to_caap(parse: ScreenParse) -> str:
    """All elements, one CAAP line each, in parse order (empty string when there are none)."""
    return "\n".join(
        caap_line(element, element_id)
        for element_id, element in zip(element_ids(parse), parse.elements, strict=True)
    )
