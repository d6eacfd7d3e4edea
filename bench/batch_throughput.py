"""Throughput of ``detact batch`` (local engine): images/s with one worker and with every core.

``python -m bench.batch_throughput [--n 20] [--workers 1,4]`` parses N screenshots (the team's
ScreenAgent samples when present, else rendered test forms) with the best profile available here, once
per worker count, each time into a fresh output file, and writes ``docs/BATCH.md``. Times are end to end
as a user sees them: worker start-up and model loading included, as in a real batch job.
"""

from __future__ import annotations

import argparse
import datetime
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from detact_service.batch import run_batch
from detact_service.pipeline import available_profiles, default_profile
from detact_service.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "BATCH.md"
SAMPLES = ROOT.parent / "shared" / "samples" / "desktop-screenagent"


@dataclass
class ThroughputRow:
    workers: int
    batch_size: int
    images: int
    failed: int
    seconds: float

    @property
    def images_per_s(self) -> float:
        return self.images / self.seconds if self.seconds else 0.0


def screenshots(n: int, folder: Path) -> tuple[list[Path], str]:
    """N screenshots: the shared ScreenAgent samples when present, else rendered 1920x1080 forms."""
    samples = sorted(SAMPLES.glob("*.jpg"))[:n]
    if len(samples) >= n:
        return samples, f"{n} real desktop screenshots (ScreenAgent samples, 1024x768 JPEG)"
    from tests.render import render_form_with_icons

    paths = []
    for i in range(n):
        path = folder / f"form_{i:03}.png"
        render_form_with_icons(1920, 1080).image.save(path)
        paths.append(path)
    return paths, f"{n} rendered 1920x1080 test forms (`tests/render.py`)"


def measure(paths: list[Path], profile: str, workers: int, batch_size: int, folder: Path) -> ThroughputRow:
    """One fresh batch run over ``paths``."""
    out = folder / f"out_w{workers}_b{batch_size}.jsonl"
    summary = run_batch(
        paths, out, profile=profile, workers=workers, batch_size=batch_size, settings=Settings(device="cpu")
    )
    return ThroughputRow(workers, batch_size, summary.done + summary.failed, summary.failed, summary.seconds)


def to_markdown(rows: list[ThroughputRow], profile: str, description: str, load: float) -> str:
    """The report's body (without the title); ``load`` is the 1-minute load average before the runs."""
    cores = os.cpu_count() or 1
    busy = "other jobs shared the cores" if load > 0.5 * cores else "a quiet machine"
    lines = [
        f"Profile `{profile}` (the best available here; `fast` needs the detector, which has not shipped "
        f"yet), on {description}, CPU only, {cores} cores (load average {load:.1f} when the "
        f"runs started: {busy}); measured {datetime.date.today().isoformat()} by "
        "`python -m bench.batch_throughput`.",
        "",
        "| engine | workers | batch size | images | failed | wall s | images/s |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| local | {r.workers} | {r.batch_size} | {r.images} | {r.failed} | {r.seconds:.1f} "
            f"| {r.images_per_s:.2f} |"
        )
    lines += [
        "",
        "Wall time is end to end, including spawning the worker processes and loading their models, as in "
        "a real run; a longer run amortises that start-up. Each worker runs its own ONNX Runtime sessions, "
        "which use several threads, so workers beyond the core count do not help. On a shared machine the "
        "load average above matters more than anything else: compare with the uncontended per-image "
        "latency of the same screenshots in `docs/BENCHMARKS.md` (`real desktop` row).",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=20, help="screenshots to parse")
    parser.add_argument("--workers", default=f"1,{os.cpu_count() or 1}", help="comma list of worker counts")
    parser.add_argument("--batch-size", type=int, default=1)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    settings = Settings(device="cpu")
    profile = default_profile(settings)
    counts = sorted({int(w) for w in args.workers.split(",") if w.strip()})
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths, description = screenshots(args.n, folder)
        rows = [measure(paths, profile, w, args.batch_size, folder) for w in counts]
    body = to_markdown(rows, profile, description, load)
    available = ", ".join(available_profiles(settings)) or "none"
    text = f"# Batch throughput\n\nProfiles available here: {available}.\n\n{body}\n"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
