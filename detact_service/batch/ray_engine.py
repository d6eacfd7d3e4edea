"""The Ray engine: the same work on a Ray cluster through Ray Data, with the pipeline in actors.

Each actor builds one :class:`~detact_service.batch.worker.ParseWorker` (so models load once per
actor) and returns the same JSON lines the local engine writes; the driver writes them to the journal,
so output and resumption are the same. Actors read the images by path: on a multi-node cluster the
inputs must sit on a filesystem every node sees (the same absolute paths).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

from detact_service.batch.inputs import BatchItem
from detact_service.batch.worker import ParseWorker, WorkerConfig


class RayParser:
    """A Ray Data callable class: one pipeline per actor, a batch of rows in, their lines out."""

    def __init__(self, config: WorkerConfig) -> None:
        self.worker = ParseWorker(config)

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[str]]:
        # Items travel as JSON text: a missing task must stay None (a column of them would become NaN).
        items = [BatchItem(*json.loads(str(item))) for item in batch["item"]]
        return {"line": self.worker(items)}


def run_ray(
    items: Sequence[BatchItem],
    config: WorkerConfig,
    on_lines: Callable[[list[str]], None],
    *,
    workers: int = 1,
    batch_size: int = 1,
    gpus_per_worker: float | None = None,
    address: str | None = None,
) -> None:
    """Parse ``items`` on Ray (``address``: an existing cluster; else ``ray.init()``'s default).

    ``workers`` actors each take ``batch_size`` images per call; with ``gpus_per_worker`` each actor
    reserves that many GPUs. A Ray session already initialised by the caller is used as it is.
    """
    import ray
    import ray.data

    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
    try:
        logging.getLogger("ray.data").setLevel(logging.WARNING)
        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = False
        context.print_on_execution_start = False
        # Reserve GPUs only when asked (older Ray rejects num_gpus=None).
        resources: dict[str, Any] = {"num_gpus": gpus_per_worker} if gpus_per_worker else {}
        rows = [{"item": json.dumps([item.path, item.task])} for item in items]
        dataset = ray.data.from_items(rows).map_batches(
            RayParser,
            fn_constructor_args=(config,),
            batch_size=batch_size,
            batch_format="numpy",
            compute=ray.data.ActorPoolStrategy(size=max(1, workers)),
            num_cpus=1,
            **resources,
        )
        for batch in dataset.iter_batches(batch_size=None, batch_format="numpy"):
            on_lines([str(line) for line in batch["line"]])
    finally:
        if started_here:
            ray.shutdown()
