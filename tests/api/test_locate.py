"""POST /locate over real HTTP on loopback (uvicorn in a thread), with the real pipeline and OCR.

The rendered form is located three ways (multipart through DetactClient, JSON base64, raw bytes with the
description as a query parameter); bad input is refused with 4xx and a JSON error before any parse.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator

import httpx
import pytest

from detact_service.api.app import create_app
from detact_service.client import AsyncDetactClient, DetactClient, DetactError
from detact_service.settings import Settings
from tests.api.test_api import running
from tests.render import RenderedScreen, render_form


@pytest.fixture(scope="module")
def screen() -> RenderedScreen:
    return render_form(1400, 1000)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    settings = Settings(profile="detact", relevance_backend="lexical", device="cpu")
    with running(create_app(settings)) as base:
        yield base


def _inside(point: tuple[int, int], box: tuple[int, int, int, int]) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def test_locate_button_with_the_client(url: str, screen: RenderedScreen) -> None:
    with DetactClient(url) as client:
        result = client.locate(screen.image, "the Submit button")
    assert result.found and result.element is not None
    assert result.element.element.text == "Submit" and result.element.element.type == "button"
    drawn = next(d for d in screen.drawn if d.kind == "button" and d.text == "Submit")
    assert _inside(result.element.point, drawn.bbox)
    x, y = result.element.point
    assert result.element.point_normalized == (round(x / 1400, 4), round(y / 1000, 4))
    assert (result.image.width, result.image.height) == (1400, 1000)
    assert 1 <= len(result.candidates) <= 4
    assert all(c.element.text != "Submit" for c in result.candidates)
    assert result.reason is None
    assert {"text", "locate", "decode", "total"} <= set(result.timings_ms)
    assert result.description == "the Submit button"


def test_locate_checkbox_by_label_as_json(url: str, screen: RenderedScreen) -> None:
    body = {
        "image_base64": base64.b64encode(screen.png_bytes()).decode(),
        "description": "the checkbox next to Send me the newsletter",
    }
    response = httpx.post(f"{url}/locate", json=body, timeout=300)
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["found"] is True
    assert data["element"]["element"]["type"] == "checkbox"
    unchecked = next(d for d in screen.of_kind("checkbox") if not d.checked)
    assert _inside(tuple(data["element"]["point"]), unchecked.bbox)


def test_not_found_says_so_with_best_guesses(url: str, screen: RenderedScreen) -> None:
    response = httpx.post(
        f"{url}/locate",
        params={"description": "the Delete account button"},
        content=screen.png_bytes(),
        headers={"content-type": "image/png"},
        timeout=300,
    )
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["found"] is False
    assert data["element"] is None
    assert "delete account" in data["reason"]
    assert len(data["candidates"]) <= 5


@pytest.mark.parametrize(
    ("kwargs", "status", "code"),
    [
        (
            {
                "files": {"image": ("x.png", b"not an image at all", "image/png")},
                "data": {"description": "OK"},
            },
            400,
            "not_an_image",
        ),
        (
            {"files": {"image": ("x.png", b"", "image/png")}, "data": {"description": "OK"}},
            400,
            "empty_image",
        ),
        ({"files": {"image": ("x.png", b"\x89PNG", "image/png")}}, 422, "missing_description"),
        (
            {"files": {"image": ("x.png", b"\x89PNG", "image/png")}, "data": {"description": "  "}},
            422,
            "missing_description",
        ),
        ({"json": {"image_base64": "%%%", "description": "OK"}}, 400, "bad_base64"),
        ({"json": {"description": "OK"}}, 422, "missing_image"),
        ({"json": {"image_base64": "aGk=", "description": "OK", "task": "x"}}, 422, "invalid_request"),
        ({"json": {"image_base64": "aGk=", "description": "x" * 1001}}, 422, "invalid_request"),
        ({"content": b"{not json", "headers": {"content-type": "application/json"}}, 400, "invalid_json"),
        ({"content": b"hello", "headers": {"content-type": "text/plain"}}, 415, "unsupported_media_type"),
        ({"json": {"image_base64": "aGk=", "description": "OK", "profile": "nope"}}, 400, "unknown_profile"),
    ],
)
def test_bad_input_is_a_4xx_with_a_json_error(url: str, kwargs: dict, status: int, code: str) -> None:
    response = httpx.post(f"{url}/locate", timeout=60, **kwargs)
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code


def test_async_client_raises_the_server_error(url: str) -> None:
    async def main() -> None:
        async with AsyncDetactClient(url) as client:
            await client.locate(b"not an image", "the Submit button")

    with pytest.raises(DetactError) as caught:
        asyncio.run(main())
    assert caught.value.status_code == 400 and caught.value.code == "not_an_image"


def test_openapi_documents_locate(url: str) -> None:
    schema = httpx.get(f"{url}/openapi.json", timeout=30).json()
    operation = schema["paths"]["/locate"]["post"]
    assert "LocateResponse" in str(operation["responses"]["200"])
    assert "multipart/form-data" in operation["requestBody"]["content"]
