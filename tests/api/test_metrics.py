"""Request ids, JSON access logs and Prometheus metrics (one registry per app)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from detact_service.api.app import create_app
from detact_service.api.middleware import JsonFormatter, logging_config
from detact_service.settings import Settings
from tests.api import cheap
from tests.api.test_api import running


@pytest.fixture(scope="module", autouse=True)
def cheap_profile() -> Iterator[str]:
    with cheap.cheap_profile() as name:
        yield name


def samples(url: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    response = httpx.get(f"{url}/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    out = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            out[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return out


def value(data: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    return data.get((name, frozenset(labels.items())), 0.0)


def parse(url: str, **headers: str) -> httpx.Response:
    files = {"image": ("a.png", cheap.image_png(), "image/png")}
    return httpx.post(
        f"{url}/parse", files=files, data={"profile": cheap.PROFILE}, headers=headers, timeout=30
    )


def test_two_apps_keep_separate_metrics() -> None:
    with running(create_app(Settings())) as one, running(create_app(Settings())) as two:
        assert parse(one).status_code == 200
        assert parse(one).status_code == 200
        assert (
            httpx.post(f"{one}/parse", content=b"", headers={"content-type": "image/png"}).status_code == 400
        )
        first, second = samples(one), samples(two)
    ok = {"method": "POST", "route": "/parse", "status": "200"}
    assert value(first, "detact_http_requests_total", **ok) == 2
    assert value(first, "detact_http_requests_total", method="POST", route="/parse", status="400") == 1
    assert value(second, "detact_http_requests_total", **ok) == 0
    assert value(first, "detact_stage_duration_seconds_count", stage="text") == 2
    assert value(first, "detact_stage_duration_seconds_count", stage="total") == 2
    assert value(first, "detact_http_request_duration_seconds_count", method="POST", route="/parse") == 3
    assert value(first, "detact_batch_size_count") == 2
    assert value(first, "detact_queue_depth") == 0
    assert value(first, "detact_parses_in_flight") == 0
    assert ("detact_models_loaded", frozenset()) in first
    assert value(first, "detact_warming") == 0


def test_unknown_paths_share_one_route_label() -> None:
    with running(create_app(Settings())) as url:
        for path in ("/a", "/b", "/c"):
            assert httpx.get(f"{url}{path}").status_code == 404
        data = samples(url)
    assert value(data, "detact_http_requests_total", method="GET", route="unmatched", status="404") == 3


def test_request_ids_are_echoed_or_generated(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="detact_service.access")
    with running(create_app(Settings())) as url:
        given = httpx.get(f"{url}/healthz", headers={"X-Request-ID": "agent-42.step-7"})
        generated = httpx.get(f"{url}/healthz")
        unsafe = httpx.get(f"{url}/healthz", headers={"X-Request-ID": "bad id\twith spaces"})
        failed = parse(url, **{"X-Request-ID": "req-parse-1"})
    assert given.headers["x-request-id"] == "agent-42.step-7"
    assert len(generated.headers["x-request-id"]) == 32
    assert unsafe.headers["x-request-id"] != "bad id\twith spaces"
    assert failed.headers["x-request-id"] == "req-parse-1"
    records = {getattr(r, "request_id", None): r for r in caplog.records if r.name == "detact_service.access"}
    record = records["req-parse-1"]
    assert vars(record)["method"] == "POST" and vars(record)["path"] == "/parse"
    assert vars(record)["status"] == 200 and vars(record)["duration_ms"] > 0
    line = json.loads(JsonFormatter().format(record))
    assert {
        "time",
        "level",
        "logger",
        "message",
        "request_id",
        "method",
        "path",
        "status",
        "duration_ms",
    } <= set(line)
    assert line["request_id"] == "req-parse-1" and line["status"] == 200


def test_logging_config_is_valid() -> None:
    config = logging_config("warning")
    assert config["root"]["level"] == "WARNING"
    assert config["formatters"]["json"]["()"].endswith("JsonFormatter")
