"""Layout edges reaching into a padded box are found; a glyph's own strokes are not."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from detact_service.detectors.classical_pixels import edge_cuts


def toolbar_screen() -> np.ndarray:
    """A dark header over a white toolbar whose first button's box reaches 3 px into the header."""
    image = Image.new("RGB", (400, 200), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 399, 63), fill=(33, 37, 41))
    for y in (78, 88, 98):  # a hamburger's three bars
        draw.rectangle((30, y, 50, y + 3), fill=(20, 20, 20))
    return np.asarray(image)


def test_a_header_edge_under_a_padded_button_is_cut_off() -> None:
    assert edge_cuts(toolbar_screen(), (15, 61, 89, 120)) == (3, 0, 0, 0)


def test_a_glyph_stroke_at_a_tight_box_side_is_kept() -> None:
    assert edge_cuts(toolbar_screen(), (30, 78, 51, 102)) == (0, 0, 0, 0)


def test_a_box_on_flat_ground_has_no_edge() -> None:
    assert edge_cuts(toolbar_screen(), (100, 80, 140, 110)) == (0, 0, 0, 0)
