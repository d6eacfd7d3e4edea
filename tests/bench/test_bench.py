"""The benchmark suite's scoring (hand-made boxes) and one real, tiny measurement (no timings asserted)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from bench.quality import Boxed, score_screen, text_found, total
from bench.screens import BenchScreen, fit_image, fit_labels
from bench.suite import Plan, Run, quality, run_worker, summary
from bench.worker import omniparser_merge
from detact_service.core import Element, ElementType


def test_recall_and_precision_arithmetic() -> None:
    labels = [
        Boxed((0, 0, 100, 40), "Submit", interactive=True),  # button, found
        Boxed((200, 0, 240, 40), None, interactive=True),  # icon, missed
        Boxed((0, 100, 300, 120), "Some prose", interactive=False),  # text: counts for precision only
    ]
    predictions = [
        Boxed((2, 2, 98, 38), "Submit"),  # matches the button
        Boxed((0, 101, 300, 121), "Some prose"),  # matches the text label
        Boxed((500, 500, 600, 600), "noise"),  # matches nothing
    ]
    counts = score_screen(labels, predictions)
    assert (counts.interactive, counts.interactive_found) == (2, 1)
    assert (counts.predictions, counts.predictions_matched) == (3, 2)
    assert (counts.texts, counts.texts_found) == (2, 2)
    assert counts.recall == 0.5 and counts.precision == 2 / 3 and counts.text_recall == 1.0
    both = total([counts, score_screen(labels[:1], [])])
    assert (both.interactive, both.interactive_found, both.predictions, both.screens) == (3, 1, 3, 2)
    assert both.recall == 1 / 3


def test_a_prediction_matches_only_one_label() -> None:
    labels = [Boxed((0, 0, 10, 10), None, True), Boxed((0, 0, 10, 10), None, True)]
    counts = score_screen(labels, [Boxed((0, 0, 10, 10))])
    assert counts.interactive_found == 1 and counts.predictions_matched == 1


def test_text_found_is_fuzzy_and_local() -> None:
    label = Boxed((0, 0, 200, 20), "Save changes")
    assert text_found(label, [Boxed((0, 0, 90, 20), "Save"), Boxed((95, 0, 200, 20), "chanqes")])
    assert text_found(label, [Boxed((0, 0, 400, 20), "File  Save changes  Quit")])  # a longer line
    assert not text_found(label, [Boxed((0, 0, 90, 20), "Save")])  # half of it is not enough
    assert not text_found(label, [Boxed((0, 300, 200, 320), "Save changes")])  # elsewhere
    assert not text_found(label, [Boxed((0, 0, 200, 20), None)])


def test_omniparser_merge_drops_and_absorbs() -> None:
    ocr = [(10, 10, 50, 20, "Open"), (100, 100, 300, 120, "a long line of text")]
    icons = [
        (5, 5, 55, 25),  # holds the "Open" OCR box: absorbs its text
        (4, 4, 56, 26),  # nearly the same box, larger: dropped
        (120, 102, 140, 118),  # inside the long text line: dropped
        (400, 400, 420, 420),  # alone: kept without text
    ]
    merged = omniparser_merge(ocr, icons)
    assert (100, 100, 300, 120, "a long line of text") in merged
    assert (5, 5, 55, 25, "Open") in merged
    assert (400, 400, 420, 420, None) in merged
    assert len(merged) == 3


def test_fit_shrinks_and_pads_and_moves_labels() -> None:
    image = Image.new("RGB", (400, 300), (10, 20, 30))
    fitted = fit_image(image, (200, 200))
    assert fitted.shape == (200, 200, 3)
    assert tuple(fitted[199, 199]) == (10, 20, 30)  # padding takes the border colour
    labels = fit_labels([Element(bbox=(100, 100, 200, 150), type=ElementType.BUTTON)], 400, 300, (200, 200))
    assert labels[0].bbox == (50, 50, 100, 75) and labels[0].is_interactive
    small = fit_labels([Element(bbox=(1, 2, 3, 4))], 100, 100, (200, 200))
    assert small[0].bbox == (1, 2, 3, 4)  # never enlarged


def test_one_real_measurement_on_a_tiny_rendered_screen(tmp_path: Path) -> None:
    from training.data.engine import Job, render_one
    from training.data.sources.grid import GridRenderer

    with GridRenderer() as renderer:
        render_one(renderer, Job("grid", 9_000_000), tmp_path)
    stem = tmp_path / "grid-9000000"
    screen = BenchScreen("grid/grid-9000000", "grid", stem.with_suffix(".png"), stem.with_suffix(".json"))
    size = (1280, 720)
    result = run_worker("profile:detact", size, [screen], batch=1, weights=None)
    assert "error" not in result, result
    measured = result["profile:detact"]
    assert [r["key"] for r in measured["images"]] == [screen.key]
    assert {"text", "regions", "merge"} <= set(measured["images"][0]["stages_ms"])
    assert measured["peak_rss_mib"] > 0
    plan = Plan("test", (size,), size, 1, 1)
    run = Run(plan, [screen], {}, ["profile:detact"], results={("profile:detact", size): measured})
    counts = quality(run, "profile:detact")["grid"]
    assert counts.screens == 1 and counts.interactive > 0
    assert counts.recall is not None and 0.0 <= counts.recall <= 1.0
    assert counts.text_recall is not None and counts.text_recall > 0.0  # grid buttons carry plain words
    assert summary(measured)["n"] == 1


def test_report_embeds_evaluation_docs_or_says_how_to_make_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bench.__main__ as report

    monkeypatch.setattr(report, "DOCS", tmp_path)
    assert report.embedded("DETECTOR.md", report.NO_DETECTOR).startswith("Not run yet for the shipped")
    (tmp_path / "DETECTOR.md").write_text("# Detector evaluation\n\nintro\n\n## Per source\n\n| a |\n")
    assert report.embedded("DETECTOR.md", "missing") == "intro\n\n### Per source\n\n| a |"
    assert report.embedded("DETECTOR.md", "missing", demote=False) == "intro\n\n## Per source\n\n| a |"
    (tmp_path / "ICONS.md").write_text(
        "# Icons\n\n## Runtime\n\nx\n\n## Measured\n\n### v2\n\n| b |\n\n## Later\n\ny\n"
    )
    assert report.embedded("ICONS.md", "missing", section="Measured") == "### v2\n\n| b |"
    assert report.embedded("ICONS.md", "missing", section="Absent") == "missing"


def _measured(walls: list[float]) -> dict[str, object]:
    images = [{"key": f"k{i}", "wall_ms": w, "stages_ms": {}, "elements": []} for i, w in enumerate(walls)]
    return {"images": images, "first_call_ms": 1.0, "batch": {"n": 1, "ms": 1.0, "mode": "loop"},
            "peak_rss_mib": 1.0}  # fmt: skip


def test_latency_only_sets_report_ours_as_ratios_of_the_peer_and_survive_a_reload(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bench.suite as suite

    size, screens = suite.extra_screens("dense", cache=tmp_path)
    assert size == (1920, 1080) and len(screens) == suite.DENSE_REPEATS
    with Image.open(screens[0].image_path) as image:
        assert image.size == size
    plan = Plan("test", ((1280, 720),), (1280, 720), 1, 1, extra_sets=("dense",))
    rows = ["profile:full", "rapidocr+omniparser"]
    run = Run(plan, [], {}, rows)
    run.extras = {
        "dense": {
            "profile:full": _measured([1000.0, 1200.0, 1100.0]),
            "rapidocr": _measured([2000.0]),
            "omniparser-fast": _measured([4400.0, 4400.0]),
        }
    }
    text = "\n".join(suite.extras_markdown(run, ["profile:full", "rapidocr", "omniparser-fast"]))
    assert "| `full` (ours) | 1100 / 1180 | 0.25x |" in text  # 1100 / 4400
    assert "| OmniParser v2 fastest (icon detector + RapidOCR) | 4400 / 4400 | - |" in text
    path = tmp_path / "run.json"
    suite.save_run(run, path)
    again = suite.load_run(path)
    assert again.plan.extra_sets == ("dense",) and again.extras == run.extras
    with pytest.raises(ValueError, match="unknown screen set"):
        suite.extra_screens("nowhere")


def test_the_phone_set_is_one_screen_of_each_val_app_at_a_phones_own_size(tmp_path: Path) -> None:
    import bench.suite as suite
    from training.data.phone_real import DEFAULT_ROOT, load_screens

    if not (DEFAULT_ROOT / "labels").is_dir():
        pytest.skip("needs ../shared/data/phone_real")
    size, screens = suite.extra_screens("phones", cache=tmp_path)
    assert size == suite.PHONE_SIZE and len(screens) == suite.PHONES
    val_apps = {s.id: s.app for s in load_screens(split="val")}
    assert len({val_apps[s.image_path.stem] for s in screens}) == suite.PHONES  # one screen per app
    with Image.open(screens[0].image_path) as image:
        assert image.width == size[0] and 2 * size[0] <= image.height <= size[1]
    again = suite.extra_screens("phones", cache=tmp_path)[1]  # made once, then read from the cache
    assert [s.image_path for s in again] == [s.image_path for s in screens]


def test_a_failed_worker_marks_each_of_its_rows_and_its_time_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    import bench.suite as suite

    monkeypatch.setattr(suite, "run_worker", lambda *args: {"error": "boom"})
    run = Run(Plan("test", ((1280, 720),), (1280, 720), 1, 1), [], {}, ["easyocr+omniparser"])
    rows = suite.measure(
        run, "easyocr+omniparser", "dense (3 parses)", (1920, 1080), [], 3, None, lambda _: None
    )
    assert rows == {"easyocr": {"error": "boom"}, "omniparser": {"error": "boom"}}
    assert list(run.timings_s) == ["easyocr+omniparser @ dense (3 parses)"]
    monkeypatch.setattr(suite, "run_worker", lambda *args: {"profile:full": _measured([5.0])})
    assert list(suite.measure(run, "profile:full", "x", (1280, 720), [], 1, None, print)) == ["profile:full"]


def test_cpu_that_other_processes_take_is_told_apart_from_the_runs_own(tmp_path: Path) -> None:
    import os
    import resource

    import bench.__main__ as report
    import bench.suite as suite

    hertz = os.sysconf("SC_CLK_TCK")
    stat = tmp_path / "stat"  # /proc/stat's first line: user nice system idle iowait irq softirq steal ...
    stat.write_text(
        f"cpu  {300 * hertz} {10 * hertz} {50 * hertz} {900 * hertz} 7 "
        f"{2 * hertz} {3 * hertz} {5 * hertz} 0 0\ncpu0 1 2 3\n"
    )
    own = sum(
        u.ru_utime + u.ru_stime
        for u in (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
    )
    others = suite.others_cpu_seconds(stat)
    assert others is not None and abs(others - (370 - own)) < 0.5  # busy and stolen time, less this process's
    assert suite.others_cpu_seconds(tmp_path / "absent") is None
    assert suite.others_cpu_seconds() is not None  # this machine's own /proc/stat reads
    assert "took 1.2% of the CPU during the suite (nothing else heavy ran)" in report.load_line(
        1.5, 2.1, 0.012
    )
    assert "(latencies are inflated)" in report.load_line(0.1, 0.1, 0.2)
    assert "at or below the core count" in report.load_line(0.0, 0.0)  # an older run, not measured
    run = Run(Plan("test", ((1280, 720),), (1280, 720), 1, 1), [], {}, [])
    run.other_cpu = 0.012
    suite.save_run(run, tmp_path / "run.json")
    assert suite.load_run(tmp_path / "run.json").other_cpu == 0.012
