"""``max_elements`` on ``POST /parse`` (form field, JSON key, query parameter): the cut keeps the ids."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import httpx
import pytest

from detact_service.api.app import create_app
from detact_service.settings import Settings
from tests.api.test_api import running
from tests.render import render_form

TASK = 'click the "Cancel" button'


@pytest.fixture(scope="module")
def api() -> Iterator[httpx.Client]:
    app = create_app(Settings(relevance_embed_budget_ms=0))
    with running(app) as url, httpx.Client(base_url=url, timeout=120) as client:
        yield client


@pytest.fixture(scope="module")
def png() -> bytes:
    return render_form(1280, 800).png_bytes()


def test_max_elements_as_form_json_and_query(api: httpx.Client, png: bytes) -> None:
    full = api.post("/parse", files={"image": ("f.png", png, "image/png")}, data={"task": TASK})
    assert full.status_code == 200, full.text
    by_id = {e["id"]: e for e in full.json()["elements"]}
    form = api.post(
        "/parse",
        files={"image": ("f.png", png, "image/png")},
        data={"task": TASK, "max_elements": "2", "formats": "json,caap"},
    )
    as_json = api.post(
        "/parse", json={"image_base64": base64.b64encode(png).decode(), "task": TASK, "max_elements": 2}
    )
    query = api.post(
        "/parse", params={"task": TASK, "max_elements": 2}, content=png, headers={"content-type": "image/png"}
    )
    for response in (form, as_json, query):
        assert response.status_code == 200, response.text
        elements = response.json()["elements"]
        assert len(elements) == 2
        for element in elements:
            assert by_id[element["id"]]["bbox"] == element["bbox"]
        assert any(e["text"] == "Cancel" for e in elements)
    assert len(form.json()["text"]["caap"].splitlines()) == 2


@pytest.mark.parametrize("value", ["0", "-3", "two"])
def test_bad_max_elements_is_422(api: httpx.Client, png: bytes, value: str) -> None:
    response = api.post("/parse", files={"image": ("f.png", png, "image/png")}, data={"max_elements": value})
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "invalid_request"
