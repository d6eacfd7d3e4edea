"""The HTTP API against real uvicorn servers on 127.0.0.1, with the real pipeline (profile detact).

Three servers run in threads: ``main`` (default settings), ``strict`` (a 10 KiB upload limit and an empty
models folder, so the ``fast`` profile cannot run) and ``warm`` (warm-up at start). Bad inputs are refused
before the pipeline runs; only a few images go through it.
"""

from __future__ import annotations

import base64
import contextlib
import io
import socket
import struct
import threading
import time
import zlib
from collections.abc import Iterator
from typing import Any

import httpx
import numpy as np
import pytest
import uvicorn
from fastapi import FastAPI
from PIL import Image, ImageDraw

from detact_service import __version__
from detact_service.api.app import create_app
from detact_service.api.deps import get_pipeline_getter
from detact_service.pipeline import PROFILES
from detact_service.settings import Settings
from tests.render import render_form, ui_font

STAGE_TIMINGS = {"text", "regions", "merge", "icons", "colors", "total"}


@contextlib.contextmanager
def running(app: FastAPI) -> Iterator[str]:
    """Serve ``app`` with uvicorn in a thread on a free port; yields the base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                break
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=20)
        sock.close()


@pytest.fixture(scope="session")
def main_url() -> Iterator[str]:
    with running(create_app(Settings())) as url:
        yield url


@pytest.fixture(scope="session")
def client(main_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=main_url, timeout=120) as client:
        yield client


@pytest.fixture(scope="module")
def strict_app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    empty_models = tmp_path_factory.mktemp("no-models")
    return create_app(Settings(max_upload_mb=10 / 1024, models_dir=empty_models, ocr_min_score=0.49))


@pytest.fixture(scope="module")
def strict(strict_app: FastAPI) -> Iterator[httpx.Client]:
    with running(strict_app) as url, httpx.Client(base_url=url, timeout=60) as client:
        yield client


# --- inputs ---------------------------------------------------------------------------------------


def png_bytes(image: Image.Image, format: str = "PNG") -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=format)
    return buffer.getvalue()


@pytest.fixture(scope="session")
def form_png() -> bytes:
    return render_form().png_bytes()


def small_screen() -> Image.Image:
    """A 320x96 RGB strip with a word and a button."""
    image = Image.new("RGB", (320, 96), (250, 250, 250))
    draw = ImageDraw.Draw(image)
    draw.text((12, 30), "Search", font=ui_font(24), fill=(20, 20, 20))
    draw.rounded_rectangle((180, 24, 300, 72), radius=6, fill=(37, 99, 235))
    draw.text((212, 34), "Go", font=ui_font(24, bold=True), fill=(255, 255, 255))
    return image


def in_mode(mode: str) -> tuple[bytes, str]:
    """The small screen in an unusual pixel mode, as (file bytes, MIME type)."""
    image = small_screen()
    if mode == "CMYK":
        return png_bytes(image.convert("CMYK"), "JPEG"), "image/jpeg"
    if mode == "I;16":
        grey = np.asarray(image.convert("L"), dtype=np.uint16) * 257
        sixteen = Image.frombytes("I;16", image.size, grey.astype("<u2").tobytes())
        return png_bytes(sixteen), "image/png"
    if mode == "RGBA":
        rgba = image.convert("RGBA")
        rgba.putalpha(Image.linear_gradient("L").resize(image.size))
        return png_bytes(rgba), "image/png"
    converted = image.convert(mode)
    assert converted.mode == mode
    return png_bytes(converted), "image/png"


def png_chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def bomb_png(width: int = 100_000, height: int = 100_000) -> bytes:
    """A tiny, well-formed PNG whose IHDR claims enormous dimensions."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", ihdr)
        + png_chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + png_chunk(b"IEND", b"")
    )


def noise_png(width: int = 200, height: int = 120) -> bytes:
    pixels = np.random.default_rng(1).integers(0, 255, size=(height, width, 3), dtype=np.uint8)
    return png_bytes(Image.fromarray(pixels))


def assert_error(response: httpx.Response, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message"}
    assert body["error"]["message"]
    if code is not None:
        assert body["error"]["code"] == code, body
    error: dict[str, Any] = body["error"]
    return error


def assert_valid_parse(body: dict[str, Any], width: int, height: int, profile: str = "full") -> None:
    assert body["image"] == {"width": width, "height": height}
    ids = [e["id"] for e in body["elements"]]
    assert len(ids) == len(set(ids))
    for element in body["elements"]:
        x1, y1, x2, y2 = element["bbox"]
        assert 0 <= x1 < x2 <= width and 0 <= y1 < y2 <= height, element
        cx, cy = element["center"]
        assert x1 <= cx < x2 and y1 <= cy < y2
        assert isinstance(element["interactive"], bool)
        assert set(element["state"]) == {"checked", "focused", "highlighted", "selected", "disabled"}
    assert set(body["timings_ms"]) >= STAGE_TIMINGS
    assert body["models"]["profile"] == profile


# --- happy path (real pipeline) -------------------------------------------------------------------


def test_parse_multipart_with_every_format(client: httpx.Client, form_png: bytes) -> None:
    response = client.post(
        "/parse",
        files={"image": ("form.png", form_png, "image/png")},
        data={"profile": "detact", "formats": "json,caap,detact,som", "task": "submit the form"},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert_valid_parse(body, 1920, 1080, profile="detact")
    assert body["elements"], "the form has elements"
    texts = {e["text"] for e in body["elements"] if e["text"]}
    assert "Submit" in texts  # the task's target; with a task only the relevant elements come back
    assert len(body["elements"]) < 10
    assert {"decode", "formats"} <= set(body["timings_ms"])
    assert body["task"] == "submit the form"
    caap = body["text"]["caap"].splitlines()
    assert len(caap) == len(body["elements"])
    assert all(line.startswith("- ID: element_") for line in caap)
    assert any('text: "Submit"' in line for line in caap)
    detact = body["text"]["detact"]
    assert detact.startswith("Text elements:\n") and "\nIcons:\n" in detact and "\nColours:\n" in detact
    som = Image.open(io.BytesIO(base64.b64decode(body["som_png_base64"])))
    assert som.format == "PNG" and som.size == (1920, 1080)


def test_parse_base64_json_keeps_the_event_loop_free(client: httpx.Client, form_png: bytes) -> None:
    result: dict[str, httpx.Response] = {}

    def post() -> None:
        payload = {"image_base64": base64.b64encode(form_png).decode(), "task": "log in"}
        result["response"] = client.post("/parse", params={"formats": "caap"}, json=payload)

    worker = threading.Thread(target=post)
    worker.start()
    latencies = []
    while worker.is_alive():
        start = time.perf_counter()
        assert client.get("/healthz").status_code == 200
        latencies.append(time.perf_counter() - start)
        time.sleep(0.05)
    worker.join()
    response = result["response"]
    assert response.status_code == 200, response.text
    body = response.json()
    assert_valid_parse(body, 1920, 1080)
    assert body["elements"]
    assert body["text"]["caap"] and body["text"]["detact"] is None
    assert body["som_png_base64"] is None
    assert body["task"] == "log in"
    assert len(latencies) >= 3 and max(latencies) < 1.0, latencies


def test_ready_after_a_parse(client: httpx.Client, form_png: bytes) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["ready"] is True and body["profile"] == "full" and body["missing"] == []


@pytest.mark.parametrize("mode", ["P", "I;16", "RGBA", "CMYK", "LA", "1"])
def test_unusual_pixel_modes_are_converted(client: httpx.Client, mode: str) -> None:
    data, mime = in_mode(mode)
    response = client.post("/parse", files={"image": (f"shot-{mode}", data, mime)}, data={"formats": "caap"})
    assert response.status_code == 200, response.text
    assert_valid_parse(response.json(), 320, 96)


def test_raw_image_body_with_query_options(client: httpx.Client) -> None:
    response = client.post(
        "/parse",
        params={"profile": "detact", "formats": "detact", "task": "search"},
        content=png_bytes(small_screen()),
        headers={"content-type": "image/png"},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert_valid_parse(body, 320, 96, profile="detact")
    assert body["task"] == "search" and body["text"]["detact"].startswith("Text elements:")


# --- bad input: 4xx with the error shape, before the pipeline --------------------------------------


def post_file(client: httpx.Client, data: bytes, **form: str) -> httpx.Response:
    return client.post("/parse", files={"image": ("upload.png", data, "image/png")}, data=form)


def test_not_an_image(client: httpx.Client) -> None:
    junk = np.random.default_rng(7).integers(0, 255, size=4096, dtype=np.uint8).tobytes()
    assert_error(post_file(client, b"GIF" + junk), 400, "not_an_image")


def test_truncated_png(client: httpx.Client) -> None:
    data = noise_png()
    assert_error(post_file(client, data[: len(data) // 2]), 400, "truncated_image")


def test_empty_file(client: httpx.Client) -> None:
    assert_error(post_file(client, b""), 400, "empty_image")


def test_decompression_bomb(client: httpx.Client) -> None:
    data = bomb_png()
    assert len(data) < 200
    assert_error(post_file(client, data), 413, "image_too_large")
    assert_error(post_file(client, bomb_png(10_000, 5_000)), 413, "image_too_large")  # over max_pixels


def test_zero_size_header(client: httpx.Client) -> None:
    assert_error(post_file(client, bomb_png(0, 0)), 400)


def test_bad_base64(client: httpx.Client) -> None:
    assert_error(client.post("/parse", json={"image_base64": "not*base64!"}), 400, "bad_base64")
    assert_error(client.post("/parse", json={"image_base64": "data:image/png,abc"}), 400, "bad_base64")


def test_empty_base64_is_an_empty_image(client: httpx.Client) -> None:
    assert_error(client.post("/parse", json={"image_base64": ""}), 400, "empty_image")


def test_missing_image(client: httpx.Client) -> None:
    no_image = client.post("/parse", data={"formats": "json"}, files={"x": ("a", b"1")})
    assert_error(no_image, 422, "missing_image")
    assert_error(client.post("/parse", json={"formats": "caap"}), 422, "missing_image")
    assert_error(client.post("/parse"), 422, "missing_image")


def test_image_field_must_be_a_file(client: httpx.Client) -> None:
    response = client.post("/parse", data={"image": "abc"}, files={"other": ("a", b"1")})
    assert_error(response, 422, "missing_image")


def test_malformed_json(client: httpx.Client) -> None:
    json_type = {"content-type": "application/json"}
    response = client.post("/parse", content=b'{"image_base64": ', headers=json_type)
    assert_error(response, 400, "invalid_json")
    assert_error(client.post("/parse", json={"image_base64": "", "imgae": 1}), 422, "invalid_request")
    assert_error(client.post("/parse", json=["not", "an", "object"]), 422, "invalid_request")


def test_unsupported_content_type(client: httpx.Client) -> None:
    response = client.post("/parse", content=b"hello", headers={"content-type": "text/plain"})
    assert_error(response, 415, "unsupported_media_type")


def test_unknown_profile_and_format(client: httpx.Client) -> None:
    small = png_bytes(small_screen())
    error = assert_error(post_file(client, small, profile="turbo"), 400, "unknown_profile")
    assert all(name in error["message"] for name in PROFILES)
    error = assert_error(post_file(client, small, formats="json,xml"), 400, "unknown_format")
    assert "json, caap, detact, som" in error["message"]
    response = client.post("/parse", params={"formats": "html"}, json={"image_base64": "AAAA"})
    assert_error(response, 400, "unknown_format")


def test_unknown_route_and_method(client: httpx.Client) -> None:
    assert_error(client.get("/nope"), 404, "not_found")
    assert_error(client.get("/parse"), 405, "method_not_allowed")


# --- limits, unavailable profile, readiness, internal errors ---------------------------------------


def test_oversized_uploads_are_refused(strict: httpx.Client) -> None:
    big = noise_png(200, 100)  # ~60 KB, over the 10 KiB limit
    assert len(big) > 20 * 1024
    assert_error(post_file(strict, big), 413, "upload_too_large")
    assert_error(strict.post("/parse", json={"image_base64": base64.b64encode(big).decode()}), 413)
    raw = {"content-type": "image/png"}
    assert_error(strict.post("/parse", content=big, headers=raw), 413, "upload_too_large")  # Content-Length

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted while reading
        for start in range(0, len(big), 4096):
            yield big[start : start + 4096]

    assert_error(strict.post("/parse", content=chunks(), headers=raw), 413, "upload_too_large")
    huge = b"\x89PNG" + bytes(1_200_000)  # multipart body over limit + framing room: refused unread
    assert_error(post_file(strict, huge), 413, "upload_too_large")


def test_unavailable_profile(strict: httpx.Client) -> None:
    small = png_bytes(small_screen().convert("L"), "JPEG")
    assert len(small) < 10 * 1024
    error = assert_error(post_file(strict, small, profile="fast"), 503, "profile_unavailable")
    assert "not available" in error["message"]


def test_not_ready_before_the_first_parse(strict: httpx.Client) -> None:
    response = strict.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["ready"] is False and body["profile"] == "detact"
    slots = [stage.split(":")[0] for stage in body["missing"]]
    assert slots == ["text", "regions", "merge", "icons", "colors", "relevance"]
    assert body["reason"]


def test_warm_up_makes_the_server_ready() -> None:
    with running(create_app(Settings(warmup=True, ocr_min_score=0.48))) as url:
        deadline = time.monotonic() + 60
        while (response := httpx.get(f"{url}/readyz", timeout=5)).status_code != 200:
            assert response.status_code == 503
            assert time.monotonic() < deadline, response.text
            time.sleep(0.1)
        assert response.json()["ready"] is True


class _ExplodingPipeline:
    profile = PROFILES["detact"]

    def parse_batch(self, images: object, tasks: object = None, *, isolate_errors: bool = False) -> object:
        raise RuntimeError("secret internals at /srv/models/key.bin")


def test_internal_errors_are_a_generic_500(strict_app: FastAPI, strict: httpx.Client) -> None:
    strict_app.dependency_overrides[get_pipeline_getter] = lambda: lambda name: _ExplodingPipeline()
    try:
        response = post_file(strict, png_bytes(small_screen().convert("L"), "JPEG"))
    finally:
        strict_app.dependency_overrides.clear()
    error = assert_error(response, 500, "internal_error")
    assert "secret" not in response.text and "RuntimeError" not in response.text
    assert error["message"] == "internal server error"


# --- the small endpoints -----------------------------------------------------------------------------


def test_healthz(client: httpx.Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_version(client: httpx.Client, strict: httpx.Client) -> None:
    body = client.get("/version").json()
    assert body["version"] == __version__
    assert body["default_profile"] == "full"  # the detector and the reader both ship
    assert "detact" in body["available_profiles"]
    assert {p["name"] for p in body["profiles"]} == set(PROFILES)
    assert {"rapidocr", "easyocr"} <= set(body["backends"]["text"])
    assert body["formats"] == ["json", "caap", "detact", "som"]
    fast = next(p for p in strict.get("/version").json()["profiles"] if p["name"] == "fast")
    assert fast["available"] is False and fast["reason"]


def test_openapi_documents_both_bodies(client: httpx.Client) -> None:
    assert client.get("/docs").status_code == 200
    spec = client.get("/openapi.json").json()
    content = spec["paths"]["/parse"]["post"]["requestBody"]["content"]
    assert {"multipart/form-data", "application/json"} <= set(content)
    assert "ParseResponse" in spec["components"]["schemas"]


def test_settings_are_read_at_app_creation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DETACT_MAX_UPLOAD_MB", "3")
    app = create_app(Settings())
    monkeypatch.setenv("DETACT_MAX_UPLOAD_MB", "5")
    assert app.state.settings.max_upload_mb == 3
