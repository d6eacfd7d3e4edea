"""Speed and quality of the text stage alone: ``python -m bench.ocr [--models ppocrv6-small,ppocrv4]``.

Quality is measured on texts whose truth is known, per screen:

- **MiniWoB++ seeds 1000-1099** (the evaluation episodes, :data:`bench.screens.MINIWOB_SEEDS`; seeds below
  1000 are never used), rendered once into ``data/bench/miniwob-eval/``. The texts scored are the labels
  with a text (a letter or digit) that stand alone on their line: no other text label inside or around
  them (a paragraph with highlighted words is left out, its words are not), none on the same row closer
  than the gap at which lines are split into items (``Duration:`` beside ``3h 20m`` reads as one line,
  rightly), one line high (at most 20 CSS px, and at least :data:`ONE_LINE_ADVANCE` of its height wide
  per character: a text that wraps is narrower), and whole on the screenshot (not touching its edge: a
  text the viewport cuts cannot be read whole).
- **The dense dashboard** (:func:`tests.render.render_dense_dashboard`, 1920x1080, 300+ text lines at
  13-22 px), every drawn string.

For each truth text, the OCR lines whose centre lies inside its box (grown by a third of its height) are
joined left to right. **Exact** = the joined text equals the truth (case kept, runs of spaces folded);
**CER** = summed edit distance / summed truth length (a text with nothing read counts all its characters);
**word recall** = truth words (lower case, end punctuation stripped) found among the words read anywhere
on the screen, as multisets. Speed: ms of the ``text`` stage per screen after a warm-up, medians, on the
dashboard, a 1920x1080 form (:func:`bench.pipeline_latency.screen`) and the team's 1024x768 real desktops
when present (timing only, no labels).
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image
from rapidfuzz.distance import Levenshtein

from detact_service.core import Element, ScreenParse
from detact_service.detectors.ocr_base import SPLIT_GAP
from detact_service.settings import Settings
from detact_service.stages import RGBImage, create_stage

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT.parent / "shared" / "samples" / "desktop-screenagent"
Truth = tuple[tuple[float, float, float, float], str]


@dataclass
class Counts:
    """Summable quality counts."""

    texts: int = 0
    exact: int = 0
    chars: int = 0
    edits: int = 0
    words: int = 0
    words_found: int = 0
    misses: list[tuple[str, str]] = field(default_factory=list)

    def add(self, other: Counts) -> None:
        self.texts += other.texts
        self.exact += other.exact
        self.chars += other.chars
        self.edits += other.edits
        self.words += other.words
        self.words_found += other.words_found
        self.misses.extend(other.misses)

    @property
    def exact_match(self) -> float:
        return self.exact / max(self.texts, 1)

    @property
    def cer(self) -> float:
        return self.edits / max(self.chars, 1)

    @property
    def word_recall(self) -> float:
        return self.words_found / max(self.words, 1)


def fold(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def word_list(text: str) -> list[str]:
    words = (w.strip(".,:;!?()[]{}\"'").lower() for w in text.split())
    return [w for w in words if w]


def score(predictions: Sequence[Element], truth: Sequence[Truth]) -> Counts:
    """Quality counts of one screen's text elements against its truth texts (see the module docstring)."""
    counts = Counts()
    boxes = np.asarray([p.bbox for p in predictions], dtype=np.float64).reshape(-1, 4)
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    for (x1, y1, x2, y2), text in truth:
        grow = (y2 - y1) / 3
        inside = (cx >= x1 - grow) & (cx <= x2 + grow) & (cy >= y1 - grow) & (cy <= y2 + grow)
        read = fold(
            " ".join(predictions[i].text or "" for i in sorted(np.flatnonzero(inside), key=lambda i: cx[i]))
        )
        wanted = fold(text)
        counts.texts += 1
        counts.exact += read == wanted
        counts.chars += len(wanted)
        counts.edits += Levenshtein.distance(read, wanted)
        if read != wanted:
            counts.misses.append((wanted, read))
    read_words = Counter(w for p in predictions for w in word_list(p.text or ""))
    truth_words = Counter(w for _, text in truth for w in word_list(text))
    counts.words += sum(truth_words.values())
    counts.words_found += sum((truth_words & read_words).values())
    return counts


ONE_LINE_ADVANCE = 0.3
"""A one-line text's box is at least this many times its height wide per character: in a proportional font
an average advance is about 0.5 em and a line 1.1-1.4 em high (MiniWoB++ seeds 1000-1099: one-line texts
0.37-2.7); a text wrapped onto two lines is half as wide (0.12-0.23)."""


def miniwob_truth(
    labels: Sequence[Element], scale: float, size: tuple[int, int] | None = None
) -> list[Truth]:
    """The stand-alone one-line texts of a MiniWoB++ screen of ``size`` (width, height; see the module
    docstring)."""
    texts = [e for e in labels if e.text and any(ch.isalnum() for ch in e.text)]
    out = []
    for e in texts:
        x1, y1, x2, y2 = e.bbox
        if y2 - y1 > 20 * scale or x2 - x1 < ONE_LINE_ADVANCE * len(str(e.text)) * (y2 - y1):
            continue  # more than one line
        if size is not None and (x1 <= 0 or y1 <= 0 or x2 >= size[0] - 1 or y2 >= size[1] - 1):
            continue  # cut by the viewport
        nested = any(
            o is not e
            and (
                (o.bbox[0] >= x1 - 1 and o.bbox[1] >= y1 - 1 and o.bbox[2] <= x2 + 1 and o.bbox[3] <= y2 + 1)
                or (
                    x1 >= o.bbox[0] - 1
                    and y1 >= o.bbox[1] - 1
                    and x2 <= o.bbox[2] + 1
                    and y2 <= o.bbox[3] + 1
                )
            )
            for o in texts
        )
        gap = SPLIT_GAP * (y2 - y1)  # a neighbour closer than this is one line with it (e.g. "Duration: 3h")
        beside = any(
            o is not e
            and min(y2, o.bbox[3]) - max(y1, o.bbox[1]) > 0.5 * min(y2 - y1, o.bbox[3] - o.bbox[1])
            and (0 <= o.bbox[0] - x2 < gap or 0 <= x1 - o.bbox[2] < gap)
            for o in texts
        )
        if not nested and not beside:
            out.append(((x1, y1, x2, y2), str(e.text)))
    return out


def miniwob_screens() -> list[tuple[str, RGBImage, list[Truth]]]:
    """The MiniWoB++ evaluation episodes (seeds 1000-1099) with their truth texts."""
    from bench.screens import CACHE, MINIWOB_SEEDS, _render
    from training.data.labels import read_labels

    screens = _render("miniwob", list(MINIWOB_SEEDS), CACHE / "miniwob-eval", print)
    out = []
    for s in screens:
        labels = read_labels(s.labels_path)
        image = np.asarray(Image.open(s.image_path).convert("RGB"))
        size = (image.shape[1], image.shape[0])
        out.append((s.key, image, miniwob_truth(labels.elements, float(labels.scale or 1.0), size)))
    return out


def dashboard_screen() -> tuple[str, RGBImage, list[Truth]]:
    from tests.render import ocr_truth, render_dense_dashboard

    screen = render_dense_dashboard()
    truth = [(tuple(float(v) for v in d.bbox), str(d.text)) for d in ocr_truth(screen) if d.text]
    return "dense dashboard 1920x1080", np.asarray(screen.image), truth  # type: ignore[return-value]


@dataclass
class Result:
    name: str
    miniwob: Counts
    dashboard: Counts
    ms: dict[str, tuple[float, float]]  # screen -> (wall ms, CPU ms)


def read_ms(stage: object, image: RGBImage, repeats: int) -> tuple[tuple[float, float], list[Element]]:
    """Median (wall ms, CPU ms of all the process's threads) of the stage on one image (after the
    caller's warm-up), and its elements. CPU ms stay comparable when other work shares the machine."""
    walls, cpus, elements = [], [], []
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        parse = stage.run([image], [ScreenParse(image.shape[1], image.shape[0])])[0]  # type: ignore[attr-defined]
        walls.append((time.perf_counter() - start) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
        elements = parse.elements
    return (statistics.median(walls), statistics.median(cpus)), elements


def evaluate(
    settings: Settings, name: str, repeats: int = 2, desktops: int = 3, stage: object = None
) -> Result:
    """Quality on MiniWoB++ and the dashboard, and ms per screen size, of one text-stage configuration."""
    from bench.pipeline_latency import screen as form_screen

    stage = stage or create_stage("text", "rapidocr", settings)
    warm = form_screen(1280, 720)
    stage.run([warm], [ScreenParse(1280, 720)])
    ms: dict[str, tuple[float, float]] = {}
    miniwob = Counts()
    mw_ms: list[tuple[float, float]] = []
    for _, image, truth in miniwob_screens():
        t, elements = read_ms(stage, image, 1)
        mw_ms.append(t)
        miniwob.add(score(elements, truth))
    ms["MiniWoB++ (160x210 to 480x630)"] = (
        statistics.median(t[0] for t in mw_ms),
        statistics.median(t[1] for t in mw_ms),
    )
    key, image, truth = dashboard_screen()
    ms[key], elements = read_ms(stage, image, repeats)
    dashboard = score(elements, truth)
    ms["form 1920x1080"], _ = read_ms(stage, form_screen(1920, 1080), repeats)
    samples = sorted(SAMPLES.glob("*.jpg"))[:desktops]
    if samples:
        from detact_service.io import load_image_file

        times = [read_ms(stage, load_image_file(p), 1)[0] for p in samples]
        ms[f"real desktop 1024x768 (median of {len(samples)})"] = (
            statistics.median(t[0] for t in times),
            statistics.median(t[1] for t in times),
        )
    return Result(name, miniwob, dashboard, ms)


def to_markdown(results: Sequence[Result]) -> str:
    sizes = list(results[0].ms)
    head = "| configuration | " + " | ".join(f"{s}: wall / CPU ms" for s in sizes)
    head += " | MiniWoB++ exact | MiniWoB++ CER | MiniWoB++ word recall | dashboard exact | dashboard CER"
    head += " | dashboard word recall |"
    lines = [head, "|" + "---|" * (len(sizes) + 7)]
    for r in results:
        cells = " | ".join(f"{r.ms[s][0]:.0f} / {r.ms[s][1]:.0f}" for s in sizes)
        q = (
            f"{r.miniwob.exact_match:.3f} | {r.miniwob.cer:.3f} | {r.miniwob.word_recall:.3f} | "
            f"{r.dashboard.exact_match:.3f} | {r.dashboard.cer:.3f} | {r.dashboard.word_recall:.3f}"
        )
        lines.append(f"| {r.name} | {cells} | {q} |")
    counts = results[0].miniwob.texts, results[0].dashboard.texts
    return (
        "\n".join(lines) + f"\n\n({counts[0]} MiniWoB++ texts over 100 screens, {counts[1]} dashboard texts.)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", default="ppocrv6-small,ppocrv4", help="text models to compare")
    parser.add_argument("--det-max-side", default="", help="comma list of detection long-side caps to try")
    parser.add_argument(
        "--int8", default="on", help="comma list of on/off: the shipped int8 recogniser or the fp32 one"
    )
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--misses", type=int, default=0, help="print this many misread texts per config")
    args = parser.parse_args()
    results = []
    configs = [
        (models, side, int8 == "on")
        for models in args.models.split(",")
        for side in (args.det_max_side.split(",") if args.det_max_side else [None])
        for int8 in args.int8.split(",")
    ]
    for models, side, int8 in configs:
        extra = {"ocr_det_max_side": int(side)} if side else {}
        settings = Settings(device="cpu", ocr_models=models, **extra)  # type: ignore[arg-type]
        settings = settings.model_copy(update={"ocr": settings.ocr.model_copy(update={"int8": int8})})
        stage = create_stage("text", "rapidocr", settings)
        name = f"{stage.model_version() or models}, det max side {settings.ocr.det_max_side}"
        result = evaluate(settings, name, args.repeats, stage=stage)
        results.append(result)
        print(to_markdown([result]), flush=True)
        for wanted, read in (result.miniwob.misses + result.dashboard.misses)[: args.misses]:
            print(f"  {wanted!r} -> {read!r}")
    print(to_markdown(results))


if __name__ == "__main__":
    main()
