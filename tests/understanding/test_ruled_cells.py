"""Text in a ruled table cell takes the cell's extent (real OCR on drawn tables, dark and light)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from detact_service.core import Element, ElementType
from detact_service.geometry import iou
from detact_service.settings import Settings
from detact_service.understanding.merge import merge_elements
from detact_service.understanding.ruled_cells import (
    cut_at_rules,
    drop_frame_stretches,
    fit_to_cells,
    screen_rules,
    vertical_rules,
)

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
COLUMNS = (10, 100, 180, 700)  # rule x positions: three columns, the last one stretched
ROW_TOP, ROW_HEIGHT = 20, 30
ROWS = (
    ("871.95", "Failed", "2024-05-21"),
    ("52.55", "Pending", "2024-04-13"),
    ("696.35", "Done", "2024-12-07"),
)
THEMES = {
    # ground, striped row, rule, ink: the dark theme's rules differ from its rows by 7 grey levels
    "dark": ((25, 25, 25), (51, 51, 51), (38, 38, 38), (225, 225, 225)),
    "light": ((255, 255, 255), (236, 236, 236), (160, 160, 160), (20, 20, 20)),
    "zebra": ((255, 255, 255), (231, 231, 231), (160, 160, 160), (20, 20, 20)),  # rows apart by stripes alone
}

Box = tuple[int, int, int, int]


def draw_table(theme: str, shift: int = 0) -> tuple[np.ndarray, dict[str, Box]]:
    """A striped, ruled table (moved ``shift`` px right and down) and the inside of each cell by its text
    (rules excluded)."""
    ground, stripe, rule, ink = THEMES[theme]
    font = ImageFont.truetype(FONT, 15)
    image = Image.new("RGB", (760, 160), ground)
    draw = ImageDraw.Draw(image)
    cells = {}
    bottom = ROW_TOP + ROW_HEIGHT * len(ROWS)
    for row, texts in enumerate(ROWS):
        top = ROW_TOP + row * ROW_HEIGHT
        fill = stripe if row % 2 else ground
        draw.rectangle((COLUMNS[0], top, COLUMNS[-1], top + ROW_HEIGHT), fill=fill)
        for column, text in enumerate(texts):
            draw.text((COLUMNS[column] + 4, top + 7), text, font=font, fill=ink)
            cells[text] = (COLUMNS[column] + 1, top + 1, COLUMNS[column + 1], top + ROW_HEIGHT)
    for x in COLUMNS:
        draw.line((x, ROW_TOP, x, bottom), fill=rule)
    for row in range(len(ROWS) + 1) if theme != "zebra" else (0, len(ROWS)):
        y = ROW_TOP + row * ROW_HEIGHT
        draw.line((COLUMNS[0], y, COLUMNS[-1], y), fill=rule)
    moved = Image.new("RGB", image.size, ground)
    moved.paste(image, (shift, shift))
    shifted = {
        text: (x1 + shift, y1 + shift, x2 + shift, y2 + shift) for text, (x1, y1, x2, y2) in cells.items()
    }
    return np.asarray(moved), shifted


def ocr_texts(image: np.ndarray) -> list[Element]:
    """The text stage's lines, as the merge receives them."""
    from detact_service.detectors.ocr_rapid import RapidOCRStage

    elements = []
    for quad, text, score in RapidOCRStage(Settings()).read(image):
        x1, y1 = quad.min(axis=0)
        x2, y2 = quad.max(axis=0)
        box = (int(x1), int(y1), int(x2) + 1, int(y2) + 1)
        elements.append(Element(box, ElementType.TEXT, text=text, score=score, source="ocr"))
    return elements


def near(a: Box, b: Box, slack: int = 3) -> bool:
    return all(abs(p - q) <= slack for p, q in zip(a, b, strict=True))


@pytest.mark.parametrize("shift", [0, 1])  # rules on odd rows and columns too (labelled at half scale)
@pytest.mark.parametrize("theme", sorted(THEMES))
def test_each_cell_text_takes_its_cell_extent(theme: str, shift: int) -> None:
    image, cells = draw_table(theme, shift)
    merged = merge_elements(ocr_texts(image), image.shape[1], image.shape[0], image)
    by_text = {e.text: e.bbox for e in merged}
    assert set(cells) <= set(by_text), sorted(by_text)
    for text, cell in cells.items():
        assert near(by_text[text], cell), (text, by_text[text], cell)


def test_a_line_read_across_a_rule_is_cut_between_its_words() -> None:
    image, _ = draw_table("dark")
    grey = np.asarray(Image.fromarray(image).convert("L"))
    vertical = np.zeros(grey.shape, np.uint8)
    vertical[ROW_TOP:110, COLUMNS[1] - 1 : COLUMNS[1] + 1] = 1
    joined = Element((14, 82, 150, 102), ElementType.TEXT, text="696.35 Done", source="ocr")
    pieces = cut_at_rules([joined], grey, vertical)
    assert [(p.text, p.bbox) for p in pieces] == [
        ("696.35", (14, 82, COLUMNS[1], 102)),
        ("Done", (COLUMNS[1], 82, 150, 102)),
    ]
    unspaced = joined.replace(text="696.35Done")
    assert cut_at_rules([unspaced], grey, vertical) == [unspaced]
    # a step between two grounds (a panel's edge) is no rule
    stepped = grey.copy()
    stepped[:, COLUMNS[1] :] = 90
    assert cut_at_rules([joined], stepped, vertical) == [joined]


def test_text_off_the_table_or_beside_another_control_keeps_its_box() -> None:
    image, cells = draw_table("light")
    canvas = image.copy()
    canvas[125:150, 20:200] = 255  # plain ground under the table
    free = Element((24, 128, 120, 146), ElementType.TEXT, text="Connected", source="ocr")
    in_cell = Element((14, 27, 70, 43), ElementType.TEXT, text="871.95", source="ocr")
    icon = Element((80, 26, 96, 44), ElementType.ICON, source="detector", score=0.5)
    assert fit_to_cells(canvas, [free, in_cell], [icon]) == ([free, in_cell], [icon])
    (fitted,), _ = fit_to_cells(canvas, [in_cell], [])
    assert near(fitted.bbox, cells["871.95"])
    caption = Element((12, 26, 80, 44), ElementType.LIST_ITEM, text="871.95", source="detector", score=0.4)
    _, (boxed,) = fit_to_cells(canvas, [], [caption])
    assert near(boxed.bbox, cells["871.95"])


def test_a_button_framed_in_a_cell_keeps_its_extent() -> None:
    image, cells = draw_table("light")
    framed = Image.fromarray(image)
    ImageDraw.Draw(framed).rectangle(
        (400, 24, 520, 46), outline=(120, 120, 120)
    )  # a button in the last column
    button = Element((398, 22, 523, 49), ElementType.BUTTON, text="Open", source="detector", score=0.6)
    assert fit_to_cells(np.asarray(framed), [], [button]) == ([], [button])
    assert near(fit_to_cells(image, [], [button])[1][0].bbox, cells["2024-05-21"])  # no frame: the cell


def test_a_narrow_bevelled_cell_reaches_its_rules() -> None:
    """A Qt table's row headers (24x30 px, a light line top and left, a dark one bottom and right): the
    digit takes the whole header cell, its bevel included, not the region inside the bevel's lines."""
    image = Image.new("RGB", (400, 200), (35, 35, 38))
    draw = ImageDraw.Draw(image)
    cells, digits = [], []
    for row in range(5):
        top = 20 + 30 * row
        draw.rectangle((0, top, 23, top + 29), fill=(60, 60, 64))
        draw.line((0, top, 23, top), fill=(90, 90, 96))
        draw.line((0, top, 0, top + 29), fill=(90, 90, 96))
        draw.line((0, top + 29, 23, top + 29), fill=(20, 20, 22))
        draw.line((23, top, 23, top + 29), fill=(20, 20, 22))
        draw.text((9, top + 9), str(row + 1), fill=(220, 220, 220))
        cells.append((0, top, 24, top + 30))
        digits.append(Element((8, top + 8, 16, top + 22), ElementType.TEXT, text=str(row + 1), source="ocr"))
    fitted, _ = fit_to_cells(np.asarray(image), digits, [])
    for element, cell in zip(fitted, cells, strict=True):
        assert iou(element.bbox, cell) >= 0.9, (element.bbox, cell)


def draw_divider_list() -> tuple[np.ndarray, dict[str, Box]]:
    """A panel holding a list whose rows are apart by dividers alone (no vertical rules), then a two-column
    row and an underlined link between the same kind of rules, and a title centred between two: the
    expected extent of each text that is a list row."""
    font = ImageFont.truetype(FONT, 15)
    image = Image.new("RGB", (960, 420), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.rectangle((10, 10, 930, 252), outline=(200, 200, 200))  # the panel, a little wider than its dividers
    rows: dict[str, Box] = {}
    for index, name in enumerate(("Inbox messages", "Starred items", "Outbox", "Drafts")):
        top = 12 + 60 * index
        bottom = top + 60
        draw.rectangle((40, top + 22, 54, top + 36), fill=(90, 90, 90))  # the row's leading icon
        draw.text((70, top + 21), name, font=font, fill=(40, 40, 40))
        if index == 1:
            draw.line((880, top + 25, 888, top + 35, 896, top + 25), fill=(60, 60, 60), width=2)  # a chevron
        if index < 3:
            draw.line((30, bottom, 910, bottom), fill=(220, 220, 220))
        rows[name] = (30, top + 1, 911, bottom) if index else (30, 11, 911, bottom)
    for y in (290, 340):
        draw.line((30, y, 910, y), fill=(220, 220, 220))
    draw.text((70, 306), "Quarterly report", font=font, fill=(40, 40, 40))  # a table row of two cells
    draw.text((600, 306), "2024-05-21", font=font, fill=(40, 40, 40))
    draw.text((400, 380), "Settings overview", font=font, fill=(40, 40, 40))  # a title centred in a bar
    draw.line((30, 365, 910, 365), fill=(220, 220, 220))
    draw.line((30, 410, 910, 410), fill=(220, 220, 220))
    return np.asarray(image), rows


def test_a_list_row_between_dividers_takes_the_rows_extent() -> None:
    image, rows = draw_divider_list()
    merged = merge_elements(ocr_texts(image), image.shape[1], image.shape[0], image)
    by_text = {e.text: e.bbox for e in merged}
    assert set(rows) <= set(by_text), sorted(by_text)
    for text, row in rows.items():
        assert near(by_text[text], row), (text, by_text[text], row)
    # two texts in one row (a table's); a title centred between its rules
    for text in ("Quarterly report", "2024-05-21", "Settings overview"):
        x1, y1, _, y2 = by_text[text]
        assert x1 > 60 and y2 - y1 < 30, (text, by_text[text])


def test_a_list_row_may_hold_icons_at_its_ends_not_buttons_between() -> None:
    image, rows = draw_divider_list()
    texts = {e.text: e for e in ocr_texts(image)}
    chevron = Element((876, 80, 900, 100), ElementType.ICON, source="detector", score=0.5)
    between = Element((300, 140, 330, 166), ElementType.BUTTON, source="detector", score=0.5)
    drawn_again = Element((36, 200, 260, 232), ElementType.LIST_ITEM, source="detector", score=0.4)
    fitted, kept = fit_to_cells(
        image, [texts["Starred items"], texts["Outbox"], texts["Drafts"]], [chevron, between, drawn_again]
    )
    by_text = {e.text: e.bbox for e in fitted}
    assert near(by_text["Starred items"], rows["Starred items"])
    assert by_text["Outbox"] == texts["Outbox"].bbox  # a button between its ends: not a list row
    assert near(by_text["Drafts"], rows["Drafts"])
    assert kept == [chevron, between]  # the row's second, textless box went


def draw_stretches() -> np.ndarray:
    """A grey code block framed by 1 px lines, an empty framed field, two empty table cells between rules,
    and a code block with an icon in its right part, on white."""
    image = Image.new("RGB", (1280, 420), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((8, 14, 1256, 46), fill=(238, 238, 238), outline=(200, 200, 200))  # a code block
    draw.text((16, 22), "InheritedDef := InheritedExpr", fill=(30, 30, 30))
    draw.rectangle((400, 100, 900, 132), fill="white", outline=(160, 160, 160))  # an empty field
    for y in (180, 212):  # a table's row lines, with its column lines
        draw.line((8, y, 1256, y), fill=(190, 190, 190))
    for x in (8, 400, 900, 1256):
        draw.line((x, 180, x, 212), fill=(190, 190, 190))
    draw.rectangle((8, 300, 1256, 332), fill=(238, 238, 238), outline=(200, 200, 200))
    draw.ellipse((1000, 308, 1016, 324), outline=(60, 60, 60), width=2)  # an icon in the block's right part
    return np.asarray(image)


@pytest.mark.parametrize(
    ("box", "stretch"),
    [
        ((402, 12, 1245, 49), True),  # the code block's empty right part: its edges run on to the left
        ((615, 11, 1257, 49), True),  # the same to the block's right end
        ((396, 97, 904, 136), False),  # an empty field: its frame stops at both ends
        ((402, 178, 898, 215), False),  # an empty cell: column lines close it
        ((402, 298, 1245, 335), False),  # a stretch with an icon in it
    ],
)
def test_a_blank_stretch_of_a_frame_is_no_control(box: Box, stretch: bool) -> None:
    image = draw_stretches()
    widget = Element(box, ElementType.ICON, source="detector", score=0.4)
    assert (drop_frame_stretches(screen_rules(image), [widget]) == []) is stretch


def draw_spreadsheet() -> tuple[np.ndarray, dict[str, Box]]:
    """A spreadsheet's grid as a JPEG screenshot holds it: rows 17 px apart with 12 px text, light grey
    grid lines, dates and right-aligned numbers whose digits stack down their columns; the inside of each
    cell (grid lines excluded) by its row's date."""
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 12)
    lines = (40, 130, 200, 270)
    image = Image.new("RGB", (420, 260), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    cells: dict[str, Box] = {}
    numbers = (1872, 1714, 1845, 2369, 1295, 1444, 1978, 1559, 1215, 1260, 1567, 1072)
    for row, number in enumerate(numbers):
        top = 10 + 17 * row
        date = f"2023-06-{row + 1:02d}"
        draw.text((lines[0] + 3, top + 2), date, font=font, fill=(30, 30, 30))
        for column, value in ((1, number), (2, number - 517)):
            right = lines[column + 1] - 3
            draw.text((right - font.getlength(str(value)), top + 2), str(value), font=font, fill=(30, 30, 30))
        cells[date] = (lines[0] + 1, top + 1, lines[1], top + 17)
    for row in range(len(numbers) + 1):
        draw.line((0, 10 + 17 * row, 419, 10 + 17 * row), fill=(204, 204, 204))
    for x in lines:
        draw.line((x, 0, x, 259), fill=(204, 204, 204))
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=75)
    return np.asarray(Image.open(buffer).convert("RGB")), cells


def test_a_jpeg_spreadsheets_cells_reach_their_grid_lines() -> None:
    """Digits stacked down a column (a ``1`` over a ``1``, the grid line between) and JPEG's ripples round
    them are no vertical rules: each date takes its cell, between the grid's real lines."""
    image, cells = draw_spreadsheet()
    grey = np.asarray(Image.fromarray(image).convert("L"))
    columns = np.flatnonzero(vertical_rules(grey, 14.0).any(axis=0))
    assert all(min(abs(x - line) for line in (40, 130, 200, 270)) <= 1 for x in columns), columns
    texts = [Element(cell, ElementType.TEXT, text=date, source="ocr") for date, cell in cells.items()]
    inner = [t.replace(bbox=(t.bbox[0] + 2, t.bbox[1] + 1, t.bbox[0] + 70, t.bbox[3] - 2)) for t in texts]
    fitted, _ = fit_to_cells(image, inner, [])
    for element, cell in zip(fitted, cells.values(), strict=True):
        assert iou(element.bbox, cell) >= 0.8, (element.text, element.bbox, cell)


def test_a_line_read_across_a_jpeg_grid_line_is_cut_there() -> None:
    """OCR reads a date and the next cell's word, two pixels either side of a grey grid line, as one line;
    JPEG blurs the line and the letters beside it: the line is still cut at the grid line."""
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 12)
    rule_x = 115
    image = Image.new("RGB", (300, 160), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    joined = []
    for row, word in enumerate(("Clothing", "Electronics", "Home Goods", "Clothing", "Electronics", "Books")):
        top = 10 + 17 * row
        date = f"2023-06-{row + 1:02d}"
        draw.text((rule_x - 2 - font.getlength(date), top + 2), date, font=font, fill=(20, 20, 20))
        draw.text((rule_x + 3, top + 2), word, font=font, fill=(20, 20, 20))
        left = round(rule_x - 3 - font.getlength(date))
        joined.append(
            Element((left, top - 2, rule_x + 4 + round(font.getlength(word)), top + 17), ElementType.TEXT,
                    text=f"{date} {word}", source="ocr")
        )  # fmt: skip
    for row in range(7):
        draw.line((0, 10 + 17 * row, 299, 10 + 17 * row), fill=(205, 205, 205))
    draw.line((rule_x, 0, rule_x, 159), fill=(205, 205, 205))
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=75)
    grey = np.asarray(Image.open(buffer).convert("L"))
    pieces = cut_at_rules(joined, grey, vertical_rules(grey, 17.0))
    assert len(pieces) == 2 * len(joined), [p.text for p in pieces]
    for date, word in zip(pieces[::2], pieces[1::2], strict=True):
        assert (date.text or "").startswith("2023-06-") and " " not in (date.text or "-"), date.text
        assert abs(date.bbox[2] - rule_x) <= 2 and date.bbox[2] == word.bbox[0], (date.bbox, word.bbox)


def jpeg_of(image: np.ndarray, quality: int) -> np.ndarray:
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, "JPEG", quality=quality)
    return np.asarray(Image.open(buffer).convert("RGB"))


def test_a_dark_tables_rules_survive_jpeg() -> None:
    """A dark theme's grid lines, 7-13 grey levels off its rows, step under 5 levels on a third of their rows
    once JPEG'd (quality 60): on a dark ground a step of 3 counts, and each line runs the table's height."""
    image, _ = draw_table("dark")
    grey = np.asarray(Image.fromarray(jpeg_of(image, 60)).convert("L"))
    rules = vertical_rules(grey, 15.0)
    table_rows = ROW_HEIGHT * len(ROWS)
    for x in COLUMNS:
        assert rules[:, x - 1 : x + 2].any(axis=1).sum() >= 0.95 * table_rows, x


def test_a_jpeg_dark_tables_cells_take_their_extent() -> None:
    """The dark striped table as JPEG (quality 60, 75, 90; on even and odd pixels): most cell texts take
    their cells (40 of 54 here; 23 when a dark ground's rules needed a step of 5)."""
    fitted = 0
    for shift in (0, 1):
        image, cells = draw_table("dark", shift)
        for quality in (60, 75, 90):
            compressed = jpeg_of(image, quality)
            merged = merge_elements(ocr_texts(compressed), image.shape[1], image.shape[0], compressed)
            by_text = {e.text: e.bbox for e in merged}
            fitted += sum(text in by_text and near(by_text[text], cell) for text, cell in cells.items())
    assert fitted >= 36
