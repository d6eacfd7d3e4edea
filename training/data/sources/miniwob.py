"""MiniWoB++ task screens (the HTML shipped in the PyPI ``miniwob`` wheel), labelled from the DOM.

Each seed picks a task and a device scale, loads the task page from its ``file://`` URL, seeds the
page's random generator with ``Math.seedrandom(seed)`` and starts an episode with
``core.startEpisodeReal()`` (what ``miniwob``'s own Selenium instance does), stops the episode timer and
screenshots the task area (``#wrap``, normally 160x210 CSS px; page scrollbars hidden).

Template = ``miniwob/<task name>`` with a ``-nodelay`` suffix dropped (``choose-date-nodelay`` is
``choose-date`` without its animation delay: one layout, so one template, so never in two splits);
``meta["task"]`` keeps the exact task. Labels: the shared DOM pass, plus click handlers (d3/jQuery) as
buttons and the task library widgets in :data:`EXTRA_TYPES`. Tasks that draw on a canvas or never settle
(:data:`SKIP_TASKS`) are left out. Dates shown by a few tasks (e.g. ``terminal``) follow the clock.

Seeds below :data:`MIN_SEED` are reserved for evaluation (nobody trains or tunes on them) and refused.
"""

from __future__ import annotations

import importlib.util
import random
import time
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

MIN_SEED = 1000
SCALES = (1.0, 2.0, 3.0)
# Tasks whose screen is mostly a canvas/SVG drawing or that never settle: few or no DOM labels.
# Widgets of the task pages' libraries that the tag/role rules cannot type.
EXTRA_TYPES = ((".selectric", "dropdown"), (".ui-slider", "slider"))
SKIP_TASKS = frozenset({"chase-circle", "moving-items", "drag-cube", "draw-circle", "draw-line"})

START_JS = """
document.documentElement.style.overflow = 'hidden';  // the off-screen reward panel would add scrollbars
Math.seedrandom(arguments[0]);
core.startEpisodeReal();
if (core.EP_TIMER !== null) { clearTimeout(core.EP_TIMER); core.EP_TIMER = null; }
const w = document.getElementById('wrap').getBoundingClientRect();
return [Math.ceil(w.right), Math.ceil(w.bottom)];
"""
READY_JS = (
    "return document.readyState === 'complete' && typeof Math.seedrandom === 'function' "
    "&& typeof core !== 'undefined';"
)
LOAD_TRIES = 3


@lru_cache(maxsize=1)
def task_folder() -> Path:
    """The ``html/miniwob`` folder inside the installed ``miniwob`` package."""
    spec = importlib.util.find_spec("miniwob")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the miniwob package is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "html" / "miniwob"


@lru_cache(maxsize=1)
def task_names() -> tuple[str, ...]:
    """All usable task names, sorted."""
    return tuple(sorted(p.stem for p in task_folder().glob("*.html") if p.stem not in SKIP_TASKS))


class MiniWobRenderer:
    """MiniWoB++ task screens in headless Chromium (see the module docstring)."""

    source = "miniwob"

    def __init__(self, tasks: tuple[str, ...] | None = None) -> None:
        self.tasks = tasks or task_names()
        self.driver: webdriver.Chrome | None = None
        self.profile: str | None = None

    def __enter__(self) -> MiniWobRenderer:
        self.driver, self.profile = make_driver()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        close_driver(self.driver, self.profile)
        self.driver = None

    def task_for(self, seed: int) -> tuple[str, float]:
        """The task and device scale a seed renders."""
        rng = random.Random(f"miniwob-{seed}")
        return rng.choice(self.tasks), rng.choice(SCALES)

    def load(self, task: str) -> None:
        """Open a task page and wait until its scripts have run; on a busy CPU the load event has come
        before ``Math.seedrandom`` existed (twice in four evaluation runs), so the page is opened again."""
        assert self.driver is not None
        for _ in range(LOAD_TRIES):
            self.driver.get((task_folder() / f"{task}.html").as_uri())
            for _ in range(100):
                if self.driver.execute_script(READY_JS):
                    return
                time.sleep(0.05)
        raise RuntimeError(f"MiniWoB++ task {task!r} did not load its scripts in {LOAD_TRIES} tries")

    def render(self, seed: int) -> tuple[Image.Image, ScreenLabels]:
        """One task screen after ``Math.seedrandom(seed)`` and ``core.startEpisodeReal()``."""
        if seed < MIN_SEED:
            raise ValueError(f"miniwob seeds below {MIN_SEED} are reserved for evaluation (got {seed})")
        if self.driver is None:
            raise RuntimeError("use the renderer as a context manager")
        task, scale = self.task_for(seed)
        set_viewport(self.driver, 160, 210, scale)
        self.load(task)
        right, bottom = self.driver.execute_script(START_JS, seed)
        for _ in range(40):  # tasks that build their problem asynchronously say when they are ready
            if self.driver.execute_script("return typeof WOB_TASK_READY === 'undefined' || WOB_TASK_READY;"):
                break
            time.sleep(0.05)
        width, height = max(160, min(int(right), 1024)), max(210, min(int(bottom), 1024))
        if (width, height) != (160, 210):
            set_viewport(self.driver, width, height, scale)
        return labelled_screen(
            self.driver,
            self.source,
            f"miniwob/{task.removesuffix('-nodelay')}",
            seed,
            scale,
            {"task": task, "viewport": [width, height], "licence": "MIT (MiniWoB++, Farama Foundation)"},
            types=EXTRA_TYPES,
        )
