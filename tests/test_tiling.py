"""Screenshots longer than a screen are parsed as screen-shaped tiles and stitched back into one parse."""

from itertools import pairwise

import numpy as np
import numpy.typing as npt
import pytest

from detact_service.core import Element, ElementType, ScreenParse
from detact_service.geometry import iou_matrix
from detact_service.pipeline import get_pipeline
from detact_service.settings import Settings
from detact_service.tiling import OVERLAP, PHONE_ASPECT, PHONE_WIDTH, SCREEN_ASPECT, Tile, stitch, tiles_for
from tests.render import RenderedScreen, render_small_controls_page


@pytest.mark.parametrize(
    "size",
    [
        (1920, 1080),
        (1024, 768),
        (2560, 1440),
        (1080, 2340),
        (1440, 3200),
        (1280, 800),
        (992, 288),
        (480, 1250),
    ],
)
def test_screens_are_parsed_whole(size: tuple[int, int]) -> None:
    assert tiles_for(*size) == []


@pytest.mark.parametrize(
    "size", [(1920, 5000), (1920, 3240), (1280, 4000), (1080, 6000), (3840, 1080), (5120, 1440)]
)
def test_long_screenshots_are_cut_into_overlapping_screen_shaped_tiles(size: tuple[int, int]) -> None:
    width, height = size
    tiles = tiles_for(width, height)
    assert len(tiles) >= 2
    along = 1 if height > width else 0  # the axis the tiles follow
    length = height if along else width
    starts = [t.box[along] for t in tiles]
    ends = [t.box[along + 2] for t in tiles]
    tile_length = ends[0] - starts[0]
    across = width if along else height
    shape = (PHONE_ASPECT if across < PHONE_WIDTH else 1 / SCREEN_ASPECT) if along else SCREEN_ASPECT
    assert tile_length == pytest.approx(across * shape, abs=1)
    assert starts[0] == 0 and ends[-1] == length
    shared = [end - start for end, start in zip(ends[:-1], starts[1:], strict=True)]
    assert min(shared) >= OVERLAP * tile_length - 1
    cores = [(t.core[along], t.core[along + 2]) for t in tiles]
    assert cores[0][0] == 0 and cores[-1][1] == length
    assert all(a[1] == b[0] for a, b in pairwise(cores))  # the cores cut the length into parts
    assert all(s <= c0 and c1 <= e for (c0, c1), s, e in zip(cores, starts, ends, strict=True))


def test_stitching_keeps_each_element_once_moved_and_in_reading_order() -> None:
    tiles = [Tile((0, 0, 100, 60), (0, 0, 100, 50)), Tile((0, 40, 100, 100), (0, 50, 100, 100))]
    seam_word = Element((10, 5, 40, 15), ElementType.TEXT, text="seam", id=0)  # y 45-55 on the screenshot
    top = ScreenParse(
        100, 60, [Element((10, 10, 40, 20), text="top", id=0), seam_word.replace(bbox=(10, 45, 40, 55), id=1)]
    )
    bottom = ScreenParse(
        100, 60, [seam_word, Element((10, 40, 40, 50), ElementType.BUTTON, text="end", id=1)]
    )
    top.timings_ms, bottom.timings_ms = {"text": 10.0}, {"text": 5.0}

    whole = stitch(100, 100, tiles, [top, bottom])

    assert [(e.text, e.bbox, e.id) for e in whole.elements] == [
        ("top", (10, 10, 40, 20), 0),
        ("seam", (10, 45, 40, 55), 1),
        ("end", (10, 80, 40, 90), 2),
    ]
    assert (whole.width, whole.height) == (100, 100)
    assert whole.timings_ms == {"text": 15.0}
    assert whole.models["tiles"] == "2"


@pytest.fixture(scope="module")
def long_page() -> RenderedScreen:
    return render_small_controls_page(1920, 3240)


def buttons_found(parse: ScreenParse, page: RenderedScreen) -> npt.NDArray[np.int64]:
    """How many elements cover each drawn button at IoU >= 0.5."""
    buttons = np.asarray([d.bbox for d in page.of_kind("button")], dtype=np.float64)
    boxes = np.asarray([e.bbox for e in parse.elements], dtype=np.float64)
    return (iou_matrix(buttons, boxes) >= 0.5).sum(axis=1)


def test_a_full_page_capture_is_parsed_as_tiles_and_each_control_found_once(
    long_page: RenderedScreen,
) -> None:
    parse = get_pipeline(Settings(device="cpu"), "full").parse(np.asarray(long_page.image))

    assert (parse.width, parse.height) == (1920, 3240)
    assert parse.models["tiles"] == "4"
    found = buttons_found(parse, long_page)
    assert len(found) == 120
    assert (found == 1).all()  # none lost, none kept twice where two tiles overlap
    labels = [e.text for e in parse.elements if e.type is ElementType.BUTTON]
    assert labels.count("Save") == 12  # each copy's label read, in its button
    assert [e.id for e in parse.elements] == list(range(len(parse.elements)))


def test_read_whole_the_same_page_loses_most_controls(long_page: RenderedScreen) -> None:
    whole = get_pipeline(Settings(device="cpu", tile_long_screens=False), "full").parse(
        np.asarray(long_page.image)
    )
    assert "tiles" not in whole.models
    assert (buttons_found(whole, long_page) > 0).sum() < 60


def test_a_long_screenshot_re_parsed_after_a_change_equals_its_full_parse(long_page: RenderedScreen) -> None:
    pipeline = get_pipeline(Settings(device="cpu"), "full")
    before = np.asarray(long_page.image)
    after = before.copy()
    after[2000:2060, 300:700] = (200, 30, 30)  # a red banner on the third copy
    (first,) = pipeline.reparse_batch([before], [None], [None])
    (again,) = pipeline.reparse_batch([after], [None], [first.state])

    full = pipeline.parse(after)
    assert [(e.bbox, e.type, e.text) for e in again.parse.elements] == [
        (e.bbox, e.type, e.text) for e in full.elements
    ]
    (same,) = pipeline.reparse_batch([after], [None], [again.state])
    assert same.parse.elements == again.parse.elements


def test_a_batch_mixing_a_long_screenshot_and_a_screen_gives_each_its_own_parse(
    long_page: RenderedScreen,
) -> None:
    pipeline = get_pipeline(Settings(device="cpu"), "full")
    page = np.asarray(long_page.image)
    screen = np.ascontiguousarray(page[:1080])

    batch = pipeline.parse_batch([screen, page])

    alone = [pipeline.parse(screen), pipeline.parse(page)]
    for together, apart in zip(batch, alone, strict=True):
        assert (together.width, together.height) == (apart.width, apart.height)
        assert [(e.bbox, e.type, e.text) for e in together.elements] == [
            (e.bbox, e.type, e.text) for e in apart.elements
        ]
    assert "tiles" not in batch[0].models and batch[1].models["tiles"] == "4"
