"""A dropdown with two arrows stacked at its right end is a spin box, a field (drawn fields, real pixels)."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from detact_service.core import Element, ElementType
from detact_service.understanding.spin_boxes import has_stacked_marks, spin_boxes

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
Box = tuple[int, int, int, int]


def draw_fields() -> tuple[np.ndarray, dict[str, Box]]:
    """A dark form: a spin box (a button column with an up and a down triangle), a classic spin box (two
    bevelled buttons, 3 x 2 px arrows), a combo box (rounded frame, one arrow over its button's bevel) and
    a field whose value ends in a time (``9:30``): each field's box."""
    font = ImageFont.truetype(FONT, 14)
    image = Image.new("RGB", (420, 220), (45, 45, 45))
    draw = ImageDraw.Draw(image)
    boxes: dict[str, Box] = {}

    top = 20  # a spin box, as Qt's dark theme draws it
    draw.rectangle((20, top, 230, top + 27), fill=(30, 30, 30), outline=(32, 32, 32))
    draw.rectangle((210, top + 3, 226, top + 24), fill=(80, 80, 80))
    draw.polygon([(214, top + 11), (218, top + 7), (222, top + 11)], fill=(172, 172, 172))
    draw.polygon([(214, top + 17), (218, top + 21), (222, top + 17)], fill=(172, 172, 172))
    draw.text((26, top + 6), "107 px", font=font, fill=(200, 200, 200))
    boxes["spin"] = (20, top, 231, top + 28)

    top = 70  # a classic spin box: two bevelled buttons, tiny arrows
    draw.rectangle((20, top, 230, top + 24), fill=(255, 255, 255), outline=(0, 0, 0))
    for upper, button_top in ((True, top + 2), (False, top + 12)):
        draw.rectangle((214, button_top, 228, button_top + 9), fill=(208, 208, 208), outline=(104, 104, 104))
        y = button_top + 4
        if upper:
            draw.point([(221, y)], fill=(0, 0, 0))
            draw.line((220, y + 1, 222, y + 1), fill=(0, 0, 0))
        else:
            draw.line((220, y, 222, y), fill=(0, 0, 0))
            draw.point([(221, y + 1)], fill=(0, 0, 0))
    draw.text((26, top + 5), "76.23", font=font, fill=(0, 0, 0))
    boxes["classic spin"] = (20, top, 231, top + 25)

    top = 120  # a combo box: rounded frame, one arrow, its button's bevel line below it
    draw.rounded_rectangle((20, top, 230, top + 27), radius=7, fill=(58, 58, 58), outline=(120, 120, 120))
    draw.rectangle((206, top + 5, 224, top + 20), fill=(58, 58, 58), outline=(80, 80, 80))
    draw.line((206, top + 21, 224, top + 21), fill=(10, 10, 10))
    draw.polygon([(211, top + 11), (219, top + 11), (215, top + 15)], fill=(230, 230, 230))
    draw.text((26, top + 6), "Small", font=font, fill=(220, 220, 220))
    boxes["combo"] = (20, top, 231, top + 28)

    top = 170  # a field showing a time at its right end: a colon's two dots, one over the other
    draw.rectangle((20, top, 300, top + 27), fill=(58, 58, 58), outline=(120, 120, 120))
    draw.text((266, top + 6), "9:30", font=font, fill=(230, 230, 230))
    boxes["time"] = (20, top, 301, top + 28)
    return np.asarray(image), boxes


def test_a_dropdown_with_stacked_arrows_is_a_field() -> None:
    image, boxes = draw_fields()
    grey = np.asarray(Image.fromarray(image).convert("L"))
    assert {name: has_stacked_marks(grey, box) for name, box in boxes.items()} == {
        "spin": True,
        "classic spin": True,
        "combo": False,
        "time": False,
    }
    elements = [
        Element(box, ElementType.DROPDOWN, text=name, source="detector") for name, box in boxes.items()
    ]
    typed = [e.type for e in spin_boxes(image, elements)]
    assert typed == [ElementType.INPUT, ElementType.INPUT, ElementType.DROPDOWN, ElementType.DROPDOWN]
    # only dropdowns are judged: a button with the same pixels stays a button
    button = Element(boxes["spin"], ElementType.BUTTON, text="107 px", source="detector")
    assert spin_boxes(image, [button]) == [button]
