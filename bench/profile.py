"""Where a parse spends its time: ``python -m bench.profile IMAGE [IMAGE ...] [--profile fast]``.

``IMAGE`` is a file, or ``dense`` / ``form`` for the rendered dense dashboard / form (1920x1080). After
one warm-up parse (models load), each image is parsed ``--repeats`` times; printed per image, medians:

- each stage's ms (the pipeline's own timings);
- inside the text stage (the ``rapidocr`` backend): detection (pre-processing, model, DB post-processing),
  the split of lines into items, recognition (pre-processing, model, decoding), the lines detected, the
  crops (and how many repeat another's pixels, copied unread), the crops read twice, the detection input
  size and the recognition batch widths;
- every ONNX Runtime model call of the parse, per model file: calls and ms (any backend that runs ONNX
  models, the old ``rapidocr-onnxruntime`` one and the YOLO detector included).
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from detact_service.settings import Settings
from detact_service.stages import RGBImage


@dataclass
class ModelCalls:
    """ONNX Runtime ``run`` calls per model file, counted while :func:`count_model_calls` is active."""

    calls: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    ms: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        with self.lock:
            self.calls.clear()
            self.ms.clear()


@contextmanager
def count_model_calls() -> Iterator[ModelCalls]:
    """Count and time every model call (``onnxruntime.InferenceSession.run`` and
    :class:`~detact_service.models.OpenVinoSession` ``run``), per model file, inside the block."""
    import onnxruntime as ort

    from detact_service.models import OpenVinoSession

    counts = ModelCalls()
    originals: dict[Any, Callable[..., Any]] = {
        ort.InferenceSession: ort.InferenceSession.run,
        OpenVinoSession: OpenVinoSession.run,
    }

    def counted(original: Callable[..., Any]) -> Callable[..., Any]:
        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(self, *args, **kwargs)
            finally:
                path = getattr(self, "_model_path", None) or getattr(self, "model_path", None)
                name = Path(str(path or "in-memory model")).name
                with counts.lock:
                    counts.calls[name] += 1
                    counts.ms[name] += (time.perf_counter() - start) * 1000

        return run

    for cls, original in originals.items():
        cls.run = counted(original)
    try:
        yield counts
    finally:
        for cls, original in originals.items():
            cls.run = original


def load(image: str) -> tuple[str, RGBImage]:
    """A named image: ``dense``, ``form`` or a file path."""
    if image == "dense":
        from tests.render import render_dense_dashboard

        return "dense dashboard 1920x1080", np.asarray(render_dense_dashboard().image)
    if image == "form":
        from bench.pipeline_latency import screen

        return "form 1920x1080", screen(1920, 1080)
    from detact_service.io import load_image_file

    return image, load_image_file(image)


@dataclass
class ProfileRow:
    """One image's medians."""

    name: str
    size: str
    stages_ms: dict[str, float]
    ocr: dict[str, Any]
    model_calls: dict[str, tuple[float, float]]  # model file -> (calls, ms) per parse
    elements: int
    cpu_ms: float  # CPU time of all the process's threads (comparable when other work shares the CPU)


def profile_image(name: str, image: RGBImage, settings: Settings, profile: str, repeats: int) -> ProfileRow:
    """Parse ``image`` ``repeats`` times after a warm-up and collect the medians."""
    from detact_service.pipeline import get_pipeline

    pipeline = get_pipeline(settings, profile)
    pipeline.parse(image)  # warm-up: models load
    text_stage = next((s for s in pipeline.stages if s.slot == "text"), None)
    runs, ocr_runs, call_runs, cpu = [], [], [], []
    with count_model_calls() as counts:
        for _ in range(repeats):
            counts.reset()
            start = time.process_time()
            runs.append(pipeline.parse(image))
            cpu.append((time.process_time() - start) * 1000)
            ocr_runs.append(
                vars(getattr(text_stage, "last_profile", None) or {}).copy() if text_stage else {}
            )
            call_runs.append({k: (counts.calls[k], counts.ms[k]) for k in counts.calls})
    stages = {k: statistics.median(r.timings_ms[k] for r in runs) for k in runs[0].timings_ms}
    ocr: dict[str, Any] = {}
    for key, value in ocr_runs[0].items():
        if isinstance(value, float):
            ocr[key] = statistics.median(o[key] for o in ocr_runs)
        else:
            ocr[key] = value
    models = {
        k: (
            statistics.median(c.get(k, (0, 0.0))[0] for c in call_runs),
            statistics.median(c.get(k, (0, 0.0))[1] for c in call_runs),
        )
        for k in call_runs[0]
    }
    size = f"{image.shape[1]}x{image.shape[0]}"
    return ProfileRow(name, size, stages, ocr, models, len(runs[0].elements), statistics.median(cpu))


def to_text(row: ProfileRow) -> str:
    """The row as an indented report."""
    total = row.stages_ms.get("total", 0)
    lines = [
        f"{row.name} ({row.size}): {total:.0f} ms wall, {row.cpu_ms:.0f} ms CPU, {row.elements} elements"
    ]
    lines.append(
        "  stages (ms): " + ", ".join(f"{k} {v:.0f}" for k, v in row.stages_ms.items() if k != "total")
    )
    o = row.ocr
    if o:
        lines.append(
            "  text stage (ms): detection {:.0f} (pre {:.0f}, model {:.0f}, post {:.0f}), split {:.0f}, "
            "recognition {:.0f} (pre {:.0f}, model {:.0f}, decode {:.0f})".format(
                o["det_pre_ms"] + o["det_model_ms"] + o["det_post_ms"],
                o["det_pre_ms"],
                o["det_model_ms"],
                o["det_post_ms"],
                o["split_ms"],
                o["rec_pre_ms"] + o["rec_model_ms"] + o["rec_decode_ms"],
                o["rec_pre_ms"],
                o["rec_model_ms"],
                o["rec_decode_ms"],
            )
        )
        widths = o.get("rec_widths") or []
        lines.append(
            f"  text stage: {o['lines']} lines detected at {o['det_size'][0]}x{o['det_size'][1]}, "
            f"{o['crops']} crops ({o.get('copied_crops', 0)} copies of another, not read), "
            f"{o['reread_crops']} read twice; {o['det_calls']} detection call(s), {o['rec_calls']} "
            f"recognition calls (batch widths {min(widths, default=0)}-{max(widths, default=0)} px)"
        )
    lines.append(
        "  model calls per parse: "
        + ", ".join(f"{k} {c:.0f} calls {ms:.0f} ms" for k, (c, ms) in row.model_calls.items())
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("images", nargs="+", help="image files, or 'dense' / 'form' (rendered 1920x1080)")
    parser.add_argument("--profile", default=None, help="pipeline profile (default: the service's default)")
    parser.add_argument("--repeats", type=int, default=3, help="timed parses per image (medians)")
    parser.add_argument("--ocr-models", default=None, help="DETACT_OCR__MODELS for this run")
    parser.add_argument("--det-max-side", type=int, default=None, help="DETACT_OCR__DET_MAX_SIDE for the run")
    args = parser.parse_args()
    extra: dict[str, Any] = {}
    if args.ocr_models:
        extra["ocr_models"] = args.ocr_models
    if args.det_max_side:
        extra["ocr_det_max_side"] = args.det_max_side
    from detact_service.pipeline import default_profile

    settings = Settings(device="cpu", **extra)
    profile = args.profile or default_profile(settings)
    for image in args.images:
        name, pixels = load(image)
        print(to_text(profile_image(name, pixels, settings, profile, args.repeats)), flush=True)


if __name__ == "__main__":
    main()
