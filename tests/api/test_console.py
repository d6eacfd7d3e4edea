"""The web console at ``/``, driven in real headless Chromium (Selenium) against real uvicorn servers.

One parse of a rendered form goes through the page; the same image is then parsed through the API to
check the page shows the API's text exactly. Invalid files, the API-key prompt and the switch that turns
the console off are checked without running the pipeline again.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from detact_service.api.app import create_app
from detact_service.settings import Settings
from tests.api.test_api import running
from tests.browser import chromium
from tests.render import render_form_with_icons

API_KEY = "console-test-key"
Browser = webdriver.Chrome
EXTERNAL = re.compile(r"https?://|(src|href|url)\W{1,3}//")
"""An absolute or protocol-relative URL: the console may load nothing from outside the service."""


# --- servers, browser, files ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with running(create_app(Settings())) as base:
        yield base


@pytest.fixture(scope="module")
def driver() -> Iterator[Browser]:
    with chromium() as browser:
        yield browser


@pytest.fixture(scope="module")
def form_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("console") / "form.png"
    path.write_bytes(render_form_with_icons().png_bytes())
    return path


@pytest.fixture(scope="module")
def not_an_image(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("console") / "notes.txt"
    path.write_text("this is not a screenshot\n")
    return path


def wait(driver: Browser, timeout: float = 20) -> WebDriverWait[Browser]:
    return WebDriverWait(driver, timeout, poll_frequency=0.1)


def open_console(driver: Browser, base: str) -> None:
    """Load the page and wait until its profile list came from ``GET /version``."""
    driver.get(f"{base}/")
    wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#profile option[value='detact']"))


def upload(driver: Browser, path: Path, end_state: str = "done", timeout: float = 180) -> None:
    driver.find_element(By.ID, "file").send_keys(str(path))
    body = driver.find_element(By.TAG_NAME, "body")
    wait(driver, timeout).until(lambda _: body.get_attribute("data-state") in ("done", "error"))
    assert body.get_attribute("data-state") == end_state, driver.find_element(By.ID, "message").text


def js(driver: Browser, script: str, *args: Any) -> Any:
    return driver.execute_script(script, *args)


def text_of(driver: Browser, element_id: str) -> str:
    """The exact text content of an element (not Selenium's whitespace-normalised rendering)."""
    return str(js(driver, "return document.getElementById(arguments[0]).textContent", element_id))


def row_cells(row: WebElement) -> list[str]:
    return [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]


def csp_violations(driver: Browser) -> list[str]:
    return [
        entry["message"]
        for entry in driver.get_log("browser")
        if "Content Security Policy" in entry["message"] or "Refused to" in entry["message"]
    ]


# --- the page itself ------------------------------------------------------------------------------


def test_page_is_self_contained_with_a_strict_csp(url: str) -> None:
    page = httpx.get(f"{url}/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "default-src 'self'" in csp
    assert "img-src 'self' data: blob:" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    for asset in ("console/console.js", "console/console.css"):
        assert asset in page.text
        response = httpx.get(f"{url}/{asset}")
        assert response.status_code == 200
        assert not EXTERNAL.search(response.text), asset
    assert not EXTERNAL.search(page.text)
    assert httpx.get(f"{url}/console/index.html").status_code == 404  # only the listed assets


# --- a parse in the browser -----------------------------------------------------------------------


def test_parse_a_form_in_the_browser(driver: Browser, url: str, form_file: Path) -> None:
    open_console(driver, url)
    upload(driver, form_file)

    boxes = driver.find_elements(By.CSS_SELECTOR, "#boxes .box")
    rows = driver.find_elements(By.CSS_SELECTOR, "#elements tbody tr")
    assert boxes and len(boxes) == len(rows)
    header = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "#elements thead th")]
    assert header[:7] == ["id", "type", "text", "icon", "colour", "state", "score"]  # relevance with a task
    buttons = {row_cells(row)[2]: row for row in rows if row.get_attribute("data-type") == "button"}
    assert {"Submit", "Cancel"} <= set(buttons)

    # A row click highlights its box; a box click highlights its row.
    submit = buttons["Submit"]
    submit_id = submit.get_attribute("data-id")
    submit.click()
    selected = driver.find_elements(By.CSS_SELECTOR, "#boxes .box.selected")
    assert [box.get_attribute("data-id") for box in selected] == [submit_id]
    assert "selected" in (submit.get_attribute("class") or "")
    cancel_id = buttons["Cancel"].get_attribute("data-id")
    driver.find_element(By.CSS_SELECTOR, f"#boxes .box[data-id='{cancel_id}']").click()
    selected_rows = driver.find_elements(By.CSS_SELECTOR, "#elements tbody tr.selected")
    assert [row.get_attribute("data-id") for row in selected_rows] == [cancel_id]
    assert not driver.find_elements(By.CSS_SELECTOR, f"#boxes .box.selected[data-id='{submit_id}']")

    # The search box filters the table; type toggles hide boxes.
    driver.find_element(By.ID, "search").send_keys("Cancel")
    visible = [row for row in rows if row.is_displayed()]
    assert [row.get_attribute("data-id") for row in visible] == [cancel_id]
    driver.find_element(By.ID, "search").clear()
    driver.find_element(By.ID, "search").send_keys(" ")  # fires input with an empty query
    driver.find_element(By.CSS_SELECTOR, "#types input[data-type='button']").click()
    button_boxes = driver.find_elements(By.CSS_SELECTOR, "#boxes .box[data-type='button']")
    assert button_boxes and not any(box.is_displayed() for box in button_boxes)

    # The caap tab shows exactly what the API returns for the same image.
    driver.find_element(By.CSS_SELECTOR, "[data-tab='caap']").click()
    assert driver.find_element(By.ID, "out-caap").is_displayed()
    with httpx.Client(base_url=url, timeout=180) as client:
        response = client.post(
            "/parse",
            files={"image": ("form.png", form_file.read_bytes(), "image/png")},
            data={"formats": "json,caap,detact"},
        )
    assert response.status_code == 200, response.text
    api = response.json()
    assert text_of(driver, "out-caap") == api["text"]["caap"]
    assert text_of(driver, "out-detact") == api["text"]["detact"]
    assert len(rows) == len(api["elements"])

    # Stage timings as bars; the agent view, cut to max elements in the browser.
    driver.find_element(By.CSS_SELECTOR, "[data-tab='timings']").click()
    fills = driver.find_elements(By.CSS_SELECTOR, "#timings .fill")
    assert len(fills) >= 5 and all(fill.size["height"] > 0 for fill in fills)
    assert max(fill.size["width"] for fill in fills) > 100
    driver.find_element(By.ID, "max-elements").send_keys("5", Keys.TAB)
    driver.find_element(By.CSS_SELECTOR, "[data-tab='agent']").click()
    agent = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#agent-list li")]
    assert agent == api["text"]["caap"].splitlines()[:5]
    assert len(driver.find_elements(By.CSS_SELECTOR, "#elements tbody tr")) == 5
    assert "first 5" in text_of(driver, "cut-note")

    # Nothing came from outside the service, and the page broke none of its own CSP.
    origin = url.rstrip("/")
    resources = js(driver, "return performance.getEntriesByType('resource').map(e => e.name)")
    assert resources and all(name.startswith((f"{origin}/", "blob:", "data:")) for name in resources), (
        resources
    )
    assert csp_violations(driver) == []


def test_an_invalid_file_shows_the_api_error(driver: Browser, url: str, not_an_image: Path) -> None:
    api = httpx.post(f"{url}/parse", files={"image": ("notes.txt", not_an_image.read_bytes(), "text/plain")})
    assert api.status_code == 400
    error = api.json()["error"]
    open_console(driver, url)
    upload(driver, not_an_image, end_state="error")
    message = driver.find_element(By.ID, "message")
    assert message.is_displayed()
    assert error["code"] in message.text and error["message"] in message.text
    # The page still works: tabs switch, and nothing was left half drawn.
    driver.find_element(By.CSS_SELECTOR, "[data-tab='json']").click()
    assert driver.find_element(By.ID, "tab-json").is_displayed()
    assert not driver.find_elements(By.CSS_SELECTOR, "#boxes .box")


# A file dropped on the page or pasted into it, built in the browser (its bytes are no PNG, so the API's
# 400 comes back quickly and proves the file reached POST /parse).
SEND_FILE_BY_EVENT = """
const [how, name] = arguments;
const data = new DataTransfer();
data.items.add(new File(["not a png"], name, {type: "image/png"}));
document.body.dataset.state = "idle";
const event = how === "drop"
  ? new DragEvent("drop", {dataTransfer: data, bubbles: true, cancelable: true})
  : new ClipboardEvent("paste", {clipboardData: data, bubbles: true, cancelable: true});
document.getElementById(how === "drop" ? "drop" : "search").dispatchEvent(event);
"""


@pytest.mark.parametrize("how", ["drop", "paste"])
def test_drop_and_paste_send_the_file(driver: Browser, url: str, how: str) -> None:
    open_console(driver, url)
    js(driver, SEND_FILE_BY_EVENT, how, f"{how}.png")
    body = driver.find_element(By.TAG_NAME, "body")
    wait(driver).until(lambda _: body.get_attribute("data-state") == "error")
    message = driver.find_element(By.ID, "message").text
    assert "not_an_image" in message, message


# --- API keys and the switch ----------------------------------------------------------------------


def test_the_page_asks_for_an_api_key(driver: Browser, not_an_image: Path) -> None:
    keys: dict[str, Any] = {"api_keys": API_KEY}  # DETACT_API_KEYS
    with running(create_app(Settings(**keys))) as base:
        assert httpx.get(f"{base}/version").status_code == 401
        for path in ("/", "/console/console.js", "/console/console.css"):  # the page itself is public
            assert httpx.get(f"{base}{path}").status_code == 200, path
        driver.get(f"{base}/")
        auth = driver.find_element(By.ID, "auth")
        wait(driver).until(lambda _: auth.is_displayed())
        driver.find_element(By.ID, "api-key").send_keys(API_KEY, Keys.ENTER)
        wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#profile option[value='detact']"))
        assert not auth.is_displayed()
        assert js(driver, "return sessionStorage.getItem('detact-api-key')") == API_KEY
        # The key goes with each parse: an invalid file now gets the API's 400, not a 401.
        upload(driver, not_an_image, end_state="error")
        assert "not_an_image" in driver.find_element(By.ID, "message").text


def test_console_can_be_switched_off() -> None:
    with running(create_app(Settings(console_enabled=False))) as base:
        assert httpx.get(f"{base}/").status_code == 404
        assert httpx.get(f"{base}/console/console.js").status_code == 404
        assert httpx.get(f"{base}/healthz").status_code == 200
