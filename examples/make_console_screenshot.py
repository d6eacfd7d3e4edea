"""The README's screenshot of the web console: ``python -m examples.make_console_screenshot``.

Serves the app on a free loopback port, opens the console in headless Chromium, uploads the example,
selects the Submit button and writes ``docs/console.png`` (a 256-colour PNG, to stay small).
"""

from __future__ import annotations

import io
import shutil
import tempfile
from pathlib import Path

from PIL import Image
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from detact_service.api.app import create_app
from detact_service.settings import Settings
from tests.api.test_api import running
from tests.api.test_console import CHROME_FLAGS, CHROMEDRIVER, CHROMIUM

ROOT = Path(__file__).resolve().parent.parent


def main(target: Path = ROOT / "docs" / "console.png") -> None:
    """Write the screenshot to ``target``."""
    profile = tempfile.mkdtemp(prefix="detact-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*CHROME_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        browser.set_window_size(1600, 900)
        with running(create_app(Settings())) as url:
            browser.get(f"{url}/")
            browser.find_element(By.ID, "task").send_keys("submit the form")
            browser.find_element(By.ID, "file").send_keys(str(ROOT / "examples" / "form.png"))
            body = browser.find_element(By.TAG_NAME, "body")
            WebDriverWait(browser, 180).until(lambda _: body.get_attribute("data-state") in ("done", "error"))
            if body.get_attribute("data-state") != "done":
                raise RuntimeError(browser.find_element(By.ID, "message").text)
            row = browser.find_element(By.XPATH, "//tbody/tr[@data-type='button'][td[3]='Submit']")
            row.click()
            browser.execute_script("window.scrollTo(0, 0)")
            png = browser.get_screenshot_as_png()
    finally:
        browser.quit()
        shutil.rmtree(profile, ignore_errors=True)
    image = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    target.parent.mkdir(parents=True, exist_ok=True)
    image.save(target, optimize=True)
    print(f"wrote {target} ({target.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
