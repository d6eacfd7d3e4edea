"""What a re-parse costs against a full parse: ``python -m bench.reparse [--repeats 3] [--profile fast]``.

Rendered 1920x1080 before/after pairs, each change covering at most 10% of the screen (the box around
the pixels that differ): on the
text-dense dashboard a confirmation dialog over the table (10%), a dropdown menu (5%), a toast (1.5%)
and one table cell edited (0.1%); on the sparse form a dialog (10%). After a warm-up, each after-screen
is parsed in full and re-parsed against the before-screen's state ``--repeats`` times; printed per pair,
medians: wall and CPU ms (CPU: all the process's threads, comparable when other work shares the
machine), their ratios, the changed pixels and tiles, the text crops reused and read again, and whether
the re-parse equals the full parse (elements' ids, types, texts, boxes, icons, colours, states).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

from detact_service.core import ScreenParse
from detact_service.pipeline import Pipeline, default_profile, get_pipeline
from detact_service.settings import Settings
from tests.render import render_dense_dashboard, render_form, ui_font

Edit = Callable[[ImageDraw.ImageDraw], None]


def dialog(draw: ImageDraw.ImageDraw) -> None:
    """A 576x360 confirmation dialog over the middle of the screen (10% of 1920x1080)."""
    draw.rounded_rectangle((600, 400, 1175, 759), radius=8, fill=(255, 255, 255), outline=(120, 120, 120))
    draw.text((630, 430), "Delete 3 invoices?", font=ui_font(22, True), fill=(20, 20, 20))
    draw.text((630, 480), "This cannot be undone once confirmed", font=ui_font(16), fill=(60, 60, 60))
    draw.rounded_rectangle((760, 680, 920, 730), radius=6, fill=(230, 230, 230))
    draw.text((800, 690), "Cancel", font=ui_font(22, True), fill=(20, 20, 20))
    draw.rounded_rectangle((940, 680, 1150, 730), radius=6, fill=(220, 38, 38))
    draw.text((985, 690), "Delete all", font=ui_font(22, True), fill=(255, 255, 255))


def menu(draw: ImageDraw.ImageDraw) -> None:
    """A 240x420 account menu under the user's name, top right (5%)."""
    draw.rectangle((1660, 48, 1900, 468), fill=(255, 255, 255), outline=(200, 200, 200))
    for i, item in enumerate(("Profile", "Billing", "Team", "Keyboard shortcuts", "Help", "Sign out")):
        draw.text((1680, 66 + i * 64), item, font=ui_font(16), fill=(30, 30, 30))


def toast(draw: ImageDraw.ImageDraw) -> None:
    """A 400x80 toast, bottom right (1.5%)."""
    draw.rounded_rectangle((1480, 960, 1880, 1040), radius=8, fill=(34, 34, 40))
    draw.text((1504, 988), "Invoice INV-20931 saved", font=ui_font(18), fill=(255, 255, 255))


def cell(draw: ImageDraw.ImageDraw) -> None:
    """One table cell typed over (0.1%)."""
    draw.rectangle((690, 340, 800, 362), fill=(255, 255, 255))
    draw.text((692, 342), "Refunded", font=ui_font(14), fill=(40, 40, 40))


@dataclass
class Row:
    """One before/after pair's medians."""

    name: str
    changed_area: float
    changed_pixels: float
    changed_tiles: float
    full_ms: float
    full_cpu_ms: float
    re_ms: float
    re_cpu_ms: float
    text_reused: int
    text_read: int
    elements_reused: int
    elements_read: int
    equal: bool
    full_stages: dict[str, float]
    re_stages: dict[str, float]

    def describe(self) -> str:
        stages = ", ".join(
            f"{k} {self.full_stages[k]:.0f}/{self.re_stages.get(k, 0):.0f}"
            for k in self.full_stages
            if k != "total"
        )
        return (
            f"{self.name}: the change covers {self.changed_area:.1%} of the screen "
            f"({self.changed_pixels:.1%} "
            f"of the pixels differ, {self.changed_tiles:.1%} of the 64 px tiles)\n"
            f"  full {self.full_ms:.0f} ms wall / {self.full_cpu_ms:.0f} ms CPU; "
            f"re-parse {self.re_ms:.0f} ms wall / {self.re_cpu_ms:.0f} ms CPU = "
            f"{self.re_ms / self.full_ms:.0%} wall, "
            f"{self.re_cpu_ms / self.full_cpu_ms:.0%} CPU; text crops {self.text_reused} reused, "
            f"{self.text_read} read; elements' readings {self.elements_reused} reused, {self.elements_read} "
            f"read; equal to the full parse: {self.equal}\n"
            f"  stages full/re-parse (ms): {stages}"
        )


def visible(parse: ScreenParse) -> list[tuple[object, ...]]:
    """What a client sees of each element, scores aside."""
    return [(e.id, e.type, e.text, e.bbox, e.icon, e.color, e.state) for e in parse.elements]


def measure(pipeline: Pipeline, name: str, before: Image.Image, edit: Edit, repeats: int) -> Row:
    """Full parse and re-parse of ``before`` edited by ``edit``, ``repeats`` times each, medians."""
    after = before.copy()
    edit(ImageDraw.Draw(after))
    old, new = np.asarray(before), np.asarray(after)
    (first,) = pipeline.reparse_batch([old], [None], [None])
    full_runs, full_cpu, re_runs, re_cpu, reparses = [], [], [], [], []
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        full_runs.append((pipeline.parse(new), (time.perf_counter() - start) * 1000))
        full_cpu.append((time.process_time() - cpu) * 1000)
        start, cpu = time.perf_counter(), time.process_time()
        (again,) = pipeline.reparse_batch([new], [None], [first.state])
        re_runs.append((time.perf_counter() - start) * 1000)
        re_cpu.append((time.process_time() - cpu) * 1000)
        reparses.append(again)
    full = full_runs[0][0]
    differ = np.any(old != new, axis=2)
    rows, cols = np.flatnonzero(differ.any(axis=1)), np.flatnonzero(differ.any(axis=0))
    area = (rows[-1] - rows[0] + 1) * (cols[-1] - cols[0] + 1) / differ.size if len(rows) else 0.0
    info = reparses[0].info

    def stages(parses: list[ScreenParse]) -> dict[str, float]:
        return {k: statistics.median(p.timings_ms[k] for p in parses) for k in parses[0].timings_ms}

    return Row(
        name,
        float(area),
        float(differ.mean()),
        info.changed or 0.0,
        statistics.median(ms for _, ms in full_runs),
        statistics.median(full_cpu),
        statistics.median(re_runs),
        statistics.median(re_cpu),
        info.text_reused,
        info.text_read,
        info.elements_reused,
        info.elements_read,
        all(visible(r.parse) == visible(full) for r in reparses),
        stages([p for p, _ in full_runs]),
        stages([r.parse for r in reparses]),
    )


PAIRS: tuple[tuple[str, str, Edit], ...] = (
    ("dense dashboard + dialog", "dense", dialog),
    ("dense dashboard + menu", "dense", menu),
    ("dense dashboard + toast", "dense", toast),
    ("dense dashboard + one cell", "dense", cell),
    ("form + dialog", "form", dialog),
)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--profile", default=None, help="pipeline profile (default: the service's default)")
    parser.add_argument("--repeats", type=int, default=3, help="timed parses per pair and kind (medians)")
    parser.add_argument("--only", default=None, help="run only the pairs whose name contains this")
    args = parser.parse_args()
    settings = Settings(device="cpu")
    pipeline = get_pipeline(settings, args.profile or default_profile(settings))
    screens = {"dense": render_dense_dashboard().image, "form": render_form().image}
    pipeline.parse(np.asarray(screens["dense"]))  # warm-up: models load
    print(f"profile {pipeline.profile.name}, {args.repeats} runs each, medians", flush=True)
    for name, screen, edit in PAIRS:
        if args.only and args.only not in name:
            continue
        print(measure(pipeline, name, screens[screen], edit, args.repeats).describe(), flush=True)


if __name__ == "__main__":
    main()
