"""The shipped detector (``models/ui-detector.onnx``) through the default profile on rendered screens."""

from __future__ import annotations

import numpy as np
import pytest

from detact_service.core import Element, ElementType, ScreenParse
from detact_service.pipeline import available_profiles, default_profile, get_pipeline
from detact_service.settings import Settings
from tests.render import ScreenPainter, render_form

COLOURS = [
    (220, 38, 38),
    (37, 99, 235),
    (22, 163, 74),
    (234, 179, 8),
    (147, 51, 234),
    (236, 72, 153),
    (249, 115, 22),
    (20, 184, 166),
    (100, 116, 139),
    (15, 23, 42),
]
LABELS = ["Save", "Open", "Print", "Share", "Undo", "Redo", "Copy", "Paste", "Find", "Help"]


@pytest.fixture(scope="module")
def settings() -> Settings:
    return Settings(device="cpu")


def iou(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    inter_w = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    inter_h = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = inter_w * inter_h
    area = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / area


def best_match(parse: ScreenParse, box: tuple[int, int, int, int]) -> tuple[Element, float]:
    scored = [(element, iou(element.bbox, box)) for element in parse.elements]
    return max(scored, key=lambda pair: pair[1])


def contains(outer: tuple[int, int, int, int], inner: tuple[int, int, int, int]) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and outer[2] >= inner[2] and outer[3] >= inner[3]


def test_the_detector_profile_is_the_default_on_a_fresh_clone(settings: Settings) -> None:
    assert "fast" in available_profiles(settings)
    assert default_profile(settings) in {"fast", "full"}


@pytest.mark.parametrize("background", [(200, 200, 200), (30, 30, 30), (255, 255, 255), (40, 90, 160)])
def test_every_button_of_a_grid_of_coloured_buttons_is_found_once(
    settings: Settings, background: tuple[int, int, int]
) -> None:
    painter = ScreenPainter(1280, 800, background=background)
    buttons = [
        painter.button(
            (140 + (i % 5) * 210, 250 + (i // 5) * 210, 290 + (i % 5) * 210, 400 + (i // 5) * 210),
            label,
            fill=colour,
        ).bbox
        for i, (colour, label) in enumerate(zip(COLOURS, LABELS, strict=True))
    ]
    parse = get_pipeline(settings, "fast").parse(np.asarray(painter.done().image))
    for box, label in zip(buttons, LABELS, strict=True):
        element, overlap = best_match(parse, box)
        assert overlap >= 0.7, (label, box, element)
        assert element.is_interactive and element.source == "detector"
    for element in parse.elements:
        held = [box for box in buttons if contains(element.bbox, box)]
        assert len(held) <= 1, f"{element} holds {len(held)} buttons"


def test_form_controls_come_out_at_their_full_extent_with_their_types(settings: Settings) -> None:
    screen = render_form()
    parse = get_pipeline(settings, "fast").parse(np.asarray(screen.image))
    for drawn in screen.of_kind("button"):
        element, overlap = best_match(parse, drawn.bbox)
        assert overlap >= 0.7 and element.type is ElementType.BUTTON and element.text == drawn.text
    for drawn in screen.of_kind("input"):
        element, overlap = best_match(parse, drawn.bbox)
        assert overlap >= 0.6 and element.type is ElementType.INPUT
    checkboxes = [best_match(parse, drawn.bbox) for drawn in screen.of_kind("checkbox")]
    assert all(element.type is ElementType.CHECKBOX for element, _ in checkboxes)
    assert "Remember me" in [element.text for element, _ in checkboxes]


def test_the_shipped_landscape_detector_finds_the_form_controls_on_wide_screens_only(
    settings: Settings,
) -> None:
    from detact_service.core import LANDSCAPE_DETECTOR_SOURCE
    from detact_service.stages import create_stage

    stage = create_stage("detect", "yolo-onnx", settings)
    assert "+uitag-ui" in (stage.model_version() or "")  # its int8 copy on CPU
    screen = render_form()
    image = np.asarray(screen.image)
    boxes = stage.detect(stage.landscape_spec, [image], None)[0][0]
    for drawn in [*screen.of_kind("button"), *screen.of_kind("input")]:
        assert max(iou(tuple(int(v) for v in box), drawn.bbox) for box in boxes) >= 0.75, drawn
    wide, tall = image, np.ascontiguousarray(image[:, :900])
    sources = [
        {e.source for e in parse.elements}
        for parse in stage.run([wide, tall], [ScreenParse(1920, 1080), ScreenParse(900, 1080)])
    ]
    assert LANDSCAPE_DETECTOR_SOURCE in sources[0]  # boxes where the first detector drew none
    assert LANDSCAPE_DETECTOR_SOURCE not in sources[1] and "detector" in sources[1]


def render_phone_form() -> ScreenPainter:
    painter = ScreenPainter(720, 1560, background=(250, 250, 250))
    painter.rect((0, 0, 720, 140), fill=(33, 150, 243))
    painter.text((40, 60), "Sign in", size=40, fill=(255, 255, 255))
    for i, placeholder in enumerate(["Email", "Password", "Phone number"]):
        painter.input((40, 240 + i * 150, 680, 340 + i * 150), placeholder)
    painter.button((40, 720, 680, 830), "Continue", fill=(33, 150, 243))
    painter.button((40, 870, 680, 980), "Create account", fill=(76, 175, 80))
    for i, label in enumerate(["Help", "Terms", "About"]):
        painter.button((40 + i * 220, 1100, 240 + i * 220, 1190), label, fill=(96, 125, 139))
    return painter


def test_the_shipped_phone_detector_reads_phone_shaped_screens(settings: Settings) -> None:
    from detact_service.stages import create_stage

    stage = create_stage("detect", "yolo-onnx", settings)
    assert "+ui-detector-phone" in (stage.model_version() or "")  # its int8 copy on CPU
    screen = render_phone_form().done()
    image = np.asarray(screen.image)
    found = stage.run([image], [ScreenParse(720, 1560)])[0].elements
    # what the phone model alone finds, not the first detector
    alone = stage.detect(stage.phone_spec, [image], None)[0]
    assert sorted(e.score or 0 for e in found) == sorted(round(float(score), 4) for score in alone[1])
    for drawn in [*screen.of_kind("button"), *screen.of_kind("input")]:
        assert max(iou(e.bbox, drawn.bbox) for e in found) >= 0.8, drawn
