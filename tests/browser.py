"""Headless Chromium for the browser tests (Debian's chromium and chromedriver, nothing downloaded)."""

from __future__ import annotations

import contextlib
import io
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from training.data.sources.dom import CHROME_BINARY, CHROME_FLAGS, CHROMEDRIVER


@contextlib.contextmanager
def chromium(
    flags: Sequence[str] = (), logging: dict[str, Any] | None = None, size: tuple[int, int] = (1600, 1000)
) -> Iterator[webdriver.Chrome]:
    """A headless Chromium with its own profile folder (removed after); skips without the browser."""
    if not (Path(CHROME_BINARY).exists() and Path(CHROMEDRIVER).exists()):
        pytest.skip("the browser tests need /usr/bin/chromium and /usr/bin/chromedriver")
    profile = tempfile.mkdtemp(prefix="detact-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROME_BINARY
    for flag in (*CHROME_FLAGS, *flags, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", logging or {"browser": "ALL"})
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    browser.set_window_size(*size)
    try:
        yield browser
    finally:
        browser.quit()
        shutil.rmtree(profile, ignore_errors=True)


Box = tuple[int, int, int, int]


def page_with_boxes(
    html: str, ids: Sequence[str], size: tuple[int, int]
) -> tuple[np.ndarray, dict[str, Box]]:
    """A page's screenshot and the box of each element id (CSS pixels at device scale 1)."""
    with chromium(size=size) as browser:
        browser.get("data:text/html;charset=utf-8," + html.replace("#", "%23"))
        shot = np.asarray(Image.open(io.BytesIO(browser.get_screenshot_as_png())).convert("RGB"))
        boxes: dict[str, Box] = {}
        for element_id in ids:
            rect = browser.execute_script(
                "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
                "return [r.left, r.top, r.right, r.bottom];",
                element_id,
            )
            x1, y1, x2, y2 = (round(v) for v in rect)
            boxes[element_id] = (x1, y1, x2, y2)
    return shot, boxes
