"""``detact batch --sequential``: frames of one screen re-parsed against the frame before (real pipeline),
each line saying how, with the elements a full parse gives."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from detact_service import library
from detact_service.cli import app
from detact_service.formats import to_response
from tests.api.test_reparse import visible
from tests.render import render_dense_dashboard
from tests.test_reparse import HEIGHT, SETTINGS, WIDTH, dialog


def test_sequential_batch_reparses_each_frame_against_the_one_before(tmp_path: Path) -> None:
    folder = tmp_path / "episode"
    folder.mkdir()
    before = render_dense_dashboard().image.crop((0, 0, WIDTH, HEIGHT))
    after = dialog(before, "Delete 3 invoices?", "Delete")
    for name, image in (("000.png", before), ("001.png", after), ("002.png", after)):
        image.save(folder / name)
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(
        app, ["batch", str(folder), "--out", str(out), "--profile", "fast", "--sequential", "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    rows = {Path(r["path"]).name: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["000.png"]["parse"]["reparse"] is None
    second, third = rows["001.png"]["parse"], rows["002.png"]["parse"]
    assert second["reparse"]["previous"].endswith("000.png") and second["reparse"]["reused"]
    assert 0 < second["reparse"]["text_read"] < second["reparse"]["text_reused"]
    assert third["reparse"]["previous"].endswith("001.png") and third["reparse"]["text_read"] == 0
    full = to_response(library.parse_full(np.asarray(after), settings=SETTINGS), ["json"])
    assert visible(second) == visible(third) == visible(full.model_dump(mode="json"))
