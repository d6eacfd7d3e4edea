"""The text stage on real phone screens at several detection sides: ``python -m bench.ocr_phone``.

The screens are the ``phone_real`` val and test apps (``../shared/data/phone_real``, split by app; never
the train apps). Truth: the words of every visible view's text in the screen's view hierarchy (status
bars, keyboards and drawn-in text have none, so precision is a lower bound). For each side of
``DETACT_OCR__DET_MAX_SIDE_PHONE``: word recall (truth words found among the words read on the screen, as
multisets, :func:`bench.ocr.word_list`), the share of read words that are truth words, and the median CPU
ms of the text stage per screen (all the process's threads, after a warm-up).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from dataclasses import dataclass

import numpy as np
from PIL import Image

from bench.ocr import word_list
from detact_service.core import ScreenParse
from detact_service.settings import Settings
from detact_service.stages import create_stage


@dataclass
class SideResult:
    side: int
    truth_words: int
    found: int
    read: int
    right: int
    cpu_ms: list[float]

    def row(self) -> str:
        recall = f"{self.found / self.truth_words:.4f} ({self.found}/{self.truth_words})"
        return (
            f"| {self.side or 'off'} | {recall} | {self.right / max(1, self.read):.4f} | "
            f"{statistics.median(self.cpu_ms):.0f} | {statistics.mean(self.cpu_ms):.0f} |"
        )


def measure(
    sides: list[int], splits: tuple[str, ...] = ("val", "test"), limit: int | None = None
) -> list[SideResult]:
    """Word recall, precision and CPU time of the text stage at each phone detection side (on the first
    ``limit`` screens of each split when given)."""
    from training.data.phone_real import DEFAULT_ROOT, load_screens

    screens = [s for split in splits for s in list(load_screens(split=split))[:limit]]
    stages = [create_stage("text", "rapidocr", Settings(ocr={"det_max_side_phone": side})) for side in sides]
    results = [SideResult(side, 0, 0, 0, 0, []) for side in sides]
    warm = np.asarray(Image.open(screens[0].image_path).convert("RGB"))
    for stage in stages:
        stage.run([warm], [ScreenParse(warm.shape[1], warm.shape[0])])
    for screen in screens:
        label = json.loads((DEFAULT_ROOT / "labels" / f"{screen.id}.json").read_text())
        truth = Counter(w for e in label["elements"] for w in word_list(e.get("text") or ""))
        image = np.asarray(Image.open(screen.image_path).convert("RGB"))
        for stage, result in zip(stages, results, strict=True):
            cpu = time.process_time()
            parse = stage.run([image], [ScreenParse(image.shape[1], image.shape[0])])[0]
            result.cpu_ms.append((time.process_time() - cpu) * 1000)
            read = Counter(w for e in parse.elements for w in word_list(e.text or ""))
            result.truth_words += sum(truth.values())
            result.found += sum((truth & read).values())
            result.read += sum(read.values())
            result.right += sum((read & truth).values())
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sides", default="1280,960,800", help="comma list; 0 = det_max_side")
    args = parser.parse_args()
    results = measure([int(s) for s in args.sides.split(",")])
    print("| phone detection side | word recall | read words in the truth | text CPU ms median | mean |")
    print("|---|---|---|---|---|")
    for result in results:
        print(result.row())


if __name__ == "__main__":
    main()
