"""The benchmark's fixed screenshot set, with labels, and how a screenshot is fitted to a screen size.

Per source (``web-synthetic``, ``web-thirdparty``, ``miniwob``, ``qt``, ``grid``), ``k`` labelled screens:

- ``web-synthetic`` and ``web-thirdparty``: test-split items (``split_of(template) == "test"``) of
  ``data/rendered`` when that folder exists, landscape only (desktop screens), one per template first
  (round robin over the templates in an order fixed by a hash of their names, then by seed); missing ones
  are rendered into ``data/bench/`` from fixed seeds (:data:`RENDER_SEED` upwards) whose template is in
  the test split.
- ``miniwob``: the project's evaluation episodes, seeds 1000-1099 (never below 1000), spread evenly over
  the range, rendered once into ``data/bench/miniwob-eval/``.
- ``qt`` and ``grid``: test-split items of ``data/rendered`` as for the web (their test templates are
  held out by name, ``training.data.export.SPLIT_OVERRIDES``); missing ones are rendered from fixed
  seeds (:data:`RENDER_SEED` upwards) and only those whose template is in the test split are kept.

Rendering needs the data engine's extras (Chromium for the web sources, PySide6 for ``qt``); a source that
cannot be rendered here is left out with a note.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from PIL import Image

from detact_service.core import Element

ROOT = Path(__file__).resolve().parent.parent
RENDERED = ROOT / "data" / "rendered"
CACHE = ROOT / "data" / "bench"
SOURCES = ("web-synthetic", "web-thirdparty", "miniwob", "qt", "grid")
ENGINE_NAME = {"web-synthetic": "web", "web-thirdparty": "thirdparty", "miniwob": "miniwob", "qt": "qt",
               "grid": "grid"}  # fmt: skip
MINIWOB_SEEDS = range(1000, 1100)
RENDER_SEED = 9_000_000  # far above the training renders (which start at 1100)
MAX_TRIES = 400  # candidate seeds looked at per source when searching test-split templates


@dataclass(frozen=True)
class BenchScreen:
    """One labelled screenshot of the set."""

    key: str
    source: str
    image_path: Path
    labels_path: Path


def _landscape_test_items(folder: Path) -> dict[str, list[BenchScreen]]:
    """Test-split, landscape items of a rendered folder, per source, one per template first."""
    from training.data.export import split_of

    by_template: dict[str, dict[str, list[tuple[int, BenchScreen]]]] = defaultdict(lambda: defaultdict(list))
    for path in sorted(folder.glob("*.json")):
        try:  # the header fields only: building every element of thousands of files is slow
            record = json.loads(path.read_text())
            source, template, seed = str(record["source"]), str(record["template"]), int(record["seed"])
            landscape = int(record["width"]) >= int(record["height"])
            image = path.parent / str(record["image"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if split_of(template) != "test" or not landscape or not image.is_file():
            continue
        screen = BenchScreen(f"{source}/{path.stem}", source, image, path)
        by_template[source][template].append((seed, screen))
    out: dict[str, list[BenchScreen]] = {}
    for source, templates in by_template.items():
        # templates in a fixed but mixed order (a hash of the name), so the first few span collections
        names = sorted(templates, key=lambda name: hashlib.sha1(name.encode("utf-8")).hexdigest())
        queues = [sorted(templates[name], key=lambda t: t[0]) for name in names]
        ordered: list[BenchScreen] = []
        while any(queues):
            for queue in queues:
                if queue:
                    ordered.append(queue.pop(0)[1])
        out[source] = ordered
    return out


def predicted_template(source: str, seed: int) -> tuple[str, bool] | None:
    """(template, landscape) a seed will render with, without rendering; ``None`` when unknown."""
    if source == "web-synthetic":
        from training.data.sources.web import generate_page, viewport_for

        width, height, _, _ = viewport_for(seed)
        return generate_page(seed).template, width >= height
    if source == "web-thirdparty":
        from training.data.sources.thirdparty import VIEWPORTS, pages

        if not pages():
            return None
        rng = random.Random(f"thirdparty-{seed}")
        collection, path = rng.choice(pages())
        width, height, _, _ = rng.choice(VIEWPORTS)
        return f"thirdparty/{collection.name}/{path.stem}", width >= height
    return None


def _candidate_seeds(source: str, k: int) -> list[int]:
    """The seeds rendered for a source (deterministic)."""
    if source == "miniwob":
        step = max(1, len(MINIWOB_SEEDS) // max(k, 1))
        return list(MINIWOB_SEEDS[::step][:k])
    if source in ("qt", "grid"):  # the template is known only after rendering: oversample, then filter
        return [RENDER_SEED + i for i in range(k * 8)]
    from training.data.export import split_of

    seeds: list[int] = []
    templates: set[str] = set()
    for seed in range(RENDER_SEED, RENDER_SEED + MAX_TRIES):
        guess = predicted_template(source, seed)
        if guess is None:
            break
        template, landscape = guess
        if landscape and split_of(template) == "test" and template not in templates:
            seeds.append(seed)
            templates.add(template)
            if len(seeds) == k:
                break
    return seeds


def _render(source: str, seeds: Sequence[int], folder: Path, log: Callable[[str], None]) -> list[BenchScreen]:
    """Render (or reuse from the cache) ``seeds`` of a source into ``folder``."""
    from training.data.engine import Job, render_one
    from training.data.sources import create_renderer

    name = ENGINE_NAME[source]
    folder.mkdir(parents=True, exist_ok=True)
    todo = [s for s in seeds if not (folder / f"{name}-{s}.json").is_file()]
    if todo:
        log(f"  rendering {len(todo)} {source} screens into {folder.relative_to(ROOT)}")
        with create_renderer(name) as renderer:
            for seed in todo:
                render_one(renderer, Job(name, seed), folder)
    return [
        BenchScreen(f"{source}/{name}-{s}", source, folder / f"{name}-{s}.png", folder / f"{name}-{s}.json")
        for s in seeds
    ]


def select_screens(
    per_source: int,
    rendered: Path = RENDERED,
    cache: Path = CACHE,
    log: Callable[[str], None] = print,
) -> tuple[list[BenchScreen], dict[str, str]]:
    """The fixed set: ``per_source`` screens per source, and a note per source on where they came from."""
    from training.data.export import split_of
    from training.data.labels import read_labels

    found = _landscape_test_items(rendered) if rendered.is_dir() else {}
    screens: list[BenchScreen] = []
    notes: dict[str, str] = {}
    for source in SOURCES:
        picked = found.get(source, [])[:per_source] if source != "miniwob" else []
        note = f"{len(picked)} test-split from data/rendered" if picked else ""
        missing = per_source - len(picked)
        if missing > 0:
            try:
                seeds = _candidate_seeds(source, missing)
                own = _render(source, seeds, cache / "miniwob-eval" if source == "miniwob" else cache, log)
            except Exception as exc:  # no Chromium / Qt here: the source is left out
                notes[source] = f"not rendered here ({type(exc).__name__}: {exc})"[:200]
                screens.extend(picked)
                continue
            extra = own
            if source != "miniwob":  # check the guessed (web) or unknown (qt, grid) template
                extra = [s for s in extra if split_of(read_labels(s.labels_path).template) == "test"]
            extra = extra[:missing]
            picked = [*picked, *extra]
            kind = {
                "miniwob": "evaluation episodes (seeds " + ", ".join(str(s) for s in seeds) + ")",
            }.get(source, "test-split, rendered from fixed seeds")
            note = f"{note}; {len(extra)} {kind}" if note else f"{len(extra)} {kind}"
        notes[source] = note
        screens.extend(picked)
    return screens, notes


def load_labels(screen: BenchScreen) -> list[Element]:
    """The screen's label elements (screenshot pixels)."""
    from training.data.labels import read_labels

    return read_labels(screen.labels_path).elements


def fit_scale(width: int, height: int, size: tuple[int, int]) -> float:
    """Scale that fits a screenshot into a screen: shrink to fit, never enlarge."""
    return min(1.0, size[0] / width, size[1] / height)


def fit_image(image: Image.Image, size: tuple[int, int]) -> npt.NDArray[np.uint8]:
    """The screenshot on a screen of ``size``: shrunk to fit if needed, at the top left, the rest filled
    with the screenshot's median border colour (so no new edge appears around it)."""
    image = image.convert("RGB")
    scale = fit_scale(image.width, image.height, size)
    if scale < 1.0:
        image = image.resize(
            (max(1, round(image.width * scale)), max(1, round(image.height * scale))),
            Image.Resampling.LANCZOS,
        )
    pixels = np.asarray(image)
    border = np.concatenate([pixels[0], pixels[-1], pixels[:, 0], pixels[:, -1]])
    fill = tuple(int(v) for v in np.median(border, axis=0))
    canvas = Image.new("RGB", size, fill)
    canvas.paste(image, (0, 0))
    return np.asarray(canvas)


def fit_labels(elements: Sequence[Element], width: int, height: int, size: tuple[int, int]) -> list[Element]:
    """Label elements moved with :func:`fit_image` (scaled by the same factor)."""
    scale = fit_scale(width, height, size)
    if scale == 1.0:
        return list(elements)
    return [
        Element.from_xyxy([v * scale for v in e.bbox], type=e.type, text=e.text, interactive=e.is_interactive)
        for e in elements
    ]
