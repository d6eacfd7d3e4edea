import numpy as np
import pytest

from detact_service.core import ElementType, ScreenParse
from detact_service.settings import Settings
from detact_service.stages import create_stage
from tests.render import ScreenPainter, render_form


@pytest.fixture(scope="module")
def form() -> np.ndarray:
    return np.asarray(render_form(1280, 800).image)


def words(parse: ScreenParse) -> set[str]:
    return {w.lower().strip(".,?") for e in parse.elements for w in (e.text or "").split()}


@pytest.mark.parametrize("backend", ["rapidocr", pytest.param("easyocr", marks=pytest.mark.slow)])
def test_ocr_reads_the_form_words_with_boxes_on_them(backend: str, form: np.ndarray) -> None:
    stage = create_stage("text", backend, Settings(device="cpu"))
    parse = stage.run([form], [ScreenParse(form.shape[1], form.shape[0])])[0]
    assert {"create", "account", "email", "password", "remember", "submit", "cancel"} <= words(parse)
    assert all(e.type is ElementType.TEXT and e.source == "ocr" for e in parse.elements)
    submit = next(e for e in parse.elements if e.text and "Submit" in e.text)
    # The Submit label is drawn centred in the button at (620..860, 660..716).
    cx, cy = submit.center
    assert 620 < cx < 860 and 660 < cy < 716
    assert stage.model_version()


@pytest.mark.parametrize("size", [12, 16, 22, 34])
def test_prose_stays_one_line_but_a_menu_bar_splits_into_items(size: int) -> None:
    painter = ScreenPainter(1400, 200)
    painter.text((10, 20), "Create your account and remember me", size=size)
    x = 10
    menu = []
    for word in ["File", "Edit", "View", "Help"]:
        menu.append(painter.text((x, 120), word, size=size))
        x = menu[-1].bbox[2] + int(size * 1.2)
    image = np.asarray(painter.done().image)
    stage = create_stage("text", "rapidocr", Settings(device="cpu"))
    parse = stage.run([image], [ScreenParse(1400, 200)])[0]
    # PP-OCR's recogniser sometimes drops spaces at small sizes; what matters here is the boxes.
    texts = sorted((e.bbox[1] > 100, e.bbox[0], (e.text or "").replace(" ", "")) for e in parse.elements)
    assert [t for below, _, t in texts if not below] == ["Createyouraccountandrememberme"]
    assert [t for below, _, t in texts if below] == ["File", "Edit", "View", "Help"]


def test_a_blue_link_inside_black_prose_becomes_its_own_element() -> None:
    painter = ScreenPainter(1200, 120)
    before = painter.text((10, 40), "Lorem ipsum dolor sit", size=22)
    link = painter.text((before.bbox[2] + 7, 40), "consectetur", size=22, fill=(20, 60, 230))
    painter.text((link.bbox[2] + 7, 40), "amet elit sed", size=22)
    image = np.asarray(painter.done().image)
    stage = create_stage("text", "rapidocr", Settings(device="cpu"))
    parse = stage.run([image], [ScreenParse(1200, 120)])[0]
    found = [e for e in parse.elements if (e.text or "").strip() == "consectetur"]
    assert len(found) == 1
    x1, _, x2, _ = found[0].bbox
    assert abs(x1 - link.bbox[0]) <= 6 and abs(x2 - link.bbox[2]) <= 6
