"""Latency of the ``attributes`` stage: ``python -m bench.attribute_latency [--elements 50] [--runs 7]``.

Runs the configured attribute model (``DETACT_MODELS_DIR`` / ``DETACT_ATTRIBUTE_MODEL``) on the elements of
the rendered test form (tests/render.py), repeated until there are ``--elements`` of them, after one
warm-up; prints the median and p90 seconds of the whole stage and the share spent in the image processor.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from detact_service.core import Element, ElementType, ScreenParse
from detact_service.settings import Settings
from detact_service.understanding.attributes import Pix2StructAttributeStage
from detact_service.understanding.semimask import semi_masked_views


def main() -> None:
    """Measure and print one Markdown line."""
    parser = argparse.ArgumentParser(prog="python -m bench.attribute_latency")
    parser.add_argument("--elements", type=int, default=50)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    from tests.render import render_form

    screen = render_form()
    image = np.asarray(screen.image.convert("RGB"))
    boxes = [d.bbox for d in screen.drawn]
    boxes = (boxes * (args.elements // len(boxes) + 1))[: args.elements]
    parse = ScreenParse(image.shape[1], image.shape[0], [Element(b, ElementType.BUTTON) for b in boxes])
    stage = Pix2StructAttributeStage(Settings())
    stage.run([image], [parse])  # warm-up: loads the model
    loaded = stage.load()
    seconds, processor = [], []
    for _ in range(args.runs):
        started = time.perf_counter()
        stage.run([image], [parse])
        seconds.append(time.perf_counter() - started)
        started = time.perf_counter()
        loaded.processor(images=semi_masked_views(image, boxes), return_tensors="pt")
        processor.append(time.perf_counter() - started)
    median = statistics.median(seconds)
    p90 = sorted(seconds)[int(0.9 * (len(seconds) - 1))]
    share = statistics.median(processor) / median
    print(
        f"| {stage.model_version()} | {args.elements} | {median:.3f} | {p90:.3f} | "
        f"{100 * share:.0f} % (semi-masking + image processor) |"
    )


if __name__ == "__main__":
    main()
