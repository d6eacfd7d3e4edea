"""Runs the benchmarks and writes ``docs/BENCHMARKS.md``: ``python -m bench [--quick] [--load]``.

The suite (:mod:`bench.suite`): our available profiles and the peers (RapidOCR only, EasyOCR only,
OmniParser v2's detector + EasyOCR) on the same fixed data-engine screens at 1280x720, 1920x1080 and
2560x1440 (``--quick``: fewer screens, 1280x720 only), latency per stage, peak memory, throughput and quality
per source, with plots under ``docs/bench/``; then icon matching, and the sections other tools write
(load test, relevance, locate, batch). Each section's run time is printed.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from bench import icon_matching, pipeline_latency, suite

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "BENCHMARKS.md"
# Real screenshots from the team's shared folder (never committed); their row is left out when absent.
SAMPLES = ROOT.parent / "shared" / "samples" / "desktop-screenagent"
PACKAGES = (
    "detact-service",
    "onnxruntime",
    "openvino",
    "rapidocr",
    "rapidocr-onnxruntime",
    "easyocr",
    "torch",
    "numpy",
    "opencv-python",
    "ultralytics",
)


# The instruction sets that decide the speed of our models: int8 (VNNI) and bfloat16 (OpenVINO).
CPU_FEATURES = ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "avx512_bf16", "amx_bf16", "amx_int8")


def machine() -> str:
    from detact_service.models import cpu_identity

    identity = cpu_identity()
    cpu = identity.model or platform.processor() or platform.machine()
    features = ""
    if identity.flags:
        listed = ", ".join(f for f in CPU_FEATURES if f in identity.flags)
        features = f" ({listed or 'none of ' + '/'.join(CPU_FEATURES)})"
    versions = ", ".join(f"{p} {_version(p)}" for p in PACKAGES)
    return f"{cpu}{features}, {os.cpu_count()} cores, Python {platform.python_version()}; {versions}"


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def device_line() -> str:
    """Which accelerator this run had (the suite's workers pick CUDA when there is one)."""
    try:
        import torch

        if torch.cuda.is_available():
            return f"GPU: {torch.cuda.get_device_name(0)} (CUDA {torch.version.cuda})"
    except ImportError:
        pass
    return "CPU only (no GPU on the machine that generated this file)"


OTHER_CPU_QUIET = 0.05  # other processes under this share of the CPU during the suite: a quiet machine
LOAD_HEADING = "## HTTP load (`python -m bench.load`, run by `python -m bench --load`)"
RELEVANCE = ROOT / "docs" / "RELEVANCE.md"


def run_load() -> str:
    """The load test's markdown (it starts its own server on loopback)."""
    completed = subprocess.run(
        [sys.executable, "-m", "bench.load", "--clients", "1,4,16", "--duration", "60"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        timeout=900,
    )
    return completed.stdout.strip()


def relevance_section() -> str:
    """The body of ``docs/RELEVANCE.md`` below its first section heading."""
    if not RELEVANCE.is_file():
        return "(not run yet: `python -m training.eval relevance`)"
    return RELEVANCE.read_text().split("\n## ", 1)[-1].split("\n", 1)[1].strip()


DOCS = ROOT / "docs"


def embedded(name: str, missing: str, demote: bool = True, section: str | None = None) -> str:
    """The body of ``docs/<name>`` below its title (its ``##`` headings one level down), or ``missing``.

    With ``section``, only the part under that ``##`` heading, its own subsections included.
    """
    path = DOCS / name
    if not path.is_file():
        return missing
    body = path.read_text().split("\n", 1)[-1].strip()
    if section is not None:
        heading = f"## {section}\n"
        if heading not in body:
            return missing
        body = body.split(heading, 1)[1].split("\n## ", 1)[0].strip()
    if not demote:
        return body
    return "\n".join("#" + line if line.startswith("## ") else line for line in body.splitlines())


NO_DETECTOR = (
    "Not run yet for the shipped detector (`models/ui-detector.onnx`): `python -m training.eval detector "
    "--data data/rendered --peer` measures it on the rendered held-out splits and MiniWoB++ seeds 1000-1099 "
    "beside OmniParser v2's detector; real phone screens are in the section above."
)


def kept_section(heading: str) -> str:
    """A section of the current report, kept when this run does not measure it again."""
    if not OUT.is_file() or heading not in OUT.read_text():
        return "(not run yet: `python -m bench --load`)"
    return OUT.read_text().split(heading, 1)[1].split("\n## ", 1)[0].strip()


def load_line(start: float, end: float, other_cpu: float | None = None) -> str:
    """The 1-minute load average at the start and end of the run, and what it means here: judged by the
    share of the CPU other processes took during the suite (``other_cpu``) where it was measured, else by
    the load average against the core count."""
    cores = os.cpu_count() or 1
    averages = f"1-minute load average {start:.1f} at the start and {end:.1f} at the end"
    if other_cpu is not None:
        busy = other_cpu > OTHER_CPU_QUIET
        meaning = "latencies are inflated" if busy else "nothing else heavy ran"
        return f"{averages}; other processes took {other_cpu:.1%} of the CPU during the suite ({meaning})."
    busy = max(start, end) > cores
    meaning = (
        "other work shared the CPU: latencies are inflated"
        if busy
        else "at or below the core count: nothing else heavy ran (the run itself counts)"
    )
    return f"{averages} ({meaning})."


def timed(name: str, timings: dict[str, float], fn: Callable[[], str]) -> str:
    """Run one section, print and keep its run time."""
    start = time.perf_counter()
    out = fn()
    timings[name] = time.perf_counter() - start
    print(f"[bench] section {name}: {timings[name]:.0f} s", flush=True)
    return out


def real_desktop_section(count: int = 10, profiles: tuple[str, ...] = ("full", "detact")) -> str:
    """Latency of the default and the ``detact`` profiles on real desktop screenshots from the team's
    shared samples (no labels)."""
    samples = sorted(SAMPLES.glob("*.jpg"))[:count]
    if not samples:
        return "(the shared samples are not on this machine)"
    rows = [pipeline_latency.run_on_files(samples, p, label="real desktop 1024x768") for p in profiles]
    return (
        f"{len(samples)} ScreenAgent screenshots (Windows and Linux desktops, JPEG, 1024x768, no labels) "
        "from the team's shared samples, parsed in this process after one warm-up parse; medians per "
        "stage.\n\n" + pipeline_latency.to_markdown(rows)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--quick", action="store_true", help="one screen per source, 1280x720 only, fewer repeats (< 5 min)"
    )
    parser.add_argument(
        "--load", action="store_true", help="also run the HTTP load test (1, 4, 16 clients, 60 s each)"
    )
    parser.add_argument("--per-source", type=int, default=None, help="screens per source (default 1 / 3)")
    parser.add_argument("--no-peers", action="store_true", help="our profiles only")
    parser.add_argument(
        "--from-last-run",
        action="store_true",
        help="write the suite's sections from data/bench/last-run.json instead of measuring again",
    )
    args = parser.parse_args()
    timings: dict[str, float] = {}
    plan = suite.QUICK if args.quick else suite.FULL
    if args.per_source:
        plan = dataclasses.replace(plan, per_source=args.per_source)
    measured = suite.load_run() if args.from_last_run else suite.run(plan, peers=not args.no_peers)
    quick = measured.plan.name == "quick"
    repeats = 2 if quick else 5
    for name, seconds in measured.timings_s.items():
        timings[f"suite: {name}"] = seconds
    suite_md = timed("suite report and plots", timings, lambda: suite.markdown(measured))
    desktop = "" if quick else timed("real desktop", timings, real_desktop_section)
    icons = timed("icon matching", timings, lambda: icon_matching.report(repeats=repeats))
    load_report = timed("load", timings, run_load) if args.load else kept_section(LOAD_HEADING)
    relevance = relevance_section()
    end_load = measured.load[1] if args.from_last_run else os.getloadavg()[0]
    total_s = sum(timings.values())  # the suite's own times when its sections come from the last run
    command = "python -m bench --quick" if quick else "python -m bench"
    today = datetime.date.today().isoformat()
    runtime = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in timings.items())
    heading = "## Real desktop screenshots, profiles `full` and `detact` (latency only)"
    desktop_md = f"{heading}\n\n{desktop}\n\n" if desktop else ""
    text = f"""# Benchmarks

Generated by `{command}` on {today} in {total_s / 60:.1f} min; do not edit by hand.

Machine: {machine()}. {device_line()}. {load_line(measured.load[0], end_load, measured.other_cpu)}

Run time per section: {runtime}.

{suite_md}
{desktop_md}## Text stage (from `docs/OCR.md`, measured by `python -m bench.ocr`)

{embedded("OCR.md", "(not run yet: `python -m bench.ocr`)")}

## Icon matching (SSIM against the template pack)

{icons}

{LOAD_HEADING}

{load_report}

## Task relevance (from `docs/RELEVANCE.md`, written by `python -m training.eval relevance`)

{relevance}

## Locating elements (from `docs/LOCATE.md`, written by `python -m training.eval locate`)

{embedded("LOCATE.md", "(not run yet: `python -m training.eval locate`)")}

## Re-parse of a changed screen (from `docs/REPARSE.md`, measured by `python -m bench.reparse`)

{embedded("REPARSE.md", "(not run yet: `python -m bench.reparse`)")}

## Batch throughput (from `docs/BATCH.md`, written by `python -m bench.batch_throughput`)

{embedded("BATCH.md", "(not run yet: `python -m bench.batch_throughput`)", demote=False)}

## Controls on real phone screens (from `docs/PHONE.md`, written by `python -m training.eval phone`)

{embedded("PHONE.md", "(not run yet: `python -m training.eval phone`)")}

## UI element detector (from `docs/DETECTOR.md`, written by `python -m training.eval detector --peer`)

{embedded("DETECTOR.md", NO_DETECTOR)}

## Type and state reader (from `docs/READER.md`, written by `python -m training.eval reader`)

{embedded("READER.md", "(not run yet: `python -m training.eval reader --data data/screens`)")}

## Icon names (from `docs/ICONS.md`, measured by `python -m training.icons eval`)

{embedded("ICONS.md", "(not measured yet: `python -m training.icons eval`)", section="Measured")}

## Pix2Struct attribute model (from `docs/ATTRIBUTES.md`, written by `python -m training.eval attributes`)

{embedded("ATTRIBUTES.md", "(not run yet: `python -m training.eval attributes`)")}
"""
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
