"""The Ray engine on a local Ray instance writes the same lines as the local engine, and resumes alike."""

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from detact_service.batch import run_batch
from detact_service.settings import Settings
from tests.batch import cheap
from tests.batch.conftest import ROOT

SETTINGS = Settings(device="cpu")


def by_path(path: Path) -> dict[str, dict[str, Any]]:
    rows = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if row["parse"] is not None:
            row["parse"].pop("timings_ms")  # the only part that differs from run to run
        rows[row["path"]] = row
    return rows


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_ray_and_local_engines_write_the_same_lines(cheap_profile: str, images: Path, tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    local, distributed = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    run_batch([images], local, profile=cheap_profile, settings=SETTINGS, formats="caap")
    # A small local Ray instance; its workers import the test plugin from the repository.
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        logging_level=logging.WARNING,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": str(ROOT)}},
    )
    try:
        first = run_batch(
            [images / "sub"], distributed, profile=cheap_profile, settings=SETTINGS, formats="caap",
            engine="ray", workers=2, batch_size=2, plugin=cheap.PLUGIN,
        )  # fmt: skip
        assert (first.done, first.failed) == (3, 0)
        summary = run_batch(
            [images], distributed, profile=cheap_profile, settings=SETTINGS, formats="caap",
            engine="ray", workers=2, batch_size=2, plugin=cheap.PLUGIN,
        )  # fmt: skip
    finally:
        ray.shutdown()
    assert (summary.done, summary.failed, summary.skipped) == (3, 2, 3)
    assert len(distributed.read_text().splitlines()) == 8
    assert by_path(distributed) == by_path(local)
