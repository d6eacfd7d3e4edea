"""A dropdown with two arrows stacked at its right end is a spin box, a field (drawn fields, real pixels)."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from detact_service.core import Element, ElementType
from detact_service.understanding.fields import framed_fields, has_stacked_marks, spin_boxes

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


def draw_boxes_with_text() -> tuple[np.ndarray, dict[str, Box]]:
    """A light form: two stacked fields holding values (a white fill in a grey frame; a darker fill, no
    frame), and wide boxes with text that are no fields: a table's cell (its column lines run on), a
    selected list row (filled black), a button (its caption centred), a list row between dividers (no
    sides), a one-column list's cell (its sides run on), a toolbar's segment (its top and bottom lines run
    on) and a framed row with a size at its right end. Each box as a detector gives it."""
    font = ImageFont.truetype(FONT, 14)
    image = Image.new("RGB", (640, 470), (236, 236, 236))
    draw = ImageDraw.Draw(image)
    boxes: dict[str, Box] = {}
    draw.rectangle((20, 20, 260, 47), fill=(255, 255, 255), outline=(150, 150, 150))
    draw.text((27, 26), "8080", font=font, fill=(20, 20, 20))
    boxes["field"] = (20, 20, 261, 48)
    draw.rectangle((20, 52, 260, 79), fill=(214, 214, 214))
    draw.text((27, 58), "/home/user", font=font, fill=(20, 20, 20))
    boxes["filled field"] = (20, 52, 261, 80)
    for x in (300, 360, 620):  # a table: its column lines run through every row
        draw.line((x, 20, x, 140), fill=(160, 160, 160))
    for y in (20, 50, 80, 110, 140):
        draw.line((300, y, 620, y), fill=(160, 160, 160))
    draw.text((366, 57), "High", font=font, fill=(20, 20, 20))
    boxes["table cell"] = (360, 50, 621, 81)
    draw.rectangle((20, 170, 400, 199), fill=(20, 20, 20))
    draw.text((27, 176), "Nora - Document", font=font, fill=(250, 250, 250))
    boxes["selected row"] = (20, 170, 401, 200)
    draw.rectangle((20, 230, 400, 259), fill=(225, 225, 225), outline=(120, 120, 120))
    draw.text((160, 236), "Start now", font=font, fill=(20, 20, 20))
    boxes["button"] = (20, 230, 401, 260)
    draw.line((20, 300, 400, 300), fill=(200, 200, 200))
    draw.line((20, 340, 400, 340), fill=(200, 200, 200))
    draw.text((27, 312), "Inbox messages", font=font, fill=(20, 20, 20))
    boxes["divider row"] = (20, 300, 401, 341)
    for x in (440, 620):  # a one-column list: row lines stop at its ends, its sides run on
        draw.line((x, 160, x, 280), fill=(160, 160, 160))
    for y in (160, 190, 220, 250, 280):
        draw.line((440, y, 620, y), fill=(160, 160, 160))
    draw.text((446, 197), "Normal", font=font, fill=(20, 20, 20))
    boxes["list cell"] = (440, 190, 621, 221)
    draw.line((20, 360, 620, 360), fill=(140, 140, 140))  # a toolbar: its lines run on past a segment
    draw.line((20, 390, 620, 390), fill=(140, 140, 140))
    for x in (100, 300):
        draw.line((x, 360, x, 390), fill=(140, 140, 140))
    draw.text((107, 367), "Outline", font=font, fill=(20, 20, 20))
    boxes["toolbar segment"] = (100, 360, 301, 391)
    draw.rectangle((20, 420, 300, 449), fill=(255, 255, 255), outline=(150, 150, 150))
    draw.text((27, 426), "Quarterly", font=font, fill=(20, 20, 20))  # something at its right end too
    draw.text((240, 426), "12 KB", font=font, fill=(20, 20, 20))
    boxes["framed row"] = (20, 420, 301, 450)
    return np.asarray(image), boxes


def test_a_framed_box_with_a_value_at_its_left_is_a_field() -> None:
    image, boxes = draw_boxes_with_text()
    elements = [
        Element(box, ElementType.LIST_ITEM, text=name, source="detector") for name, box in boxes.items()
    ]
    typed = {e.text: e.type for e in framed_fields(image, elements)}
    assert typed == {
        "field": ElementType.INPUT,
        "filled field": ElementType.INPUT,
        "table cell": ElementType.LIST_ITEM,
        "selected row": ElementType.LIST_ITEM,
        "button": ElementType.LIST_ITEM,
        "divider row": ElementType.LIST_ITEM,
        "list cell": ElementType.LIST_ITEM,
        "toolbar segment": ElementType.LIST_ITEM,
        "framed row": ElementType.LIST_ITEM,
    }


def test_a_lists_framed_selected_row_is_no_field() -> None:
    """A web list of touching rows, its selected row framed in the page's colour with its text at the left:
    a row of the list, not a field; the same frame standing apart from the rows is a field."""
    font = ImageFont.truetype(FONT, 14)
    image = Image.new("RGB", (640, 400), (250, 250, 250))
    draw = ImageDraw.Draw(image)
    rows = [(20, 40 + 41 * i, 600, 81 + 41 * i) for i in range(4)]
    for i, box in enumerate(rows):
        draw.text((box[0] + 12, box[1] + 12), f"Row number {i}", font=font, fill=(30, 30, 30))
    draw.rectangle((20, 81, 599, 121), outline=(90, 90, 90))  # the selected row's frame
    draw.rectangle((20, 300, 599, 340), outline=(90, 90, 90))
    draw.text((32, 312), "Row number 9", font=font, fill=(30, 30, 30))
    apart = (20, 300, 600, 341)
    elements = [
        Element(box, ElementType.LIST_ITEM, text=f"Row number {i}", source="detector")
        for i, box in enumerate([*rows, apart])
    ]
    typed = [e.type for e in framed_fields(np.asarray(image), elements)]
    assert typed == [ElementType.LIST_ITEM] * 4 + [ElementType.INPUT]
