"""Admission limits, timeouts, disconnects and dynamic batching, on real uvicorn servers on 127.0.0.1.

The cheap ``cheap-test`` profile (one sleeping stage, see :mod:`tests.api.cheap`) keeps these fast; the
real default pipeline is exercised by ``test_api.py`` and ``test_client.py``.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import httpx
import psutil
import pytest
from fastapi import FastAPI

from detact_service.api.app import create_app
from detact_service.api.service import ParseService
from detact_service.settings import Settings
from tests.api import cheap
from tests.api.test_api import running


@pytest.fixture(scope="module", autouse=True)
def cheap_profile() -> Iterator[str]:
    with cheap.cheap_profile() as name:
        yield name


def post(url: str, png: bytes, timeout: float = 30.0, **headers: str) -> httpx.Response:
    files = {"image": ("shot.png", png, "image/png")}
    return httpx.post(f"{url}/parse", files=files, data={"profile": cheap.PROFILE}, timeout=timeout)


def service_of(app: FastAPI) -> ParseService:
    service: ParseService = app.state.service
    return service


def wait_idle(app: FastAPI, timeout: float = 10.0) -> None:
    """Until no request holds a ticket and no image is being parsed."""
    batcher = service_of(app).batcher
    deadline = time.monotonic() + timeout
    while batcher.admitted or batcher.in_flight:
        assert time.monotonic() < deadline, (batcher.admitted, batcher.in_flight)
        time.sleep(0.02)


def test_many_clients_get_200_or_an_immediate_503_and_memory_stays_bounded() -> None:
    settings = Settings(max_in_flight=1, max_queue=2, batch_max_size=2, batch_wait_ms=5, retry_after_s=3)
    app = create_app(settings)
    big = cheap.image_png(1200, 900)  # noise-free but ~10 KB; pad the upload to ~2 MB
    payload = big + bytes(2_000_000)
    process = psutil.Process()
    with running(app) as url:
        assert post(url, big).status_code == 200  # load the stage once
        rss_before = process.memory_info().rss
        health: list[float] = []
        stop = threading.Event()

        def probe() -> None:
            while not stop.is_set():
                start = time.perf_counter()
                assert httpx.get(f"{url}/healthz", timeout=5).status_code == 200
                health.append(time.perf_counter() - start)
                time.sleep(0.05)

        prober = threading.Thread(target=probe)
        prober.start()

        def one(i: int) -> tuple[int, float, httpx.Response]:
            start = time.perf_counter()
            response = post(url, payload if i % 2 else big, timeout=30)
            return response.status_code, time.perf_counter() - start, response

        try:
            with ThreadPoolExecutor(24) as pool:
                results = list(pool.map(one, range(24)))
        finally:
            stop.set()
            prober.join()
        rss_after = process.memory_info().rss
        wait_idle(app)
    statuses = [status for status, _, _ in results]
    assert set(statuses) <= {200, 503}, statuses
    assert statuses.count(200) >= 3 and statuses.count(503) >= 1, statuses
    for status, elapsed, response in results:
        if status == 503:
            assert response.headers["retry-after"] == "3"
            assert response.json()["error"]["code"] == "overloaded"
            assert elapsed < 5, "a refusal is immediate, not queued"
        else:
            assert response.json()["elements"][0]["text"] == "w1200"
    # clients, server and probe share one process (and its GIL): a generous bound, the median is tight
    assert health and sorted(health)[len(health) // 2] < 0.5 and max(health) < 5, health
    assert rss_after - rss_before < 300 * 1024 * 1024, (rss_before, rss_after)


def test_request_timeout_is_a_504_and_frees_the_ticket() -> None:
    app = create_app(Settings(request_timeout_s=0.1, max_in_flight=1, max_queue=0, batch_max_size=1))
    with running(app) as url:
        response = post(url, cheap.image_png())
        assert response.status_code == 504
        assert response.json()["error"]["code"] == "timeout"
        wait_idle(app)
        assert service_of(app).batcher.admitted == 0


def test_a_client_disconnect_mid_parse_does_not_leak_a_slot() -> None:
    app = create_app(Settings(max_in_flight=1, max_queue=0, batch_max_size=1, batch_wait_ms=0))
    png = cheap.image_png()
    with running(app) as url:
        host, port = urlsplit(url).hostname, urlsplit(url).port
        assert host is not None and port is not None
        request = httpx.Request(
            "POST",
            f"{url}/parse",
            files={"image": ("a.png", png, "image/png")},
            data={"profile": cheap.PROFILE},
        )
        body = request.read()
        head = f"POST /parse HTTP/1.1\r\nHost: {host}\r\n" + "".join(
            f"{k}: {v}\r\n" for k, v in request.headers.items() if k.lower() not in {"host"}
        )
        for _ in range(3):
            with socket.create_connection((host, port)) as sock:
                sock.sendall(head.encode() + b"\r\n" + body)
                deadline = time.monotonic() + 5
                while service_of(app).batcher.in_flight == 0:  # the parse has started
                    assert time.monotonic() < deadline
                    time.sleep(0.01)
            # the socket is closed while the pipeline runs
        wait_idle(app)
        assert post(url, png).status_code == 200  # capacity 1: a leaked ticket would make this a 503


def test_concurrent_requests_share_pipeline_runs_and_get_their_own_results() -> None:
    app = create_app(Settings(max_in_flight=1, max_queue=8, batch_max_size=8, batch_wait_ms=150))
    with running(app) as url:
        assert post(url, cheap.image_png()).status_code == 200
        runs_before = service_of(app).batcher.runs
        widths = [40 + i for i in range(8)]
        with ThreadPoolExecutor(8) as pool:
            responses = list(pool.map(lambda w: post(url, cheap.image_png(w, 20)), widths))
        runs = service_of(app).batcher.runs - runs_before
    assert [r.status_code for r in responses] == [200] * 8
    assert [r.json()["elements"][0]["text"] for r in responses] == [f"w{w}" for w in widths]
    assert [r.json()["image"]["width"] for r in responses] == widths
    assert runs < len(widths), runs
    assert max(cheap.BATCH_SIZES) > 1


def test_one_failing_image_fails_only_its_own_request() -> None:
    app = create_app(Settings(max_in_flight=1, max_queue=8, batch_max_size=4, batch_wait_ms=200))
    with running(app) as url:
        pngs = [cheap.image_png(50 + i, 20, poisoned=(i == 1)) for i in range(4)]
        with ThreadPoolExecutor(4) as pool:
            responses = list(pool.map(lambda png: post(url, png), pngs))
        wait_idle(app)
    assert [r.status_code for r in responses] == [200, 500, 200, 200], [r.text for r in responses]
    assert responses[1].json()["error"]["code"] == "internal_error"
    assert [r.json()["elements"][0]["text"] for r in responses if r.status_code == 200] == [
        "w50",
        "w52",
        "w53",
    ]


def test_unknown_profile_takes_no_pipeline_slot() -> None:
    app = create_app(Settings(max_in_flight=1, max_queue=0, batch_max_size=1))
    with running(app) as url:
        for _ in range(3):
            files = {"image": ("a.png", cheap.image_png(), "image/png")}
            response = httpx.post(f"{url}/parse", files=files, data={"profile": "nope"}, timeout=10)
            assert response.status_code == 400
        wait_idle(app)
