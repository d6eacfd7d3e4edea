"""The local engine: this process (``workers=1``) or worker processes, each loading the pipeline once."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

from detact_service.batch.inputs import BatchItem
from detact_service.batch.worker import ParseWorker, WorkerConfig

_worker: ParseWorker | None = None


def _init_process(config: WorkerConfig) -> None:
    global _worker
    _worker = ParseWorker(config)


def _run_chunk(items: Sequence[BatchItem]) -> list[str]:
    if _worker is None:
        raise RuntimeError("the worker process was not initialised")
    return _worker(items)


def chunks(items: Sequence[BatchItem], size: int) -> Iterator[list[BatchItem]]:
    """``items`` in consecutive lists of at most ``size``."""
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


def run_local(
    items: Sequence[BatchItem],
    config: WorkerConfig,
    on_lines: Callable[[list[str]], None],
    *,
    workers: int = 1,
    batch_size: int = 1,
) -> None:
    """Parse ``items`` and hand each chunk's lines to ``on_lines`` as soon as the chunk is done.

    With ``workers > 1`` the chunks go to that many spawned processes (at most two chunks in flight
    per process, so memory stays bounded); lines then arrive in completion order.
    """
    if workers <= 1:
        worker = ParseWorker(config)
        for chunk in chunks(items, batch_size):
            on_lines(worker(chunk))
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_init_process, initargs=(config,)
    ) as pool:
        pending: set[Future[list[str]]] = set()
        try:
            for chunk in chunks(items, batch_size):
                if len(pending) >= 2 * workers:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in finished:
                        on_lines(future.result())
                pending.add(pool.submit(_run_chunk, chunk))
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    on_lines(future.result())
        except BaseException:
            # Stopped (Ctrl-C, a broken worker): drop the chunks not started; a rerun does them.
            pool.shutdown(wait=False, cancel_futures=True)
            raise
