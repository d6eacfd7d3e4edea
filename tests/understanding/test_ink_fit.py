"""A detector's padded box round a small drawn control shrinks to the control on pointer screens only."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from detact_service.core import DETECTOR_SOURCE, Element, ElementType
from detact_service.geometry import iou_matrix
from detact_service.understanding.ink_fit import drop_bare_boxes, fit_to_ink, fitted_box
from detact_service.understanding.merge import merge_elements

RADIO = (100, 100, 127, 127)
PADDED = (90, 90, 137, 137)
"""A detector's box round :data:`RADIO`, padded as a phone's touch target: IoU 0.33 with it."""


def radio_screen(width: int = 480, height: int = 360) -> np.ndarray:
    image = Image.new("RGB", (width, height), "white")
    ImageDraw.Draw(image).ellipse(RADIO, outline=(110, 110, 110), width=3)
    return np.asarray(image)


def detected(box: tuple[int, int, int, int]) -> Element:
    return Element(bbox=box, type=ElementType.BUTTON, source=DETECTOR_SOURCE, score=0.6)


def iou(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    return float(iou_matrix([a], [b])[0, 0])


def test_a_padded_box_on_flat_ground_fits_the_radio_it_holds() -> None:
    assert iou(PADDED, RADIO) < 0.5
    (fitted,) = fit_to_ink(radio_screen(), [detected(PADDED)])
    assert iou(fitted.bbox, RADIO) >= 0.5
    x0, y0, x1, y1 = fitted.bbox
    assert x0 <= RADIO[0] and y0 <= RADIO[1] and x1 >= RADIO[2] - 1 and y1 >= RADIO[3] - 1


def test_the_merge_gives_the_radio_at_its_drawn_extent() -> None:
    merged = merge_elements([detected(PADDED)], 480, 360, radio_screen())
    assert len(merged) == 1 and iou(merged[0].bbox, RADIO) >= 0.5


def test_a_phone_screen_keeps_the_touch_target() -> None:
    (kept,) = fit_to_ink(radio_screen(400, 900), [detected(PADDED)])
    assert kept.bbox == PADDED


def test_a_box_holding_an_ocr_line_keeps_its_extent() -> None:
    line = Element(bbox=(104, 108, 124, 120), type=ElementType.TEXT, text="OK", source="ocr")
    box, _ = fit_to_ink(radio_screen(), [detected(PADDED), line])
    assert box.bbox == PADDED


@pytest.mark.parametrize(("read", "fitted"), [("Q", True), ("×", True), ("4", False), ("OK", False)])
def test_a_drawing_read_as_one_letter_or_a_symbol_is_no_text(read: str, fitted: bool) -> None:
    line = Element(bbox=(100, 100, 127, 127), type=ElementType.TEXT, text=read, source="ocr")
    box, _ = fit_to_ink(radio_screen(), [detected(PADDED), line])
    assert (box.bbox != PADDED) is fitted


def test_a_box_across_a_visible_edge_is_left_alone() -> None:
    image = Image.fromarray(radio_screen())
    ImageDraw.Draw(image).rectangle((60, 60, 112, 170), fill=(40, 90, 200))  # a panel under its left edge
    assert fitted_box(np.asarray(image), PADDED) is None


def test_a_box_the_drawing_fills_is_left_alone() -> None:
    assert fitted_box(radio_screen(), (97, 97, 130, 130)) is None


def test_large_and_empty_boxes_are_left_alone() -> None:
    assert fitted_box(radio_screen(), (60, 60, 200, 200)) is None  # a panel, not a glyph's padding
    assert fitted_box(radio_screen(), (300, 200, 340, 240)) is None  # nothing drawn inside


def test_a_thin_glyph_keeps_an_icon_sized_box() -> None:
    image = Image.new("RGB", (480, 360), "white")
    ImageDraw.Draw(image).rectangle((100, 112, 113, 114), fill=(60, 60, 60))  # an ellipsis-like dash
    fitted = fitted_box(np.asarray(image), (92, 100, 122, 127))
    assert fitted is not None
    assert fitted[3] - fitted[1] >= 11 and fitted[2] - fitted[0] >= 14


def test_a_drawing_taller_than_wide_fits_a_square_and_a_wide_one_keeps_its_shape() -> None:
    image = Image.new("RGB", (480, 360), "white")
    draw = ImageDraw.Draw(image)
    for dot in range(3):  # a vertical ellipsis, 6 px wide and 26 tall, in a padded 50 px box
        draw.ellipse((122, 112 + 10 * dot, 128, 118 + 10 * dot), fill=(60, 60, 60))
    draw.rounded_rectangle((300, 150, 340, 170), radius=10, fill=(30, 120, 220))  # a switch's track
    tall = fitted_box(np.asarray(image), (100, 100, 150, 150))
    wide = fitted_box(np.asarray(image), (290, 130, 350, 190))
    assert tall is not None and wide is not None
    assert abs((tall[2] - tall[0]) - (tall[3] - tall[1])) <= 1
    assert wide[2] - wide[0] > 1.5 * (wide[3] - wide[1]) and iou(wide, (300, 150, 341, 171)) >= 0.5


def test_a_box_round_an_upright_stroke_goes_and_a_flat_dash_stays() -> None:
    image = Image.new("RGB", (480, 360), "white")
    draw = ImageDraw.Draw(image)
    draw.line((110, 112, 110, 115), fill=(90, 90, 90))  # a ruler's tick, 1x4 px
    draw.line((300, 120, 310, 120), fill=(40, 40, 40))  # a minimise button's dash, 11x1 px
    tick, dash = detected((102, 104, 119, 123)), detected((295, 110, 316, 131))
    kept = fit_to_ink(np.asarray(image), [tick, dash])
    assert len(kept) == 1 and iou(kept[0].bbox, (298, 114, 313, 127)) >= 0.5


def ground_screen() -> np.ndarray:
    """A dark header over a white toolbar, a red swatch, a faintly framed empty field, a key with a dot and
    a dark panel with an unchecked box, on white."""
    image = Image.new("RGB", (480, 360), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 479, 63), fill=(33, 37, 41))
    draw.rectangle((200, 200, 239, 239), fill=(220, 40, 40))
    draw.rectangle((300, 200, 379, 229), outline=(236, 236, 236))
    draw.rectangle((100, 260, 139, 299), fill=(240, 240, 240))
    draw.rectangle((118, 278, 120, 280), fill=(40, 40, 40))
    draw.rectangle((300, 260, 339, 299), fill=(45, 45, 45))  # a dark theme's panel
    draw.rectangle((312, 272, 327, 287), fill=(30, 30, 30))  # its unchecked box, 15 levels darker
    return np.asarray(image)


@pytest.mark.parametrize(
    ("box", "blank"),
    [
        ((0, 61, 18, 120), True),  # at the screen's edge, reaching 3 px into the header
        ((150, 120, 190, 160), True),  # on flat ground
        ((200, 200, 240, 240), False),  # a swatch, boxed at its extent
        ((300, 200, 380, 230), False),  # an empty field's faint frame
        ((100, 260, 140, 300), False),  # a key's dot
        ((309, 269, 331, 291), False),  # a dark theme's unchecked box
        ((302, 262, 310, 297), True),  # the dark panel's empty edge
    ],
)
def test_a_box_round_nothing_but_the_ground_goes(box: tuple[int, int, int, int], blank: bool) -> None:
    kept = fit_to_ink(ground_screen(), [detected(box)])
    assert (not kept) is blank


def phone_ground() -> np.ndarray:
    """A phone-shaped screen: a dark page with an empty field underlined faintly and a faint menu glyph."""
    image = Image.new("RGB", (576, 1280), (33, 54, 110))
    draw = ImageDraw.Draw(image)
    draw.line((20, 676, 560, 676), fill=(48, 70, 126))  # the field's underline, 16 levels lighter
    for y in (540, 550, 560):
        draw.ellipse((546, y, 551, y + 5), fill=(90, 110, 160))  # a vertical ellipsis
    return np.asarray(image)


@pytest.mark.parametrize(
    ("box", "bare"),
    [
        ((0, 808, 575, 976), True),  # an empty stretch of the page, typed an input
        ((559, 72, 575, 134), True),  # a sliver at the screen's side
        ((17, 593, 562, 679), False),  # the empty field: its underline is drawn
        ((530, 520, 575, 590), False),  # the ellipsis menu
    ],
)
def test_a_box_on_bare_ground_goes_on_any_screen(box: tuple[int, int, int, int], bare: bool) -> None:
    kept = drop_bare_boxes(phone_ground(), [detected(box)])
    assert (not kept) is bare
    texted = detected(box).replace(text="Search")
    assert drop_bare_boxes(phone_ground(), [texted]) == [texted]


def group_box_screen() -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """A radio and its label in a group box's frame, and the frame-wide row the detectors draw round it."""
    from PIL import ImageFont

    image = Image.new("RGB", (480, 200), (240, 240, 240))
    draw = ImageDraw.Draw(image)
    draw.rectangle((100, 40, 400, 160), outline=(150, 150, 150))  # the group box
    draw.ellipse((110, 90, 124, 104), outline=(60, 60, 60), width=2)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 14)
    draw.text((132, 89), "High", font=font, fill=(20, 20, 20))
    return np.asarray(image), (105, 82, 403, 112)  # its right end on the frame's side


def test_a_radio_row_across_its_group_box_ends_at_its_label() -> None:
    from detact_service.understanding.ink_fit import fit_labels_to_ink

    image, row = group_box_screen()
    radio = Element(bbox=row, type=ElementType.RADIO, source=DETECTOR_SOURCE, score=0.8, text="High")
    (fitted,) = fit_labels_to_ink(image, [radio])
    assert fitted.bbox[:2] == row[:2] and fitted.bbox[3] == row[3]
    assert 165 <= fitted.bbox[2] <= 185, fitted.bbox  # the label's ink ends at about 168


def test_a_filled_disc_is_its_own_extent_and_a_solid_glyph_keeps_its_button() -> None:
    """MiniWoB++'s grid dots: an 18 px disc in the detector's 24 px box (0.56 of it, too much for a glyph's
    fit) is the control at its drawn edge; a solid toolbar glyph as large keeps the button's box."""
    image = Image.new("RGB", (480, 360), "white")
    draw = ImageDraw.Draw(image)
    draw.ellipse((103, 103, 120, 120), fill=(0, 0, 255), outline=(0, 0, 0))
    draw.rectangle((303, 103, 320, 120), fill=(190, 40, 120))  # a solid square glyph, 18 px
    disc = fitted_box(np.asarray(image), (100, 100, 124, 124))
    assert disc is not None and iou(disc, (103, 103, 121, 121)) >= 0.9
    assert fitted_box(np.asarray(image), (300, 100, 324, 124)) is None


def test_a_large_box_fits_on_a_screen_of_large_text_only() -> None:
    """A 130 px box round a 40 px icon is a panel among 20 px lines and an icon's cell among 40 px ones
    (a page at three times the pixel ratio)."""
    image = Image.new("RGB", (960, 720), "white")
    draw = ImageDraw.Draw(image)
    draw.polygon([(400, 300), (440, 320), (400, 340)], outline=(90, 90, 90), width=4)  # a play glyph
    box = (355, 255, 485, 385)

    def lines(height: int) -> list[Element]:
        boxes = [(20, 20 + 60 * k, 300, 20 + 60 * k + height) for k in range(3)]
        return [Element(bbox=b, type=ElementType.TEXT, text="Label", source="ocr") for b in boxes]

    small = fit_to_ink(np.asarray(image), [detected(box), *lines(20)])[0]
    large = fit_to_ink(np.asarray(image), [detected(box), *lines(40)])[0]
    assert small.bbox == box
    assert iou(large.bbox, (400, 300, 441, 341)) >= 0.5


@pytest.mark.parametrize(
    ("rules", "fits"),
    [
        ([(90, 136, 470, 137)], True),  # a list's separator along the box's bottom edge
        ([(90, 136, 470, 137), (90, 40, 90, 137)], True),  # and a panel's left border along its left edge
        ([(90, 136, 470, 137), (90, 40, 90, 137), (136, 40, 136, 137)], False),  # three sides: a frame
        ([(0, 0, 480, 91)], False),  # the edge of another region (a title bar) past the box's top
    ],
)
def test_a_box_lying_on_rules_fits_what_it_holds_and_a_frame_does_not(
    rules: list[tuple[int, int, int, int]], fits: bool
) -> None:
    image = Image.fromarray(radio_screen())
    for rule in rules:
        ImageDraw.Draw(image).rectangle(rule, fill=(200, 205, 215))
    fitted = fitted_box(np.asarray(image), PADDED)
    assert (fitted is not None and iou(fitted, RADIO) >= 0.5) is fits
