"""A cheap, deterministic profile for batch tests, registered in each worker by ``--plugin``.

``PixelStage`` adds one text element per image naming its size and top-left colour. An image whose
top-left pixel is pure red (255, 0, 0) makes the pipeline raise, as a failing model would. The env var
``BATCH_TEST_SLEEP_S`` makes each run sleep (to kill a batch mid-run).
"""

from __future__ import annotations

import io
import os
import time
from collections.abc import Sequence

import numpy as np
from PIL import Image

from detact_service.core import Element, ScreenParse
from detact_service.pipeline import Profile, register_profile, unregister_profile
from detact_service.stages import Backend, RGBImage, register_backend, unregister_backend

PROFILE = "batch-test"
PLUGIN = "tests.batch.cheap:register"


class PixelStage(Backend):
    """One text element per image: ``WxH r,g,b``."""

    slot = "text"
    name = "pixel-test"

    def model_version(self) -> str | None:
        return "pixel-test:1"

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        time.sleep(float(os.environ.get("BATCH_TEST_SLEEP_S", "0")))
        for image in images:
            if tuple(int(v) for v in image[0, 0]) == (255, 0, 0):
                raise RuntimeError("poisoned image")
        out = []
        for image, parse in zip(images, parses, strict=True):
            h, w = image.shape[:2]
            r, g, b = (int(v) for v in image[0, 0])
            parse.elements.append(
                Element(bbox=(0, 0, w, h), type="text", text=f"{w}x{h} {r},{g},{b}", source="ocr", score=1.0)
            )
            out.append(parse)
        return out


def register() -> None:
    """Register the backend and the ``batch-test`` profile in this process."""
    register_backend(PixelStage)
    register_profile(Profile(PROFILE, (("text", "pixel-test"),), "Test only: one element per image."))


def unregister() -> None:
    unregister_profile(PROFILE)
    unregister_backend("text", "pixel-test")


def png(width: int = 64, height: int = 32, color: tuple[int, int, int] = (200, 200, 200)) -> bytes:
    """A small one-colour PNG."""
    pixels = np.full((height, width, 3), color, dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG")
    return buffer.getvalue()
