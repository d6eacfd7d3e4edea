"""The grid data-engine source: coloured labelled buttons, colours that agree with the runtime."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from detact_service.core import COLOR_NAMES, ElementType
from detact_service.understanding.colors import color_names, element_color
from training.data.labels import ScreenLabels
from training.data.sources import create_renderer
from training.data.sources.grid import LAYOUTS, GridRenderer, sample_color

SEEDS = range(40)


@pytest.fixture(scope="module")
def screens() -> list[tuple[Image.Image, ScreenLabels]]:
    with GridRenderer() as renderer:
        return [renderer.render(seed) for seed in SEEDS]


def test_registry_creates_grid_renderer() -> None:
    assert isinstance(create_renderer("grid"), GridRenderer)


@pytest.mark.parametrize("name", COLOR_NAMES)
def test_sampled_colours_have_their_name(name: str) -> None:
    rng = np.random.default_rng(0)
    samples = [sample_color(rng, name) for _ in range(50)]
    assert color_names(np.asarray(samples)) == [name] * 50


def test_screens_are_well_formed(screens: list[tuple[Image.Image, ScreenLabels]]) -> None:
    templates = set()
    for seed, (image, labels) in zip(SEEDS, screens, strict=True):
        assert (labels.width, labels.height) == image.size
        assert labels.source == "grid" and labels.seed == seed
        templates.add(labels.template)
        buttons = [e for e in labels.elements if e.type is ElementType.BUTTON]
        assert buttons
        for element in labels.elements:
            x1, y1, x2, y2 = element.bbox
            assert 0 <= x1 < x2 <= labels.width and 0 <= y1 < y2 <= labels.height, element
            assert element.color in COLOR_NAMES
    assert templates == {f"grid/{layout}/v1" for layout in LAYOUTS}


def test_colours_agree_with_element_color(screens: list[tuple[Image.Image, ScreenLabels]]) -> None:
    checked = 0
    for image, labels in screens:
        pixels = np.asarray(image)
        for element in labels.elements:
            assert element_color(pixels, element) == element.color, element
            checked += element.type is ElementType.BUTTON
    assert checked > 200


def test_button_texts_have_text_elements(screens: list[tuple[Image.Image, ScreenLabels]]) -> None:
    checked = 0
    for _, labels in screens:
        texts = [e for e in labels.elements if e.type is ElementType.TEXT]
        for button in (e for e in labels.elements if e.type is ElementType.BUTTON and e.text):
            bx1, by1, bx2, by2 = button.bbox
            inside = [
                t
                for t in texts
                if t.text == button.text
                and bx1 <= t.bbox[0]
                and t.bbox[2] <= bx2
                and by1 <= t.bbox[1]
                and t.bbox[3] <= by2
            ]
            assert len(inside) == 1, button
            checked += 1
    assert checked > 200  # the fixture's screens hold buttons with text: an empty loop proves nothing


def test_deterministic_per_seed(screens: list[tuple[Image.Image, ScreenLabels]]) -> None:
    def png(image: Image.Image) -> bytes:
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        return buffer.getvalue()

    with GridRenderer() as renderer:
        for seed in (5, 0):
            image, labels = renderer.render(seed)
            assert png(image) == png(screens[seed][0])
            assert labels == screens[seed][1]
