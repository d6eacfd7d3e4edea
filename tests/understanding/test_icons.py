"""Icon matching: batched SSIM, the template pack, and the stage on screens rendered with Pillow."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from skimage.metrics import structural_similarity

from detact_service.core import Element, ElementType, ScreenParse
from detact_service.settings import Settings
from detact_service.stages import Stage, StageUnavailable, create_stage
from detact_service.understanding.icons import (
    INDEX_FILE,
    PACK_FILE,
    IconMatcher,
    IconMatcherStage,
    batched_ssim,
    read_index,
    ssim_one_to_many,
)
from tests.render import ScreenPainter, draw_icon, ui_font

ICONS_DIR = Path(__file__).resolve().parents[2] / "icons"

# (set, glyph, name it must get): common UI icons from every set in the pack.
ICONS = [
    ("fa6-solid", "magnifying-glass", "search"),
    ("mdi6", "cog", "settings"),
    ("fa6-solid", "xmark", "close"),
    ("mdi6", "content-copy", "copy"),
    ("fa6-solid", "bars", "menu"),
    ("codicons", "home", "home"),
    ("mdi6", "delete", "delete"),
    ("fa6-regular", "bell", "bell"),
    ("mdi6", "dots-vertical", "more vertical"),
    ("mdi6", "share-variant", "share"),
    ("fa6-solid", "pen-to-square", "edit"),
    ("codicons", "gear", "settings"),
    ("fa5-solid", "cog", "settings"),
    ("mdi6", "heart-outline", "heart"),
]
SIZES = (16, 20, 24, 32, 48)
needs_fonts = pytest.mark.skipif(
    importlib.util.find_spec("qtawesome") is None, reason="the icon fonts come with qtawesome"
)


def load_build_pack() -> ModuleType:
    """``icons/build_pack.py`` as a module (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location("icons_build_pack", ICONS_DIR / "build_pack.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["icons_build_pack"] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def index_rows() -> list[list[str]]:
    """The ``[name, set, glyph, codepoint]`` rows of ``icons/index.json``."""
    rows = read_index(ICONS_DIR)["templates"]
    assert isinstance(rows, list)
    return rows


@pytest.fixture(scope="module")
def build_pack() -> ModuleType:
    return load_build_pack()


@pytest.fixture(scope="module")
def stage() -> IconMatcherStage:
    return IconMatcherStage(Settings())


# --- SSIM ------------------------------------------------------------------------------------------


def test_batched_ssim_equals_skimage() -> None:
    rng = np.random.default_rng(7)
    for shape in ((32, 32), (19, 27), (7, 7)):
        x = rng.random((12, *shape))
        y = np.clip(x + rng.normal(0.0, rng.uniform(0.01, 0.5, (12, 1, 1)), x.shape), 0.0, 1.0)
        y[:4] = rng.random((4, *shape))  # unrelated pairs too
        ours = batched_ssim(x, y)
        reference = [structural_similarity(a, b, data_range=1.0) for a, b in zip(x, y, strict=True)]
        np.testing.assert_allclose(ours, reference, rtol=0, atol=1e-6)
    scaled = batched_ssim(x * 255.0, y * 255.0, data_range=255.0)
    np.testing.assert_allclose(scaled, ours, rtol=0, atol=1e-6)


def test_one_to_many_ssim_equals_batched() -> None:
    rng = np.random.default_rng(3)
    x = rng.random((5, 32, 32))
    ys = np.clip(x[:, None] + rng.normal(0.0, 0.2, (5, 4, 32, 32)), 0.0, 1.0)
    reference = batched_ssim(np.repeat(x, 4, axis=0), ys.reshape(-1, 32, 32)).reshape(5, 4)
    np.testing.assert_allclose(ssim_one_to_many(x, ys), reference, rtol=0, atol=1e-5)


# --- the pack --------------------------------------------------------------------------------------


def test_pack_has_enough_named_templates() -> None:
    index = json.loads((ICONS_DIR / INDEX_FILE).read_text("utf-8"))
    rows = index["templates"]
    assert len(rows) >= 1600 and index["count"] == len(rows)
    with np.load(ICONS_DIR / PACK_FILE, allow_pickle=False) as data:
        templates = data["templates"]
    assert templates.dtype == np.uint8 and templates.shape == (len(rows), 48, 48)
    assert all(isinstance(row[0], str) and row[0].strip() == row[0] and row[0] for row in rows)
    assert {row[1] for row in rows} <= set(index["sets"])
    assert (templates.reshape(len(rows), -1).max(axis=1) == 255).all()  # no empty glyphs
    assert len({row[0] for row in rows}) >= 1000
    assert (ICONS_DIR / "NOTICE").is_file()
    size = sum((ICONS_DIR / f).stat().st_size for f in (PACK_FILE, INDEX_FILE))
    assert size < 3_500_000


@needs_fonts
def test_pack_matches_build_script(build_pack: ModuleType) -> None:
    rows = index_rows()
    with np.load(ICONS_DIR / PACK_FILE, allow_pickle=False) as data:
        templates = data["templates"]
    for i in np.linspace(0, len(rows) - 1, 8).astype(int):
        name, set_id, glyph, codepoint = rows[i]
        assert build_pack.human_name(glyph) == name
        assert build_pack.load_charmap(build_pack.SETS_BY_ID[set_id])[glyph] == int(codepoint, 16)
        rendered = build_pack.render_template(set_id, glyph)
        assert rendered is not None
        # equal on this machine; one grey level of slack for another FreeType's rounding
        assert np.abs(rendered.astype(int) - templates[i]).max() <= 17, (set_id, glyph)


@pytest.mark.parametrize(
    ("glyph", "name"),
    [
        ("magnify", "search"),
        ("magnifying-glass", "search"),
        ("cog-outline", "settings"),
        ("gear", "settings"),
        ("xmark", "close"),
        ("times", "close"),
        ("close", "close"),
        ("content-copy", "copy"),
        ("bars", "menu"),
        ("menu", "menu"),
        ("share-variant", "share"),
        ("trash-alt", "delete"),
        ("circle-xmark", "close circle"),
        ("times-circle", "close circle"),
        ("arrow-circle-up", "arrow up circle"),
        ("angles-up", "chevron double up"),
        ("dots-vertical", "more vertical"),
        ("ellipsis-v", "more vertical"),
        ("account-circle-outline", "user circle"),
        ("a", None),
        ("alpha-a-box", None),
        ("numeric-1", None),
    ],
)
def test_human_names(build_pack: ModuleType, glyph: str, name: str | None) -> None:
    assert build_pack.human_name(glyph) == name


# --- matching --------------------------------------------------------------------------------------


def icon_screen(dark: bool) -> tuple[np.ndarray, ScreenParse, list[str | None]]:
    """Every test icon at every size, plus text, a short word, a blank square and an icon button."""
    background, ink = ((32, 34, 38), (236, 236, 236)) if dark else ((248, 248, 250), (40, 40, 46))
    painter = ScreenPainter(1100, 560, background=background)
    elements: list[Element] = []
    expected: list[str | None] = []
    y = 10
    for size in SIZES:
        x = 10
        for set_id, glyph, name in ICONS:
            x1, y1, x2, y2 = draw_icon(painter, (x, y), set_id, glyph, size=size, fill=ink).bbox
            elements.append(Element(bbox=(x1 - 3, y1 - 3, x2 + 3, y2 + 3), type=ElementType.REGION))
            expected.append(name)
            x += size + 20
        y += 62
    word = painter.text((10, y), "OK", size=24, fill=ink)  # a word boxed like an icon, no OCR text on it
    elements.append(
        Element(
            bbox=(word.bbox[0] - 3, word.bbox[1] - 3, word.bbox[2] + 3, word.bbox[3] + 3),
            type=ElementType.REGION,
        )
    )
    expected.append(None)
    text = painter.text((100, y), "Settings", size=22, fill=ink)
    elements.append(Element(bbox=text.bbox, type=ElementType.TEXT, text="Settings"))
    expected.append(None)
    painter.rect((300, y, 340, y + 40), fill=(90, 140, 220))  # a blank square
    elements.append(Element(bbox=(302, y + 2, 339, y + 39), type=ElementType.REGION))
    expected.append(None)
    painter.draw.rounded_rectangle((400, y, 448, y + 48), radius=8, fill=(37, 99, 235))
    draw_icon(painter, (412, y + 12), "mdi6", "magnify", size=24, fill=(255, 255, 255))
    elements.append(Element(bbox=(400, y, 449, y + 49), type=ElementType.BUTTON))
    expected.append("search")
    return np.asarray(painter.image), ScreenParse(1100, 560, elements), expected


@needs_fonts
@pytest.mark.parametrize("dark", [False, True], ids=["dark-on-light", "light-on-dark"])
def test_stage_names_rendered_icons(stage: IconMatcherStage, dark: bool) -> None:
    image, parse, expected = icon_screen(dark)
    out = stage.run([image], [parse])[0]
    got = [element.icon for element in out.elements]
    wrong = [(e, g, el.bbox) for e, g, el in zip(expected, got, parse.elements, strict=True) if e != g]
    assert not wrong
    for before, after in zip(parse.elements, out.elements, strict=True):
        if after.icon is None:
            assert after == before
        elif before.type == ElementType.REGION:
            assert after.type == ElementType.ICON
        else:
            assert after.type == before.type == ElementType.BUTTON
    assert out.elements[-3].type == ElementType.TEXT and out.elements[-3].icon is None


@needs_fonts
def test_stage_skips_elements_that_cannot_be_icons(stage: IconMatcherStage) -> None:
    painter = ScreenPainter(300, 120)
    gear = draw_icon(painter, (20, 20), "mdi6", "cog", size=32).bbox
    box = (gear[0] - 3, gear[1] - 3, gear[2] + 3, gear[3] + 3)
    parse = ScreenParse(
        300,
        120,
        [
            Element(bbox=box, type=ElementType.REGION),
            Element(bbox=box, type=ElementType.TEXT, text="gear"),
            Element(bbox=box, type=ElementType.REGION, text="Gear"),
            Element(bbox=box, type=ElementType.CHECKBOX),  # a round icon the segmenter took for a control
            Element(bbox=(box[0], box[1], box[0] + 100, box[3]), type=ElementType.REGION),  # too wide
            Element(bbox=(0, 0, 300, 120), type=ElementType.REGION),  # too big
        ],
    )
    out = stage.run([np.asarray(painter.image)], [parse])[0]
    assert [e.icon for e in out.elements] == ["settings", None, None, "settings", None, None]
    assert out.elements[3].type is ElementType.ICON and out.elements[3].state.checked is None


@needs_fonts
def test_matcher_alone_is_colour_and_polarity_blind() -> None:
    matcher = IconMatcher(icons_dir=ICONS_DIR)
    rois = []
    colours = [((255, 255, 255), (0, 0, 0)), ((0, 0, 0), (255, 200, 0)), ((200, 30, 30), (255, 255, 255))]
    for background, ink in colours:
        painter = ScreenPainter(60, 60, background=background)
        x1, y1, x2, y2 = draw_icon(painter, (14, 14), "fa6-solid", "house", size=28, fill=ink).bbox
        rois.append(np.asarray(painter.image)[y1 - 4 : y2 + 4, x1 - 4 : x2 + 4])
    rng = np.random.default_rng(0)
    rois.append(np.full((30, 30, 3), 128, dtype=np.uint8))  # blank
    rois.append(rng.integers(0, 256, (30, 30, 3), dtype=np.uint8))  # noise
    painter = ScreenPainter(80, 40)
    painter.draw.text((4, 4), "Go", font=ui_font(24), fill=(0, 0, 0))
    rois.append(np.asarray(painter.image))  # a word
    results = matcher.match(rois)
    assert [name for name, _ in results] == ["home", "home", "home", None, None, None]
    assert all(score >= 0.95 for _, score in results[:3])
    assert matcher.match([]) == []


@needs_fonts
def test_stage_protocol_and_missing_pack(tmp_path: Path) -> None:
    stage = create_stage("icons", "ssim", Settings())
    assert isinstance(stage, Stage) and (stage.slot, stage.name) == ("icons", "ssim")
    version = stage.model_version()
    assert version is not None and version.startswith(f"icon-pack-{len(index_rows())}-")
    missing = IconMatcherStage(Settings(icons_dir=tmp_path))
    painter = ScreenPainter(80, 80)
    x1, y1, x2, y2 = draw_icon(painter, (20, 20), "mdi6", "cog", size=24).bbox
    parse = ScreenParse(80, 80, [Element(bbox=(x1 - 2, y1 - 2, x2 + 2, y2 + 2), type=ElementType.ICON)])
    with pytest.raises(StageUnavailable):
        missing.run([np.asarray(painter.image)], [parse])


@needs_fonts
def test_a_padded_box_reaching_into_a_header_is_named_without_it(stage: IconMatcherStage) -> None:
    painter = ScreenPainter(400, 160)
    painter.rect((0, 0, 399, 63), fill=(33, 37, 41))
    glyph = draw_icon(painter, (40, 78), "fa6-solid", "bars", size=24).bbox
    padded = (glyph[0] - 16, 61, glyph[2] + 16, glyph[3] + 16)  # 3 px of the header's edge inside it
    parse = ScreenParse(400, 160, [Element(bbox=padded, type=ElementType.ICON, source="detector")])
    (named,) = stage.run([np.asarray(painter.image)], [parse])[0].elements
    assert named.icon == "menu"
