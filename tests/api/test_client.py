"""The Python client: image inputs, errors, API keys, retries on 503 + Retry-After, the real pipeline."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest
from PIL import Image

from detact_service.api.app import create_app
from detact_service.client import AsyncDetactClient, DetactClient, DetactError, image_bytes
from detact_service.formats.schema import ParseResponse
from detact_service.settings import Settings
from tests.api import cheap
from tests.api.test_api import running

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "form.png"
KEY = "client-test-key-5d1e9b"


@pytest.fixture(scope="module")
def cheap_url() -> Iterator[str]:
    with cheap.cheap_profile(), running(create_app(Settings(api_keys=(KEY,)))) as url:
        yield url


def test_every_image_input_kind(cheap_url: str, tmp_path: Path) -> None:
    png = cheap.image_png(70, 30)
    path = tmp_path / "shot.png"
    path.write_bytes(png)
    pil = Image.open(io.BytesIO(png))
    array = np.asarray(pil.convert("RGB"))
    with DetactClient(cheap_url, api_key=KEY) as client:
        for image in (path, str(path), png, bytearray(png), pil, array, array[:, :, 0]):
            result = client.parse(image, profile=cheap.PROFILE, formats=["json", "caap"], task="t")
            assert isinstance(result, ParseResponse)
            assert result.image.width == 70 and result.elements[0].text == "w70"
            assert result.task == "t" and result.text is not None and result.text.caap
        assert client.health()
    with pytest.raises(TypeError):
        image_bytes(np.zeros((4, 4), dtype=np.float32))


def test_errors_carry_the_server_code(cheap_url: str) -> None:
    with DetactClient(cheap_url) as anonymous, pytest.raises(DetactError) as caught:
        anonymous.parse(cheap.image_png(), profile=cheap.PROFILE)
    assert caught.value.status_code == 401 and caught.value.code == "unauthorized"
    with DetactClient(cheap_url, api_key=KEY) as client:
        with pytest.raises(DetactError) as caught:
            client.parse(b"not an image", profile=cheap.PROFILE)
        assert caught.value.status_code == 400 and caught.value.code == "not_an_image"
        with pytest.raises(DetactError) as caught:
            client.parse(cheap.image_png(), profile=cheap.PROFILE, request_id="rid-1", formats="xml")
        assert caught.value.code == "unknown_format" and caught.value.request_id == "rid-1"


def overloaded_then_ok(failures: int, calls: list[httpx.Request]) -> httpx.MockTransport:
    body = ParseResponse.model_validate(
        {"image": {"width": 1, "height": 1}, "elements": [], "timings_ms": {}, "models": {}}
    ).model_dump_json()

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        if len(calls) <= failures:
            error = {"error": {"code": "overloaded", "message": "busy"}}
            return httpx.Response(503, json=error, headers={"Retry-After": "0"})
        return httpx.Response(200, content=body, headers={"content-type": "application/json"})

    return httpx.MockTransport(handler)


def test_retries_503_with_retry_after_a_bounded_number_of_times() -> None:
    calls: list[httpx.Request] = []
    with DetactClient("http://test", transport=overloaded_then_ok(2, calls), api_key="k") as client:
        assert client.parse(b"x").image.width == 1
    assert len(calls) == 3 and calls[0].headers["authorization"] == "Bearer k"
    calls.clear()
    transport = overloaded_then_ok(10, calls)
    with (
        DetactClient("http://test", transport=transport, max_attempts=3) as client,
        pytest.raises(DetactError) as caught,
    ):
        client.parse(b"x")
    assert caught.value.code == "overloaded" and len(calls) == 3


def test_a_503_without_retry_after_is_not_retried() -> None:
    calls: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(503, json={"error": {"code": "profile_unavailable", "message": "no model"}})

    transport = httpx.MockTransport(handler)
    with DetactClient("http://test", transport=transport) as client, pytest.raises(DetactError) as caught:
        client.parse(b"x", profile="fast")
    assert caught.value.code == "profile_unavailable" and len(calls) == 1


def test_async_client_retries_too() -> None:
    calls: list[httpx.Request] = []

    async def main() -> ParseResponse:
        async with AsyncDetactClient("http://test", transport=overloaded_then_ok(1, calls)) as client:
            return await client.parse(b"x")

    assert asyncio.run(main()).image.width == 1 and len(calls) == 2


def test_the_real_default_pipeline_through_the_client_with_concurrent_requests() -> None:
    """Three concurrent parses on the real ``detact`` profile, batched into fewer pipeline runs."""
    app = create_app(Settings(batch_max_size=4, batch_wait_ms=200, max_in_flight=1))
    small = Image.open(EXAMPLE).convert("RGB").crop((560, 600, 940, 760))  # the Submit/Cancel row
    with running(app) as url:

        async def main() -> list[ParseResponse]:
            async with AsyncDetactClient(url) as client:
                return list(
                    await asyncio.gather(
                        client.parse(small, formats="caap", task="submit"),
                        client.parse(small, formats="json"),
                        client.parse(np.asarray(small), formats="detact"),
                    )
                )

        full, crop, crop_array = asyncio.run(main())
        runs = app.state.service.batcher.runs
    assert runs < 3
    assert full.image.width == 380 and full.models["profile"] == "full" and full.task == "submit"
    assert full.text is not None and full.text.caap and 'text: "Submit"' in full.text.caap
    assert crop.image.width == 380 and crop.image.height == 160
    assert crop_array.text is not None and crop_array.text.detact
    assert [e.bbox for e in crop.elements] == [e.bbox for e in crop_array.elements]


def test_max_elements_through_the_client_keeps_ids_of_the_full_parse() -> None:
    app = create_app(Settings(relevance_backend="lexical"))
    small = Image.open(EXAMPLE).convert("RGB").crop((560, 440, 1160, 760))  # checkboxes, radios, buttons
    with running(app) as url, DetactClient(url) as client:
        full = client.parse(small, task="click Cancel")
        short = client.parse(small, task="click Cancel", max_elements=2)
    assert len(short.elements) == 2 < len(full.elements)
    by_id = {e.id: e for e in full.elements}
    assert all(by_id[e.id].bbox == e.bbox for e in short.elements)
    assert any(e.text == "Cancel" for e in short.elements)
