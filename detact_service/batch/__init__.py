"""Batch parsing of datasets: ``run_batch`` (the ``detact batch`` command), local or on Ray, resumable.

* :mod:`~detact_service.batch.inputs`: files, folders, globs and dataset layouts (folder, OmniACT,
  ScreenAgent) into items
* :mod:`~detact_service.batch.journal`: the append-only JSON Lines journal, its repair, Parquet output
* :mod:`~detact_service.batch.worker`: the per-worker parse (the same in every engine)
* :mod:`~detact_service.batch.local` and :mod:`~detact_service.batch.ray_engine`: the engines
"""

from __future__ import annotations

from detact_service.batch.inputs import LAYOUTS, BatchItem, collect_items
from detact_service.batch.runner import ENGINES, BatchSummary, run_batch

__all__ = ["ENGINES", "LAYOUTS", "BatchItem", "BatchSummary", "collect_items", "run_batch"]
