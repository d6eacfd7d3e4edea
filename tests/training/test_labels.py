"""Label records: JSON round trip, DOM-record conversion (scaling, clipping, colours), attribute strings."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from detact_service.core import Element, ElementState, ElementType
from training.data.export import attribute_target, yolo_lines
from training.data.labels import ScreenLabels, read_labels, write_labels
from training.data.sources.dom import records_to_elements


def _record(type_: str, box: list[float], **state: bool | None) -> dict[str, object]:
    full = {"checked": None, "focused": None, "disabled": None, "selected": None, "highlighted": None}
    full.update(state)
    return {"type": type_, "box": box, "text": "Hi", "icon": None, "state": full}


def test_round_trip(tmp_path: Path) -> None:
    element = Element(
        bbox=(1, 2, 30, 40),
        type=ElementType.CHECKBOX,
        text="Remember me",
        color="blue",
        state=ElementState(checked=True, focused=False, disabled=False),
    )
    labels = ScreenLabels("a.png", 100, 80, "web-synthetic", "web/login/v1", 7, 2.0, [element], {"k": 1})
    write_labels(labels, tmp_path / "a.json")
    back = read_labels(tmp_path / "a.json")
    assert back.template == "web/login/v1" and back.scale == 2.0 and back.meta == {"k": 1}
    (got,) = back.elements
    assert got.bbox == element.bbox and got.type is ElementType.CHECKBOX
    assert got.state.checked is True and got.text == "Remember me" and got.color == "blue"


def test_records_scaled_clipped_and_coloured() -> None:
    pixels = np.full((200, 300, 3), 255, dtype=np.uint8)
    pixels[20:40, 20:60] = (220, 30, 30)  # a red button at CSS (10, 10)-(30, 20) at scale 2
    image = Image.fromarray(pixels)
    result = {
        "width": 150,
        "height": 100,
        "elements": [
            _record("button", [10, 10, 30, 20], focused=True, disabled=False),
            _record("text", [140, 90, 170, 120]),  # runs off the bottom-right corner
        ],
    }
    button, text = records_to_elements(result, image)
    assert button.bbox == (20, 20, 60, 40)
    assert button.color == "red" and button.state.focused is True
    assert text.bbox[2] <= 300 and text.bbox[3] <= 200


def test_attribute_target_and_yolo_lines() -> None:
    element = Element(
        bbox=(0, 0, 10, 10),
        type=ElementType.CHECKBOX,
        text="Remember me",
        state=ElementState(checked=True, focused=False, disabled=True),
    )
    assert attribute_target(element) == 'type: checkbox, checked: true, disabled: true, text: "Remember me"'
    labels = ScreenLabels("a.png", 100, 50, "s", "t", 0, elements=[element])
    (line,) = yolo_lines(labels)
    cls, cx, cy, w, h = line.split()
    assert int(cls) >= 0 and float(cx) == 0.05 and float(cy) == 0.1 and float(w) == 0.1 and float(h) == 0.2
