"""An OCR line across several controls is cut into the words each control shows (real OCR on a drawn bar)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from detact_service.core import Element, ElementType
from detact_service.settings import Settings
from detact_service.understanding.line_split import (
    drop_boxes_in_cjk_words,
    read_boxes_on_lines,
    split_lines_at_boxes,
    word_extents,
    words_for_boxes_on_lines,
)
from detact_service.understanding.merge import box_reader, merge_elements

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
PHONE_SCREENS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "phone_real" / "images"


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


def test_a_small_fonts_word_gaps_one_pixel_wider_than_its_letter_gaps_are_found() -> None:
    """A 13 px line of links (arXiv's ``new | recent | 2108`` as JPEG): letters 2 px apart, words 3-5 px."""
    image = np.full((20, 200, 3), 255, dtype=np.uint8)
    x, starts = 10, []
    for letters, gap in ((3, 5), (1, 3), (6, 4), (1, 5), (4, 0)):  # new | recent | 2108
        starts.append(x)
        for _ in range(letters):
            image[4:16, x : x + 5] = 30
            x += 5 + 2
        x += gap - 2
    extents = word_extents(image, (0, 0, 200, 20), 5)
    assert extents is not None and extents[:, 0].tolist() == starts
    image[4:16, 40:44] = 30  # a word gap filled: four gaps cannot make five words
    assert word_extents(image, (0, 0, 200, 20), 5) is None


def glyph_line(gaps: list[int], size: int = 20) -> np.ndarray:
    """A white screen with one row of dark square 'characters' (``size`` px, the ink of a CJK line)
    separated by ``gaps`` px, starting at x = 20: no CJK font is installed here, and the rule reads ink."""
    image = np.full((60, 900, 3), 255, dtype=np.uint8)
    x = 20
    for gap in [*gaps, 0]:
        image[20 : 20 + size, x + 2 : x + size - 2] = 40
        x += size + gap
    return image


CJK_TEXT = "历史上今天发生的重大新闻及历史事件"  # 17 characters


def cjk_line(image: np.ndarray, text: str = CJK_TEXT, score: float = 0.99) -> Element:
    inked = np.flatnonzero((image < 128).any(axis=(0, 2)))
    return Element(
        (int(inked[0]), 18, int(inked[-1]) + 1, 42), ElementType.TEXT, score=score, source="ocr", text=text
    )


def test_boxes_on_the_characters_of_a_cjk_line_are_dropped_and_clear_items_stay() -> None:
    image = glyph_line([2] * 8 + [14, 14, 2, 2, 14] + [2] * 3)  # 17 characters, three set apart
    line = cjk_line(image)
    x = np.cumsum([20, *([22] * 8), 34, 34, 22, 22, 34, 22, 22])  # each character's left edge
    glyphs = [
        detector_box((int(x[2]) - 3, 16, int(x[4]) + 21, 44)),
        detector_box((int(x[7]) - 2, 17, int(x[7]) + 22, 43)),
    ]
    item = detector_box((int(x[9]) - 4, 16, int(x[9]) + 24, 44))  # one character with 14 px either side
    kept = drop_boxes_in_cjk_words(image, [line], [*glyphs, item])
    assert kept == [item]
    merged = merge_elements([line, *glyphs, item], 900, 60, image)
    assert [e.text for e in merged if e.source == "ocr"] == [CJK_TEXT]
    assert not any(e.bbox == g.bbox for e in merged for g in glyphs)


def test_cjk_boxes_stay_on_unsure_latin_or_owned_lines() -> None:
    image = glyph_line([2] * 16)
    x = 20 + 22 * np.arange(17)
    glyph = detector_box((int(x[5]) - 2, 17, int(x[6]) + 22, 43))
    assert drop_boxes_in_cjk_words(image, [cjk_line(image)], [glyph]) == []
    assert drop_boxes_in_cjk_words(image, [cjk_line(image, score=0.6)], [glyph]) == [
        glyph
    ]  # icons read as 三
    latin = cjk_line(image, text="Today in history news")
    assert drop_boxes_in_cjk_words(image, [latin], [glyph]) == [glyph]  # words have spaces to split at
    owner = detector_box((int(x[2]), 16, int(x[16]) + 24, 44))  # most of the line: it takes the text
    assert drop_boxes_in_cjk_words(image, [cjk_line(image)], [owner]) == [owner]
    named = Element(glyph.bbox, ElementType.BUTTON, source="detector", text="新闻")
    assert drop_boxes_in_cjk_words(image, [cjk_line(image)], [named]) == [named]
    assert drop_boxes_in_cjk_words(None, [cjk_line(image)], [glyph]) == [glyph]


def test_in_a_sentence_a_phrase_boxed_between_commas_goes_too() -> None:
    image = glyph_line([2] * 4 + [14] + [2] * 4)  # a phrase set apart by a comma's blank half
    x = np.cumsum([20, *([22] * 4), 34, *([22] * 4)])
    phrase = detector_box((int(x[5]) - 3, 16, int(x[9]) + 23, 44))
    sentence = cjk_line(image, text="历史上今天，发生的重大")
    assert drop_boxes_in_cjk_words(image, [sentence], [phrase]) == []
    bar = cjk_line(image, text="历史上今天 发生的重大")  # no punctuation: a bar of two items
    assert drop_boxes_in_cjk_words(image, [bar], [phrase]) == [phrase]


def test_an_inline_link_boxed_inside_a_line_of_text_gets_its_words() -> None:
    """A list of authors read as one line: the line stays whole (words with letters lie outside the boxes),
    and the detector's box round one author's name names it; a box that cuts a word through names nothing."""
    words = ["By", "Ada", "Lovelace,", "Alan", "Turing", "and", "others"]
    image, boxes = draw_row(words, gap=7)
    line = ocr_line(image)
    assert line.text == " ".join(words)
    author = detector_box((boxes[3][0], 4, boxes[4][2], 36))
    cutting = detector_box((boxes[5][0] + 24, 4, boxes[6][2], 36))  # from past the middle of `and` on
    named = words_for_boxes_on_lines(image, [line], [author, cutting])
    assert [e.text for e in named] == ["Alan Turing", None]


def test_a_box_in_a_line_whose_words_the_ink_cannot_locate_gets_the_words_it_reads() -> None:
    """OCR split ``outfile`` into ``out file``: eight words in the line's text, seven in its ink, so the
    words cannot be located and the code span's box would stay empty; read on its own, it gets
    ``outfile``. A box that cuts ``device`` through reads ``vice``, a part of a word, and names nothing."""
    words = ["Write", "the", "data", "to", "outfile", "rather", "than", "device"]
    image, boxes = draw_row(words, gap=7)
    line = ocr_line(image)
    line = line.replace(text=(line.text or "").replace("outfile", "out file"))
    _, y1, _, y2 = line.bbox
    code = detector_box((boxes[4][0], y1 - 1, boxes[4][2], y2 + 1))
    cutting = detector_box(((boxes[7][0] + boxes[7][2]) // 2, y1 - 1, boxes[7][2], y2 + 1))
    assert [e.text for e in words_for_boxes_on_lines(image, [line], [code, cutting])] == [None, None]
    read = box_reader(Settings())
    assert read is not None
    named = read_boxes_on_lines(image, [line], [code, cutting], read)
    assert [e.text for e in named] == ["outfile", None]
    assert read_boxes_on_lines(image, [line], [code, cutting], None) == [code, cutting]
    merged = merge_elements([line, code, cutting], 900, 40, image, read)
    assert "outfile" in [e.text for e in merged]


def test_a_box_beside_the_box_that_took_its_line_reads_its_own_words() -> None:
    """A breadcrumb read as one line (OCR split ``Autonomous``, so its words cannot be located): the box
    round most of it takes the whole line, and the box round ``Home`` reads its own word."""
    words = ["Home", ">", "Autonomous", "Agents", ">", "Article"]
    image, boxes = draw_row(words, gap=7)
    line = ocr_line(image)
    line = line.replace(text=(line.text or "").replace("Autonomous", "Auto nomous"))
    _, y1, _, y2 = line.bbox
    home = detector_box((boxes[0][0], y1 - 1, boxes[0][2], y2 + 1))
    rest = detector_box((boxes[2][0], y1 - 1, boxes[5][2], y2 + 1))
    merged = merge_elements([line, home, rest], 900, 40, image, box_reader(Settings()))
    assert [e.text for e in merged] == ["Home", line.text]
    assert [e.text for e in merge_elements([line, home, rest], 900, 40, image)] == [None, line.text]


def test_a_box_on_a_chinese_line_reads_its_own_words() -> None:
    """A real phone screen's consent line ``同意《用户许可协议》《QQ音乐隐私指引》``, written without spaces:
    the detector's box round the second link reads its own words, though the line has no word gaps."""
    path = PHONE_SCREENS / "com.tencent.qqmusic_76759f3e.jpg"
    if not path.is_file():
        pytest.skip(f"{path} is not beside the checkout")
    image = np.ascontiguousarray(np.asarray(Image.open(path).convert("RGB"))[1030:1090])
    line = ocr_line(image)
    assert "》《" in (line.text or "")
    link = detector_box((334, 14, 484, 45))
    read = box_reader(Settings())
    assert read is not None
    assert [e.text for e in read_boxes_on_lines(image, [line], [link], read)] == ["《QQ音乐隐私指引》"]
