"""Optional API keys and CORS, on a real uvicorn server on 127.0.0.1."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import httpx
import pytest

from detact_service.api.app import create_app
from detact_service.settings import Settings
from tests.api import cheap
from tests.api.test_api import running

KEY_A = "key-a-7f3c1d9e5b2a4c6d8e0f"
KEY_B = "key-b-0a1b2c3d4e5f60718293"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with cheap.cheap_profile(), running(create_app(Settings(api_keys=(KEY_A, KEY_B)))) as url:
        yield url


def assert_unauthorized(response: httpx.Response) -> None:
    assert response.status_code == 401, response.text
    assert response.json()["error"]["code"] == "unauthorized"
    assert response.headers["www-authenticate"] == "Bearer"


def test_requests_without_a_valid_key_are_refused(url: str) -> None:
    assert_unauthorized(httpx.get(f"{url}/version"))
    assert_unauthorized(httpx.get(f"{url}/version", headers={"Authorization": "Bearer wrong"}))
    assert_unauthorized(httpx.get(f"{url}/version", headers={"Authorization": f"Basic {KEY_A}"}))
    assert_unauthorized(httpx.get(f"{url}/version", headers={"Authorization": "Bearer"}))
    assert_unauthorized(httpx.get(f"{url}/version", headers={"Authorization": f"Bearer {KEY_A}x"}))
    assert_unauthorized(httpx.get(f"{url}/metrics"))
    assert_unauthorized(httpx.post(f"{url}/parse", content=cheap.image_png()))
    assert_unauthorized(httpx.get(f"{url}/no-such-route"))


def test_each_configured_key_is_accepted(url: str) -> None:
    for key in (KEY_A, KEY_B):
        headers = {"Authorization": f"Bearer {key}"}
        assert httpx.get(f"{url}/version", headers=headers).status_code == 200
        response = httpx.post(
            f"{url}/parse",
            files={"image": ("a.png", cheap.image_png(), "image/png")},
            data={"profile": cheap.PROFILE},
            headers=headers,
            timeout=30,
        )
        assert response.status_code == 200, response.text


def test_probes_stay_open(url: str) -> None:
    assert httpx.get(f"{url}/healthz").status_code == 200
    assert httpx.get(f"{url}/readyz").status_code in {200, 503}


def test_keys_never_reach_the_logs(url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    httpx.get(f"{url}/version", headers={"Authorization": f"Bearer {KEY_A}"})
    httpx.get(f"{url}/version", headers={"Authorization": f"Bearer {KEY_B}-wrong"})
    assert any(record.name == "detact_service.access" for record in caplog.records)
    text = caplog.text + " ".join(str(vars(record)) for record in caplog.records)
    assert KEY_A not in text and KEY_B not in text


def test_keys_come_from_the_environment_as_a_comma_or_json_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DETACT_API_KEYS", " one, two ,")
    assert [key.get_secret_value() for key in Settings().api_keys] == ["one", "two"]
    monkeypatch.setenv("DETACT_API_KEYS", '["three", "four"]')
    settings = Settings()
    assert [key.get_secret_value() for key in settings.api_keys] == ["three", "four"]
    assert "three" not in repr(settings)
    monkeypatch.setenv("DETACT_API_KEYS", "")
    assert Settings().api_keys == ()


def test_open_without_keys_and_cors_off_by_default() -> None:
    with running(create_app(Settings())) as url:
        assert httpx.get(f"{url}/version").status_code == 200
        preflight = httpx.options(
            f"{url}/parse",
            headers={"Origin": "https://agent.example", "Access-Control-Request-Method": "POST"},
        )
        assert "access-control-allow-origin" not in preflight.headers
        response = httpx.get(f"{url}/version", headers={"Origin": "https://agent.example"})
        assert "access-control-allow-origin" not in response.headers


def test_cors_when_origins_are_set() -> None:
    settings = Settings(cors_origins=("https://agent.example",), api_keys=(KEY_A,))
    with running(create_app(settings)) as url:
        preflight = httpx.options(
            f"{url}/parse",
            headers={
                "Origin": "https://agent.example",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization",
            },
        )
        assert preflight.status_code == 200, preflight.text
        assert preflight.headers["access-control-allow-origin"] == "https://agent.example"
        other = httpx.get(
            f"{url}/version", headers={"Origin": "https://evil.example", "Authorization": f"Bearer {KEY_A}"}
        )
        assert other.status_code == 200 and "access-control-allow-origin" not in other.headers
