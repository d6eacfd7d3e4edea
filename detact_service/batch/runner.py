"""``run_batch``: parse a dataset into a resumable JSON Lines (or Parquet) file, locally or on Ray."""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from detact_service.batch.inputs import BatchItem, collect_items
from detact_service.batch.journal import Journal, journal_to_parquet
from detact_service.batch.worker import TEXT_FORMATS, WorkerConfig, run_plugin
from detact_service.settings import Settings

Engine = Literal["local", "ray"]
ENGINES: tuple[str, ...] = ("local", "ray")


@dataclass(frozen=True)
class BatchSummary:
    """What a run did: images parsed, skipped (done by an earlier run) and failed, and how fast."""

    total: int
    done: int
    skipped: int
    failed: int
    seconds: float
    out: Path
    journal: Path

    @property
    def images_per_s(self) -> float:
        """Images handled (parsed or failed) per second of this run."""
        handled = self.done + self.failed
        return handled / self.seconds if self.seconds > 0 else 0.0

    def describe(self) -> str:
        """One line for people."""
        return (
            f"{self.done} parsed, {self.skipped} skipped (already done), {self.failed} failed "
            f"of {self.total} in {self.seconds:.1f} s ({self.images_per_s:.2f} images/s) -> {self.out}"
        )


def output_paths(out: Path) -> tuple[Path, Path | None]:
    """The journal and, for a ``.parquet`` output, the Parquet file made from it at the end."""
    if out.suffix.lower() == ".parquet":
        return out.with_name(out.name + ".journal.jsonl"), out
    return out, None


def text_formats(formats: str | Iterable[str] | None) -> tuple[str, ...]:
    """The extra text formats to add to each line (``caap``, ``detact``); ``json`` is always there."""
    from detact_service.formats import parse_formats

    names = parse_formats(formats, default="json")
    if "som" in names:
        raise ValueError("the 'som' format is an image; a batch writes text formats only (caap, detact)")
    return tuple(name for name in names if name in TEXT_FORMATS)


def _sha256(path: str) -> str | None:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


def pending_items(
    items: Sequence[BatchItem], done: set[tuple[str, str | None, str | None]]
) -> list[BatchItem]:
    """The items whose key (path, sha256 of the current bytes, task) is not in ``done``."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        digests = list(pool.map(_sha256, (item.path for item in items)))
    return [
        item
        for item, digest in zip(items, digests, strict=True)
        if (item.path, digest, item.task) not in done
    ]


def run_batch(
    inputs: Iterable[str | Path],
    out: str | Path,
    *,
    layout: str = "auto",
    profile: str | None = None,
    formats: str | Iterable[str] | None = None,
    workers: int = 1,
    batch_size: int = 1,
    engine: Engine | str = "local",
    gpus_per_worker: float | None = None,
    address: str | None = None,
    settings: Settings | None = None,
    plugin: str | None = None,
    progress: bool = False,
    sequential: bool = False,
) -> BatchSummary:
    """Parse every screenshot of ``inputs`` into ``out`` (``.jsonl``, or ``.parquet``), resumably.

    One JSON line per image: ``{"path", "sha256", "task", "error", "parse"}``, ``parse`` in the public
    schema (with the ``formats`` texts filled in), or ``error`` (``code``, ``message``) for an image
    that could not be parsed. Images already in ``out`` (same path, bytes and task) are skipped, so a
    run stopped at any point and started again finishes the job without duplicates. A ``.parquet``
    output is built at the end from its journal ``OUT.parquet.journal.jsonl``, which is kept for the
    next run. ``plugin`` (``module:function``) is called in every process before its pipeline is built.
    With ``sequential`` (frames of one screen, e.g. an agent's episode) each image is re-parsed against
    the one before it in the same worker (only what changed is parsed again; the result is the same) and
    its ``parse.reparse`` says how; use one worker to keep the whole sequence in order.
    """
    from detact_service.pipeline import check_profile, default_profile
    from detact_service.settings import get_settings

    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if workers < 1 or batch_size < 1:
        raise ValueError("workers and batch_size must be at least 1")
    settings = settings or get_settings()
    run_plugin(plugin)
    name = profile or default_profile(settings)
    check_profile(name, settings)
    config = WorkerConfig(
        settings=settings, profile=name, formats=text_formats(formats), plugin=plugin, sequential=sequential
    )
    items = collect_items(inputs, layout)
    journal_path, parquet_path = output_paths(Path(out))

    start = time.perf_counter()
    parsed = failed = 0
    with Journal(journal_path) as journal:
        todo = pending_items(items, journal.open())
        from tqdm import tqdm

        bar = tqdm(
            total=len(todo),
            unit="img",
            desc="parsing",
            disable=not progress,
            file=sys.stderr,
            dynamic_ncols=True,
        )

        def on_lines(lines: list[str]) -> None:
            nonlocal parsed, failed
            for line in lines:
                journal.write_line(line)
                if json.loads(line)["error"] is None:
                    parsed += 1
                else:
                    failed += 1
            bar.set_postfix(failed=failed, refresh=False)
            bar.update(len(lines))

        try:
            if todo and engine == "ray":
                from detact_service.batch.ray_engine import run_ray

                run_ray(
                    todo,
                    config,
                    on_lines,
                    workers=workers,
                    batch_size=batch_size,
                    gpus_per_worker=gpus_per_worker,
                    address=address,
                )
            elif todo:
                from detact_service.batch.local import run_local

                run_local(todo, config, on_lines, workers=workers, batch_size=batch_size)
        finally:
            bar.close()
    if parquet_path is not None:
        journal_to_parquet(journal_path, parquet_path)
    return BatchSummary(
        total=len(items),
        done=parsed,
        skipped=len(items) - len(todo),
        failed=failed,
        seconds=time.perf_counter() - start,
        out=parquet_path or journal_path,
        journal=journal_path,
    )
