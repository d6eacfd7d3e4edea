"""The attribute model's target strings: ``type|checked|selected|focused|disabled|text``.

Compact so decoding stays short (every token is a decoder step for every element), fixed-order so
parsing is a split: each flag is ``1``, ``0`` or ``-`` (not applicable), e.g. ``checkbox|1|-|0|0|Remember
me`` or ``button|-|-|1|0|Submit``. Text is cut to :data:`MAX_TEXT` characters: OCR reads the full text;
the model's text only fills elements OCR missed. :func:`decode_attributes` never raises: a malformed
string gives ``None`` and the caller keeps what it had.
"""

from __future__ import annotations

from dataclasses import dataclass

from detact_service.core import Element, ElementState, ElementType

FLAGS = ("checked", "selected", "focused", "disabled")
MAX_TEXT = 32
_FLAG_VALUES = {"1": True, "0": False, "-": None}
# Which flags are meaningful per type; the rest are written as '-' so the model learns not to guess.
CHECKABLE = frozenset({ElementType.CHECKBOX, ElementType.RADIO, ElementType.TOGGLE})
SELECTABLE = frozenset({ElementType.TAB, ElementType.LIST_ITEM, ElementType.MENU_ITEM})
NOT_FOCUSABLE = frozenset({ElementType.TEXT, ElementType.IMAGE, ElementType.REGION})


@dataclass(frozen=True)
class Attributes:
    """What the attribute model says about one element."""

    type: ElementType
    checked: bool | None
    selected: bool | None
    focused: bool | None
    disabled: bool | None
    text: str


def _flag(value: bool | None) -> str:
    return "-" if value is None else ("1" if value else "0")


def encode_attributes(element: Element) -> str:
    """The target string of a labelled element."""
    state = element.state
    checked = bool(state.checked) if element.type in CHECKABLE else None
    selected = bool(state.selected or state.highlighted) if element.type in SELECTABLE else None
    focused = None if element.type in NOT_FOCUSABLE else bool(state.focused)
    disabled = None if element.type in NOT_FOCUSABLE else bool(state.disabled)
    text = " ".join((element.text or "").replace("|", "/").split())[:MAX_TEXT]
    flags = "|".join(_flag(v) for v in (checked, selected, focused, disabled))
    return f"{element.type.value}|{flags}|{text}"


def decode_attributes(target: str) -> Attributes | None:
    """Parse a target string; ``None`` when it is malformed (wrong field count, unknown type or flag)."""
    parts = target.strip().split("|", 5)
    if len(parts) != 6:
        return None
    kind, *flags, text = parts
    try:
        element_type = ElementType(kind.strip())
    except ValueError:
        return None
    if any(f.strip() not in _FLAG_VALUES for f in flags):
        return None
    checked, selected, focused, disabled = (_FLAG_VALUES[f.strip()] for f in flags)
    return Attributes(element_type, checked, selected, focused, disabled, text.strip())


def apply_attributes(element: Element, attributes: Attributes) -> Element:
    """The element with the model's type and state; OCR text wins, the model's text fills a gap."""
    state = element.state
    new_state = ElementState(
        checked=attributes.checked if attributes.checked is not None else state.checked,
        selected=attributes.selected if attributes.selected is not None else state.selected,
        focused=attributes.focused if attributes.focused is not None else state.focused,
        disabled=attributes.disabled if attributes.disabled is not None else state.disabled,
        highlighted=state.highlighted,
    )
    text = element.text if element.text else (attributes.text or None)
    return element.replace(type=attributes.type, state=new_state, text=text)
