import numpy as np
import pytest

from detact_service.core import LANDSCAPE_DETECTOR_SOURCE, Element, ElementState, ElementType
from detact_service.understanding.merge import (
    drop_nested_twins,
    drop_weak_spans,
    merge_elements,
    reading_order,
)


def text(box: tuple[int, int, int, int], value: str) -> Element:
    return Element(bbox=box, type=ElementType.TEXT, text=value, source="ocr")


def test_text_inside_a_button_becomes_its_text_and_ids_follow_reading_order() -> None:
    elements = [
        text((110, 20, 160, 40), "Submit"),
        text((10, 100, 80, 120), "Footer"),
        Element(bbox=(100, 10, 200, 50), type=ElementType.BUTTON, source="segment", score=0.8),
        text((10, 20, 60, 40), "Name"),
    ]
    merged = merge_elements(elements)
    assert [(e.id, e.type, e.text) for e in merged] == [
        (0, ElementType.TEXT, "Name"),
        (1, ElementType.BUTTON, "Submit"),
        (2, ElementType.TEXT, "Footer"),
    ]


def test_duplicates_keep_the_detector_box() -> None:
    elements = [
        Element(bbox=(10, 10, 110, 50), type=ElementType.REGION, source="segment", score=0.99),
        Element(bbox=(12, 11, 111, 50), type=ElementType.BUTTON, source="detector", score=0.6),
        Element(bbox=(300, 10, 340, 50), type=ElementType.ICON, source="segment", score=0.5),
    ]
    merged = merge_elements(elements)
    assert [(e.type, e.source) for e in merged] == [
        (ElementType.BUTTON, "detector"),
        (ElementType.ICON, "segment"),
    ]


def test_text_in_a_container_stays_its_own_element() -> None:
    elements = [
        Element(bbox=(0, 0, 500, 400), type=ElementType.REGION, source="segment"),
        text((20, 20, 120, 40), "Title"),
    ]
    merged = merge_elements(elements)
    assert sorted(e.type for e in merged) == [ElementType.REGION, ElementType.TEXT]
    assert next(e for e in merged if e.type is ElementType.REGION).text is None


def test_reading_order_groups_rows_despite_small_vertical_jitter() -> None:
    row = [text((300, 12, 340, 30), "c"), text((10, 10, 40, 28), "a"), text((100, 14, 150, 31), "b")]
    below = text((10, 60, 40, 80), "d")
    assert [e.text for e in reading_order([below, *row])] == ["a", "b", "c", "d"]


def test_a_checkbox_misread_as_a_glyph_is_not_also_text() -> None:
    elements = [
        Element(bbox=(10, 10, 32, 32), type=ElementType.CHECKBOX, source="segment"),
        text((9, 9, 33, 33), "口"),
        text((40, 10, 140, 32), "Accept terms"),
    ]
    merged = merge_elements(elements)
    assert [(e.type, e.text) for e in merged] == [(ElementType.CHECKBOX, "Accept terms")]


def test_a_checkbox_whose_tick_is_read_as_a_letter_and_whose_label_is_boxed_alone_carries_its_label() -> None:
    """The form (examples/form.png): the phone-trained detector boxes the label from beside the mark to the
    page's edge, and OCR reads the tick, in a box larger than the mark's, as ``V``."""
    elements = [
        Element(bbox=(620, 482, 643, 505), type=ElementType.CHECKBOX, source="segment"),
        text((615, 477, 650, 508), "V"),
        Element(bbox=(640, 470, 1313, 520), type=ElementType.ICON, source="detector", score=0.08),
        text((655, 482, 790, 506), "Remember me"),
        Element(bbox=(620, 532, 643, 555), type=ElementType.CHECKBOX, source="segment"),
        Element(bbox=(651, 516, 1314, 571), type=ElementType.ICON, source="detector", score=0.08),
        text((655, 532, 880, 556), "Send me the newsletter"),
        # a button right of a mark but past a label's gap keeps its box
        Element(bbox=(620, 600, 643, 623), type=ElementType.RADIO, source="segment"),
        text((655, 600, 720, 624), "Other"),
        Element(bbox=(760, 596, 900, 628), type=ElementType.ICON, source="detector", score=0.6),
        text((790, 600, 870, 624), "Browse"),
    ]
    merged = merge_elements(elements, 1920, 1080)
    assert [(e.type, e.bbox, e.text) for e in merged] == [
        (ElementType.CHECKBOX, (620, 482, 643, 505), "Remember me"),
        (ElementType.CHECKBOX, (620, 532, 643, 555), "Send me the newsletter"),
        (ElementType.RADIO, (620, 600, 643, 623), "Other"),
        (ElementType.BUTTON, (760, 596, 900, 628), "Browse"),
    ]


def test_a_label_boxed_alone_against_its_mark_is_the_mark_s_label() -> None:
    """The form through the int8 phone detector: a box round "Remember me" alone, starting at the mark's
    right edge; a link a gap away from its mark keeps its box."""
    elements = [
        Element(bbox=(620, 482, 643, 505), type=ElementType.CHECKBOX, source="segment"),
        Element(bbox=(644, 472, 845, 515), type=ElementType.ICON, source="detector", score=0.45),
        text((655, 482, 790, 506), "Remember me"),
        Element(bbox=(620, 600, 643, 623), type=ElementType.CHECKBOX, source="segment"),
        text((655, 600, 760, 624), "I agree to"),
        Element(bbox=(764, 596, 900, 628), type=ElementType.ICON, source="detector", score=0.6),
        text((770, 600, 890, 624), "the terms"),
    ]
    merged = merge_elements(elements, 1920, 1080)
    assert [(e.type, e.bbox, e.text) for e in merged] == [
        (ElementType.CHECKBOX, (620, 482, 643, 505), "Remember me"),
        (ElementType.CHECKBOX, (620, 600, 643, 623), "I agree to"),
        (ElementType.BUTTON, (764, 596, 900, 628), "the terms"),
    ]


def test_a_two_character_label_under_a_tab_icon_is_the_tab_s_text() -> None:
    """A phone's tab bar (phone_real, com.microsoft.bing): the icon read as a glyph, the label a word."""
    elements = [
        Element(bbox=(18, 1175, 127, 1256), type=ElementType.ICON, source="detector", score=0.5),
        text((62, 1186, 93, 1228), "<"),
        text((57, 1227, 94, 1250), "返回"),
        Element(bbox=(127, 1176, 236, 1256), type=ElementType.ICON, source="detector", score=0.5),
        Element(bbox=(163, 1194, 199, 1224), type=ElementType.ICON, source="segment"),
        text((159, 1190, 206, 1225), "国"),
        text((163, 1227, 200, 1251), "资讯"),
    ]
    merged = merge_elements(elements, 575, 1280)
    assert [(e.bbox, e.text) for e in merged] == [
        ((18, 1175, 127, 1256), "返回"),
        ((127, 1176, 236, 1256), "资讯"),
    ]


def test_an_icon_misread_as_two_letters_with_little_confidence_is_a_glyph() -> None:
    """phone_real: a copy icon read as ``中口`` at 0.73, a tab's label ``主页`` at 1.0 (rapidocr's scores)."""
    icon_button = Element(bbox=(900, 100, 980, 180), type=ElementType.ICON, source="detector", score=0.6)
    tab = Element(bbox=(100, 1175, 220, 1256), type=ElementType.ICON, source="detector", score=0.6)
    misread = Element(bbox=(915, 120, 965, 160), type=ElementType.TEXT, text="中口", source="ocr", score=0.73)
    label = Element(bbox=(140, 1227, 180, 1250), type=ElementType.TEXT, text="主页", source="ocr", score=1.0)
    merged = merge_elements([icon_button, tab, misread, label], 1080, 2340)
    assert [(e.bbox, e.text) for e in merged] == [(icon_button.bbox, None), (tab.bbox, "主页")]


def test_a_box_round_two_labelled_boxes_says_their_text() -> None:
    """A LibreOffice status bar field (ScreenAgent desktop): ``Page 1 of 1`` boxed whole and word by word."""
    field = detected((34, 720, 117, 741))
    page, of = detected((33, 720, 77, 740)), detected((80, 720, 112, 740))
    lines = [text((36, 722, 75, 739), "Page 1"), text((82, 722, 110, 739), "of 1")]
    merged = merge_elements([field, page, of, *lines], 1024, 768)
    assert sorted((e.bbox, e.text) for e in merged) == [
        (page.bbox, "Page 1"),
        (field.bbox, "Page 1 of 1"),
        (of.bbox, "of 1"),
    ]
    # a panel round three rows of labels (a reading pane) is no control: it goes, its rows stay
    panel = detected((0, 100, 400, 400))
    rows = [detected((10, 110 + 90 * r, 390, 180 + 90 * r)) for r in range(3)]
    row_lines = [text((20, 120 + 90 * r, 300, 170 + 90 * r), f"Row {r}") for r in range(3)]
    merged = merge_elements([panel, *rows, *row_lines], 1024, 768)
    assert [(e.bbox, e.text) for e in merged] == [(row.bbox, f"Row {r}") for r, row in enumerate(rows)]


def test_an_icon_read_as_a_symbol_by_ocr_is_kept_once() -> None:
    elements = [
        text((398, 74, 423, 99), "×"),
        Element(bbox=(402, 78, 419, 95), type=ElementType.ICON, source="segment"),
        text((430, 74, 460, 99), "×2"),
    ]
    merged = merge_elements(elements)
    assert [(e.type, e.text) for e in merged] == [(ElementType.ICON, None), (ElementType.TEXT, "×2")]


def test_controls_need_a_label_unless_they_are_an_empty_box() -> None:
    ticked, empty = ElementState(checked=True), ElementState(checked=False)
    elements = [
        Element(bbox=(10, 10, 30, 30), type=ElementType.CHECKBOX, source="segment", state=ticked),
        text((40, 12, 140, 30), "Accept terms"),
        Element(bbox=(300, 10, 320, 30), type=ElementType.RADIO, source="segment", state=ticked),
        Element(bbox=(400, 10, 420, 30), type=ElementType.CHECKBOX, source="segment", state=ticked),
        Element(bbox=(500, 10, 520, 30), type=ElementType.CHECKBOX, source="segment", state=empty),
    ]
    merged = merge_elements(elements)
    assert [(e.type, e.state.checked, e.text) for e in merged] == [
        (ElementType.CHECKBOX, True, "Accept terms"),
        (ElementType.ICON, None, None),
        (ElementType.ICON, None, None),
        (ElementType.CHECKBOX, False, None),
    ]


def test_a_link_a_table_row_away_from_its_checkbox_is_no_label() -> None:
    ticked = ElementState(checked=True)
    elements = [
        Element(bbox=(10, 10, 42, 42), type=ElementType.CHECKBOX, source="segment", state=ticked),
        text((86, 12, 160, 40), "Priya"),  # 44 px (1.4 box heights) away: the row's first cell
        Element(bbox=(10, 60, 42, 92), type=ElementType.CHECKBOX, source="segment", state=ticked),
        text((56, 62, 220, 90), "Remember me"),  # 14 px away: its label
    ]
    merged = merge_elements(elements)
    assert [(e.type, e.text) for e in merged] == [
        (ElementType.CHECKBOX, None),
        (ElementType.TEXT, "Priya"),
        (ElementType.CHECKBOX, "Remember me"),
    ]


def detected(box: tuple[int, int, int, int]) -> Element:
    return Element(bbox=box, type=ElementType.ICON, source="detector", score=0.8, interactive=True)


def test_a_detector_box_takes_the_type_and_state_of_the_segment_of_the_same_control() -> None:
    elements = [
        detected((100, 100, 400, 140)),
        Element(bbox=(104, 104, 396, 136), type=ElementType.INPUT, source="segment"),
        text((110, 110, 200, 130), "Search"),
    ]
    merged = merge_elements(elements, screen_width=1280)
    assert [(e.type, e.bbox, e.text) for e in merged] == [(ElementType.INPUT, (100, 100, 400, 140), "Search")]


def test_a_padded_icon_button_is_its_clickable_box_not_its_glyph() -> None:
    elements = [
        detected((10, 10, 50, 50)),
        Element(bbox=(22, 22, 38, 38), type=ElementType.ICON, source="segment"),
    ]
    merged = merge_elements(elements, screen_width=1280)
    assert [(e.type, e.bbox, e.source) for e in merged] == [(ElementType.ICON, (10, 10, 50, 50), "detector")]


def test_a_box_around_several_controls_is_a_group_and_each_control_stays() -> None:
    toolbar = detected((0, 0, 300, 60))
    buttons = [detected((10 + 60 * i, 10, 50 + 60 * i, 50)) for i in range(4)]
    merged = merge_elements([toolbar, *buttons], screen_width=1280)
    assert [e.bbox for e in merged] == [b.bbox for b in buttons]


def test_a_text_area_holding_its_own_scrollbar_stays_and_a_panel_of_stacked_buttons_does_not() -> None:
    area = detected((100, 100, 400, 300))
    scrollbar = [detected((382, 100 + 60 * i, 398, 116 + 60 * i)) for i in range(3)]  # arrows and thumb
    merged = merge_elements([area, *scrollbar], screen_width=1280, screen_height=800)
    assert [e.bbox for e in merged].count(area.bbox) == 1 and len(merged) == 4
    stacked = [detected((150, 100 + 60 * i, 250, 130 + 60 * i)) for i in range(3)]  # a column of buttons
    merged = merge_elements([area, *stacked], screen_width=1280, screen_height=800)
    assert area.bbox not in [e.bbox for e in merged]


def test_a_doubtful_box_spanning_two_sure_icons_goes_but_a_sure_one_stays() -> None:
    icons = [detected((270, 306, 297, 332)), detected((301, 307, 329, 330))]
    span = Element(bbox=(274, 305, 328, 333), type=ElementType.ICON, source="detector", score=0.09)
    assert [e.bbox for e in drop_weak_spans([span, *icons])] == [icons[0].bbox, icons[1].bbox]
    sure = span.replace(score=0.6)
    assert len(drop_weak_spans([sure, *icons])) == 3
    # an `f` read as a letter is the icon's drawing, not a word that would make it a label
    letter = text((270, 306, 297, 332), "f")
    assert len(drop_weak_spans([span, *icons], [letter])) == 2
    assert len(drop_weak_spans([span, *icons], [text((270, 306, 297, 332), "Share")])) == 3


def test_a_control_boxed_twice_keeps_its_padded_box_and_a_different_inner_one_stays() -> None:
    pill, words = detected((19, 96, 66, 132)), detected((24, 104, 58, 124))
    assert drop_nested_twins([pill.replace(text="Students"), words.replace(text="Students")]) == [
        pill.replace(text="Students")
    ]
    assert drop_nested_twins([pill, words]) == [pill]  # a glyph in its button, both textless
    assert len(drop_nested_twins([pill.replace(text="12 px"), words])) == 2  # a spin button in its field
    assert len(drop_nested_twins([pill, detected((30, 108, 42, 120))])) == 2  # a badge: IoU 0.09
    row, link = detected((5, 185, 248, 222)), detected((14, 186, 225, 205))
    assert len(drop_nested_twins([row, link])) == 2  # textless and larger than an icon button: a row


def test_a_tile_whose_icon_and_caption_are_detected_apart_is_one_control() -> None:
    tile = detected((376, 500, 554, 640))
    icon, caption_box = detected((430, 510, 500, 580)), detected((420, 590, 510, 625))
    caption = text((425, 595, 505, 620), "YouTube")
    merged = merge_elements([tile, icon, caption_box, caption], screen_width=1080, screen_height=2340)
    assert tile.bbox in [e.bbox for e in merged]
    # two inner boxes that are not texts make the same box a group
    merged = merge_elements([tile, icon, caption_box], screen_width=1080, screen_height=2340)
    assert tile.bbox not in [e.bbox for e in merged]


def test_a_tile_whose_caption_box_is_padded_round_its_text_is_one_control() -> None:
    tile = detected((376, 500, 554, 640))
    icon, caption_box = detected((430, 510, 500, 580)), detected((390, 585, 540, 635))
    caption = text((440, 598, 490, 620), "Mail")  # IoU 0.15 with its box: a padded caption
    merged = merge_elements([tile, icon, caption_box, caption], screen_width=1080, screen_height=2340)
    assert tile.bbox in [e.bbox for e in merged]


def test_a_bar_of_two_captioned_buttons_is_still_a_group() -> None:
    bar = detected((0, 0, 400, 80))
    buttons = [detected((10, 10, 190, 70)), detected((210, 10, 390, 70))]
    labels = [text((60, 28, 140, 52), "File"), text((260, 28, 340, 52), "Edit")]
    merged = merge_elements([bar, *buttons, *labels], screen_width=1280, screen_height=800)
    assert bar.bbox not in [e.bbox for e in merged]
    assert [b.bbox in [e.bbox for e in merged] for b in buttons] == [True, True]


def test_a_search_field_with_icons_at_its_ends_stays_beside_them() -> None:
    field = detected((10, 60, 530, 125))
    icons = [detected((15, 63, 70, 123)), detected((460, 63, 520, 122))]
    placeholder = text((90, 80, 300, 105), "Search or enter address")
    merged = merge_elements([field, *icons, placeholder], screen_width=1080, screen_height=2340)
    assert [(e.bbox, e.text) for e in merged] == [
        (field.bbox, "Search or enter address"),
        (icons[0].bbox, None),
        (icons[1].bbox, None),
    ]


def test_a_sparse_box_over_a_list_leaves_each_row_its_text() -> None:
    # a mail list: a star button and a date per row inside one detector box that covers little of it
    rows = range(4)
    panel = detected((40, 30, 690, 340))
    stars = [detected((50, 80 + 60 * r, 80, 110 + 60 * r)) for r in rows]
    dates = [detected((620, 85 + 60 * r, 680, 105 + 60 * r)) for r in rows]
    subjects = [text((90, 85 + 60 * r, 590, 105 + 60 * r), f"Subject {r}") for r in rows]
    merged = merge_elements([panel, *stars, *dates, *subjects], screen_width=1366, screen_height=768)
    assert panel.bbox not in [e.bbox for e in merged]
    assert [e.text for e in merged if e.type is ElementType.TEXT] == [f"Subject {r}" for r in rows]
    # two rows of controls in a sparse box: a card with its buttons, which keeps its text
    two_rows = [panel, *stars[:2], *dates[:2], *subjects[:2]]
    card = merge_elements(two_rows, screen_width=1366, screen_height=768)
    assert (panel.bbox, "Subject 0 Subject 1") in [(e.bbox, e.text) for e in card]


def test_a_list_row_is_one_element_with_its_text_and_icon() -> None:
    elements = [
        detected((0, 200, 1080, 330)),
        Element(bbox=(30, 240, 80, 290), type=ElementType.IMAGE, source="segment"),
        text((120, 220, 500, 260), "Wi-Fi"),
        text((120, 270, 600, 310), "Connected to home"),
    ]
    merged = merge_elements(elements, screen_width=1080)
    assert [(e.type, e.bbox, e.text) for e in merged] == [
        (ElementType.LIST_ITEM, (0, 200, 1080, 330), "Wi-Fi Connected to home")
    ]


def test_text_outside_every_box_stays_a_text_element_and_a_box_with_text_is_a_button() -> None:
    elements = [
        detected((600, 600, 800, 650)),
        text((640, 610, 760, 640), "Submit"),
        text((10, 10, 200, 40), "Title"),
    ]
    merged = merge_elements(elements, screen_width=1920)
    assert [(e.type, e.text) for e in merged] == [(ElementType.TEXT, "Title"), (ElementType.BUTTON, "Submit")]


def test_a_detector_box_over_a_quarter_of_the_screen_is_a_panel_not_a_control() -> None:
    elements = [
        detected((0, 300, 1000, 700)),
        detected((400, 400, 600, 450)),
        text((420, 410, 580, 440), "OK"),
    ]
    merged = merge_elements(elements, screen_width=1024, screen_height=768)
    assert [(e.type, e.bbox) for e in merged] == [(ElementType.BUTTON, (400, 400, 600, 450))]


def test_a_landscape_detector_box_joins_unless_it_holds_several_text_lines() -> None:
    row = Element(bbox=(20, 56, 410, 84), type=ElementType.ICON, source=LANDSCAPE_DETECTOR_SOURCE, score=0.8)
    tool = Element(
        bbox=(500, 10, 530, 40), type=ElementType.ICON, source=LANDSCAPE_DETECTOR_SOURCE, score=0.5
    )
    tab = Element(bbox=(600, 10, 700, 40), type=ElementType.ICON, source=LANDSCAPE_DETECTOR_SOURCE, score=0.5)
    cells = [
        text((24, 60, 80, 80), "871.95"),
        text((90, 60, 150, 80), "Failed"),
        text((160, 60, 280, 80), "a.docx"),
    ]
    merged = merge_elements([row, tool, tab, *cells, text((610, 15, 690, 35), "Settings")], screen_width=1024)
    # the table row would swallow its three cells: it is dropped and the cells stay apart
    assert [(e.type, e.bbox, e.text, e.source) for e in merged] == [
        (ElementType.ICON, tool.bbox, None, "detector"),
        (ElementType.BUTTON, tab.bbox, "Settings", "detector"),
        *[(ElementType.TEXT, cell.bbox, cell.text, "ocr") for cell in cells],
    ]


def test_a_tab_boxed_round_its_area_and_its_label_says_its_label_twice() -> None:
    """A phone tab (phone_real, com.roku.remote): the detector boxes the tab and, inside, its icon and
    label; the tab's box takes the label too, so neither box reaches the agent blank."""
    tab = Element(bbox=(285, 1175, 568, 1260), type=ElementType.ICON, source="detector", score=0.5)
    content = Element(bbox=(370, 1178, 445, 1256), type=ElementType.ICON, source="detector", score=0.5)
    card = Element(bbox=(0, 200, 575, 480), type=ElementType.ICON, source="detector", score=0.5)
    buy = Element(bbox=(20, 420, 120, 460), type=ElementType.ICON, source="detector", score=0.5)
    labels = [text((378, 1225, 438, 1250), "Devices"), text((40, 428, 100, 452), "Buy")]
    elements = [tab, content, card, buy, *labels]
    merged = merge_elements(elements, 575, 1280)
    assert [(e.bbox, e.text) for e in merged] == [
        ((0, 200, 575, 480), None),  # a card holding a small button is not that button
        ((20, 420, 120, 460), "Buy"),
        ((285, 1175, 568, 1260), "Devices"),
        ((370, 1178, 445, 1256), "Devices"),
    ]


def test_a_phone_s_status_bar_keeps_its_clock_as_plain_text_and_drops_its_glyphs() -> None:
    """phone_real: the clock, the signal and the battery above an app's search field."""
    clock = text((40, 20, 130, 60), "17:43")
    battery = detected((980, 22, 1040, 58))
    wifi = Element(bbox=(900, 24, 940, 56), type=ElementType.ICON, source="segment", score=0.5)
    search = detected((20, 90, 1060, 200))
    query = text((60, 120, 400, 170), "Search")
    merged = merge_elements([clock, battery, wifi, search, query], 1080, 2340)
    assert [(e.bbox, e.type, e.text, e.is_interactive) for e in merged] == [
        (clock.bbox, ElementType.TEXT, "17:43", False),
        (search.bbox, ElementType.LIST_ITEM, "Search", True),  # screen-wide: a row
    ]
    # a desktop's top row, or a phone screen without a clock up there, is left alone
    desktop = merge_elements([clock, battery, wifi, search, query], 1920, 1080)
    assert battery.bbox in [e.bbox for e in desktop]
    no_clock = merge_elements([battery, search, query], 1080, 2340)
    assert battery.bbox in [e.bbox for e in no_clock]


def test_a_box_round_a_column_of_links_leaves_each_link_but_a_card_with_a_picture_stays() -> None:
    image = np.full((768, 1024, 3), 255, dtype=np.uint8)
    column = detected((338, 431, 427, 549))
    links = [text((350, 440 + 26 * r, 410, 458 + 26 * r), f"Link {r}") for r in range(4)]
    for link in links:
        x0, y0, x1, y1 = link.bbox
        image[y0 + 4 : y1 - 4, x0 + 2 : x1 - 2] = (40, 40, 200)  # the lines' ink
    merged = merge_elements([column, *links], screen_width=1024, screen_height=768, image=image)
    assert column.bbox not in [e.bbox for e in merged]
    assert [e.text for e in merged] == [f"Link {r}" for r in range(4)]
    # the same lines beside a picture: a card, one control with their text
    card = detected((200, 431, 427, 549))
    image[440:540, 210:330] = (30, 120, 60)
    merged = merge_elements([card, *links], screen_width=1024, screen_height=768, image=image)
    assert [(e.bbox, e.text) for e in merged] == [(card.bbox, "Link 0 Link 1 Link 2 Link 3")]
    # two lines are a title and a subtitle: the box keeps them
    image[440:540, 210:330] = 255
    merged = merge_elements([card, *links[:2]], screen_width=1024, screen_height=768, image=image)
    assert [(e.bbox, e.text) for e in merged] == [(card.bbox, "Link 0 Link 1")]


def test_a_row_of_icons_read_as_characters_with_little_confidence_is_no_text() -> None:
    """A LibreOffice toolbar (ScreenAgent desktop): three icons boxed one by one, OCR's ``日·Ω`` at 0.58
    over them goes; the same line read with confidence stays (a label round two boxes)."""
    icons = [detected((10 + 30 * i, 100, 36 + 30 * i, 126)) for i in range(3)]
    row = Element(bbox=(8, 98, 98, 128), type=ElementType.TEXT, text="日·Ω", source="ocr", score=0.58)
    merged = merge_elements([*icons, row], 1024, 768)
    assert [e.text for e in merged] == [None, None, None]
    sure = row.replace(text="Save all", score=0.97)
    assert "Save all" in [e.text for e in merge_elements([*icons, sure], 1024, 768)]
    one_icon = merge_elements([icons[0], row], 1024, 768)  # one box: not a row of icons
    assert "日·Ω" in [e.text for e in one_icon]


@pytest.mark.parametrize("shape", [(270, 1), (1, 270), (2, 300), (40, 300)])
def test_degenerate_screens_and_sliver_lines_merge_without_error(shape: tuple[int, int]) -> None:
    """A one-pixel strip with a detector box on it, and OCR lines 1-2 px tall crossed by a vertical rule:
    the merge returns every element it keeps inside the screen (the bare-box test has no half-scale image
    of a strip; a line's cut test drops two rows of it)."""
    height, width = shape
    image = np.full((height, width, 3), 235, dtype=np.uint8)
    image[:, width // 2] = 20  # an upright rule down the screen
    elements = [
        Element((0, 0, width, height), ElementType.ICON, source="detector", score=0.5),
        Element((0, 0, width, min(height, 2)), ElementType.TEXT, text="Name Size", source="ocr"),
    ]
    merged = merge_elements(elements, width, height, image)
    for element in merged:
        x1, y1, x2, y2 = element.bbox
        assert 0 <= x1 <= x2 <= width and 0 <= y1 <= y2 <= height
    assert any(e.text == "Name Size" or (e.text or "").startswith("Name") for e in merged)


@pytest.mark.parametrize("icons", [3, 5])
def test_a_picture_holding_four_controls_or_more_is_a_bar(icons: int) -> None:
    """A taskbar the segmenter took for a picture holds the detector's buttons: it goes, they stay; a
    picture holding fewer (a video's play and volume buttons) stays a picture."""
    bar = Element(bbox=(0, 730, 1024, 768), type=ElementType.IMAGE, source="segment", score=0.6)
    buttons = [
        Element(bbox=(40 * k, 740, 40 * k + 30, 766), type=ElementType.ICON, source="detector", score=0.7)
        for k in range(icons)
    ]
    merged = merge_elements([bar, *buttons], 1024, 768)
    assert sum(e.type is ElementType.ICON for e in merged) == icons
    assert any(e.type is ElementType.IMAGE for e in merged) is (icons < 4)
