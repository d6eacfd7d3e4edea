"""Spreadsheet cells found at their extent on JPEG screenshots: ``python -m bench.sheets [--sheets 9]``.

Each sheet is a 1024x768 spreadsheet drawn from a seed as a desktop app shows one (row numbers, seven
columns of dates, right-aligned numbers and words, 17-21 px rows, light grey grid lines, a date's cell
beside a word's, so that OCR reads two cells as one line), saved as JPEG at quality 60, 75 or 90 in turn,
and parsed with the profile given (default: the service's). A cell counts as found when some element's box
matches it at IoU >= 0.5; cells left empty are not counted.
"""

from __future__ import annotations

import argparse
import io
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont

from detact_service.geometry import iou_matrix
from detact_service.settings import Settings

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
QUALITIES = (60, 75, 90)
WORDS = ("North", "South", "East", "West", "Clothing", "Electronics")
GRID = (205, 205, 205)
COLUMNS = 7
TOP = 60


def sheet(seed: int) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float64]]:
    """One JPEG spreadsheet (RGB) and the boxes of its filled cells (inside the grid lines)."""
    rng = np.random.default_rng(seed)
    font = ImageFont.truetype(FONT, int(rng.integers(11, 14)))
    pitch = int(rng.integers(17, 22))
    widths = rng.integers(60, 110, size=COLUMNS)
    edges = np.concatenate([[40], 40 + np.cumsum(widths)]).tolist()
    image = Image.new("RGB", (1024, 768), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    cells = []
    rows = (767 - TOP) // pitch
    for row in range(rows):
        top = TOP + pitch * row
        draw.text((15, top + 3), str(row + 1), font=font, fill=(60, 60, 60))
        for column in range(COLUMNS):
            kind = column % 3
            text = (
                f"2023-06-{row + 1:02d}"
                if kind == 0
                else str(int(rng.integers(100, 5000)))
                if kind == 1
                else str(rng.choice(WORDS))
            )
            width = font.getlength(text)
            if width > widths[column] - 6:
                continue
            x = edges[column + 1] - 3 - width if kind == 1 else edges[column] + 3
            draw.text((x, top + (pitch - font.size) // 2 - 1), text, font=font, fill=(20, 20, 20))
            cells.append((edges[column] + 1, top + 1, edges[column + 1], top + pitch))
    for row in range(rows + 1):
        draw.line((0, TOP + pitch * row, 1023, TOP + pitch * row), fill=GRID)
    for x in edges:
        draw.line((x, TOP, x, 767), fill=GRID)
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=QUALITIES[seed % len(QUALITIES)])
    return np.asarray(Image.open(buffer).convert("RGB")), np.asarray(cells, dtype=np.float64)


@dataclass
class SheetResult:
    sheets: int = 0
    cells: int = 0
    found: int = 0

    @property
    def recall(self) -> float:
        return self.found / max(self.cells, 1)


def measure(sheets: int, profile: str | None = None, settings: Settings | None = None) -> SheetResult:
    """Cells found at IoU >= 0.5 over ``sheets`` seeds (0, 1, ...) through ``profile``'s parse."""
    from detact_service.pipeline import get_pipeline

    settings = settings or Settings()
    pipeline = get_pipeline(settings, profile)
    result = SheetResult()
    for seed in range(sheets):
        image, cells = sheet(seed)
        boxes = np.asarray([e.bbox for e in pipeline.parse(image).elements], dtype=np.float64).reshape(-1, 4)
        result.sheets += 1
        result.cells += len(cells)
        if len(boxes):
            result.found += int((iou_matrix(cells, boxes).max(axis=1) >= 0.5).sum())
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sheets", type=int, default=9, help="spreadsheets (seeds 0 ... N-1)")
    parser.add_argument("--profile", default=None, help="pipeline profile (default: the service's)")
    args = parser.parse_args()
    result = measure(args.sheets, args.profile)
    found = f"{result.found} ({result.recall:.3f})"
    print(f"{result.sheets} sheets, {result.cells} cells: found at IoU >= 0.5 {found}")


if __name__ == "__main__":
    main()
