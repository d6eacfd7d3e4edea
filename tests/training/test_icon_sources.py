"""The icon classifier's vocabulary: set-specific glyph names become one UI meaning, as the pack names it."""

from __future__ import annotations

import numpy as np
import pytest

from training.icons.data import Glyphs, build_vocabulary, draw_crop, labels_for
from training.icons.sources import SETS_BY_ID, meaning


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
