import numpy as np
import pytest

from detact_service.core import COLOR_NAMES, Element, ElementType, ScreenParse
from detact_service.settings import Settings
from detact_service.understanding.colors import ColorStage, color_names, element_color
from tests.render import ScreenPainter

KNOWN = [
    ((255, 0, 0), "red"),
    ((200, 30, 40), "red"),
    ((255, 165, 0), "orange"),
    ((255, 255, 0), "yellow"),
    ((255, 215, 0), "yellow"),
    ((0, 128, 0), "green"),
    ((34, 197, 94), "green"),
    ((0, 0, 255), "blue"),
    ((37, 99, 235), "blue"),
    ((0, 180, 200), "blue"),
    ((128, 0, 128), "violet"),
    ((138, 43, 226), "violet"),
    ((255, 192, 203), "pink"),
    ((255, 105, 180), "pink"),
    ((139, 69, 19), "brown"),
    ((120, 80, 40), "brown"),
    ((255, 255, 255), "white"),
    ((246, 247, 249), "white"),
    ((0, 0, 0), "black"),
    ((33, 37, 41), "black"),
    ((128, 128, 128), "grey"),
    ((192, 192, 192), "grey"),
]


@pytest.mark.parametrize(("rgb", "name"), KNOWN)
def test_known_colours_get_their_names(rgb: tuple[int, int, int], name: str) -> None:
    assert color_names([rgb]) == [name]


def test_vectorised_over_many_colours_matches_one_by_one() -> None:
    rng = np.random.default_rng(0)
    colours = rng.integers(0, 256, size=(500, 3))
    together = color_names(colours)
    assert together == [color_names([c])[0] for c in colours]
    assert set(together) <= set(COLOR_NAMES)


def test_every_one_of_the_eleven_names_is_reachable() -> None:
    assert {name for _, name in KNOWN} == set(COLOR_NAMES)


def test_button_is_named_by_fill_and_text_by_ink() -> None:
    painter = ScreenPainter(400, 200)
    button = painter.button((20, 20, 180, 70), "Go", fill=(37, 99, 235))
    label = painter.text((20, 110), "Warning", size=28, fill=(220, 38, 38))
    image = np.asarray(painter.done().image)
    assert element_color(image, Element(bbox=button.bbox, type=ElementType.BUTTON)) == "blue"
    assert element_color(image, Element(bbox=label.bbox, type=ElementType.TEXT)) == "red"


def test_stage_sets_a_colour_on_every_element() -> None:
    painter = ScreenPainter(300, 120, background=(30, 30, 30))
    painter.rect((10, 10, 100, 60), fill=(34, 197, 94))
    image = np.asarray(painter.done().image)
    parse = ScreenParse(
        300,
        120,
        elements=[
            Element(bbox=(10, 10, 100, 60), type=ElementType.REGION),
            Element(bbox=(150, 20, 290, 100), type=ElementType.REGION),
        ],
    )
    out = ColorStage(Settings()).run([image], [parse])[0]
    assert [e.color for e in out.elements] == ["green", "black"]
