"""agent.describe and agent.locate on a rendered form, with the real pipeline (profile detact, real OCR)."""

from __future__ import annotations

import base64
import io

import numpy as np
import pytest
from PIL import Image

from detact_service import agent
from detact_service.io import NotAnImage
from detact_service.settings import Settings
from tests.render import RenderedScreen, render_form

SETTINGS = Settings(profile="detact", relevance_backend="lexical", device="cpu")


@pytest.fixture(scope="module")
def screen() -> RenderedScreen:
    return render_form(1400, 1000)


def _inside(point: tuple[int, int], box: tuple[int, int, int, int]) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def test_describe_gives_prompt_and_points(screen: RenderedScreen) -> None:
    view = agent.describe(screen.image, settings=SETTINGS)
    assert view.format == "caap"
    assert (view.width, view.height) == (1400, 1000)
    submit = next(e for e in view.parse.elements if e.text == "Submit")
    submit_id = next(i for i, e in zip(view.points, view.parse.elements, strict=True) if e is submit)
    assert f"- ID: element_{submit_id}, data: {{type: button" in view.prompt
    drawn = next(d for d in screen.drawn if d.kind == "button" and d.text == "Submit")
    for key in (submit_id, str(submit_id), f"element_{submit_id}", f"#{submit_id}"):
        assert _inside(view.point(key), drawn.bbox)
    x, y = view.point(submit_id)
    assert view.point_normalized(submit_id) == (round(x / 1400, 4), round(y / 1000, 4))
    assert view.element(f"element_{submit_id}") is submit
    assert len(view.points) == len(view.parse.elements) == view.prompt.count("- ID: element_")
    with pytest.raises(KeyError):
        view.point("element_999")
    with pytest.raises(ValueError):
        view.point("the submit button")


def test_describe_with_task_keeps_ids_and_formats(screen: RenderedScreen) -> None:
    data = screen.png_bytes()
    view = agent.describe(data, task='click "Cancel"', format="detact", max_elements=3, settings=SETTINGS)
    assert len(view.points) == 3
    assert view.prompt.startswith("Text elements:") and '"Cancel"' in view.prompt
    cancel = next(d for d in screen.drawn if d.kind == "button" and d.text == "Cancel")
    ids = [i for i, e in zip(view.points, view.parse.elements, strict=True) if e.text == "Cancel"]
    assert ids and _inside(view.point(ids[0]), cancel.bbox)
    assert ids[0] > 3  # the full parse's id, not the index in the cut list


def test_locate_on_a_path(screen: RenderedScreen, tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "form.png"
    screen.image.save(path)
    result = agent.locate(str(path), "the checkbox next to Remember me", settings=SETTINGS)
    assert result.found and result.best is not None
    drawn = screen.of_kind("checkbox")[0]
    assert _inside(result.best.point, drawn.bbox)


def test_load_any_image_accepts_every_kind(screen: RenderedScreen, tmp_path: object) -> None:
    from pathlib import Path

    expected = np.asarray(screen.image)
    data = screen.png_bytes()
    path = Path(str(tmp_path)) / "form.png"
    path.write_bytes(data)
    encoded = base64.b64encode(data).decode()
    gray = np.asarray(screen.image.convert("L"))
    for image in (
        screen.image,
        expected,
        data,
        bytearray(data),
        path,
        str(path),
        encoded,
        f"data:image/png;base64,{encoded}",
    ):
        assert np.array_equal(agent.load_any_image(image), expected)
    assert agent.load_any_image(gray).shape == (*gray.shape, 3)
    with pytest.raises(FileNotFoundError):
        agent.load_any_image("/no/such/screenshot.png")
    with pytest.raises(ValueError):
        agent.load_any_image("not base64 at all!")
    with pytest.raises(NotAnImage):
        agent.load_any_image(base64.b64encode(b"hello world").decode())
    with pytest.raises(ValueError):
        agent.load_any_image(np.zeros((4, 4), dtype=np.float32))
    buffer = io.BytesIO()
    screen.image.convert("RGBA").save(buffer, format="PNG")
    assert agent.load_any_image(Image.open(io.BytesIO(buffer.getvalue()))).shape == expected.shape


def test_describe_rejects_bad_options(screen: RenderedScreen) -> None:
    with pytest.raises(ValueError, match="format"):
        agent.describe(screen.image, format="xml", settings=SETTINGS)
    with pytest.raises(ValueError, match="max_elements"):
        agent.describe(screen.image, max_elements=0, settings=SETTINGS)


def test_the_library_entry_is_what_every_face_answers(screen: RenderedScreen) -> None:
    import detact_service
    from detact_service.formats import render_one

    data = screen.png_bytes()
    parsed = detact_service.parse(data, task='click "Cancel"', max_elements=3, settings=SETTINGS)
    view = agent.describe(data, task='click "Cancel"', format="caap", max_elements=3, settings=SETTINGS)
    assert [e.id for e in parsed.elements] == list(view.points)
    assert view.prompt == render_one(parsed, "caap")
    located = detact_service.locate(data, "the Cancel button", settings=SETTINGS)
    assert located.found and located.best is not None and located.best.element.text == "Cancel"
