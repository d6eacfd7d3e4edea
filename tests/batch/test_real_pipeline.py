"""The real default pipeline (no test profile) over a rendered screenshot and a broken file."""

import json
from pathlib import Path

from detact_service.batch import run_batch
from detact_service.settings import Settings
from tests.render import render_form


def test_default_pipeline_on_a_rendered_form(tmp_path: Path) -> None:
    folder = tmp_path / "screens"
    folder.mkdir()
    render_form(1280, 800).image.save(folder / "form.png")
    (folder / "form_truncated.png").write_bytes((folder / "form.png").read_bytes()[:2000])
    out = tmp_path / "out.jsonl"
    summary = run_batch([folder], out, settings=Settings(device="cpu"), formats="caap")
    assert (summary.done, summary.failed) == (1, 1)
    rows = {Path(r["path"]).name: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["form_truncated.png"]["error"]["code"] == "truncated_image"
    parse = rows["form.png"]["parse"]
    assert parse["image"] == {"width": 1280, "height": 800}
    texts = {e["text"] for e in parse["elements"] if e["text"]}
    assert {"Submit", "Cancel", "Remember me"} <= texts
    assert 'text: "Submit"' in parse["text"]["caap"]
    assert {"text", "regions", "merge", "icons", "colors", "total"} <= set(parse["timings_ms"])
