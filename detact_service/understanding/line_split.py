"""Cut an OCR line that runs across several controls into the words each control shows.

OCR reads a menu bar, a row of tabs or a line of inline links as one line when the gaps between the items
are narrow (``File Edit Select View Image``): the line is wider than any control on it, so it joins none,
and the detector's boxes of ``Select`` or ``View`` come out empty. Where a detector box lies on a line and
covers only part of it, the line's words are located by its ink: the ``n - 1`` widest blank gaps of the line
separate its ``n`` words when they are clearly wider than every other gap (letter spacing), and each word
goes to the detector box that holds its centre. Consecutive words of one box (or of none) become one piece.
A line whose words cannot be located that way stays whole, and so does a line that is no row of items
(:func:`items_line`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from detact_service import geometry
from detact_service.core import DETECTOR_SOURCE, Element
from detact_service.detectors.ocr_base import line_ink
from detact_service.stages import RGBImage

ROW_OVERLAP = 0.5  # share of the line's height a detector box must span to sit on the line
PARTIAL = 0.9  # a box covering less than this share of the line's width holds only some of its words
MAX_BOX_LINES = 3.0  # a box this many line heights tall or taller is a panel, not a control on the line
RULE_SHARE = 0.6  # a row of the line inked over this share of its width is a rule or an edge, not text
GAP_MARGIN = 2  # a word gap must be this many pixels wider than the widest gap inside a word ...
GAP_RATIO = 1.5  # ... and this many times as wide


def word_extents(
    image: RGBImage, bbox: tuple[int, int, int, int], words: int
) -> npt.NDArray[np.int64] | None:
    """The ``(words, 2)`` x-extents (image pixels) of a line's words, or None when its ink does not show
    ``words - 1`` gaps clearly wider than all others."""
    x1, y1, x2, y2 = bbox
    crop = image[y1:y2, x1:x2].astype(np.int16)
    if crop.size == 0 or words < 2:
        return None
    ink = line_ink(crop)
    ink = ink[ink.mean(axis=1) < RULE_SHARE]  # a row inked nearly across is a rule or an edge, not text
    columns = np.flatnonzero(ink.any(axis=0))
    if len(columns) < words:
        return None
    gaps = np.diff(columns) - 1  # blank columns between consecutive inked ones
    if np.count_nonzero(gaps) < words - 1:
        return None
    order = np.argsort(-gaps, kind="stable")
    chosen, rest = order[: words - 1], order[words - 1 :]
    widest_rest = int(gaps[rest].max()) if len(rest) else 0
    narrowest = int(gaps[chosen].min())
    if narrowest < widest_rest + GAP_MARGIN or narrowest < GAP_RATIO * widest_rest:
        return None
    cuts = np.sort(chosen)
    starts = np.concatenate([[columns[0]], columns[cuts + 1]])
    ends = np.concatenate([columns[cuts], [columns[-1]]]) + 1
    return np.stack([starts + x1, ends + x1], axis=1).astype(np.int64)


def split_lines_at_boxes(
    image: RGBImage | None, texts: Sequence[Element], widgets: Sequence[Element]
) -> list[Element]:
    """``texts`` with every line that runs across part of a detector box cut into pieces (see the module)."""
    boxes = [w for w in widgets if w.source == DETECTOR_SOURCE]
    if image is None or not texts or not boxes:
        return list(texts)
    text_boxes = geometry.boxes_of(texts)
    box_array = geometry.boxes_of(boxes)
    heights = (text_boxes[:, 3] - text_boxes[:, 1])[:, None]
    rows = np.minimum(text_boxes[:, None, 3], box_array[None, :, 3]) - np.maximum(
        text_boxes[:, None, 1], box_array[None, :, 1]
    )
    spans = np.minimum(text_boxes[:, None, 2], box_array[None, :, 2]) - np.maximum(
        text_boxes[:, None, 0], box_array[None, :, 0]
    )
    widths = (text_boxes[:, 2] - text_boxes[:, 0])[:, None]
    box_widths = (box_array[:, 2] - box_array[:, 0])[None, :]
    box_heights = (box_array[:, 3] - box_array[:, 1])[None, :]
    on_line = (
        (rows >= ROW_OVERLAP * heights)
        & (spans >= 0.5 * box_widths)  # the box lies mostly along the line
        & (spans < PARTIAL * widths)  # and holds only part of it
        & (box_heights < MAX_BOX_LINES * heights)
    )
    out: list[Element] = []
    for index, text in enumerate(texts):
        words = (text.text or "").split()
        candidates = np.flatnonzero(on_line[index])
        if len(words) < 2 or not len(candidates):
            out.append(text)
            continue
        extents = word_extents(image, text.bbox, len(words))
        if extents is None:
            out.append(text)
            continue
        centres = extents.mean(axis=1)
        held = (centres[:, None] >= box_array[candidates, 0]) & (centres[:, None] < box_array[candidates, 2])
        owner = np.where(held.any(axis=1), candidates[held.argmax(axis=1)], -1)
        if not items_line(words, owner):
            out.append(text)
            continue
        out.extend(pieces(text, words, extents, owner))
    return out


def items_line(words: Sequence[str], owner: npt.NDArray[np.int64]) -> bool:
    """Whether the line is a row of items: two or more boxes hold its words, and every word outside them
    is a separator (``|``, ``>``, ``•``). A word with a letter or digit left outside the boxes means a box
    holds only part of one label (a detector box round ``B5`` of ``B5 (ISO)``), and the line stays whole."""
    loose = [word for word, box in zip(words, owner.tolist(), strict=True) if box < 0]
    return len(set(owner[owner >= 0].tolist())) >= 2 and not any(c.isalnum() for word in loose for c in word)


def pieces(
    text: Element, words: list[str], extents: npt.NDArray[np.int64], owner: npt.NDArray[np.int64]
) -> list[Element]:
    """The runs of consecutive words with the same owner, each an OCR text element over its words' ink."""
    _, y1, _, y2 = text.bbox
    breaks = np.flatnonzero(np.diff(owner) != 0) + 1
    out = []
    for run in np.split(np.arange(len(words)), breaks):
        a, b = int(extents[run[0], 0]), int(extents[run[-1], 1])
        out.append(text.replace(bbox=(a, y1, max(b, a + 1), y2), text=" ".join(words[i] for i in run)))
    return out
