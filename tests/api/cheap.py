"""A cheap, real stage and profile for load tests: it sleeps per pipeline run, not per image.

``SleepStage`` adds one text element per image and records each batch's size; an image whose top-left
pixel is pure red (255, 0, 0) makes the whole batch raise, as a failing model would.
"""

from __future__ import annotations

import contextlib
import io
import threading
import time
from collections.abc import Iterator, Sequence

import numpy as np
from PIL import Image

from detact_service.core import Element, ScreenParse
from detact_service.pipeline import Profile, register_profile, unregister_profile
from detact_service.stages import Backend, RGBImage, register_backend, unregister_backend

PROFILE = "cheap-test"
RUN_SECONDS = 0.3
BATCH_SIZES: list[int] = []
_lock = threading.Lock()


class SleepStage(Backend):
    """Sleeps ``RUN_SECONDS`` per call and labels each image with its width (one text element)."""

    slot = "text"
    name = "sleep-test"

    def model_version(self) -> str | None:
        return "sleep-test:1"

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        with _lock:
            BATCH_SIZES.append(len(images))
        time.sleep(RUN_SECONDS)
        for image in images:
            if tuple(image[0, 0]) == (255, 0, 0):
                raise RuntimeError("poisoned image")
        out = []
        for image, parse in zip(images, parses, strict=True):
            h, w = image.shape[:2]
            element = Element(bbox=(0, 0, w, h), type="text", text=f"w{w}", source="ocr", score=1.0)
            parse.elements.append(element)
            out.append(parse)
        return out


@contextlib.contextmanager
def cheap_profile() -> Iterator[str]:
    """Register the sleep backend and the ``cheap-test`` profile for the duration."""
    register_backend(SleepStage)
    description = "Test only: sleeps, one element per image."
    register_profile(Profile(PROFILE, (("text", "sleep-test"),), description))
    try:
        yield PROFILE
    finally:
        unregister_profile(PROFILE)
        unregister_backend("text", "sleep-test")


def image_png(width: int = 64, height: int = 32, poisoned: bool = False) -> bytes:
    """A small PNG of the given size; ``poisoned`` makes the cheap stage fail on it."""
    pixels = np.full((height, width, 3), 200, dtype=np.uint8)
    if poisoned:
        pixels[0, 0] = (255, 0, 0)
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG")
    return buffer.getvalue()
