"""The render loop: seeds -> ``<source>-<seed>.png`` + ``<source>-<seed>.json`` with worker processes.

Each worker process owns its renderers (one browser / QApplication per source per process), entered
lazily on first use and closed when the worker ends. Runs are resumable: a seed whose PNG and JSON both
exist is skipped (the JSON is written last and atomically, so its presence means the pair is complete).

``mixed`` assigns each seed to a source by a stable hash of the seed with :data:`DEFAULT_MIX`
(override with ``--mix web=0.6,miniwob=0.4``), so a rerun picks the same source for the same seed.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import random
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from training.data.labels import write_labels
from training.data.sources import SOURCES, create_renderer
from training.data.sources.base import Renderer

log = logging.getLogger(__name__)

# The documented default mix of ``--source mixed`` (weights, normalised): synthetic web pages carry most
# of the variety; MiniWoB++ adds the benchmark's look; third-party docs add real-world pages; Qt adds
# desktop widgets; grid adds dense synthetic layouts.
DEFAULT_MIX: dict[str, float] = {"web": 0.45, "miniwob": 0.2, "thirdparty": 0.1, "qt": 0.15, "grid": 0.1}
# Training renders start above the evaluation seeds: MiniWoB++ seeds below 1000 are reserved for evaluation
# outside this project, and 1000-1099 are this project's own evaluation episodes (training.eval).
MIN_SEED = {"miniwob": 1100}
PNG_COMPRESS = 3  # zlib level: level 6 costs ~2x the time for ~5 % smaller files


def parse_mix(text: str | None) -> dict[str, float]:
    """``"web=0.6,miniwob=0.4"`` -> weights (validated source names); ``None`` -> :data:`DEFAULT_MIX`."""
    if not text:
        return dict(DEFAULT_MIX)
    mix: dict[str, float] = {}
    for part in text.split(","):
        name, _, weight = part.partition("=")
        name = name.strip()
        if name not in SOURCES:
            raise ValueError(f"unknown source {name!r} in mix; known: {sorted(SOURCES)}")
        mix[name] = float(weight) if weight else 1.0
    if sum(mix.values()) <= 0:
        raise ValueError("mix weights must sum to more than 0")
    return mix


def source_for_seed(source: str, seed: int, mix: dict[str, float]) -> str:
    """The concrete source a seed renders with (``mixed`` picks by a stable hash of the seed)."""
    if source != "mixed":
        return source
    names = sorted(mix)
    return random.Random(f"mix-{seed}").choices(names, weights=[mix[n] for n in names])[0]


@dataclass(frozen=True)
class Job:
    """One screenshot to render."""

    source: str
    seed: int

    @property
    def stem(self) -> str:
        return f"{self.source}-{self.seed}"


def plan(source: str, n: int, seed: int, out: Path, mix: dict[str, float]) -> tuple[list[Job], int]:
    """The jobs still to do for seeds ``seed .. seed + n - 1`` and how many are already done."""
    jobs, done = [], 0
    for s in range(seed, seed + n):
        job = Job(source_for_seed(source, s, mix), s)
        if job.source in MIN_SEED and s < MIN_SEED[job.source]:
            raise ValueError(
                f"{job.source} seeds below {MIN_SEED[job.source]} are reserved for evaluation: use --seed >= "
                f"{MIN_SEED[job.source]}"
            )
        if (out / f"{job.stem}.png").exists() and (out / f"{job.stem}.json").exists():
            done += 1
        else:
            jobs.append(job)
    return jobs, done


def render_one(renderer: Renderer, job: Job, out: Path) -> int:
    """Render one job and write its PNG and JSON; returns the element count."""
    image, labels = renderer.render(job.seed)
    png = out / f"{job.stem}.png"
    tmp = out / f"{job.stem}.tmp.png"
    image.save(tmp, compress_level=PNG_COMPRESS)
    tmp.replace(png)
    labels.image = png.name
    write_labels(labels, out / f"{job.stem}.json")
    return len(labels.elements)


class _Renderers:
    """Per-process renderers, entered on first use; a failed render restarts that source's renderer."""

    def __init__(self) -> None:
        self.stack = ExitStack()
        self.active: dict[str, Renderer] = {}
        self.stacks: dict[str, ExitStack] = {}

    def get(self, source: str) -> Renderer:
        if source not in self.active:
            stack = ExitStack()
            self.active[source] = stack.enter_context(create_renderer(source))
            self.stacks[source] = stack
        return self.active[source]

    def restart(self, source: str) -> None:
        stack = self.stacks.pop(source, None)
        self.active.pop(source, None)
        if stack is not None:
            try:
                stack.close()
            except Exception:
                log.debug("closing %s failed", source, exc_info=True)

    def close(self) -> None:
        for source in list(self.active):
            self.restart(source)


def _run_jobs(jobs: Sequence[Job], out: Path) -> Iterator[tuple[Job, int | None, str | None]]:
    """Render jobs in this process, yielding (job, element count or None, error)."""
    renderers = _Renderers()
    try:
        for job in jobs:
            error = None
            for attempt in range(2):
                try:
                    yield job, render_one(renderers.get(job.source), job, out), None
                    break
                except ValueError as exc:  # a refused seed: no retry
                    error = str(exc)
                    yield job, None, error
                    break
                except Exception as exc:
                    error = f"{type(exc).__name__}: {exc}"
                    renderers.restart(job.source)
                    if attempt == 1:
                        yield job, None, error
    finally:
        renderers.close()


def _worker(jobs: list[Job], out: str, queue: Any) -> None:
    for job, count, error in _run_jobs(jobs, Path(out)):
        queue.put((job.stem, count, error))
    queue.put(None)


@dataclass
class RenderReport:
    """What a render run did."""

    rendered: int
    skipped: int
    failed: list[tuple[str, str]]
    elements: int
    seconds: float

    @property
    def per_second(self) -> float:
        return self.rendered / self.seconds if self.seconds > 0 else 0.0


def render(
    source: str,
    n: int,
    out: Path,
    seed: int = 1100,
    workers: int = 1,
    mix: dict[str, float] | None = None,
    progress: bool = True,
) -> RenderReport:
    """Render ``n`` screenshots for seeds ``seed ..`` into ``out`` with ``workers`` processes (resumable)."""
    if source != "mixed" and source not in SOURCES:
        raise ValueError(f"unknown source {source!r}; known: {[*sorted(SOURCES), 'mixed']}")
    out.mkdir(parents=True, exist_ok=True)
    jobs, skipped = plan(source, n, seed, out, mix or DEFAULT_MIX)
    started = time.perf_counter()
    failed: list[tuple[str, str]] = []
    rendered = elements = 0
    bar = tqdm(total=len(jobs), unit="img", disable=not progress, desc=f"render {source}")
    workers = max(1, min(workers, len(jobs)))
    if workers == 1:
        results: Iterator[tuple[str, int | None, str | None]] = (
            (job.stem, count, error) for job, count, error in _run_jobs(jobs, out)
        )
        procs: list[Any] = []
    else:
        ctx = mp.get_context("spawn")
        queue = ctx.Queue()
        procs = [
            ctx.Process(target=_worker, args=(jobs[i::workers], str(out), queue)) for i in range(workers)
        ]
        for proc in procs:
            proc.start()
        results = _drain(queue, procs)
    for stem, count, error in results:
        if error is None and count is not None:
            rendered += 1
            elements += count
        else:
            failed.append((stem, error or "unknown error"))
            log.warning("%s failed: %s", stem, error)
        bar.update(1)
    for proc in procs:
        proc.join()
    bar.close()
    return RenderReport(rendered, skipped, failed, elements, time.perf_counter() - started)


def _drain(queue: Any, procs: list[Any]) -> Iterator[tuple[str, int | None, str | None]]:
    """Results from worker processes until every worker has said it is done (or died)."""
    finished = 0
    while finished < len(procs):
        try:
            item = queue.get(timeout=5)
        except Exception:
            if all(not p.is_alive() for p in procs) and queue.empty():
                return
            continue
        if item is None:
            finished += 1
        else:
            yield item
