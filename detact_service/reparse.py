"""Re-parse of a changed screen: what a parse keeps for the next one, and which parts of it still hold.

An agent sends a new screenshot after every action and most of the screen is unchanged. A parse made with
:meth:`~detact_service.pipeline.Pipeline.reparse_batch` returns, beside the parse, a :class:`ParseState`:
a 64-bit fingerprint of every :data:`TILE` x :data:`TILE` tile of the screenshot and, per stage that can
reuse its work, a memo (the ``rapidocr`` text stage: every crop it recognised, its pixels' fingerprint
and the text read there). The next parse compares its tiles with the state's (:func:`changed_tiles`;
more than ``DETACT_REPARSE_MAX_CHANGED`` of them changed: a full parse) and hands each stage its memo and
the changed tiles.

Recognition is the expensive part of a parse (about 80% of a text-dense screen). The text stage still
detects text lines on the whole frame (its detector pools over the whole screen, so only a whole-frame
detection gives the full parse's boxes), then recognises only the crops that are new: a crop keeps the
previous text when it has the same box and pixels (:func:`box_fingerprints`), or lies on unchanged tiles
within :data:`JITTER` px of a previous crop there. The colours stage (:class:`BoxMemo`) and the reader
(:class:`RowMemo`) reuse an element's answer when its box is the same and the pixels it is computed from
lie on unchanged tiles. Every other stage runs on the whole frame, so the result is the full parse's (its
boxes exactly; a reused crop's score is its previous reading's).

The service remembers recent states by parse id in a :class:`StateCache` (bounded LRU with a time to live).
"""

from __future__ import annotations

import hashlib
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from detact_service.core import ScreenParse

TILE = 64
"""Side of a fingerprinted tile in pixels (a multiple of 8: tiles are hashed as 64-bit words)."""

_WEIGHTS = np.random.default_rng(20240521).integers(0, 2**63, size=(TILE, TILE * 3 // 8), dtype=np.uint64)
_WEIGHTS |= np.uint64(1)  # odd weights: any change of a single word changes the fingerprint

JITTER = 6
"""Most pixels a line's box may move on an unchanged part of the screen and keep its previous text."""

BoolGrid = npt.NDArray[np.bool_]


def tile_fingerprints(image: npt.NDArray[np.uint8], tile: int = TILE) -> npt.NDArray[np.uint64]:
    """A ``(rows, cols)`` 64-bit fingerprint per tile of an ``(H, W, 3)`` uint8 image (edge tiles padded).

    Each tile's bytes are read as 64-bit words and summed with fixed odd random weights (mod 2**64): one
    changed word always changes the fingerprint, several cancel out with probability about 2**-64.
    """
    if tile != TILE:
        raise ValueError(f"tiles are {TILE} px")
    height, width = image.shape[:2]
    rows, cols = -(-height // tile), -(-width // tile)
    padded = np.zeros((rows * tile, cols * tile, 3), dtype=np.uint8)
    padded[:height, :width] = image
    words = padded.reshape(rows, tile, cols, tile * 3).view(np.uint64)  # (rows, tile, cols, tile*3/8)
    with np.errstate(over="ignore"):
        return (words * _WEIGHTS[None, :, None, :]).sum(axis=(1, 3), dtype=np.uint64)


def box_fingerprints(image: npt.NDArray[np.uint8], boxes: npt.NDArray[np.integer]) -> npt.NDArray[np.uint64]:
    """A 64-bit BLAKE2b digest of the pixels of each xyxy box of an image (compared for the same box).

    One hash call per box: for the few hundred text crops of a screen this costs a few ms, where one
    whole-frame weighted integral image (vectorised) cost 70-150 ms at 1920x1080.
    """
    boxes = np.asarray(boxes, dtype=np.int64).reshape(-1, 4)
    height, width = image.shape[:2]
    clipped = np.clip(boxes, 0, [width, height, width, height]).tolist()
    return np.fromiter(
        (
            int.from_bytes(hashlib.blake2b(image[y1:y2, x1:x2].tobytes(), digest_size=8).digest(), "little")
            for x1, y1, x2, y2 in clipped
        ),
        dtype=np.uint64,
        count=len(clipped),
    )


@dataclass(frozen=True)
class Changes:
    """Which tiles changed since the previous screenshot (same size), and box tests against them."""

    changed: BoolGrid
    tile: int = TILE

    @property
    def fraction(self) -> float:
        """Share of the tiles that changed."""
        return float(self.changed.mean()) if self.changed.size else 0.0

    def unchanged(self, boxes: npt.NDArray[np.integer]) -> BoolGrid:
        """For ``(N, 4)`` xyxy boxes (right and bottom exclusive): whether every tile a box touches is
        unchanged (so its pixels are the previous screenshot's)."""
        boxes = np.asarray(boxes, dtype=np.int64).reshape(-1, 4)
        rows, cols = self.changed.shape
        summed = np.zeros((rows + 1, cols + 1), dtype=np.int64)
        summed[1:, 1:] = self.changed.astype(np.int64).cumsum(axis=0).cumsum(axis=1)
        c1 = np.clip(boxes[:, 0] // self.tile, 0, cols - 1)
        r1 = np.clip(boxes[:, 1] // self.tile, 0, rows - 1)
        c2 = np.clip((boxes[:, 2] - 1) // self.tile, 0, cols - 1) + 1
        r2 = np.clip((boxes[:, 3] - 1) // self.tile, 0, rows - 1) + 1
        touched = summed[r2, c2] - summed[r1, c2] - summed[r2, c1] + summed[r1, c1]
        return np.asarray(touched == 0)


def changed_tiles(previous: npt.NDArray[np.uint64], current: npt.NDArray[np.uint64]) -> Changes:
    """The tiles whose fingerprints differ (both grids of one screen size)."""
    return Changes(np.asarray(previous != current))


def box_keys(boxes: npt.NDArray[np.integer]) -> npt.NDArray[np.int64]:
    """One int64 per xyxy box (coordinates below 65536), for vectorised exact matching."""
    b = np.asarray(boxes, dtype=np.int64).reshape(-1, 4)
    return ((b[:, 0] * 65536 + b[:, 1]) * 65536 + b[:, 2]) * 65536 + b[:, 3]


@dataclass(frozen=True)
class TextMemo:
    """What a text stage read: each crop's box, pixel fingerprint, text and score."""

    boxes: npt.NDArray[np.int64]
    fingerprints: npt.NDArray[np.uint64]
    texts: tuple[str, ...]
    scores: npt.NDArray[np.float64]
    size: tuple[int, int] = (0, 0)
    """The screenshot's (height, width)."""
    reused: int = 0
    """How many of these crops took their text from the previous memo rather than being recognised."""

    def match(
        self, boxes: npt.NDArray[np.integer], fingerprints: npt.NDArray[np.uint64], changes: Changes
    ) -> npt.NDArray[np.int64]:
        """For each new crop, the index of the crop here whose text it can take, else -1.

        The same box with the same pixel fingerprint; else, when the new box and a box here both lie on
        unchanged tiles, the nearest box here within :data:`JITTER` px on every side (the text detector
        pools over the whole screen, so a change anywhere moves unchanged lines' boxes by a few pixels;
        their text stays).
        """
        boxes = np.asarray(boxes, dtype=np.int64).reshape(-1, 4)
        out = np.full(len(boxes), -1, dtype=np.int64)
        if len(boxes) == 0 or len(self.texts) == 0:
            return out
        keys, mine = box_keys(boxes), box_keys(self.boxes)
        order = np.argsort(mine, kind="stable")
        index = order[np.clip(np.searchsorted(mine[order], keys), 0, len(mine) - 1)]
        exact = (mine[index] == keys) & (self.fingerprints[index] == fingerprints)
        out[exact] = index[exact]
        rest = np.flatnonzero(~exact & changes.unchanged(boxes))
        still = np.flatnonzero(changes.unchanged(self.boxes))
        if len(rest) and len(still):
            gaps = np.abs(boxes[rest, None, :] - self.boxes[None, still, :])
            near = np.where(gaps.max(axis=2) <= JITTER, gaps.sum(axis=2), np.iinfo(np.int64).max)
            best = near.argmin(axis=1)
            found = near[np.arange(len(rest)), best] < np.iinfo(np.int64).max
            out[rest[found]] = still[best[found]]
        return out


@dataclass(frozen=True)
class BoxMemo:
    """Values a stage computed from the pixels inside boxes alone (an element's colour name), by box."""

    boxes: npt.NDArray[np.int64]
    kinds: npt.NDArray[np.int64]
    """What else the value depends on, as a number per box (e.g. whether the colour is the ink's)."""
    values: tuple[str, ...]
    reused: int = 0

    def match(
        self, boxes: npt.NDArray[np.integer], kinds: npt.NDArray[np.integer], changes: Changes
    ) -> npt.NDArray[np.int64]:
        """For each box, the index of the same box of the same kind here when its tiles are unchanged."""
        boxes = np.asarray(boxes, dtype=np.int64).reshape(-1, 4)
        if len(boxes) == 0 or len(self.values) == 0:
            return np.full(len(boxes), -1, dtype=np.int64)
        keys, mine = box_keys(boxes), box_keys(self.boxes)
        order = np.argsort(mine, kind="stable")
        index = order[np.clip(np.searchsorted(mine[order], keys), 0, len(mine) - 1)]
        found = (mine[index] == keys) & (self.kinds[index] == kinds) & changes.unchanged(boxes)
        return np.where(found, index, -1).astype(np.int64)


@dataclass(frozen=True)
class RowMemo:
    """Numbers a stage computed per box from the pixels of a window round it (a reader's probabilities),
    by box: the same box's row holds again while every tile of its window is unchanged."""

    boxes: npt.NDArray[np.int64]
    rows: npt.NDArray[np.float32]
    size: tuple[int, int]
    """The screenshot's (height, width): a box's window and its features depend on it."""
    reused: int = 0

    def match(
        self,
        boxes: npt.NDArray[np.integer],
        windows: npt.NDArray[np.integer],
        size: tuple[int, int],
        changes: Changes,
    ) -> npt.NDArray[np.int64]:
        """For each box, the index of the same box here when its ``windows`` row lies on unchanged tiles."""
        boxes = np.asarray(boxes, dtype=np.int64).reshape(-1, 4)
        if len(boxes) == 0 or len(self.rows) == 0 or size != self.size:
            return np.full(len(boxes), -1, dtype=np.int64)
        keys, mine = box_keys(boxes), box_keys(self.boxes)
        order = np.argsort(mine, kind="stable")
        index = order[np.clip(np.searchsorted(mine[order], keys), 0, len(mine) - 1)]
        found = (mine[index] == keys) & changes.unchanged(windows)
        return np.where(found, index, -1).astype(np.int64)


@dataclass(frozen=True)
class StageMemo:
    """A stage's memo and the stage's cache key: a memo is reused only by a stage configured the same."""

    key: Hashable
    data: object


@dataclass(frozen=True)
class ParseState:
    """What a parse keeps for re-parsing the next screenshot: its size, tile fingerprints, stage memos."""

    width: int
    height: int
    profile: str
    fingerprints: npt.NDArray[np.uint64]
    memos: Mapping[str, StageMemo] = field(default_factory=dict)
    parse: ScreenParse | None = None
    """The parse itself: a screenshot whose every tile is unchanged, sent for the same task to a pipeline
    configured the same way, gets it back without running a stage."""
    pipeline_key: Hashable = None
    """What configures the pipeline that made it: its stages' cache keys."""


@dataclass(frozen=True)
class ReparseInfo:
    """How a parse used the previous one: ``reused`` is false for a full parse, with ``reason``."""

    reused: bool
    changed: float | None = None
    """Share of the screen's tiles that changed (``None`` without a usable previous parse)."""
    text_reused: int = 0
    text_read: int = 0
    elements_reused: int = 0
    """Elements whose reading (type and state) the reader took from the previous parse."""
    elements_read: int = 0
    reason: str | None = None


class StateCache:
    """Recent :class:`ParseState` by parse id: at most ``size`` kept, each for ``ttl_s`` seconds."""

    def __init__(self, size: int, ttl_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.size, self.ttl_s, self.clock = size, ttl_s, clock
        self._items: OrderedDict[str, tuple[float, ParseState]] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, state: ParseState) -> str | None:
        """Remember ``state``; its new parse id (``None`` when the cache holds nothing: size 0)."""
        if self.size <= 0:
            return None
        parse_id = uuid.uuid4().hex
        with self._lock:
            self._items[parse_id] = (self.clock() + self.ttl_s, state)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return parse_id

    def get(self, parse_id: str) -> ParseState | None:
        """The state of ``parse_id``, or ``None`` when unknown or expired."""
        with self._lock:
            entry = self._items.get(parse_id)
            if entry is None:
                return None
            if entry[0] < self.clock():
                del self._items[parse_id]
                return None
            self._items.move_to_end(parse_id)
            return entry[1]

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
