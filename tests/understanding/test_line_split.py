"""An OCR line across several controls is cut into the words each control shows (real OCR on a drawn bar)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from detact_service.core import Element, ElementType
from detact_service.settings import Settings
from detact_service.understanding.line_split import split_lines_at_boxes, word_extents
from detact_service.understanding.merge import merge_elements

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


Box = tuple[int, int, int, int]


def draw_row(words: list[str], gap: int, size: int = 16) -> tuple[np.ndarray, list[Box]]:
    """A grey bar with ``words`` drawn ``gap`` px apart, and each word's box padded as a detector draws it."""
    font = ImageFont.truetype(FONT, size)
    image = Image.new("RGB", (900, 40), (60, 60, 60))
    draw = ImageDraw.Draw(image)
    x, boxes = 20, []
    for word in words:
        left, _, right, _ = draw.textbbox((x, 10), word, font=font)
        draw.text((x, 10), word, font=font, fill=(230, 230, 230))
        boxes.append((left - 6, 4, right + 6, 36))
        x = right + gap
    return np.asarray(image), boxes


def ocr_line(image: np.ndarray) -> Element:
    """The text stage's one line over the whole bar (its narrow gaps keep it one line)."""
    from detact_service.detectors.ocr_rapid import RapidOCRStage

    lines = RapidOCRStage(Settings()).read(image)
    assert len(lines) == 1, [text for _, text, _ in lines]
    quad, text, _ = lines[0]
    x1, y1 = quad.min(axis=0)
    x2, y2 = quad.max(axis=0)
    return Element((int(x1), int(y1), int(x2) + 1, int(y2) + 1), ElementType.TEXT, text=text, source="ocr")


def detector_box(box: tuple[int, int, int, int]) -> Element:
    return Element(box, ElementType.ICON, source="detector", score=0.5)


def test_a_menu_bar_read_as_one_line_gives_each_menu_its_word() -> None:
    words = ["File", "Edit", "Select", "View", "Image", "Layer"]
    image, boxes = draw_row(words, gap=9)
    line = ocr_line(image)
    assert line.text == " ".join(words)
    merged = merge_elements([line, *(detector_box(b) for b in boxes)], 900, 40, image)
    assert [(e.bbox, e.text) for e in merged] == list(zip(boxes, words, strict=True))
    unsplit = merge_elements([line, *(detector_box(b) for b in boxes)], 900, 40)  # no image: no cut
    assert [e.text for e in unsplit if e.text] == [line.text]


def test_a_box_round_part_of_one_label_leaves_the_line_whole() -> None:
    image, boxes = draw_row(["B5", "(ISO)"], gap=8)
    line = ocr_line(image)
    assert split_lines_at_boxes(image, [line], [detector_box(boxes[0])]) == [line]


@pytest.mark.parametrize("separator", ["|", ">"])
def test_separators_between_links_stay_text(separator: str) -> None:
    image, boxes = draw_row(["Home", separator, "Docs", separator, "API"], gap=9)
    line = ocr_line(image)
    pieces = split_lines_at_boxes(image, [line], [detector_box(boxes[i]) for i in (0, 2, 4)])
    assert [p.text for p in pieces] == ["Home", separator, "Docs", separator, "API"]


def test_words_are_located_only_when_their_gaps_stand_out() -> None:
    image, _ = draw_row(["one", "two"], gap=20)
    extents = word_extents(image, (0, 0, 900, 40), 2)
    assert extents is not None and extents.shape == (2, 2) and extents[0, 1] < extents[1, 0]
    assert word_extents(image, (0, 0, 900, 40), 4) is None  # four words cannot be found in two
