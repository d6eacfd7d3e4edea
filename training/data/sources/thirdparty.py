"""Real third-party HTML: documentation pages shipped in Debian packages, labelled from the DOM.

A small curated set (:data:`COLLECTIONS`) of documentation folders whose package and licence are
known (from the package's ``/usr/share/doc/<pkg>/copyright``). Each seed picks a page, a viewport and a
scroll position; the template is ``thirdparty/<collection>/<page>`` so one page never lands in two
splits. Path, package and licence go into the labels' ``meta`` (and from there into the datasheet).
Collections whose folder is missing on this machine are skipped; pages over 1.5 MB are left out (slow).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import TracebackType

from PIL import Image
from selenium import webdriver

from training.data.labels import ScreenLabels
from training.data.sources.dom import (
    close_driver,
    labelled_screen,
    make_driver,
    set_viewport,
)

MAX_PAGE_BYTES = 1_500_000


@dataclass(frozen=True)
class Collection:
    """A folder of HTML pages from one package with one licence."""

    name: str
    folder: str
    package: str
    licence: str
    copyright: str


COLLECTIONS = (
    Collection(
        "nodejs-api",
        "/usr/share/doc/nodejs/api",
        "nodejs (Debian)",
        "MIT (Node.js)",
        "/usr/share/doc/nodejs/copyright",
    ),
    Collection(
        "valgrind",
        "/usr/share/doc/valgrind/html",
        "valgrind (Debian)",
        "GPL-2.0-or-later",
        "/usr/share/doc/valgrind/copyright",
    ),
    Collection(
        "libxslt",
        "/usr/share/doc/libxslt1-dev/html",
        "libxslt1-dev (Debian)",
        "MIT",
        "/usr/share/doc/libxslt1-dev/copyright",
    ),
    Collection(
        "libffi",
        "/usr/share/doc/libffi8/html",
        "libffi-dev (Debian)",
        "MIT (Expat)",
        "/usr/share/doc/libffi8/copyright",
    ),
    Collection(
        "python3-policy",
        "/usr/share/doc/python3",
        "python3 (Debian)",
        "PSF-2.0 / GPL (Debian policy)",
        "/usr/share/doc/python3/copyright",
    ),
)
VIEWPORTS = (
    (1280, 720, 1.0, False),
    (1440, 900, 1.0, False),
    (1920, 1080, 1.0, False),
    (1280, 800, 2.0, False),
    (412, 915, 2.6, True),
)


@lru_cache(maxsize=1)
def pages() -> tuple[tuple[Collection, Path], ...]:
    """Every usable page, sorted by collection and path."""
    out: list[tuple[Collection, Path]] = []
    for collection in COLLECTIONS:
        folder = Path(collection.folder)
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.html")):
            if path.stat().st_size <= MAX_PAGE_BYTES:
                out.append((collection, path))
    return tuple(out)


class ThirdPartyRenderer:
    """Third-party documentation pages in headless Chromium (see the module docstring)."""

    source = "web-thirdparty"

    def __init__(self) -> None:
        self.driver: webdriver.Chrome | None = None
        self.profile: str | None = None

    def __enter__(self) -> ThirdPartyRenderer:
        if not pages():
            raise RuntimeError("no third-party HTML collections found on this machine")
        self.driver, self.profile = make_driver()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        close_driver(self.driver, self.profile)
        self.driver = None

    def render(self, seed: int) -> tuple[Image.Image, ScreenLabels]:
        """One page at a random viewport and scroll position."""
        if self.driver is None:
            raise RuntimeError("use the renderer as a context manager")
        rng = random.Random(f"thirdparty-{seed}")
        collection, path = rng.choice(pages())
        width, height, scale, mobile = rng.choice(VIEWPORTS)
        scroll = rng.random() * 0.8
        set_viewport(self.driver, width, height, scale, mobile)
        self.driver.get(path.as_uri())
        self.driver.execute_script(
            "const s = document.scrollingElement || document.documentElement;"
            "s.scrollTop = Math.floor(arguments[0] * Math.max(0, s.scrollHeight - innerHeight));"
            "document.documentElement.style.caretColor = 'transparent';",
            scroll,
        )
        meta = {
            "path": str(path),
            "package": collection.package,
            "licence": collection.licence,
            "copyright_file": collection.copyright,
            "viewport": [width, height],
            "scroll_fraction": round(scroll, 4),
        }
        return labelled_screen(
            self.driver, self.source, f"thirdparty/{collection.name}/{path.stem}", seed, scale, meta
        )
