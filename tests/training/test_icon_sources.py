"""The icon classifier's vocabulary: set-specific glyph names become one UI meaning, as the pack names it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from training.icons.data import Glyphs, build_vocabulary, draw_crop, labels_for
from training.icons.render import render_svg_set
from training.icons.sources import SETS_BY_ID, glyph_svgs, meaning


@pytest.mark.parametrize(
    ("set_id", "glyph", "name"),
    [
        ("lucide", "settings", "settings"),
        ("lucide", "cog", "settings"),
        ("heroicons-outline", "cog-6-tooth", "settings"),
        ("octicons", "gear-24", "settings"),
        ("phosphor-bold", "gear-six-bold", "settings"),
        ("lucide", "trash-2", "delete"),
        ("bootstrap", "trash3-fill", "delete"),
        ("lucide", "x", "close"),
        ("heroicons-outline", "x-mark", "close"),
        ("iconoir", "xmark", "close"),
        ("feather", "x-circle", "close circle"),
        ("heroicons-outline", "bars-3", "menu"),
        ("bootstrap", "list", "menu"),
        ("tabler-outline", "list", "list"),
        ("heroicons-outline", "magnifying-glass", "search"),
        ("material-outlined", "more_vert", "more vertical"),
        ("ionicons", "ellipsis-vertical-outline", "more vertical"),
        ("material-filled", "visibility_off", "eye off"),
        ("octicons", "person-24", "user"),
        ("feather", "delete", "backspace"),
        ("ionicons", "logo-github", None),
        ("tabler-outline", "letter-a", "letter a"),
        ("fluent-regular", "dismiss_24_regular", "close"),
        ("fluent-filled", "more_horizontal_24_filled", "more horizontal"),
        ("carbon", "chevron--down", "chevron down"),
        ("carbon", "trash-can", "delete"),
        ("carbon", "view--off--filled", "eye off"),
        ("eva-outline", "settings-2-outline", "settings"),
        ("boxicons-regular", "bx-cog", "settings"),
        ("boxicons-solid", "bxs-trash-alt", "delete"),
        ("majesticons-line", "settings-cog-line", "settings"),
        ("teenyicons-outline", "tick", "check"),
        ("heroicons-outline", "ellipsis-horizontal", "more horizontal"),
        ("heroicons-outline", "paper-airplane", "send"),
        ("heroicons-outline", "magnifying-glass-plus", "zoom in"),
        ("lucide", "chevrons-right", "chevron double right"),
        ("fa6-solid", "angles-left", "chevron double left"),
        ("mingcute-line", "home_1_line", "home"),
        ("coreui-free", "cil-magnifying-glass", "search"),
        ("gravity-ui", "trash-bin", "delete"),
        ("iconify-ant-design", "setting-outlined", "settings"),
        ("iconify-ant-design", "more-outlined", "more vertical"),
        ("iconify-ant-design", "notification-filled", "bell"),
        ("iconify-radix-icons", "cross-2", "close"),
        ("fa6-solid", "cross", "cross"),
        ("iconify-solar", "trash-bin-minimalistic-linear", "delete"),
        ("iconify-hugeicons", "delete-02", "delete"),
        ("iconify-qlementine-icons", "trash-16", "delete"),
        ("iconify-charm", "menu-kebab", "more vertical"),
        ("iconify-icon-park-outline", "setting-two", "settings"),
        ("iconify-jam", "search-f", "search"),
    ],
)
def test_meanings(set_id: str, glyph: str, name: str | None) -> None:
    assert meaning(glyph, SETS_BY_ID[set_id]) == name


def test_vocabulary_and_labels() -> None:
    masks = np.zeros((7, 64, 64), dtype=np.uint8)
    train = Glyphs(
        masks,
        ["bell", "bell", "bell", "bell ring", "rocket", "gear wheel", "bell"],
        ["a", "b", "c", "a", "a", "b", "d"],
        ["a", "b", "c", "a", "a", "b", "d"],
    )
    held = Glyphs(masks[:1], ["bell"], ["z"], ["z"])
    vocab, common = build_vocabulary(train, held)
    assert vocab == ["bell"] and common == ["bell"]
    # in the vocabulary: 1; containing a meaning ("bell ring"): left out; unrelated: unknown (0)
    assert labels_for(train, vocab).tolist() == [1, 1, 1, -1, 0, 0, 1]


def test_draw_crop_is_a_plain_rgb_crop() -> None:
    mask = np.zeros((64, 64), dtype=np.uint8)
    mask[16:48, 16:48] = 255
    rng = np.random.default_rng(0)
    for _ in range(20):
        crop = draw_crop(mask, rng)
        assert crop.dtype == np.uint8 and crop.ndim == 3 and crop.shape[2] == 3
        assert min(crop.shape[:2]) >= 14 and max(crop.shape[:2]) <= 64 * 2


def test_an_iconify_package_becomes_svg_glyphs_drawn_as_masks(tmp_path: Path) -> None:
    """Each icon of an ``@iconify-json`` package is its body in an SVG of its own (or the set's) view box;
    hidden icons and excluded styles are left out."""
    package = tmp_path / "iconify" / "iconify-json-stash-1.0.0" / "package"
    package.mkdir(parents=True)
    square = '<path fill="currentColor" d="M4 4h16v16H4z"/>'
    icons = {
        "search": {"body": square},
        "search-duotone": {"body": square},
        "trash-can": {"body": '<path fill="currentColor" d="M0 0h8v32H0z"/>', "width": 32, "height": 32},
        "old": {"body": square, "hidden": True},
    }
    (package / "icons.json").write_text(json.dumps({"icons": icons, "width": 24, "height": 24}))
    icon_set = SETS_BY_ID["iconify-stash"]
    glyphs = dict(glyph_svgs(icon_set, tmp_path))
    assert sorted(glyphs) == ["search", "trash-can"]
    assert b'viewBox="0 0 32 32"' in glyphs["trash-can"] and b'viewBox="0 0 24 24"' in glyphs["search"]
    masks, names, stems = render_svg_set(icon_set, tmp_path)
    assert names == ["search", "delete"] and stems == ["search", "trash-can"]
    # a filled square fills its mask; a bar a quarter as wide as tall is padded square, centred
    assert masks[0][2:-2, 2:-2].min() == 255
    assert masks[1][:, 28:36].min() > 200 and masks[1][:, :20].max() == 0
