"""``GET /docs`` renders Swagger UI with the network off: real headless Chromium, no route out of the host.

Chromium gets a dead proxy and a resolver that finds no host, so anything but the local server fails; the
page must still render the API's operations, and every request it made must have gone to the server.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import httpx
import pytest
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from detact_service.api.app import create_app
from detact_service.settings import Settings
from tests.api.test_api import running
from tests.browser import chromium

OFFLINE_FLAGS = (
    "--proxy-server=http://127.0.0.1:9",  # a dead proxy for every host but loopback
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
)
EXTERNAL = re.compile(r"https?://|(src|href|url)\W{1,3}//")


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with running(create_app(Settings(warmup=False))) as base:
        yield base


@pytest.fixture(scope="module")
def offline_browser() -> Iterator[webdriver.Chrome]:
    with chromium(OFFLINE_FLAGS, {"performance": "ALL", "browser": "ALL"}, size=(1400, 1000)) as browser:
        yield browser


def test_docs_page_names_nothing_outside_the_service(url: str) -> None:
    page = httpx.get(f"{url}/docs")
    assert page.status_code == 200 and "swagger-ui" in page.text
    assert not EXTERNAL.search(page.text), page.text
    for asset in re.findall(r'(?:src|href)="(/[^"]+)"', page.text):
        assert httpx.get(f"{url}{asset}").status_code == 200, asset
    assert httpx.get(f"{url}/docs/oauth2-redirect").status_code == 200


def test_docs_render_offline_in_headless_chromium(url: str, offline_browser: webdriver.Chrome) -> None:
    browser = offline_browser
    with pytest.raises(WebDriverException, match="ERR_"):
        browser.get("http://example.com/")  # the network is off: this must not load
    browser.get(f"{url}/docs")
    WebDriverWait(browser, 60).until(
        lambda b: (
            b.find_elements(By.CSS_SELECTOR, ".opblock-summary-path")
            and b.find_elements(By.CSS_SELECTOR, ".info .title")
        )
    )
    title = browser.find_element(By.CSS_SELECTOR, ".info .title").text
    paths = {e.text.strip() for e in browser.find_elements(By.CSS_SELECTOR, ".opblock-summary-path")}
    assert "detact-service" in title
    assert {"/parse", "/locate", "/healthz"} <= paths
    assert not browser.find_elements(By.CSS_SELECTOR, ".errors-wrapper")  # "Unable to render"

    requested = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            requested.append(message["params"]["request"]["url"])
    docs_requests = requested[requested.index(f"{url}/docs") :]
    assert f"{url}/openapi.json" in docs_requests
    assert all(r.startswith((url, "data:", "blob:")) for r in docs_requests), docs_requests
