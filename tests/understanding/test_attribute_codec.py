"""The attribute strings: encoded from labels, decoded without ever raising, applied with OCR text first."""

from __future__ import annotations

import pytest

from detact_service.core import Element, ElementState, ElementType
from detact_service.understanding.attribute_codec import (
    apply_attributes,
    decode_attributes,
    encode_attributes,
)
from detact_service.understanding.attributes import UNREADABLE, amend


def test_round_trip_of_labelled_elements() -> None:
    checkbox = Element(
        (0, 0, 10, 10), ElementType.CHECKBOX, text="Remember me", state=ElementState(checked=True)
    )
    assert encode_attributes(checkbox) == "checkbox|1|-|0|0|Remember me"
    field = Element((0, 0, 10, 10), ElementType.INPUT, state=ElementState(focused=True))
    assert encode_attributes(field) == "input|-|-|1|0|"
    tab = Element((0, 0, 10, 10), ElementType.TAB, text="Home | News", state=ElementState(selected=True))
    assert encode_attributes(tab) == "tab|-|1|0|0|Home / News"
    text = Element((0, 0, 10, 10), ElementType.TEXT, text="x" * 80)
    assert encode_attributes(text) == "text|-|-|-|-|" + "x" * 32
    decoded = decode_attributes(encode_attributes(checkbox))
    assert decoded is not None and decoded.type is ElementType.CHECKBOX and decoded.checked is True
    assert decoded.focused is False and decoded.selected is None and decoded.text == "Remember me"


@pytest.mark.parametrize(
    "output",
    ["", "button", "button|1|0", "widget|-|-|0|0|x", "button|yes|-|0|0|x", "checkbox|1|-|0|0", "|||||"],
)
def test_malformed_outputs_decode_to_none(output: str) -> None:
    assert decode_attributes(output) is None


def test_apply_prefers_ocr_text_and_fills_missing_text() -> None:
    detected = Element((0, 0, 10, 10), ElementType.BUTTON, text="Sign in", source="detector")
    attributes = decode_attributes("checkbox|0|-|1|0|Sign im")
    assert attributes is not None
    out = apply_attributes(detected, attributes)
    assert out.type is ElementType.CHECKBOX and out.text == "Sign in"
    assert out.state.checked is False and out.state.focused is True
    blank = Element((0, 0, 10, 10), ElementType.ICON, icon="gear")
    filled = apply_attributes(blank, decode_attributes("button|-|-|0|0|Settings"))  # type: ignore[arg-type]
    assert filled.text == "Settings" and filled.icon == "gear" and filled.type is ElementType.BUTTON


def test_amend_keeps_the_element_and_flags_a_malformed_output() -> None:
    detected = Element((0, 0, 10, 10), ElementType.BUTTON, text="OK", source="detector")
    kept = amend(detected, "buton|-|-")
    assert kept.type is ElementType.BUTTON and kept.text == "OK" and kept.source == "detector" + UNREADABLE
    assert amend(detected, "link|-|-|0|0|OK").type is ElementType.LINK
