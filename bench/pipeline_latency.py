"""Latency per stage and end to end of a profile, at several screen sizes, after warm-up."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from detact_service.io import load_image_file
from detact_service.pipeline import Pipeline, get_pipeline
from detact_service.settings import Settings
from tests.render import render_form_with_icons

SIZES = ((1280, 720), (1920, 1080), (2560, 1440))


@dataclass
class LatencyRow:
    profile: str
    ocr: str
    size: str
    stages_ms: dict[str, float]
    total_median_ms: float
    total_p90_ms: float
    elements: int


def screen(width: int, height: int) -> np.ndarray:
    """The test form with its toolbar icons, scaled to the requested size (a fixed, reproducible screen)."""
    image = render_form_with_icons(1920, 1080).image.resize((width, height))
    return np.asarray(image)


def measure(pipeline: Pipeline, image: np.ndarray, repeats: int) -> tuple[dict[str, float], list[float], int]:
    pipeline.parse(image)  # warm-up: loads models
    runs = [pipeline.parse(image) for _ in range(repeats)]
    stages = {k: statistics.median(r.timings_ms[k] for r in runs) for k in runs[0].timings_ms if k != "total"}
    return stages, [r.timings_ms["total"] for r in runs], len(runs[0].elements)


def run(
    profile: str = "detact",
    ocr_backends: tuple[str, ...] = ("rapidocr",),
    repeats: int = 3,
    sizes: tuple[tuple[int, int], ...] = SIZES,
) -> list[LatencyRow]:
    """Measure each OCR backend at each size."""
    rows = []
    for backend in ocr_backends:
        pipeline = get_pipeline(Settings(device="cpu", ocr={"engine": backend}), profile)
        for width, height in sizes:
            stages, totals, count = measure(pipeline, screen(width, height), repeats)
            rows.append(
                LatencyRow(
                    profile,
                    backend,
                    f"{width}x{height}",
                    stages,
                    statistics.median(totals),
                    float(np.percentile(totals, 90)),
                    count,
                )
            )
    return rows


def run_on_files(paths: list[Path], profile: str = "detact", label: str = "files") -> LatencyRow:
    """One row over real screenshots: medians over the files (each parsed once after a warm-up)."""
    pipeline = get_pipeline(Settings(device="cpu"), profile)
    images = [load_image_file(p) for p in paths]
    pipeline.parse(images[0])
    runs = [pipeline.parse(image) for image in images]
    stages = {k: statistics.median(r.timings_ms[k] for r in runs) for k in runs[0].timings_ms if k != "total"}
    totals = [r.timings_ms["total"] for r in runs]
    size = f"{label} ({len(paths)})"
    count = round(statistics.median(len(r.elements) for r in runs))
    return LatencyRow(
        profile, "rapidocr", size, stages, statistics.median(totals), float(np.percentile(totals, 90)), count
    )


def to_markdown(rows: list[LatencyRow]) -> str:
    stage_names = list(dict.fromkeys(name for r in rows for name in r.stages_ms))
    header = (
        "| profile | OCR | size | " + " | ".join(stage_names) + " | total median | total p90 | elements |"
    )
    lines = [header, "|" + "---|" * (len(stage_names) + 6)]
    for r in rows:
        cells = " | ".join(f"{r.stages_ms[s]:.0f}" if s in r.stages_ms else "" for s in stage_names)
        totals = f"{r.total_median_ms:.0f} | {r.total_p90_ms:.0f}"
        lines.append(f"| {r.profile} | {r.ocr} | {r.size} | {cells} | {totals} | {r.elements} |")
    return "\n".join(lines)
