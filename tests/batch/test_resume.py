"""A batch killed with SIGKILL mid-run and started again: nothing lost, nothing written twice."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.batch import cheap
from tests.batch.conftest import ROOT

COUNT = 40


def command(folder: Path, out: Path, workers: int) -> list[str]:
    return [
        sys.executable, "-m", "detact_service.cli", "batch", str(folder), "--out", str(out),
        "--profile", cheap.PROFILE, "--plugin", cheap.PLUGIN, "--workers", str(workers), "--no-progress",
    ]  # fmt: skip


def lines_in(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.is_file() else 0


@pytest.mark.parametrize("workers", [1, 2])
def test_kill_9_then_restart_loses_and_duplicates_nothing(tmp_path: Path, workers: int) -> None:
    folder = tmp_path / "screens"
    folder.mkdir()
    for i in range(COUNT):
        (folder / f"{i:03}.png").write_bytes(cheap.png(40 + i, 20))
    out = tmp_path / "out.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BATCH_TEST_SLEEP_S": "0.1"}
    first = subprocess.Popen(
        command(folder, out, workers), env=env, start_new_session=True, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 120
    while lines_in(out) < 6 and time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.01)
    os.killpg(first.pid, signal.SIGKILL)  # the whole job, worker processes included
    first.wait(timeout=30)
    assert first.returncode == -signal.SIGKILL
    written = lines_in(out)
    assert 6 <= written < COUNT, "the run was killed mid-way"
    with out.open("ab") as handle:  # and a torn last line, as a crash in the middle of a write leaves
        handle.write(b'{"path": "/half/a/line.png", "sha')

    env["BATCH_TEST_SLEEP_S"] = "0"
    second = subprocess.run(
        command(folder, out, workers), env=env, capture_output=True, text=True, timeout=300
    )
    assert second.returncode == 0, second.stderr
    assert "skipped (already done)" in second.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    paths = [Path(r["path"]).name for r in rows]
    assert len(paths) == len(set(paths)) == COUNT
    assert sorted(paths) == sorted(p.name for p in folder.iterdir())
    assert all(r["error"] is None for r in rows)
    skipped = int(second.stderr.split(" skipped")[0].rsplit(", ", 1)[1])
    assert skipped == written  # every whole line of the killed run is kept; the torn one is dropped
