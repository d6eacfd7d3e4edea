"""Screenshots longer than a screen (full-page captures, monitors side by side), parsed as tiles.

The detectors and the text detector read a screenshot whole at a capped size (the longer side at most 1280
px, or 640 on a phone-shaped one), so a 1920x5000 page capture reaches them shrunk three to five times, its
text and controls too small to find. The pipeline parses such a screenshot as overlapping tiles shaped as a
screen (16:9 at the screenshot's own width, or height for a wide one; 1:2 for a phone's page), each read
as a screen, and keeps each element from the tile in whose core its centre lies (:func:`stitch`): an
element shorter than the overlap lies whole in that tile.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from detact_service.core import PHONE_MAX_WIDTH, ScreenParse

READ_WHOLE = 1920
"""A screenshot no longer than this is never tiled: read whole, it shrinks no more than a 1920x1080 screen
does (to the 1280 px the detectors and the text detector read at most)."""
LONG_ASPECT = 2.4
"""A screenshot whose longer side exceeds its shorter by more than this (beyond a 21:9 monitor and a 20:9
phone) is tiled ..."""
DESKTOP_WIDTH = 1440
"""... and so is a portrait one wider than this (wider than a phone screenshot: a desktop page) ..."""
DESKTOP_PORTRAIT = 1.25
"""... taller than this many widths."""
SCREEN_ASPECT = 16 / 9
"""Each tile's longer side over its shorter: a 1920x1080 screen's ..."""
PHONE_WIDTH = PHONE_MAX_WIDTH
"""... but a tall screenshot narrower than this (a phone's page capture: phones are 720-1242 px wide,
desktop pages 1280 and wider) is cut into tiles shaped as a phone screen, ..."""
PHONE_ASPECT = 2.0
"""... this many widths tall, which the phone detector reads."""
OVERLAP = 0.25
"""Neighbouring tiles share at least this share of a tile's length."""


@dataclass(frozen=True)
class Tile:
    """One tile of a screenshot: its box, and its core (where the centres of the elements it keeps lie)."""

    box: tuple[int, int, int, int]
    core: tuple[int, int, int, int]


def needs_tiles(width: int, height: int) -> bool:
    """Whether a ``width`` x ``height`` screenshot is longer than a screen (:data:`LONG_ASPECT`,
    :data:`DESKTOP_WIDTH`) and longer than the stages read whole (:data:`READ_WHOLE`)."""
    if max(width, height) <= READ_WHOLE:
        return False
    if max(width, height) > LONG_ASPECT * min(width, height):
        return True
    return width > DESKTOP_WIDTH and height > DESKTOP_PORTRAIT * width


def spans(length: int, tile: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Tiles of ``tile`` pixels along ``length``, spread evenly and overlapping by at least
    :data:`OVERLAP` of a tile, and their cores (split at the middle of each overlap, covering ``length``)."""
    overlap = round(OVERLAP * tile)
    count = max(1, int(np.ceil((length - overlap) / (tile - overlap))))
    starts = np.rint(np.linspace(0, length - tile, count)).astype(int) if count > 1 else np.zeros(1, int)
    ends = starts + tile
    seams = (starts[1:] + ends[:-1]) // 2
    cores = list(zip([0, *seams.tolist()], [*seams.tolist(), length], strict=True))
    return list(zip(starts.tolist(), ends.tolist(), strict=True)), cores


def tiles_for(width: int, height: int) -> list[Tile]:
    """The tiles a ``width`` x ``height`` screenshot is parsed as; none when it is parsed whole."""
    if not needs_tiles(width, height):
        return []
    if height > width:
        shape = PHONE_ASPECT if width < PHONE_WIDTH else 1 / SCREEN_ASPECT
        boxes, cores = spans(height, min(height, round(width * shape)))
        return [
            Tile((0, y0, width, y1), (0, c0, width, c1))
            for (y0, y1), (c0, c1) in zip(boxes, cores, strict=True)
        ]
    boxes, cores = spans(width, min(width, round(height * SCREEN_ASPECT)))
    return [
        Tile((x0, 0, x1, height), (c0, 0, c1, height))
        for (x0, x1), (c0, c1) in zip(boxes, cores, strict=True)
    ]


def stitch(width: int, height: int, tiles: Sequence[Tile], parses: Sequence[ScreenParse]) -> ScreenParse:
    """One parse of the whole screenshot from its tiles' parses: each tile's elements whose centre lies in
    its core, moved to screenshot coordinates, in reading order and numbered again; per-stage times summed."""
    from detact_service.understanding.merge import reading_order  # here: the merge imports OpenCV

    kept = []
    for tile, parse in zip(tiles, parses, strict=True):
        if not parse.elements:
            continue
        x0, y0 = tile.box[:2]
        boxes = parse.boxes() + np.array([x0, y0, x0, y0])
        centre_x, centre_y = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
        cx0, cy0, cx1, cy1 = tile.core
        inside = (centre_x >= cx0) & (centre_x < cx1) & (centre_y >= cy0) & (centre_y < cy1)
        kept += [
            element.replace(bbox=tuple(box))
            for element, box, keep in zip(parse.elements, boxes.tolist(), inside.tolist(), strict=True)
            if keep
        ]
    first = parses[0]
    timings: dict[str, float] = {}
    for parse in parses:
        for stage, ms in parse.timings_ms.items():
            timings[stage] = round(timings.get(stage, 0.0) + ms, 2)
    elements = [element.replace(id=index) for index, element in enumerate(reading_order(kept))]
    whole = ScreenParse(width=width, height=height, elements=elements, task=first.task)
    whole.timings_ms = timings
    whole.models = {**first.models, "tiles": str(len(tiles))}
    return whole
