"""Semi-masking keeps the element's pixels exactly, darkens the rest and outlines the box outside it."""

from __future__ import annotations

import numpy as np
import pytest

from detact_service.understanding.semimask import (
    DARKEN,
    OUTLINE,
    context_window,
    fit_view,
    semi_mask,
    semi_masked_views,
)


@pytest.fixture
def screen() -> np.ndarray:
    rng = np.random.default_rng(1)
    return rng.integers(40, 255, size=(1080, 1920, 3), dtype=np.uint8)


def test_element_pixels_are_kept_exactly_and_the_rest_is_darkened(screen: np.ndarray) -> None:
    box = (700, 400, 820, 440)
    window = context_window(box, 1920, 1080)
    view = semi_mask(screen, box, window)
    wx1, wy1, wx2, wy2 = window
    assert view.shape == (wy2 - wy1, wx2 - wx1, 3)
    x1, y1, x2, y2 = box[0] - wx1, box[1] - wy1, box[2] - wx1, box[3] - wy1
    assert np.array_equal(view[y1:y2, x1:x2], screen[box[1] : box[3], box[0] : box[2]])
    # the outline ring just outside the box
    assert (view[y1 - 1, x1:x2] == OUTLINE).all() and (view[y2, x1:x2] == OUTLINE).all()
    assert (view[y1:y2, x1 - 1] == OUTLINE).all() and (view[y1:y2, x2] == OUTLINE).all()
    # far from the box: darkened
    corner = (screen[wy1 : wy1 + 5, wx1 : wx1 + 5].astype(np.float32) * DARKEN).astype(np.uint8)
    assert np.array_equal(view[:5, :5], corner)


def test_window_contains_the_element_is_bounded_and_stays_inside(screen: np.ndarray) -> None:
    for box in [(0, 0, 20, 20), (1900, 1060, 1920, 1080), (100, 500, 1800, 560), (900, 10, 910, 18)]:
        x1, y1, x2, y2 = context_window(box, 1920, 1080)
        assert 0 <= x1 <= box[0] and box[2] <= x2 <= 1920
        assert 0 <= y1 <= box[1] and box[3] <= y2 <= 1080
        assert x2 - x1 >= min(96, 1920) and y2 - y1 >= 96
    # a small element gets a window a few times its size, not the screen
    x1, y1, x2, y2 = context_window((900, 500, 960, 520), 1920, 1080)
    assert x2 - x1 == 180 and y2 - y1 == 96


def test_small_screens_are_masked_whole_and_views_are_shrunk(screen: np.ndarray) -> None:
    small = screen[:210, :160]
    (view,) = semi_masked_views(small, [(10, 10, 50, 30)])
    assert view.shape == (210, 160, 3)
    big = semi_masked_views(screen, [(10, 10, 1900, 1000)])[0]
    assert max(big.shape[:2]) == 384
    assert fit_view(small).shape == small.shape


def test_box_at_the_edge_outline_is_clipped(screen: np.ndarray) -> None:
    view = semi_mask(screen, (0, 0, 30, 30))
    assert view.shape == screen.shape
    assert np.array_equal(view[:30, :30], screen[:30, :30])
    assert (view[30, :30] == OUTLINE).all()
