"""``POST /parse`` with ``previous`` over HTTP on loopback: a parse id comes back, a re-parse of a changed
screen equals a full parse of it, an unknown id falls back to a full parse; the client passes it on."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from PIL import Image

from detact_service.api.app import create_app
from detact_service.client import DetactClient
from detact_service.settings import Settings
from tests.api import cheap
from tests.api.test_api import assert_error, png_bytes, post_file, running
from tests.render import render_dense_dashboard
from tests.test_reparse import HEIGHT, WIDTH, dialog


def visible(body: dict[str, Any]) -> list[tuple[Any, ...]]:
    """What a client sees of each element, scores aside (see ``tests.test_reparse.same_parse``)."""
    keys = ("id", "type", "bbox", "text", "icon", "color", "state", "interactive", "source")
    return [tuple(str(element[key]) for key in keys) for element in body["elements"]]


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with cheap.cheap_profile(), running(create_app(Settings(device="cpu", profile="fast"))) as base:
        yield base


@pytest.fixture(scope="module")
def screens() -> tuple[bytes, bytes]:
    before = render_dense_dashboard().image.crop((0, 0, WIDTH, HEIGHT))
    return png_bytes(before), png_bytes(dialog(before, "Delete 3 invoices?", "Delete"))


def test_reparse_over_http_equals_a_full_parse(url: str, screens: tuple[bytes, bytes]) -> None:
    before, after = screens
    with httpx.Client(base_url=url, timeout=300) as http:
        first = post_file(http, before).json()
        assert first["parse_id"] and first["reparse"] is None
        full = post_file(http, after).json()
        again = post_file(http, after, previous=first["parse_id"]).json()
    assert visible(again) == visible(full)
    info = again["reparse"]
    assert info["previous"] == first["parse_id"] and info["reused"] and info["reason"] is None
    assert info["text_reused"] > 2 * info["text_read"] > 0 and 0 < info["changed"] < 0.4
    assert again["parse_id"] not in (first["parse_id"], full["parse_id"])


def test_client_and_json_body_pass_previous(url: str, screens: tuple[bytes, bytes]) -> None:
    before, after = screens
    with DetactClient(url, timeout=300) as client:
        first = client.parse(before, formats="json,caap")
        again = client.parse(after, previous=first)  # the answer itself, or its parse_id
        assert again.reparse is not None and again.reparse.reused and again.reparse.previous == first.parse_id
        assert any(e.text == "Delete" for e in again.elements)
    body = {"image_base64": base64.b64encode(after).decode(), "previous": again.parse_id}
    answer = httpx.post(f"{url}/parse", json=body, timeout=300).json()
    assert answer["reparse"]["reused"] and answer["reparse"]["text_read"] == 0  # nothing changed
    assert visible(answer) == [tuple(str(v) for v in row) for row in visible(again.model_dump(mode="json"))]


def test_unknown_previous_is_a_full_parse(url: str) -> None:
    png = cheap.image_png(80, 40)
    with httpx.Client(base_url=url, timeout=60) as http:
        response = http.post(
            "/parse", params={"previous": "no-such-id", "profile": cheap.PROFILE}, content=png,
            headers={"content-type": "image/png"},
        )  # fmt: skip
        assert response.status_code == 200, response.text
        info = response.json()["reparse"]
        assert info == {
            "previous": "no-such-id",
            "reused": False,
            "changed": None,
            "text_reused": 0,
            "text_read": 0,
            "elements_reused": 0,
            "elements_read": 0,
            "reason": "previous parse unknown or expired",
        }
        assert_error(post_file(http, png, previous="x" * 65, profile=cheap.PROFILE), 422, "invalid_request")


def test_no_parse_ids_when_the_cache_is_off() -> None:
    with cheap.cheap_profile(), running(create_app(Settings(reparse_cache_size=0))) as base:
        png = png_bytes(Image.new("RGB", (64, 32), (200, 200, 200)))
        body = httpx.post(
            f"{base}/parse", files={"image": ("a.png", png, "image/png")}, data={"profile": cheap.PROFILE},
            timeout=60,
        ).json()  # fmt: skip
        assert body["parse_id"] is None and body["elements"]
