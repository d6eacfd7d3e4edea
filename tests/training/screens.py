"""Labelled screens written the way the data engine writes them, for the recipes' tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from detact_service.core import Element
from training.data.labels import ScreenLabels, write_labels


def save_labelled_screen(
    folder: Path,
    stem: str,
    pixels: np.ndarray,
    elements: list[Element],
    template: str,
    rng: np.random.Generator,
) -> None:
    """``folder/<stem>.png`` (with faint noise: no two screens are near-duplicates, which the split would
    drop) and ``folder/<stem>.json``, a Qt screen of ``template``."""
    noisy = (pixels.astype(np.int16) + rng.integers(-6, 7, pixels.shape)).clip(0, 255).astype(np.uint8)
    Image.fromarray(noisy).save(folder / f"{stem}.png")
    labels = ScreenLabels(f"{stem}.png", noisy.shape[1], noisy.shape[0], "qt", template, 0, elements=elements)
    write_labels(labels, folder / f"{stem}.json")
