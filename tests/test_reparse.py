"""Re-parse of a changed screen: fingerprints, the state cache, and (real OCR, real ONNX detector) that a
re-parse of a rendered after-screen equals a full parse of it while reading only the changed text."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from detact_service import library
from detact_service.core import ScreenParse
from detact_service.pipeline import Reparsed
from detact_service.reparse import (
    TILE,
    BoxMemo,
    Changes,
    ParseState,
    RowMemo,
    StateCache,
    TextMemo,
    box_fingerprints,
    changed_tiles,
    tile_fingerprints,
)
from detact_service.settings import Settings
from tests.render import render_dense_dashboard, ui_font

WIDTH, HEIGHT = 1280, 720
SETTINGS = Settings(device="cpu", profile="fast")


def same_parse(full: ScreenParse, re: ScreenParse) -> None:
    """Equal as a client sees it: the same elements (ids, types, texts, boxes, icons, colours, states) in
    the same order. Scores are not compared: a crop whose box the detector moved by a pixel or two keeps
    its earlier reading's confidence (which such a pixel moves by up to about 0.1)."""
    assert (re.width, re.height) == (full.width, full.height)
    assert len(re.elements) == len(full.elements)
    for a, b in zip(full.elements, re.elements, strict=True):
        assert (a.id, a.type, a.text, a.bbox, a.icon, a.color, a.state, a.source) == (
            b.id,
            b.type,
            b.text,
            b.bbox,
            b.icon,
            b.color,
            b.state,
            b.source,
        )


def dialog(image: Image.Image, title: str, button: str) -> Image.Image:
    """``image`` with a confirmation dialog (a title, a line of text and a red button) over its table."""
    after = image.copy()
    draw = ImageDraw.Draw(after)
    draw.rounded_rectangle((560, 260, 940, 470), radius=8, fill=(255, 255, 255), outline=(120, 120, 120))
    draw.text((584, 284), title, font=ui_font(22, True), fill=(20, 20, 20))
    draw.text((584, 330), "This cannot be undone", font=ui_font(16), fill=(60, 60, 60))
    draw.rounded_rectangle((760, 410, 920, 452), radius=6, fill=(220, 38, 38))
    draw.text((790, 418), button, font=ui_font(20, True), fill=(255, 255, 255))
    return after


@pytest.fixture(scope="module")
def before() -> Image.Image:
    return render_dense_dashboard().image.crop((0, 0, WIDTH, HEIGHT))  # its top-left: menu, cards, table


@pytest.fixture(scope="module")
def first(before: Image.Image) -> Reparsed:
    return library.reparse(np.asarray(before), None, settings=SETTINGS)


def test_tile_fingerprints_see_one_changed_pixel() -> None:
    image = np.random.default_rng(1).integers(0, 256, size=(100, 150, 3), dtype=np.uint8)
    prints = tile_fingerprints(image)
    assert prints.shape == (2, 3) and prints.dtype == np.uint64
    changed = image.copy()
    changed[70, 140, 2] ^= 1  # one bit of one channel, in the bottom-right (padded) tile
    change = changed_tiles(prints, tile_fingerprints(changed))
    assert change.changed.tolist() == [[False, False, False], [False, False, True]]
    assert change.fraction == pytest.approx(1 / 6)
    boxes = np.array([[0, 0, 10, 10], [100, 60, 150, 100], [120, 10, 150, 64], [120, 10, 150, 65]])
    assert change.unchanged(boxes).tolist() == [True, False, True, False]
    prints_boxes = box_fingerprints(image, boxes)
    assert (box_fingerprints(changed, boxes) == prints_boxes).tolist() == [True, False, True, True]
    assert (tile_fingerprints(image.copy()) == prints).all()


def test_text_memo_matches_same_pixels_and_jitter_on_unchanged_tiles() -> None:
    boxes = np.array([[10, 10, 60, 30], [10, 200, 60, 220], [300, 10, 400, 30]], dtype=np.int64)
    memo = TextMemo(boxes, np.array([1, 2, 3], dtype=np.uint64), ("a", "b", "c"), np.ones(3), (256, 512))
    changed = np.zeros((4, 8), dtype=bool)
    changed[3, 0] = True  # the tile under the second box
    new = np.array([[10, 10, 60, 30], [12, 201, 61, 219], [303, 12, 404, 31], [300, 10, 400, 30]])
    # same box, same pixels; a moved box on a changed tile; a box moved 4 px on unchanged tiles;
    # the same box with other pixels (its fingerprint differs) on unchanged tiles: the jitter rule holds
    found = memo.match(new, np.array([1, 2, 9, 8], dtype=np.uint64), Changes(changed, TILE))
    assert found.tolist() == [0, -1, 2, 2]
    far = memo.match(np.array([[310, 10, 420, 30]]), np.array([3], dtype=np.uint64), Changes(changed))
    assert far.tolist() == [-1]


def test_box_memo_needs_the_same_box_kind_and_unchanged_tiles() -> None:
    boxes = np.array([[10, 10, 60, 30], [100, 10, 160, 30], [10, 200, 60, 220]], dtype=np.int64)
    memo = BoxMemo(boxes, np.array([1, 0, 1]), ("blue", "red", "grey"))
    changed = np.zeros((4, 4), dtype=bool)
    changed[3, 0] = True
    new = np.array([[10, 10, 60, 30], [100, 10, 160, 30], [10, 200, 60, 220], [11, 10, 60, 30]])
    found = memo.match(new, np.array([1, 1, 1, 1]), Changes(changed))
    assert found.tolist() == [0, -1, -1, -1]  # kind differs; tile changed; box differs


def test_row_memo_needs_the_same_box_screen_size_and_unchanged_window() -> None:
    boxes = np.array([[10, 10, 60, 30], [100, 10, 160, 30]], dtype=np.int64)
    memo = RowMemo(boxes, np.array([[0.1, 0.9], [0.7, 0.3]], dtype=np.float32), (256, 256))
    changed = np.zeros((4, 4), dtype=bool)
    changed[0, 3] = True  # x 192-255, y 0-63
    new = np.array([[10, 10, 60, 30], [100, 10, 160, 30], [11, 10, 60, 30]])
    narrow = new.copy()
    wide = np.array([[0, 0, 100, 60], [60, 0, 200, 60], [0, 0, 100, 60]])  # the second reaches the change
    assert memo.match(new, narrow, (256, 256), Changes(changed)).tolist() == [0, 1, -1]  # box differs
    assert memo.match(new, wide, (256, 256), Changes(changed)).tolist() == [0, -1, -1]  # window changed
    assert memo.match(new, narrow, (256, 320), Changes(changed)).tolist() == [-1, -1, -1]  # screen size


def test_state_cache_is_bounded_and_expires() -> None:
    now = [0.0]
    cache = StateCache(size=2, ttl_s=10, clock=lambda: now[0])
    state = ParseState(1, 1, "fast", np.zeros((1, 1), dtype=np.uint64))
    first, second = cache.put(state), cache.put(state)
    assert first and second and first != second and cache.get(first) is state
    third = cache.put(state)  # the least recently used (second) goes
    assert third and cache.get(second) is None and cache.get(first) is state and len(cache) == 2
    now[0] = 11.0
    assert cache.get(first) is None and cache.get(third) is None and len(cache) == 0
    assert StateCache(size=0, ttl_s=1).put(state) is None
    assert cache.get("no-such-id") is None


def test_reparse_after_a_dialog_equals_a_full_parse(before: Image.Image, first: Reparsed) -> None:
    after = np.asarray(dialog(before, "Delete 3 invoices?", "Delete"))
    full = library.parse_full(after, settings=SETTINGS)
    again = library.reparse(after, first.state, settings=SETTINGS)
    same_parse(full, again.parse)
    texts = [e.text for e in again.parse.elements]
    assert any(t and "Delete 3 invoices" in t for t in texts) and "Delete" in texts
    info = again.info
    assert info.reused and info.reason is None and info.changed is not None and 0 < info.changed < 0.4
    assert info.text_reused > 2 * info.text_read > 0  # most of the screen's text was not read again
    assert first.info.reason == "no previous parse" and first.info.text_reused == 0


def test_changed_text_is_read_again_not_reused(before: Image.Image, first: Reparsed) -> None:
    """The same dialog box with other words: the boxes barely move, so only reading them again gives the
    new words (a re-parse that reused the previous text there would still say 'Delete')."""
    one = library.reparse(
        np.asarray(dialog(before, "Delete 3 invoices?", "Delete")), first.state, settings=SETTINGS
    )
    other = np.asarray(dialog(before, "Archive 3 invoices?", "Archive"))
    full = library.parse_full(other, settings=SETTINGS)
    again = library.reparse(other, one.state, settings=SETTINGS)
    same_parse(full, again.parse)
    texts = [e.text or "" for e in again.parse.elements]
    assert "Archive" in texts and not any("Delete" in t for t in texts)
    assert 0 < again.info.text_read < 10


def test_unchanged_screen_reads_nothing_and_big_changes_parse_in_full(
    before: Image.Image, first: Reparsed
) -> None:
    image = np.asarray(before)
    same = library.reparse(image.copy(), first.state, settings=SETTINGS)
    same_parse(first.parse, same.parse)
    assert same.info.changed == 0 and same.info.text_read == 0
    assert same.info.text_reused > 100 and set(same.parse.timings_ms) == {"total"}  # no stage ran
    assert set(library.reparse(image.copy(), same.state, settings=SETTINGS).parse.timings_ms) == {"total"}
    tasked = library.reparse(image.copy(), first.state, task="open the invoices", settings=SETTINGS)
    assert "text" in tasked.parse.timings_ms and tasked.parse.task == "open the invoices"  # parsed again
    assert tasked.info.text_read == 0  # ... reading no text
    inverted = 255 - image
    whole = library.reparse(inverted, first.state, settings=SETTINGS)
    assert not whole.info.reused and whole.info.text_reused == 0
    assert whole.info.reason is not None and "changed" in whole.info.reason
    smaller = library.reparse(image[:360, :640], first.state, settings=SETTINGS)
    assert smaller.info.reason == "the screen size changed" and smaller.info.text_reused == 0


def test_full_reparse_reads_only_the_elements_near_the_change(before: Image.Image) -> None:
    """With the reader (`full`), an element whose box and context window are unchanged keeps its previous
    reading; the toast's elements and those whose boxes or windows changed are read again, and the result
    is still the full parse's."""
    full_settings = Settings(device="cpu", profile="full")
    start = library.reparse(np.asarray(before), None, settings=full_settings)
    toasted = before.copy()
    draw = ImageDraw.Draw(toasted)
    draw.rounded_rectangle((900, 640, 1260, 700), radius=8, fill=(34, 34, 40))
    draw.text((924, 658), "Invoice INV-20931 saved", font=ui_font(18), fill=(255, 255, 255))
    after = np.asarray(toasted)
    full = library.parse_full(after, settings=full_settings)
    again = library.reparse(after, start.state, settings=full_settings)
    same_parse(full, again.parse)
    assert any("INV-20931" in (e.text or "") for e in again.parse.elements)
    info = again.info
    readable = sum(e.type.value != "region" for e in full.elements)
    assert info.elements_reused + info.elements_read == readable and info.elements_read > 0
    # the detectors pool over the whole screen, so a corner's toast moves some boxes elsewhere by a pixel
    # (read again: the reader's view changes); here 74 of 172 elements kept their box and window
    assert info.elements_reused > 0.25 * readable
    assert start.info.elements_reused == 0 and start.info.elements_read > 0
