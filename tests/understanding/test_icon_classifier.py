"""The icon classifier backend: SSIM exact hits first, then the shipped CNN on icons of sets it never saw.

``data/lucide_unseen.npz`` holds twelve Lucide glyphs (ISC licence, see NOTICE) as 64x64 ink masks:
Lucide is one of the held-out sets, never trained on.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from detact_service.core import Element, ElementState, ElementType, ScreenParse
from detact_service.pipeline import PROFILES, resolve_backend
from detact_service.settings import IconSettings, Settings
from detact_service.stages import Stage, create_stage
from detact_service.understanding.icon_classifier import (
    UNKNOWN,
    IconClassifier,
    IconClassifierStage,
    classifier_spec,
    frames,
    load_classifier,
)
from detact_service.understanding.icons import MIN_RADIUS, frame_ink, ink_map
from tests.render import ScreenPainter, ui_font

UNSEEN = Path(__file__).resolve().parent / "data" / "lucide_unseen.npz"
PAGE_ICONS = ("search", "settings", "x", "trash-2", "house", "bell", "pencil", "menu")


def has_model() -> bool:
    return IconClassifierStage.available(Settings()) is None


needs_model = pytest.mark.skipif(not has_model(), reason="models/ui-icons.onnx is not shipped here")


def unseen() -> dict[str, tuple[npt.NDArray[np.uint8], str]]:
    """Glyph -> (64x64 ink mask, meaning) of the Lucide fixture."""
    with np.load(UNSEEN) as data:
        return {
            str(g): (m, str(n)) for g, m, n in zip(data["glyphs"], data["masks"], data["names"], strict=True)
        }


def stamp(
    image: npt.NDArray[np.uint8],
    mask: npt.NDArray[np.uint8],
    xy: tuple[int, int],
    size: int,
    ink: tuple[int, ...],
) -> tuple[int, int, int, int]:
    """Draw a mask at ``size`` px with its top-left at ``xy`` (anti-aliased); returns its box."""
    alpha = cv2.resize(mask.astype(np.float32) / 255.0, (size, size), interpolation=cv2.INTER_AREA)[..., None]
    x, y = xy
    patch = image[y : y + size, x : x + size].astype(np.float32)
    image[y : y + size, x : x + size] = np.rint(patch + alpha * (np.array(ink, np.float32) - patch)).astype(
        np.uint8
    )
    return x, y, x + size, y + size


def icon_button_page() -> tuple[npt.NDArray[np.uint8], ScreenParse, list[str]]:
    """A plain 1920x1080 page with eight common outline icon buttons, each boxed as the segmenter
    boxes them (an ``image`` a few pixels around the glyph), plus a word and a blank square."""
    painter = ScreenPainter(1920, 1080)
    painter.text((40, 20), "Dashboard", size=28)
    image = np.array(painter.image)
    glyphs = unseen()
    elements, expected = [], []
    for index, glyph in enumerate(PAGE_ICONS):
        mask, name = glyphs[glyph]
        x1, y1, x2, y2 = stamp(image, mask, (600 + index * 64, 24), 24, (30, 30, 30))
        elements.append(Element(bbox=(x1 - 8, y1 - 8, x2 + 8, y2 + 8), type=ElementType.IMAGE))
        expected.append(name)
    return image, ScreenParse(1920, 1080, elements), expected


@needs_model
def test_stage_names_icon_buttons_of_an_unseen_set() -> None:
    image, parse, expected = icon_button_page()
    stage = create_stage("icons", "classifier", Settings())
    assert isinstance(stage, Stage) and (stage.slot, stage.name) == ("icons", "classifier")
    out = stage.run([image], [parse])[0]
    got = [e.icon for e in out.elements]
    assert sum(g == e for g, e in zip(got, expected, strict=True)) >= 7, got  # SSIM alone: none
    assert all(g in (e, None) for g, e in zip(got, expected, strict=True)), got  # unsure, never wrong
    for before, after in zip(parse.elements, out.elements, strict=True):
        assert after.type is (ElementType.BUTTON if after.icon else before.type)  # icon buttons, not images
    version = stage.model_version()
    assert version is not None and version.startswith("ui-icons")


@needs_model
def test_a_pictogram_read_as_a_letter_is_named_and_a_real_letter_is_kept() -> None:
    """OCR reads a magnifier as 'Q' and a close cross as 'X': the CNN still names them (the letter stays);
    a button showing the letter '7' stays unnamed."""
    glyphs = unseen()
    image = np.full((80, 400, 3), 255, dtype=np.uint8)
    elements = []
    for index, (glyph, text) in enumerate((("search", "Q"), ("x", "X"))):
        x1, y1, x2, y2 = stamp(image, glyphs[glyph][0], (20 + index * 80, 24), 24, (30, 30, 30))
        box = (x1 - 12, y1 - 14, x2 + 12, y2 + 14)
        elements.append(Element(bbox=box, type=ElementType.BUTTON, text=text))
    painter = ScreenPainter(400, 80)
    painter.draw.text((268, 18), "7", font=ui_font(30), fill=(30, 30, 30))
    image[:, 240:] = np.asarray(painter.image)[:, 240:]
    elements.append(Element(bbox=(250, 6, 306, 74), type=ElementType.BUTTON, text="7"))
    out = create_stage("icons", "classifier", Settings()).run([image], [ScreenParse(400, 80, elements)])[0]
    got = [(e.type, e.icon, e.text) for e in out.elements]
    assert got == [
        (ElementType.BUTTON, "search", "Q"),
        (ElementType.BUTTON, "close", "X"),
        (ElementType.BUTTON, None, "7"),
    ], got


@needs_model
def test_a_magnifier_boxed_to_a_fields_rounded_corner_is_named_from_the_box_inset() -> None:
    """A search field's magnifier boxed as the detector boxes it on a phone, its padded box reaching the
    field's rounded corner: the corners' background reads as ink, so the box as it is names nothing, and
    the box inset as a button's names the magnifier (a phone's search field, ``phone_real``)."""
    purple = (83, 43, 155)
    painter = ScreenPainter(400, 120, background=purple)
    painter.draw.rounded_rectangle((10, 20, 390, 100), radius=14, fill="white")
    image = np.array(painter.image)
    stamp(image, unseen()["search"][0], (28, 42), 36, purple)
    icon = Element(bbox=(10, 20, 82, 100), type=ElementType.ICON)
    stage = IconClassifierStage(Settings())
    assert stage.load().name([image[20:100, 10:82]], stage.threshold)[0][0] is None
    out = stage.run([image], [ScreenParse(400, 120, [icon])])[0]
    assert [(e.type, e.icon) for e in out.elements] == [(ElementType.BUTTON, "search")]


@needs_model
def test_the_threshold_is_the_models_own_unless_a_setting_says_otherwise() -> None:
    stage = IconClassifierStage(Settings())
    own = stage.spec.entry.conf
    assert own is not None and 0.0 < own < 1.0 and stage.threshold == own
    assert IconClassifierStage(Settings(icons=IconSettings(classifier_threshold=0.3))).threshold == 0.3


@needs_model
def test_classifier_alone_on_colours_sizes_and_non_icons() -> None:
    classifier = load_classifier(classifier_spec(Settings()))
    assert isinstance(classifier, IconClassifier) and classifier.classes[0] == UNKNOWN
    glyphs = unseen()
    rois, expected = [], []
    for (mask, name), (background, ink), size in zip(
        glyphs.values(),
        [((255, 255, 255), (20, 20, 20)), ((17, 24, 39), (229, 231, 235)), ((37, 99, 235), (255, 255, 255))]
        * 4,
        [16, 20, 24, 32] * 3,
        strict=True,
    ):
        roi = np.zeros((size + 12, size + 12, 3), dtype=np.uint8)
        roi[:] = background
        stamp(roi, mask, (6, 6), size, ink)
        rois.append(roi)
        expected.append(name)
    names = [name for name, _ in classifier.name(rois, IconClassifierStage(Settings()).threshold)]
    right = sum(n == e for n, e in zip(names, expected, strict=True))
    assert right >= 10, list(zip(names, expected, strict=True))
    assert all(n in (e, None) for n, e in zip(names, expected, strict=True))  # unsure is fine, wrong is not

    rng = np.random.default_rng(0)
    painter = ScreenPainter(90, 40)
    painter.draw.text((4, 4), "Go", font=ui_font(24), fill=(0, 0, 0))
    word = np.asarray(painter.image)
    blank = np.full((30, 30, 3), 200, dtype=np.uint8)
    noise = rng.integers(0, 256, (30, 30, 3), dtype=np.uint8)
    scribble = np.full((40, 40, 3), 255, dtype=np.uint8)
    cv2.line(scribble, (5, 30), (20, 8), (0, 0, 0), 2)
    cv2.line(scribble, (20, 8), (34, 33), (0, 0, 0), 2)
    cv2.line(scribble, (34, 33), (12, 22), (0, 0, 0), 2)
    results = classifier.name([word, blank, noise, scribble], IconClassifierStage(Settings()).threshold)
    assert [name for name, _ in results] == [None, None, None, None]


@needs_model
def test_marks_stay_controls_unless_a_pictogram_is_named(tmp_path: Path) -> None:
    mask = unseen()["settings"][0]
    image = np.full((60, 200, 3), 255, dtype=np.uint8)
    box = stamp(image, mask, (10, 10), 28, (20, 20, 20))
    around = (box[0] - 4, box[1] - 4, box[2] + 4, box[3] + 4)
    cv2.rectangle(image, (110, 14), (138, 42), (20, 20, 20), 2)  # an empty checkbox
    square = (106, 10, 143, 47)
    kinds = (ElementType.RADIO, ElementType.ICON, ElementType.CHECKBOX)
    boxes = (around, around, square)
    parse = ScreenParse(200, 60, [Element(bbox=b, type=k) for b, k in zip(boxes, kinds, strict=True)])
    out = IconClassifierStage(Settings(icons_dir=tmp_path)).run([image], [parse])[0]  # no pack: no exact hits
    assert [(e.type, e.icon) for e in out.elements][:2] == [
        (ElementType.BUTTON, "settings"),
        (ElementType.BUTTON, "settings"),
    ]
    assert out.elements[2].type is ElementType.CHECKBOX


@needs_model
def test_a_switch_stays_a_switch_and_a_pictogram_read_as_one_is_a_button(tmp_path: Path) -> None:
    """The reader took a phone's round microphone button for a switch (Bing's search bar): a ``toggle``
    whose glyph the classifier names as a pictogram is a button; a drawn switch (a track and its knob)
    stays a toggle with its state."""
    mask = unseen()["settings"][0]
    image = np.full((60, 200, 3), 255, dtype=np.uint8)
    box = stamp(image, mask, (10, 10), 28, (20, 20, 20))
    pictogram = (box[0] - 4, box[1] - 4, box[2] + 4, box[3] + 4)
    cv2.rectangle(image, (112, 18), (152, 40), (26, 115, 232), -1)
    cv2.circle(image, (112, 29), 11, (26, 115, 232), -1)
    cv2.circle(image, (152, 29), 11, (26, 115, 232), -1)
    cv2.circle(image, (151, 29), 8, (255, 255, 255), -1)  # the knob at the right: on
    switch = (96, 10, 168, 48)
    on = ElementState(checked=True)
    elements = [Element(bbox=b, type=ElementType.TOGGLE, state=on) for b in (pictogram, switch)]
    out = IconClassifierStage(Settings(icons_dir=tmp_path)).run([image], [ScreenParse(200, 60, elements)])[0]
    assert (out.elements[0].type, out.elements[0].icon) == (ElementType.BUTTON, "settings")
    assert out.elements[0].state.checked is None
    assert out.elements[1].type is ElementType.TOGGLE
    assert out.elements[1].state.checked is True


def test_frames_are_colour_and_polarity_blind() -> None:
    mask = next(iter(unseen().values()))[0]
    dark = np.full((36, 36, 3), 255, dtype=np.uint8)
    light = np.full((36, 36, 3), (30, 60, 120), dtype=np.uint8)
    stamp(dark, mask, (6, 6), 24, (0, 0, 0))
    stamp(light, mask, (6, 6), 24, (255, 230, 0))
    batch, valid = frames([dark, light, np.full((20, 20, 3), 90, dtype=np.uint8)])
    assert valid.tolist() == [True, True, False]
    assert np.abs(batch[0] - batch[1]).max() < 0.05
    assert not batch[2].any()


def test_batched_frames_equal_the_matchers_normalisation() -> None:
    rng = np.random.default_rng(3)
    rois: list[npt.NDArray[np.uint8]] = []
    for index, (mask, _) in enumerate(unseen().values()):
        size = int(rng.integers(12, 48))
        roi = np.full((size + int(rng.integers(3, 16)), size + int(rng.integers(3, 16)), 3), 0, np.uint8)
        roi[:] = rng.integers(0, 256, 3)
        stamp(roi, mask, (int(rng.integers(1, 3)), int(rng.integers(1, 3))), size, (index * 20, 255, 0))
        rois.append(roi)
    rois += [np.zeros((2, 9, 3), np.uint8), rng.integers(0, 256, (30, 30, 3), dtype=np.uint8)]
    batch, valid = frames(rois)
    for roi, framed, ok in zip(rois, batch, valid, strict=True):
        ink = ink_map(roi)
        if ink is None:
            assert not ok
            continue
        expected, radius = frame_ink(ink[None])
        assert ok == (radius[0] >= MIN_RADIUS)
        if ok:
            assert np.abs(framed - expected[0]).max() < 1e-4


def test_profiles_pick_the_classifier_only_when_its_model_is_there(tmp_path: Path) -> None:
    assert ("icons", None) in PROFILES["fast"].stages and ("icons", None) in PROFILES["full"].stages
    assert ("icons", "ssim") in PROFILES["detact"].stages
    assert resolve_backend("icons", None, Settings(models_dir=tmp_path)) == "ssim"
    assert IconClassifierStage.available(Settings(models_dir=tmp_path)) is not None
    if has_model():
        assert resolve_backend("icons", None, Settings()) == "classifier"
