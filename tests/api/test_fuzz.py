"""Property-based requests built from the app's own OpenAPI schema: no input may cause a 5xx.

Every operation in ``/openapi.json`` gets query parameters and bodies (for each documented content type)
drawn by hypothesis from the schema; image fields get a mix of junk bytes, broken base64 and tiny valid
PNGs, so some requests run the real default pipeline. The only 5xx allowed are the documented 503s
(``profile_unavailable`` for a profile whose model is missing here, ``overloaded``). Bounded: a fixed number
of examples per operation, no shrinking database, loopback only.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from PIL import Image

from detact_service.api.app import create_app
from detact_service.formats.schema import ParseResponse
from detact_service.pipeline import PROFILES
from detact_service.settings import Settings
from tests.api.test_api import running

ALLOWED_503 = {"profile_unavailable", "overloaded"}
EXAMPLES = 20

APP = create_app(Settings(max_queue=16))
SPEC: dict[str, Any] = APP.openapi()


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    with running(APP) as url, httpx.Client(base_url=url, timeout=120) as client:
        yield client


@st.composite
def tiny_png(draw: st.DrawFn) -> bytes:
    width, height = draw(st.integers(1, 48)), draw(st.integers(1, 48))
    colour = draw(st.tuples(*[st.integers(0, 255)] * 3))
    mode = draw(st.sampled_from(["RGB", "L", "P", "RGBA", "1"]))
    image = Image.new("RGB", (width, height), colour).convert(mode)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


IMAGE_BYTES = st.one_of(
    tiny_png(), tiny_png(), st.binary(max_size=256), tiny_png().map(lambda b: b[: len(b) // 2])
)
BASE64 = st.one_of(
    st.text(max_size=64),
    IMAGE_BYTES.map(lambda b: base64.b64encode(b).decode()),
    IMAGE_BYTES.map(lambda b: "data:image/png;base64," + base64.b64encode(b).decode()),
)
OPTION_TEXT = {
    "profile": st.one_of(st.just("detact"), st.sampled_from(sorted(PROFILES)), st.text(max_size=12)),
    "formats": st.one_of(
        st.lists(st.sampled_from(["json", "caap", "detact", "som"]), max_size=4).map(",".join),
        st.lists(st.sampled_from(["json", "caap", "detact", "som", "xml", ""]), max_size=4).map(",".join),
        st.text(max_size=12),
    ),
}


def resolve(schema: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str):
        node: Any = SPEC
        for part in ref.removeprefix("#/").split("/"):
            node = node[part]
        return dict(node)
    return schema


def from_schema(schema: dict[str, Any], name: str = "") -> st.SearchStrategy[Any]:
    """A value strategy for a (small subset of) JSON Schema, with the image and option fields special."""
    schema = resolve(schema)
    if name == "image_base64":
        return st.one_of(st.none(), BASE64)
    if name in OPTION_TEXT:
        return st.one_of(st.none(), st.none(), OPTION_TEXT[name])
    if "anyOf" in schema:
        return st.one_of(*[from_schema(option, name) for option in schema["anyOf"]])
    kind = schema.get("type")
    if kind == "null":
        return st.none()
    if kind == "string":
        return IMAGE_BYTES if schema.get("format") == "binary" else st.text(max_size=40)
    if kind == "integer":
        return st.integers(-(2**40), 2**40)
    if kind == "number":
        return st.floats(allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {})), max_size=3)
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        return st.fixed_dictionaries(
            {key: from_schema(value, key) for key, value in properties.items() if key in required},
            optional={
                key: from_schema(value, key) for key, value in properties.items() if key not in required
            },
        )
    return st.one_of(st.none(), st.text(max_size=10), st.integers())


def operations() -> list[tuple[str, str]]:
    paths: dict[str, dict[str, Any]] = SPEC["paths"]
    return [(path, method) for path, item in paths.items() for method in item if method in {"get", "post"}]


@st.composite
def requests(draw: st.DrawFn, path: str, method: str) -> dict[str, Any]:
    operation = SPEC["paths"][path][method]
    params = {}
    for parameter in operation.get("parameters", []):
        if parameter["in"] == "query":
            value = draw(from_schema(parameter.get("schema", {}), parameter["name"]))
            if value is not None:
                params[parameter["name"]] = value
    request: dict[str, Any] = {"method": method.upper(), "url": path, "params": params}
    content = operation.get("requestBody", {}).get("content", {})
    if content:
        media_type = draw(st.sampled_from(sorted(content)))
        body = draw(from_schema(content[media_type].get("schema", {})))
        if media_type == "application/json":
            request["json"] = body
        elif media_type == "multipart/form-data":
            fields = {key: value for key, value in body.items() if value is not None}
            image = fields.pop("image", None)
            request["data"] = {key: str(value) for key, value in fields.items()}
            if isinstance(image, bytes):
                request["files"] = {"image": ("upload", image, "application/octet-stream")}
            else:
                request["files"] = {"other": ("x", b"1")}
        else:
            request["content"] = body if isinstance(body, bytes) else str(body).encode()
            request["headers"] = {"content-type": draw(st.sampled_from(["image/png", "image/jpeg"]))}
    return request


STATUSES: dict[str, list[int]] = {}


def valid_parse() -> dict[str, Any]:
    """One request sure to run the real default pipeline (the random ones may or may not)."""
    png = io.BytesIO()
    Image.new("RGB", (48, 24), (37, 99, 235)).save(png, format="PNG")
    files = {"image": ("ok.png", png.getvalue(), "image/png")}
    return {"method": "POST", "url": "/parse", "params": {"formats": "json,caap"}, "files": files}


def check(response: httpx.Response, path: str) -> None:
    STATUSES.setdefault(path, []).append(response.status_code)
    if path == "/readyz":  # documented: 200 or 503, both with the readiness body
        assert response.status_code in {200, 503} and "ready" in response.json()
        return
    if response.status_code >= 500:
        error = response.json()["error"]
        assert response.status_code == 503 and error["code"] in ALLOWED_503, (path, response.text)
    if response.status_code >= 400:
        body = response.json()
        assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    elif path == "/parse":
        ParseResponse.model_validate(response.json())


def test_the_schema_has_the_operations() -> None:
    assert ("/parse", "post") in operations() and ("/healthz", "get") in operations()


@pytest.mark.parametrize(("path", "method"), operations())
def test_no_server_errors(http: httpx.Client, path: str, method: str) -> None:
    @settings(
        max_examples=EXAMPLES if path == "/parse" else 10,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(request=requests(path, method))
    @example(request=valid_parse() if path == "/parse" else {"method": method.upper(), "url": path})
    def run(request: dict[str, Any]) -> None:
        check(http.request(**request), path)

    run()
    if path == "/parse":
        assert 200 in STATUSES[path], "some examples went through the pipeline"
