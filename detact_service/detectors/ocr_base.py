"""What both OCR backends share: the batch loop and conversion of text quads to elements."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from detact_service.core import Element, ElementType, ScreenParse
from detact_service.stages import BaseStage, RGBImage

TextLine = tuple[npt.NDArray[np.floating], str, float]
"""An OCR result: a (4, 2) quad of corner points, its text and confidence."""


class OcrStage(BaseStage):
    """Base of the ``text`` stage backends: subclasses implement :meth:`read`."""

    slot = "text"
    name = "ocr"

    def read(self, image: RGBImage) -> list[TextLine]:
        """Text lines of one RGB image."""
        raise NotImplementedError

    def model_version(self) -> str | None:
        return None

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        out = []
        for image, parse in zip(images, parses, strict=True):
            lines = self.read(image)
            elements = lines_to_elements(lines, image.shape[1], image.shape[0], self.settings.ocr_min_score)
            out.append(parse.with_elements([*parse.elements, *elements]))
        return out


def lines_to_elements(lines: Sequence[TextLine], width: int, height: int, min_score: float) -> list[Element]:
    """Axis-aligned text elements from OCR quads, clipped to the image, empty or weak lines dropped."""
    elements = []
    for quad, text, score in lines:
        text = text.strip()
        if not text or score < min_score:
            continue
        points = np.asarray(quad, dtype=np.float64).reshape(-1, 2)
        x1, y1 = np.clip(points.min(axis=0), 0, [width - 1, height - 1])
        x2, y2 = np.clip(points.max(axis=0), 1, [width, height])
        if x2 - x1 < 1 or y2 - y1 < 1:
            continue
        elements.append(
            Element.from_xyxy(
                (x1, y1, x2, y2), type=ElementType.TEXT, text=text, score=round(float(score), 4), source="ocr"
            )
        )
    return elements
