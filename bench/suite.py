"""The benchmark suite: our profiles and the peers on the same screenshots, speed and quality.

Every (parser, screen size) runs in its own process (:mod:`bench.worker`) so its peak RSS is its own. The
screens (:mod:`bench.screens`) are fitted to each size; quality (:mod:`bench.quality`) is scored at the
reference size against the data-engine labels moved the same way. Plots go to ``docs/bench/``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from bench.quality import Boxed, Counts, score_screen, total
from bench.screens import SOURCES, BenchScreen, fit_labels, select_screens
from detact_service.api.batching import SERVER_MALLOC
from detact_service.core import ElementType
from training.eval.peers import omniparser_weights

ROOT = Path(__file__).resolve().parent.parent
PLOTS = ROOT / "docs" / "bench"
CACHE = ROOT / "data" / "bench"
LAST_RUN = CACHE / "last-run.json"
SAMPLES = ROOT.parent / "shared" / "samples" / "desktop-screenagent"
SIZES = ((1280, 720), (1920, 1080), (2560, 1440))
STAGE_ORDER = ("text", "regions", "detect", "merge", "icons", "colors", "attributes", "relevance")
WORKER_TIMEOUT_S = 3000

PEER_ROWS = ("rapidocr", "easyocr", "omniparser-fast", "omniparser")
LABELS: dict[str, str] = {
    "rapidocr": "RapidOCR only",
    "easyocr": "EasyOCR only",
    "omniparser-fast": "OmniParser v2 fastest (icon detector + RapidOCR)",
    "omniparser": "OmniParser v2 (icon detector + EasyOCR)",
}
WORKER_ROWS = {
    "rapidocr+omniparser": ("rapidocr", "omniparser-fast"),
    "easyocr+omniparser": ("easyocr", "omniparser"),
}
"""The result rows each peer worker writes."""


@dataclass(frozen=True)
class Plan:
    """How much to measure."""

    name: str
    sizes: tuple[tuple[int, int], ...]
    reference: tuple[int, int]
    per_source: int
    latency_per_source: int
    extra_sets: tuple[str, ...] = ()
    """Unlabelled screen sets timed for every row too (:data:`EXTRA_SETS`)."""


QUICK = Plan("quick", ((1280, 720),), (1280, 720), per_source=1, latency_per_source=1)
EXTRA_SET_NAMES = ("dense", "desktops", "phones")
FULL = Plan("full", SIZES, (1920, 1080), per_source=3, latency_per_source=1, extra_sets=EXTRA_SET_NAMES)

DENSE_REPEATS = 3
DESKTOPS = 10
PHONES = 5
PHONE_SIZE = (1080, 2400)
EXTRA_SETS: dict[str, str] = {
    "dense": "the rendered dense dashboard (1920x1080, 306 text lines at 13-22 px), parsed "
    f"{DENSE_REPEATS} times",
    "desktops": f"the first {DESKTOPS} ScreenAgent desktops of the team's shared samples (1024x768 JPEG, "
    "Windows and Linux), each parsed once",
    "phones": f"the first screen of each of the first {PHONES} `phone_real` val apps (real Android JPEGs "
    f"stored at 575x1280, enlarged to {PHONE_SIZE[0]} px wide on a {PHONE_SIZE[0]}x{PHONE_SIZE[1]} screen), "
    "each parsed once",
}
"""Latency-only screen sets, by name: what each holds."""


@dataclass
class Run:
    """Everything one suite run measured."""

    plan: Plan
    screens: list[BenchScreen]
    notes: dict[str, str]
    rows: list[str]
    results: dict[tuple[str, tuple[int, int]], dict[str, Any]] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    timings_s: dict[str, float] = field(default_factory=dict)
    omni_note: str = ""
    load: tuple[float, float] = (0.0, 0.0)
    """1-minute load average at the start and the end of the measurements."""
    other_cpu: float | None = None
    """Share of the machine's CPU time that other processes (and a hypervisor's steal) took while the
    measurements ran (:func:`others_cpu_seconds`); ``None`` where ``/proc/stat`` is not there."""
    extras: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    """Latency-only sets: set name -> result row -> its measurements (or ``{"error": ...}``)."""


def label(row: str) -> str:
    """Display name of a result row."""
    if row.startswith("profile:"):
        return f"`{row.split(':', 1)[1]}` (ours)"
    return LABELS.get(row, row)


def size_name(size: tuple[int, int]) -> str:
    """``1920x1080``."""
    return f"{size[0]}x{size[1]}"


def available_rows(log: Callable[[str], None]) -> tuple[list[str], dict[str, str]]:
    """Worker parsers to run (our available profiles, then the peers) and the profiles left out, why."""
    from detact_service.pipeline import PROFILES, ProfileUnavailable, check_profile
    from detact_service.settings import Settings

    rows, missing = [], {}
    for name in PROFILES:
        try:
            check_profile(name, Settings())
        except ProfileUnavailable as exc:
            missing[name] = str(exc)
            log(f"  profile {name}: unavailable ({exc})")
            continue
        rows.append(f"profile:{name}")
    return [*rows, *WORKER_ROWS], missing


def run_worker(
    parser: str, size: tuple[int, int], screens: Sequence[BenchScreen], batch: int, weights: str | None
) -> dict[str, Any]:
    """One configuration in a fresh process; its rows' measurements (or ``{"error": ...}``)."""
    with tempfile.TemporaryDirectory(prefix="detact-bench-") as tmp:
        spec, out = Path(tmp) / "spec.json", Path(tmp) / "out.json"
        spec.write_text(
            json.dumps(
                {
                    "parser": parser,
                    "size": list(size),
                    "screens": [{"key": s.key, "image": str(s.image_path)} for s in screens],
                    "batch": batch,
                    "weights": weights,
                }
            )
        )
        try:
            done = subprocess.run(
                [sys.executable, "-m", "bench.worker", str(spec), str(out)],
                cwd=ROOT, capture_output=True, text=True, timeout=WORKER_TIMEOUT_S,
                env={**os.environ, **SERVER_MALLOC} if parser.startswith("profile:") else None,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            return {"error": f"timed out after {WORKER_TIMEOUT_S} s"}
        if done.returncode != 0 or not out.is_file():
            return {"error": (done.stderr.strip().splitlines() or ["no output"])[-1][:200]}
        result: dict[str, Any] = json.loads(out.read_text())
        return result


def measure(
    run_: Run,
    parser: str,
    where: str,
    size: tuple[int, int],
    screens: Sequence[BenchScreen],
    batch: int,
    weights: str | None,
    log: Callable[[str], None],
) -> dict[str, dict[str, Any]]:
    """One worker run, its time kept under ``parser @ where``: the measurements of each of its result
    rows, or the worker's error for each."""
    t0 = time.perf_counter()
    result = run_worker(parser, size, screens, batch, weights)
    seconds = time.perf_counter() - t0
    run_.timings_s[f"{parser} @ {where}"] = seconds
    if "error" in result:
        log(f"[bench] {parser} @ {where}: FAILED {result['error']} ({seconds:.0f} s)")
        return {row: {"error": result["error"]} for row in WORKER_ROWS.get(parser, (parser,))}
    log(f"[bench] {parser} @ {where}: {seconds:.0f} s")
    return dict(result)


def extra_screens(name: str, cache: Path = CACHE) -> tuple[tuple[int, int], list[BenchScreen]]:
    """The screen size and screens of a latency-only set (no screens when its images are not here)."""
    if name == "dense":
        from tests.render import render_dense_dashboard

        path = cache / "dense-dashboard.png"
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            render_dense_dashboard().image.save(path)
        return (1920, 1080), [BenchScreen(f"dense-{i}", name, path, Path()) for i in range(DENSE_REPEATS)]
    if name == "desktops":
        samples = sorted(SAMPLES.glob("*.jpg"))[:DESKTOPS]
        return (1024, 768), [BenchScreen(p.stem[:12], name, p, Path()) for p in samples]
    if name == "phones":
        return PHONE_SIZE, phone_screens(cache / "phones")
    raise ValueError(f"unknown screen set {name!r}; known: {', '.join(EXTRA_SETS)}")


def phone_screens(folder: Path, count: int = PHONES) -> list[BenchScreen]:
    """The first screen of each of the first ``count`` ``phone_real`` val apps (those at least twice as tall
    as wide: 575x1280, 606x1280), enlarged to :data:`PHONE_SIZE`'s width once into ``folder`` (none when
    ``phone_real`` is not here)."""
    from training.data.phone_real import DEFAULT_ROOT, load_screens

    if not (DEFAULT_ROOT / "labels").is_dir():
        return []
    chosen: dict[str, Path] = {}
    for screen in load_screens(split="val"):
        if screen.app not in chosen and screen.height >= 2 * screen.width and len(chosen) < count:
            chosen[screen.app] = screen.image_path
    screens = []
    for source in chosen.values():
        path = folder / f"{source.stem}.png"
        if not path.is_file():
            folder.mkdir(parents=True, exist_ok=True)
            with Image.open(source) as image:
                width = PHONE_SIZE[0]
                height = min(PHONE_SIZE[1], round(image.height * width / image.width))
                image.convert("RGB").resize((width, height), Image.Resampling.BICUBIC).save(path)
        screens.append(BenchScreen(source.stem[:24], "phones", path, Path()))
    return screens


def run_extras(run_: Run, weights: str | None, log: Callable[[str], None]) -> None:
    """Time every row on the plan's latency-only sets, each configuration in its own process."""
    for name in run_.plan.extra_sets:
        size, screens = extra_screens(name)
        if not screens:
            log(f"[bench] set {name}: no screens here, left out")
            continue
        run_.extras[name] = {}
        for parser in run_.rows:
            where = f"{name} ({len(screens)} parses)"
            run_.extras[name].update(measure(run_, parser, where, size, screens, len(screens), weights, log))


def others_cpu_seconds(stat: Path = Path("/proc/stat")) -> float | None:
    """CPU seconds the whole machine has spent busy (steal included) since boot, less this process's and
    its finished children's own: what other processes took. ``None`` without ``/proc/stat`` (not Linux).

    The load average cannot tell the run's own processes from others (a worker's two threads and the
    parent already make two); this can."""
    try:
        fields = stat.read_text().split("\n", 1)[0].split()
    except OSError:
        return None
    import resource  # Unix only, as /proc/stat

    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[1:9])
    machine = (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
    own = sum(
        usage.ru_utime + usage.ru_stime
        for usage in (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
    )
    return machine - own


def run(plan: Plan, log: Callable[[str], None] = print, peers: bool = True) -> Run:
    """Measure every available profile and the peers on the fixed screens."""
    started = time.perf_counter()
    load_start = os.getloadavg()[0]
    others_start = others_cpu_seconds()
    log(f"[bench] screens: {plan.per_source} per source")
    screens, notes = select_screens(plan.per_source, log=log)
    if not screens:
        raise RuntimeError(f"no benchmark screens could be found or rendered here: {notes}")
    rows, missing = available_rows(log)
    if not peers:
        rows = [r for r in rows if r.startswith("profile:")]
    run_ = Run(plan, screens, notes, rows, missing=missing)
    run_.timings_s["screens"] = time.perf_counter() - started
    weights = None
    if any(row.endswith("+omniparser") for row in rows):
        weights, run_.omni_note = omniparser_weights(log)
    subset = latency_subset(screens, plan.latency_per_source)
    everything = subset + [s for s in screens if s not in subset]  # the batch is the subset, first
    for parser in rows:
        for size in plan.sizes:
            chosen = everything if size == plan.reference else subset
            where = f"{size_name(size)} ({len(chosen)} screens)"
            for name, measured in measure(
                run_, parser, where, size, chosen, len(subset), weights, log
            ).items():
                run_.results[(name, size)] = measured
    run_extras(run_, weights, log)
    run_.load = (load_start, os.getloadavg()[0])
    others_end = others_cpu_seconds()
    if others_start is not None and others_end is not None:
        capacity = (time.perf_counter() - started) * (os.cpu_count() or 1)
        run_.other_cpu = max(others_end - others_start, 0.0) / capacity
    save_run(run_)
    return run_


def save_run(run_: Run, path: Path = LAST_RUN) -> None:
    """Keep a run's measurements (``data/bench/last-run.json``) so its report can be written again."""
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "plan": dataclasses.asdict(run_.plan),
        "screens": [[s.key, s.source, str(s.image_path), str(s.labels_path)] for s in run_.screens],
        "notes": run_.notes,
        "rows": run_.rows,
        "results": [[row, list(size), data] for (row, size), data in run_.results.items()],
        "missing": run_.missing,
        "timings_s": run_.timings_s,
        "omni_note": run_.omni_note,
        "load": list(run_.load),
        "other_cpu": run_.other_cpu,
        "extras": run_.extras,
    }
    path.write_text(json.dumps(record))


def load_run(path: Path = LAST_RUN) -> Run:
    """A run saved by :func:`save_run`."""
    record = json.loads(path.read_text())
    plan = record["plan"]
    plan["sizes"] = tuple(tuple(s) for s in plan["sizes"])
    plan["reference"] = tuple(plan["reference"])
    plan["extra_sets"] = tuple(plan.get("extra_sets", ()))
    return Run(
        Plan(**plan),
        [BenchScreen(k, src, Path(img), Path(lab)) for k, src, img, lab in record["screens"]],
        record["notes"],
        record["rows"],
        results={(row, (int(size[0]), int(size[1]))): data for row, size, data in record["results"]},
        missing=record["missing"],
        timings_s=record["timings_s"],
        omni_note=record["omni_note"],
        load=(float(record.get("load", [0, 0])[0]), float(record.get("load", [0, 0])[1])),
        other_cpu=record.get("other_cpu"),
        extras=record.get("extras", {}),
    )


def latency_subset(screens: Sequence[BenchScreen], per_source: int) -> list[BenchScreen]:
    """The first ``per_source`` screens of each source (timed at every size)."""
    out, seen = [], dict.fromkeys(SOURCES, 0)
    for screen in screens:
        if seen.get(screen.source, 0) < per_source:
            out.append(screen)
            seen[screen.source] = seen.get(screen.source, 0) + 1
    return out


def result_rows(run_: Run) -> list[str]:
    """Result rows in display order: our profiles, then the peers that produced results."""
    ours = [r for r in run_.rows if r.startswith("profile:")]
    return ours + [p for p in PEER_ROWS if any(k[0] == p for k in run_.results)]


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` percentile (linear interpolation)."""
    return float(np.percentile(np.asarray(values, dtype=np.float64), q))


def summary(result: dict[str, Any], keys: set[str] | None = None) -> dict[str, Any]:
    """Median stages, end-to-end median/p90 and throughput of one configuration (optionally a key subset)."""
    images = [r for r in result["images"] if keys is None or r["key"] in keys]
    walls = [r["wall_ms"] for r in images]
    stages: dict[str, float] = {}
    for name in STAGE_ORDER:
        values = [r["stages_ms"][name] for r in images if name in r["stages_ms"]]
        if values:
            stages[name] = statistics.median(values)
    batch = result["batch"]
    return {
        "n": len(images),
        "stages": stages,
        "median": statistics.median(walls) if walls else float("nan"),
        "p90": percentile(walls, 90) if walls else float("nan"),
        "throughput": batch["n"] / (batch["ms"] / 1000.0) if batch["ms"] else float("nan"),
        "batch_mode": batch["mode"],
        "first_s": result["first_call_ms"] / 1000.0,
        "rss": result["peak_rss_mib"],
        "gpu": result.get("peak_gpu_mib"),
        "device": result.get("device", "cpu"),
    }


def quality(run_: Run, row: str) -> dict[str, Counts]:
    """Counts per source (and ``all``) of one row at the reference size."""
    from training.data.labels import read_labels

    result = run_.results.get((row, run_.plan.reference))
    if not result or "error" in result:
        return {}
    by_key = {s.key: s for s in run_.screens}
    per_source: dict[str, list[Counts]] = {}
    for record in result["images"]:
        screen = by_key[record["key"]]
        labels = read_labels(screen.labels_path)
        fitted = fit_labels(labels.elements, labels.width, labels.height, run_.plan.reference)
        truth = [Boxed(e.bbox, e.text, e.is_interactive, e.type is ElementType.ICON) for e in fitted]
        preds = [Boxed((p[0], p[1], p[2], p[3]), p[4]) for p in record["elements"]]
        per_source.setdefault(screen.source, []).append(score_screen(truth, preds))
    out = {source: total(counts) for source, counts in per_source.items()}
    out["all"] = total(out.values())
    return out


def fmt(value: float | None, digits: int = 2) -> str:
    """A number for a table (``-`` when missing)."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "-"
    return f"{value:.{digits}f}"


def ratio(a: float | None, b: float | None) -> str:
    """``a / b`` as ``1.23x`` (``-`` when undefined)."""
    if a is None or b is None or not b or np.isnan(a) or np.isnan(b):
        return "-"
    return f"{a / b:.2f}x"


def markdown(run_: Run) -> str:
    """The suite's sections of ``docs/BENCHMARKS.md`` (tables, plots and how they were measured)."""
    plan, ref = run_.plan, run_.plan.reference
    rows = result_rows(run_)
    lines: list[str] = []
    counts = {s: sum(1 for x in run_.screens if x.source == s) for s in SOURCES}
    lines += [
        f"## Screens ({len(run_.screens)}, {plan.name} mode)",
        "",
        "Every screenshot is put on a screen of each size: shrunk to fit when larger (aspect kept), never "
        "enlarged, at the top left, the rest filled with its median border colour; labels move with it. "
        f"Latency and quality at **{size_name(ref)}** use all of them; latency at the other sizes uses the "
        f"first {plan.latency_per_source} per source (the same screens at every size).",
        "",
        *(
            [
                f"With {plan.per_source} screen per source these numbers are a smoke check of the suite, "
                "not a result: see the full run (`python -m bench`).",
                "",
            ]
            if plan.per_source < 2
            else []
        ),
        "| source | screens | where from |",
        "|---|---:|---|",
    ]
    lines += [f"| {s} | {counts[s]} | {run_.notes.get(s, '-')} |" for s in SOURCES]
    lines += ["", "Rows:", ""]
    lines += [
        "- `detact`, `fast`, `full` (ours): the service's profiles as shipped (`python -m bench` parses "
        "through `detact_service.pipeline`; `full` is the default); OCR backend by device (RapidOCR on CPU, "
        "EasyOCR on CUDA).",
        "- RapidOCR only / EasyOCR only: every OCR line as an element, nothing else (what a user without "
        "a detector would do); RapidOCR with its defaults, EasyOCR as OmniParser v2's server calls it "
        "(`text_threshold=0.8`).",
        f"- OmniParser v2: its icon detector (YOLO11m, class `icon`; {run_.omni_note or 'not run'}; "
        "`conf=0.05`, NMS IoU 0.1, Ultralytics' default input size 640, as its server runs it), the same "
        "EasyOCR lines, and its overlap removal re-implemented from the published description "
        "(`bench.worker.omniparser_merge`). Its icon captioner (Florence-2) is left out: it names boxes, it "
        "does not find them. The detector is used for this comparison only: not shipped, not a dependency, "
        "never used to train or label anything of ours.",
        "- OmniParser v2 fastest: the same detector and overlap removal on the RapidOCR lines (RapidOCR with "
        "its defaults): the peer's fastest configuration. Its latency is RapidOCR + detector + merge.",
    ]
    for name, why in run_.missing.items():
        lines.append(f"- `{name}` (ours): not measured: {why}")
    lines += [
        "",
        f"## Latency per stage at {size_name(ref)} (ms, median over the screens, after warm-up)",
        "",
    ]
    lines += [
        "Each configuration runs in its own process, as it is deployed (ours with glibc's malloc set as the "
        "service's Docker image sets it, `MALLOC_ARENA_MAX=2` and `MALLOC_MMAP_THRESHOLD_=16777216`; the "
        "peers with glibc's defaults): one warm-up parse (the `first call` column: model "
        "loading included), then every screen once. `end to end` is wall time around one parse of a decoded "
        "RGB array. Throughput: our pipeline's batch mode (`parse_batch` over the "
        f"{len(latency_subset(run_.screens, plan.latency_per_source))} screens timed at every size); a peer "
        "has no batch mode, so a list is a loop (sum of its parses). Peak "
        "RSS: the process's high-water mark (`ru_maxrss`), models included; the EasyOCR row's is read "
        "before the OmniParser detector is loaded in the same process.",
        "",
    ]
    summaries = {
        row: summary(run_.results[(row, ref)])
        for row in rows
        if (row, ref) in run_.results and "error" not in run_.results[(row, ref)]
    }
    stage_names = [s for s in STAGE_ORDER if any(s in m["stages"] for m in summaries.values())]
    header = ["parser", "device", *stage_names, "end to end", "p90", "first call s", "img/s", "peak RSS MiB"]
    lines += ["| " + " | ".join(header) + " |", "|---|---|" + "---:|" * (len(header) - 2)]
    for row in rows:
        measured = run_.results.get((row, ref), {})
        if "error" in measured or row not in summaries:
            lines.append(f"| {label(row)} | failed: {measured.get('error', 'not run')} |")
            continue
        m = summaries[row]
        cells = [fmt(m["stages"].get(s), 0) if s in m["stages"] else "" for s in stage_names]
        rss = f"{m['rss']:.0f}" + (f" (GPU {m['gpu']:.0f})" if m["gpu"] else "")
        lines.append(
            f"| {label(row)} | {m['device']} | "
            + " | ".join(cells)
            + f" | {m['median']:.0f} | {m['p90']:.0f} "
            f"| {m['first_s']:.1f} | {m['throughput']:.2f} ({m['batch_mode']}) | {rss} |"
        )
    if run_.omni_note.startswith("not run"):
        lines.append(f"| {LABELS['omniparser']} | {run_.omni_note} |")
    lines += ["", "![latency per stage](bench/latency_stages.png)", ""]
    if len(plan.sizes) > 1:
        keys = {s.key for s in latency_subset(run_.screens, plan.latency_per_source)}
        lines += [
            f"## Latency vs resolution (ms, median / p90 over the same {len(keys)} screens; peak RSS MiB)",
            "",
            "| parser | " + " | ".join(size_name(s) for s in plan.sizes) + " | "
            + " | ".join(f"RSS {size_name(s)}" for s in plan.sizes) + " |",
            "|---|" + "---:|" * (2 * len(plan.sizes)),
        ]  # fmt: skip
        for row in rows:
            cells, rss_cells = [], []
            for size in plan.sizes:
                measured = run_.results.get((row, size), {})
                if not measured or "error" in measured:
                    cells.append("failed")
                    rss_cells.append("-")
                    continue
                m = summary(measured, keys)
                cells.append(f"{m['median']:.0f} / {m['p90']:.0f}")
                rss_cells.append(f"{m['rss']:.0f}")
            lines.append(f"| {label(row)} | " + " | ".join(cells) + " | " + " | ".join(rss_cells) + " |")
        lines += ["", "![latency vs resolution](bench/latency_resolution.png)", ""]
    lines += extras_markdown(run_, rows)
    lines += [
        f"## Quality per source at {size_name(ref)}",
        "",
        "Boxes against the data-engine labels (`bench/quality.py`). **Recall**: interactive labels (link, "
        "button, input, textarea, checkbox, radio, dropdown, tab, menu item, list item, icon, slider, "
        "scrollbar, toggle) matched by a predicted box at IoU >= 0.5, class-agnostic, one-to-one (greedy by "
        "IoU). **Precision**: predictions matching any label (text, image and region labels too) at IoU >= "
        "0.5, one-to-one. **Text recall**: labelled texts found by the parser's text near them (rapidfuzz, "
        "score >= 80). Note that `detact` emits OCR text lines and segmenter regions: a button's caption "
        "line is much smaller than the button, so it matches only when it fills most of it; the labels "
        "also nest (an icon inside a button, a checkbox inside a list item), which no one-box-per-control "
        "parser can all match. **Per control**: the same matches, a nested pair counted once (an icon alone "
        "in its button, an `<a>` filling its `<li>`; `training/eval/controls.py`), found when either is.",
        "",
        "| source | parser | screens | interactive labels | controls | elements / screen | recall@0.5 "
        "| per control | precision | text recall |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    qualities = {row: quality(run_, row) for row in rows}
    for source in [*SOURCES, "all"]:
        for row in rows:
            c = qualities[row].get(source)
            if c is None:
                continue
            per_screen = c.predictions / c.screens if c.screens else 0.0
            name = f"**{source}**" if source == "all" else source
            lines.append(
                f"| {name} | {label(row)} | {c.screens} | {c.interactive} | {c.controls} "
                f"| {per_screen:.0f} | {fmt(c.recall)} | {fmt(c.control_recall)} | {fmt(c.precision)} "
                f"| {fmt(c.text_recall)} |"
            )
    lines += ["", "![quality per source](bench/quality_sources.png)", ""]
    ours = [r for r in rows if r.startswith("profile:")]
    peers = [r for r in rows if not r.startswith("profile:")]
    if ours and peers:
        lines += [
            f"## Ours vs peers (ratios ours / peer, same run, {size_name(ref)})",
            "",
            "Latency and memory: below 1 means ours is faster / smaller; throughput, recall, precision and "
            "text recall: above 1 means ours is better.",
            "",
            "| ours | peer | end-to-end latency | throughput | peak RSS | recall@0.5 | precision "
            "| text recall |",
            "|---|---|---:|---:|---:|---:|---:|---:|",
        ]
        for mine in ours:
            for peer in peers:
                a, b = summaries.get(mine), summaries.get(peer)
                qa, qb = qualities[mine].get("all"), qualities[peer].get("all")
                if a is None or b is None or qa is None or qb is None:
                    lines.append(f"| {label(mine)} | {label(peer)} | not measured |")
                    continue
                lines.append(
                    f"| {label(mine)} | {label(peer)} | {ratio(a['median'], b['median'])} "
                    f"| {ratio(a['throughput'], b['throughput'])} | {ratio(a['rss'], b['rss'])} "
                    f"| {ratio(qa.recall, qb.recall)} | {ratio(qa.precision, qb.precision)} "
                    f"| {ratio(qa.text_recall, qb.text_recall)} |"
                )
        lines.append("")
    plots(run_, summaries, qualities)
    return "\n".join(lines).rstrip() + "\n"


PEERS_COMPARED = ("omniparser-fast", "omniparser")


def extras_markdown(run_: Run, rows: Sequence[str]) -> list[str]:
    """The latency-only sets: p50 / p90 per row and ours as a ratio of each OmniParser configuration."""
    if not run_.extras:
        return []
    names = [n for n in run_.plan.extra_sets if n in run_.extras]
    peers = [p for p in PEERS_COMPARED if p in rows]
    lines = [
        "## Latency on a dense page, real desktops and real phones (ms, median / p90; ours / peer, same run)",
        "",
        "Each configuration in its own process, one warm-up parse, then the set's parses, wall time around "
        "one parse of a decoded RGB array. Sets: "
        + "; ".join(f"**{n}**: {EXTRA_SETS[n]}" for n in names)
        + ". A ratio below 1 means ours is faster.",
        "",
        "| parser | "
        + " | ".join(f"{n} p50 / p90" for n in names)
        + "".join(f" | {n}: p50 ratio to {label(p)}" for n in names for p in peers)
        + " |",
        "|---|" + "---:|" * (len(names) * (1 + len(peers))),
    ]
    medians: dict[tuple[str, str], float] = {}
    for name in names:
        for row in rows:
            measured = run_.extras[name].get(row, {})
            if measured and "error" not in measured:
                medians[(name, row)] = summary(measured)["median"]
    for row in rows:
        cells = []
        for name in names:
            measured = run_.extras[name].get(row, {})
            if not measured or "error" in measured:
                cells.append("failed" if measured else "-")
                continue
            m = summary(measured)
            cells.append(f"{m['median']:.0f} / {m['p90']:.0f}")
        ratios = [
            ratio(medians.get((name, row)), medians.get((name, peer))) if row.startswith("profile:") else "-"
            for name in names
            for peer in peers
        ]
        lines.append(f"| {label(row)} | " + " | ".join(cells + ratios) + " |")
    return [*lines, ""]


def plots(run_: Run, summaries: dict[str, dict[str, Any]], qualities: dict[str, dict[str, Counts]]) -> None:
    """latency_stages.png, latency_resolution.png, quality_sources.png under ``docs/bench/``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    PLOTS.mkdir(parents=True, exist_ok=True)
    rows = [r for r in result_rows(run_) if r in summaries]
    names = [label(r).replace("`", "") for r in rows]
    colours = [to_hex(c) for c in plt.rcParams["axes.prop_cycle"].by_key()["color"]]

    fig, ax = plt.subplots(figsize=(9, 0.6 * len(rows) + 1.6))
    left = np.zeros(len(rows))
    for i, stage in enumerate(STAGE_ORDER):
        widths = np.array([summaries[r]["stages"].get(stage, 0.0) for r in rows])
        if widths.any():
            ax.barh(names, widths, left=left, label=stage, color=colours[i % len(colours)])
            left += widths
    ax.set_xlabel("ms per screen (median per stage)")
    ax.set_title(f"Latency per stage at {size_name(run_.plan.reference)}")
    ax.invert_yaxis()
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(PLOTS / "latency_stages.png", dpi=100)
    plt.close(fig)

    keys = {s.key for s in latency_subset(run_.screens, run_.plan.latency_per_source)}
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for row, name in zip(rows, names, strict=True):
        xs, ys = [], []
        for size in run_.plan.sizes:
            measured = run_.results.get((row, size))
            if measured and "error" not in measured:
                xs.append(size[0] * size[1] / 1e6)
                ys.append(summary(measured, keys)["median"] / 1000.0)
        ax.plot(xs, ys, marker="o", label=name)
    ax.set_xlabel("screen megapixels")
    ax.set_ylabel("end-to-end latency, s (median)")
    ax.set_yscale("log")
    ax.set_title("Latency vs resolution")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(PLOTS / "latency_resolution.png", dpi=100)
    plt.close(fig)

    sources = [s for s in [*SOURCES, "all"] if any(s in qualities[r] for r in rows)]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), sharey=True)
    width = 0.8 / max(len(rows), 1)
    for ax, (metric, title) in zip(
        axes, (("recall", "interactive recall@0.5"), ("precision", "precision@0.5"),
               ("text_recall", "text recall")), strict=True,
    ):  # fmt: skip
        for i, (row, name) in enumerate(zip(rows, names, strict=True)):
            values = [
                getattr(qualities[row][s], metric) or 0.0 if s in qualities[row] else 0.0 for s in sources
            ]
            ax.bar(np.arange(len(sources)) + i * width, values, width, label=name, color=colours[i])
        ax.set_xticks(np.arange(len(sources)) + 0.4 - width / 2, sources, rotation=30, fontsize=8)
        ax.set_title(title)
        ax.set_ylim(0, 1)
    handles, names_ = axes[0].get_legend_handles_labels()
    fig.legend(handles, names_, loc="upper center", ncol=len(rows), fontsize=8)
    fig.tight_layout(rect=(0.0, 0.0, 1.0, 0.9))
    fig.savefig(PLOTS / "quality_sources.png", dpi=100)
    plt.close(fig)
