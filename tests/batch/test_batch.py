"""``run_batch`` and ``detact batch`` with the cheap profile: lines, errors, formats, Parquet, resumption."""

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from detact_service.batch import run_batch
from detact_service.batch.journal import Journal, read_records, repair
from detact_service.cli import app
from detact_service.settings import Settings
from tests.batch import cheap

SETTINGS = Settings(device="cpu")


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_one_line_per_image_and_bad_images_do_not_stop_the_run(
    cheap_profile: str, images: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out.jsonl"
    summary = run_batch([images], out, profile=cheap_profile, settings=SETTINGS, batch_size=4, formats="caap")
    rows = records(out)
    assert len(rows) == 8 == summary.total
    assert (summary.done, summary.failed, summary.skipped) == (6, 2, 0)
    by_name = {Path(r["path"]).name: r for r in rows}
    assert by_name["3_bad.png"]["error"]["code"] == "not_an_image"
    assert by_name["3_bad.png"]["parse"] is None
    assert by_name["3_poisoned.png"]["error"]["code"] == "parse_failed"
    good = by_name["4.png"]
    assert good["error"] is None and len(good["sha256"]) == 64
    assert good["parse"]["image"] == {"width": 68, "height": 32}
    assert good["parse"]["elements"][0]["text"] == "68x32 40,0,0"
    assert good["parse"]["text"]["caap"].startswith("- ID: element_0")
    assert good["parse"]["models"]["profile"] == cheap_profile


def test_a_second_run_skips_everything_and_a_changed_file_is_redone(
    cheap_profile: str, images: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out.jsonl"
    run_batch([images], out, profile=cheap_profile, settings=SETTINGS)
    again = run_batch([images], out, profile=cheap_profile, settings=SETTINGS)
    assert (again.done, again.failed, again.skipped) == (0, 0, 8)
    (images / "0.png").write_bytes(cheap.png(90, 30))
    third = run_batch([images], out, profile=cheap_profile, settings=SETTINGS)
    assert (third.done, third.skipped) == (1, 7)
    assert len(records(out)) == 9


def test_the_journal_drops_a_torn_last_line_and_broken_lines(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    good = [
        {"path": f"/x/{i}.png", "sha256": str(i), "task": None, "error": None, "parse": {}} for i in range(3)
    ]
    lines = [json.dumps(r) + "\n" for r in good]
    path.write_text(lines[0] + "garbage\n" + lines[1] + lines[0] + lines[2][:20])
    keys = repair(path)
    assert keys == {("/x/0.png", "0", None), ("/x/1.png", "1", None)}
    assert path.read_text() == lines[0] + lines[1]
    with Journal(path) as journal:
        assert len(journal.open()) == 2
        journal.write_line(lines[2])
        with pytest.raises(ValueError):
            journal.write_line("two\nlines\n")
    assert [r["path"] for r in read_records(path)] == ["/x/0.png", "/x/1.png", "/x/2.png"]


def test_parquet_output_is_built_from_a_kept_journal(
    cheap_profile: str, images: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out.parquet"
    run_batch([images], out, profile=cheap_profile, settings=SETTINGS)
    table = pq.read_table(out).to_pylist()
    assert len(table) == 8
    row = next(r for r in table if r["path"].endswith("/4.png"))
    assert (row["width"], row["height"], row["elements"], row["error_code"]) == (68, 32, 1, None)
    assert json.loads(row["parse"])["elements"][0]["text"] == "68x32 40,0,0"
    assert {r["error_code"] for r in table} == {None, "not_an_image", "parse_failed"}
    again = run_batch([images], out, profile=cheap_profile, settings=SETTINGS)
    assert again.skipped == 8 and len(pq.read_table(out)) == 8


def test_two_worker_processes_give_the_same_lines(cheap_profile: str, images: Path, tmp_path: Path) -> None:
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    run_batch([images], one, profile=cheap_profile, settings=SETTINGS, plugin=cheap.PLUGIN)
    run_batch(
        [images], two, profile=cheap_profile, settings=SETTINGS, plugin=cheap.PLUGIN, workers=2, batch_size=3
    )
    assert without_timings(records(one)) == without_timings(records(two))


def without_timings(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out = {}
    for row in rows:
        if row["parse"] is not None:
            row["parse"].pop("timings_ms")
        out[row["path"]] = row
    return out


def test_globs_and_files(cheap_profile: str, images: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    summary = run_batch(
        [str(images / "*.png"), images / "sub" / "1.png"], out, profile=cheap_profile, settings=SETTINGS
    )
    names = sorted(Path(r["path"]).name for r in records(out))
    assert names == ["0.png", "1.png", "2.png", "3_bad.png", "3_poisoned.png", "4.png"]
    assert summary.total == 6


def test_cli_batch(cheap_profile: str, images: Path, tmp_path: Path) -> None:
    out = tmp_path / "cli.jsonl"
    args = ["batch", str(images), "--out", str(out), "--profile", cheap_profile, "-f", "caap,detact"]
    result = CliRunner().invoke(app, [*args, "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "6 parsed, 0 skipped (already done), 2 failed of 8" in result.stderr
    assert all(r["parse"]["text"]["detact"] is not None for r in records(out) if r["parse"])
    missing = CliRunner().invoke(app, ["batch", str(tmp_path / "nope"), "--out", str(out)])
    assert missing.exit_code == 2 and "no such file" in missing.stderr
    som = CliRunner().invoke(app, [*args[:-1], "som"])
    assert som.exit_code == 2 and "som" in som.stderr
