"""Output formats on hand-built parses: exact CAAP lines, DetACT sections, JSON round trip, SoM image."""

from __future__ import annotations

import base64
import io
import json

import numpy as np
import pytest
from PIL import Image

from detact_service.core import Element, ElementState, ElementType, ScreenParse
from detact_service.formats import (
    FORMATS,
    ParseResponse,
    from_public,
    parse_formats,
    render,
    to_caap,
    to_detact,
    to_public,
    to_response,
    to_som_png,
)

WIDTH, HEIGHT = 320, 200


@pytest.fixture
def parse() -> ScreenParse:
    return ScreenParse(
        width=WIDTH,
        height=HEIGHT,
        elements=[
            Element(bbox=(1, 80, 99, 113), type=ElementType.BUTTON, id=3, text="Submit", source="merge"),
            Element(
                bbox=(120, 10, 142, 32),
                type=ElementType.CHECKBOX,
                id=4,
                color="blue",
                state=ElementState(checked=True, focused=True),
                score=0.75,
            ),
            Element(bbox=(150, 40, 300, 60), type=ElementType.TEXT, id=5, text='Say "hi"\\now\nnext'),
            Element(
                bbox=(200, 120, 224, 144),
                type=ElementType.ICON,
                id=6,
                icon="magnify",
                state=ElementState(selected=True, disabled=False),
            ),
        ],
        timings_ms={"text": 12.5, "total": 20.0},
        models={"profile": "detact", "text": "rapidocr"},
        task="submit the form",
    )


def test_caap_lines_are_exact(parse: ScreenParse) -> None:
    assert to_caap(parse).splitlines() == [
        '- ID: element_3, data: {type: button, X: 50 [1-98], Y: 96 [80-112], text: "Submit", focused: False}',
        "- ID: element_4, data: {type: checkbox, X: 131 [120-141], Y: 21 [10-31], color: blue, "
        "checked: True, focused: True}",
        r"- ID: element_5, data: {type: text, X: 225 [150-299], Y: 50 [40-59], "
        r'text: "Say \"hi\"\\now\nnext", focused: False}',
        "- ID: element_6, data: {type: icon, X: 212 [200-223], Y: 132 [120-143], icon: magnify, "
        "selected: True, disabled: False, focused: False}",
    ]


def test_caap_of_an_empty_parse_is_empty() -> None:
    assert to_caap(ScreenParse(width=10, height=10)) == ""


def test_unset_ids_fall_back_to_the_element_index() -> None:
    parse = ScreenParse(
        width=50, height=50, elements=[Element(bbox=(0, 0, 10, 10)), Element(bbox=(20, 20, 30, 30), text="x")]
    )
    lines = to_caap(parse).splitlines()
    assert [line.split(",")[0] for line in lines] == ["- ID: element_0", "- ID: element_1"]
    assert [e.id for e in to_public(parse).elements] == [0, 1]


def test_detact_has_three_sections_in_order(parse: ScreenParse) -> None:
    assert to_detact(parse).splitlines() == [
        "Text elements:",
        '"Submit" <x: 50, y: 96>',
        r'"Say \"hi\"\\now\nnext" <x: 225, y: 50>',
        "Icons:",
        "magnify <x: 212, y: 132>",
        "Colours:",
        "blue <x: 131, y: 21>",
    ]


def test_detact_marks_empty_sections() -> None:
    parse = ScreenParse(width=50, height=50, elements=[Element(bbox=(0, 0, 10, 10), text="  ")])
    assert to_detact(parse) == "Text elements:\n(none)\nIcons:\n(none)\nColours:\n(none)"


def test_public_json_has_the_documented_shape(parse: ScreenParse) -> None:
    body = json.loads(to_public(parse).model_dump_json())
    assert set(body) == {
        "image",
        "elements",
        "text",
        "som_png_base64",
        "timings_ms",
        "models",
        "task",
        "parse_id",
        "reparse",
    }
    assert body["parse_id"] is None and body["reparse"] is None  # the API fills them in
    assert body["image"] == {"width": WIDTH, "height": HEIGHT}
    assert body["text"] == {"caap": None, "detact": None}
    assert body["som_png_base64"] is None
    assert body["task"] == "submit the form"
    first = body["elements"][0]
    assert first == {
        "id": 3,
        "type": "button",
        "bbox": [1, 80, 99, 113],
        "center": [50, 96],
        "text": "Submit",
        "icon": None,
        "color": None,
        "state": {"checked": None, "focused": None, "highlighted": None, "selected": None, "disabled": None},
        "interactive": True,
        "score": 1.0,
        "source": "merge",
        "relevance": None,
    }
    assert [e["interactive"] for e in body["elements"]] == [True, True, False, True]


def test_interactive_follows_the_explicit_flag() -> None:
    parse = ScreenParse(
        width=50,
        height=50,
        elements=[
            Element(bbox=(0, 0, 10, 10), type=ElementType.BUTTON, interactive=False),
            Element(bbox=(0, 0, 10, 10), type=ElementType.TEXT, interactive=True),
        ],
    )
    assert [e.interactive for e in to_public(parse).elements] == [False, True]
    back = from_public(to_public(parse)).elements
    assert [e.interactive for e in back] == [False, True]


def test_json_round_trips(parse: ScreenParse) -> None:
    public = to_public(parse, caap=to_caap(parse), detact=to_detact(parse), som_png=b"\x89PNG")
    again = ParseResponse.model_validate_json(public.model_dump_json())
    assert again == public
    assert base64.b64decode(again.som_png_base64 or "") == b"\x89PNG"
    back = from_public(again)
    assert back == parse


def test_parse_formats_validates_and_dedupes() -> None:
    assert parse_formats(" json, CAAP ,json,,som ") == ("json", "caap", "som")
    assert parse_formats(None) == ("json",)
    assert parse_formats(["detact"]) == ("detact",)
    with pytest.raises(ValueError, match=r"unknown format 'xml'; known formats: json, caap, detact, som"):
        parse_formats("json,xml")
    with pytest.raises(ValueError, match="no format requested"):
        parse_formats(" , ")
    assert FORMATS == ("json", "caap", "detact", "som")


def _image() -> np.ndarray:
    rng = np.random.default_rng(0)
    image = np.full((HEIGHT, WIDTH, 3), 240, dtype=np.uint8)
    image[150:, :40] = rng.integers(0, 255, size=(HEIGHT - 150, 40, 3), dtype=np.uint8)
    return image


def test_render_returns_each_requested_format(parse: ScreenParse) -> None:
    out = render(parse, "caap,json,detact,som", _image())
    assert list(out) == ["caap", "json", "detact", "som"]
    assert out["caap"] == to_caap(parse)
    assert out["detact"] == to_detact(parse)
    assert out["json"]["text"] == {"caap": out["caap"], "detact": out["detact"]}
    assert base64.b64decode(out["json"]["som_png_base64"]) == out["som"]
    assert json.loads(json.dumps(out["json"])) == out["json"]
    assert render(parse, "json")["json"]["text"] == {"caap": None, "detact": None}


def test_render_errors(parse: ScreenParse) -> None:
    with pytest.raises(ValueError, match="known formats"):
        render(parse, "html")
    with pytest.raises(ValueError, match="needs the screenshot"):
        render(parse, "som")


def test_to_response_fills_only_what_was_asked(parse: ScreenParse) -> None:
    response = to_response(parse, ("caap",))
    assert response.text.caap == to_caap(parse)
    assert response.text.detact is None
    assert response.som_png_base64 is None
    assert len(response.elements) == len(parse.elements)


def test_som_png_marks_the_boxes_and_keeps_the_rest(parse: ScreenParse) -> None:
    image = _image()
    png = to_som_png(image, parse)
    som = Image.open(io.BytesIO(png))
    assert som.format == "PNG"
    assert som.size == (WIDTH, HEIGHT)
    marked = np.asarray(som.convert("RGB"))
    changed = np.any(marked != image, axis=2)
    for element in parse.elements:
        x1, y1, x2, y2 = element.bbox
        assert changed[y1:y2, x1:x2].any(), f"nothing drawn on element {element.id}"
        assert changed[y2 - 1, x1:x2].all(), f"bottom edge of element {element.id} not drawn"
    assert not changed[170:, :40].any(), "pixels far from every box must be untouched"
    assert not changed[HEIGHT // 2 + 60 :, WIDTH // 2 :].any()


def test_som_accepts_a_pil_image_and_an_empty_parse() -> None:
    image = Image.fromarray(_image())
    som = Image.open(io.BytesIO(to_som_png(image, ScreenParse(width=WIDTH, height=HEIGHT))))
    assert np.array_equal(np.asarray(som.convert("RGB")), np.asarray(image))


def test_som_refuses_an_image_of_another_size(parse: ScreenParse) -> None:
    with pytest.raises(ValueError, match="but the parse is"):
        to_som_png(np.zeros((10, 10, 3), np.uint8), parse)
