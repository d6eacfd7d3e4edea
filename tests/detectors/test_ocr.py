import numpy as np
import pytest

from detact_service.core import ElementType, ScreenParse
from detact_service.pipeline import create_stage
from detact_service.settings import Settings
from tests.render import render_form


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
