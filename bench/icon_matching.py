"""Icon matching speed: the two-step matcher (cross-correlation pre-filter + batched SSIM on the top K)
against the naive way (``skimage.metrics.structural_similarity`` with every template), on this CPU.

ROIs are glyphs of the pack drawn with Pillow at 16-48 px, dark on light and light on dark. The naive
way is timed on a few ROIs (same normalisation, one skimage call per template) and extrapolated.

Run: ``python -m bench.icon_matching`` (about a minute).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw
from skimage.metrics import structural_similarity

from detact_service.settings import Settings
from detact_service.understanding.icons import IconMatcher, IconPack, blur, blur_sigma, load_pack, read_index

COLOURS = (((248, 248, 250), (40, 40, 46)), ((32, 34, 38), (236, 236, 236)), ((37, 99, 235), (255, 255, 255)))


def build_pack_module() -> ModuleType:
    """``icons/build_pack.py`` (for its fonts and charmaps)."""
    path = Path(__file__).resolve().parent.parent / "icons" / "build_pack.py"
    spec = importlib.util.spec_from_file_location("icons_build_pack", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["icons_build_pack"] = module
    spec.loader.exec_module(module)
    return module


def make_rois(count: int, seed: int = 0) -> tuple[list[npt.NDArray[np.uint8]], list[str]]:
    """``count`` icon crops (glyph box + 3 px) of random pack glyphs, sizes and colours, and their names."""
    builder = build_pack_module()
    rows = read_index(Settings().icons.dir)["templates"]
    assert isinstance(rows, list)
    rng = np.random.default_rng(seed)
    rois: list[npt.NDArray[np.uint8]] = []
    names: list[str] = []
    for index in rng.choice(len(rows), size=count, replace=False):
        name, set_id, _glyph, codepoint = rows[index]
        size = int(rng.integers(16, 49))
        background, ink = COLOURS[int(rng.integers(len(COLOURS)))]
        font = builder.set_font(set_id, size)
        char = chr(int(codepoint, 16))
        left, top, right, bottom = (int(v) for v in font.getbbox(char))
        canvas = Image.new("RGB", (right - left + 6, bottom - top + 6), background)
        ImageDraw.Draw(canvas).text((3 - left, 3 - top), char, font=font, fill=ink)
        rois.append(np.asarray(canvas))
        names.append(name)
    return rois, names


def time_matcher(matcher: IconMatcher, rois: list[npt.NDArray[np.uint8]], repeats: int) -> list[float]:
    """Wall times (s) of ``matcher.match(rois)``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        matcher.match(rois)
        times.append(time.perf_counter() - start)
    return times


def time_naive(pack: IconPack, rois: list[npt.NDArray[np.uint8]]) -> float:
    """Seconds per ROI to score it with skimage SSIM against every template (same normalisation)."""
    start = time.perf_counter()
    for framed, radius in (item for item in IconMatcher.normalise(rois) if item is not None):
        sigma = float(np.round(blur_sigma(np.array([radius]))[0], 1))
        roi = blur(framed[None].astype(np.float32), sigma)[0].astype(np.float64)
        templates = blur(pack.framed, sigma).astype(np.float64)
        scores = [structural_similarity(roi, template, data_range=1.0) for template in templates]
        int(np.argmax(scores))
    return (time.perf_counter() - start) / len(rois)


def report(repeats: int = 7, naive_rois: int = 3) -> str:
    """Time both ways; a markdown paragraph and table."""
    settings = Settings()
    start = time.perf_counter()
    pack = load_pack(settings.icons.dir)
    load_s = time.perf_counter() - start
    matcher = IconMatcher(pack=pack, threshold=settings.icons.threshold)
    rois, names = make_rois(200)
    matcher.match(rois[:5])  # warm-up
    naive_per_roi = time_naive(pack, rois[:naive_rois])
    results = matcher.match(rois)
    accuracy = float(np.mean([name == truth for (name, _), truth in zip(results, names, strict=True)]))
    lines = [
        f"Pack: {len(pack)} templates, loaded in {load_s:.2f} s (once per process); the two-step matcher "
        f"names {accuracy:.1%} of these 200 ROIs right (threshold {settings.icons.threshold}).",
        "",
        "| ROIs | two-step: median (min-max) | per ROI "
        "| naive: skimage SSIM vs every template (extrapolated) | speed-up |",
        "|---:|---:|---:|---:|---:|",
    ]
    for count in (50, 200):
        times = time_matcher(matcher, rois[:count], repeats)
        median = statistics.median(times)
        naive = naive_per_roi * count
        lines.append(
            f"| {count} | {median * 1000:.0f} ms ({min(times) * 1000:.0f}-{max(times) * 1000:.0f}) "
            f"| {median / count * 1000:.2f} ms | {naive:.0f} s ({naive_per_roi:.2f} s/ROI, "
            f"timed on {naive_rois}) | {naive / median:.0f}x |"
        )
    return "\n".join(lines)


def main() -> None:
    """Print the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="runs per batch size (median reported)")
    parser.add_argument("--naive-rois", type=int, default=3, help="ROIs the naive way is timed on")
    args = parser.parse_args()
    print(f"CPU: {os.cpu_count()} cores\n")
    print(report(args.repeats, args.naive_rois))


if __name__ == "__main__":
    main()
