"""What the OCR backends share: the batch loop, the split of a line into items (:func:`ink_spans`) and
conversion of text quads to elements."""

from __future__ import annotations

import importlib.util
import itertools
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from detact_service.core import Element, ElementType, ScreenParse
from detact_service.models import resolve_device
from detact_service.reparse import Changes
from detact_service.settings import Settings
from detact_service.stages import Backend, RGBImage

TextLine = tuple[npt.NDArray[np.floating], str, float]
"""An OCR result: a (4, 2) quad of corner points, its text and confidence."""

SPLIT_GAP = 0.5  # a blank run at least this many line heights wide separates two items (menus, tabs)
CJK_ITEM_GAP = 0.35  # in a line of CJK words, a narrower one does too (a nav bar's 首页 番剧 直播: 0.38-0.42)
CJK_SHARE = 0.6  # a text is CJK when this share of its letters (spaces aside) are (:func:`is_cjk_text`)
MONO_GAP = 1.5  # median gap between items in character advances: monospace prose 1.0-1.4, menus 1.7+
MONO_GAP_MAX = 2.0  # ... and its widest gap (a space after a period)
CJK_PUNCT_GAP = 0.9  # line heights: the blank after a full-width comma or full stop (0.4-0.8 measured)
CJK_CLOSING = "，。、；：！？）」』》】"
CJK_OPENING = "（「『《【"
INK_CONTRAST = 40  # grey levels between ink and the line's background
INK_CHROMA = 60  # max-min of RGB above which ink counts as coloured (links), below as neutral (prose)


def ocr_engine_name(settings: Settings) -> str:
    """The ``text`` backend the settings choose: ``DETACT_OCR__ENGINE``, else EasyOCR on CUDA and RapidOCR
    on a CPU."""
    if settings.ocr.engine is not None:
        return settings.ocr.engine
    return "easyocr" if resolve_device(settings) == "cuda" else "rapidocr"


class OcrStage(Backend):
    """Base of the ``text`` stage backends: subclasses implement :meth:`read`."""

    slot = "text"
    name = "ocr"
    config = ("ocr",)
    requires: tuple[str, ...] = ()
    """Packages the engine needs installed."""

    @classmethod
    def available(cls, settings: Settings) -> str | None:
        missing = [package for package in cls.requires if importlib.util.find_spec(package) is None]
        return f"OCR engine {cls.name!r} needs {', '.join(missing)} installed" if missing else None

    def read(self, image: RGBImage) -> list[TextLine]:
        """Text lines of one RGB image."""
        raise NotImplementedError

    def read_boxes(self, image: RGBImage, boxes: npt.NDArray[np.int64]) -> list[tuple[str, float]]:
        """Text and confidence of each ``(x1, y1, x2, y2)`` box of one RGB image read as one line. Here: each
        box's lines found by :meth:`read`, joined left to right, at their lowest confidence."""
        out = []
        for x1, y1, x2, y2 in boxes.tolist():
            crop = np.ascontiguousarray(image[y1:y2, x1:x2])
            lines = sorted(self.read(crop), key=lambda line: float(line[0][:, 0].min()))
            out.append((" ".join(text for _, text, _ in lines), min((s for _, _, s in lines), default=0.0)))
        return out

    def read_reusing(
        self, image: RGBImage, previous: object | None, changes: Changes | None
    ) -> tuple[list[TextLine], object | None]:
        """Text lines of one image, reusing ``previous`` (this engine's memo of the last screenshot) where
        ``changes`` says the pixels are the same; and the memo of this read. Here: a full read, no memo."""
        return self.read(image), None

    def model_version(self) -> str | None:
        return None

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        return [
            self._amend(image, parse, self.read(image)) for image, parse in zip(images, parses, strict=True)
        ]

    def run_reusing(
        self,
        images: Sequence[RGBImage],
        parses: Sequence[ScreenParse],
        previous: Sequence[object | None],
        changes: Sequence[Changes | None],
    ) -> tuple[list[ScreenParse], list[object | None]]:
        """``run``, reading each image with :meth:`read_reusing`."""
        out, memos = [], []
        for image, parse, memo, change in zip(images, parses, previous, changes, strict=True):
            lines, new_memo = self.read_reusing(image, memo, change)
            out.append(self._amend(image, parse, lines))
            memos.append(new_memo)
        return out, memos

    def _amend(self, image: RGBImage, parse: ScreenParse, lines: Sequence[TextLine]) -> ScreenParse:
        elements = lines_to_elements(lines, image.shape[1], image.shape[0], self.settings.ocr.min_score)
        return parse.with_elements([*parse.elements, *elements])


def line_ink(crop: npt.NDArray[np.int16]) -> npt.NDArray[np.bool_]:
    """The ink of a text line's RGB crop: pixels whose grey differs from the median grey of the crop's
    border by more than :data:`INK_CONTRAST`."""
    grey = crop.mean(axis=2)
    border = np.concatenate([grey[0], grey[-1], grey[:, 0], grey[:, -1]])
    return np.asarray(np.abs(grey - np.median(border)) > INK_CONTRAST)


def ink_spans(
    image: RGBImage, quad: npt.NDArray[np.floating], gap: float = SPLIT_GAP
) -> list[tuple[int, int]]:
    """Horizontal extents of the items of an axis-aligned line box.

    Items are separated by blank gaps over ``gap`` line heights (menu bars, tabs) or by a change between
    coloured and neutral ink (a blue link inside black prose), each run of one kind needing at least a
    line height of ink.
    """
    height, width = image.shape[:2]
    x1, y1 = np.clip(np.floor(quad.min(axis=0)).astype(int), 0, [width, height])
    x2, y2 = np.clip(np.ceil(quad.max(axis=0)).astype(int), 0, [width, height])
    line_height = y2 - y1
    if line_height < 4 or x2 - x1 < 3 * line_height:
        return [(int(x1), int(x2))]
    crop = image[y1:y2, x1:x2].astype(np.int16)
    ink = line_ink(crop)
    inked = ink.any(axis=0)
    columns = np.flatnonzero(inked)
    if len(columns) == 0:
        return [(int(x1), int(x2))]
    chroma = crop.max(axis=2) - crop.min(axis=2)
    column_chroma = (chroma * ink).sum(axis=0) / np.maximum(ink.sum(axis=0), 1)
    coloured = column_chroma[columns] > INK_CHROMA
    if min(coloured.sum(), (~coloured).sum()) < line_height:
        coloured[:] = False  # one kind of ink (or a few stray coloured pixels): no colour split
    else:
        coloured = _absorb_short_runs(columns, coloured, line_height)
    gap_break = np.diff(columns) > gap * line_height
    kind_break = (np.diff(coloured.astype(np.int8)) != 0) & (np.diff(columns) > 1)
    breaks = np.flatnonzero(gap_break | kind_break)
    starts = np.concatenate([[columns[0]], columns[breaks + 1]])
    ends = np.concatenate([columns[breaks], [columns[-1]]]) + 1
    pad = max(1, line_height // 8)
    return [
        (int(max(x1 + a - pad, 0)), int(min(x1 + b + pad, width))) for a, b in zip(starts, ends, strict=True)
    ]


def rejoin_items(lines: Sequence[TextLine], line_of: npt.NDArray[np.int64]) -> list[TextLine]:
    """Join again the items that :func:`ink_spans` cut out of one detected line at wide gaps where the
    gaps are within prose: the words of monospace prose (:func:`_monospace_joins`) and CJK prose cut at
    its full-width punctuation (:func:`_cjk_joins`). Menus, tabs and toolbars stay split.

    ``lines`` are the read crops in order (a split line's items left to right, boxes padded by a line
    height / 8 as :func:`ink_spans` pads them); ``line_of`` the detected line of each.
    """
    out: list[TextLine] = []
    if not len(line_of):
        return out
    starts = np.flatnonzero(np.diff(line_of, prepend=-1) != 0)
    ends = np.append(starts[1:], len(lines))
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        group = list(lines[start:end])
        if len(group) < 2:
            out.extend(group)
            continue
        boxes = np.asarray(
            [[q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()] for q, _, _ in group]
        )
        line_height = float(boxes[:, 3].max() - boxes[:, 1].min())
        pad = max(1, int(line_height) // 8)
        gaps = boxes[1:, 0] - boxes[:-1, 2] + 2 * pad
        spaced = gaps > SPLIT_GAP * line_height - 1  # a blank gap, not a colour change
        texts = [text.strip() for _, text, _ in group]
        joins, separator = _monospace_joins(texts, boxes[:, 2] - boxes[:, 0] - 2 * pad, gaps, spaced), " "
        if not joins.any():
            joins, separator = _cjk_joins(texts, gaps / line_height, spaced), ""
        run = [group[0]]
        for item, join in zip(group[1:], joins.tolist(), strict=True):
            if not join:
                out.append(_joined(run, separator))
                run = []
            run.append(item)
        out.append(_joined(run, separator))
    return out


def _monospace_joins(
    texts: Sequence[str],
    widths: npt.NDArray[np.floating],
    gaps: npt.NDArray[np.floating],
    spaced: npt.NDArray[np.bool_],
) -> npt.NDArray[np.bool_]:
    """Which gaps of a line to join when its items are the words of monospace prose (a terminal, a code or
    text editor): the blank gaps are ``MONO_GAP`` character advances or less at the median and
    ``MONO_GAP_MAX`` at most, the advance measured on the items' own text (ink width over characters).
    A menu's items stand 1.7-2.8 advances apart (measured on the ScreenAgent desktops); lines of other than
    ASCII text and lines mostly of digits (a table row: digits are as wide as each other) are left alone.
    """
    none = np.zeros(len(gaps), dtype=bool)
    chars = np.asarray([len(text) for text in texts])
    words = chars >= 3
    ink_text = "".join(texts).replace(" ", "")
    latin = ink_text.isascii()  # a CJK glyph is as wide as a menu's gap
    wordy = sum(ch.isalpha() for ch in ink_text) >= len(ink_text) / 2  # not a row of tabular digits
    if len(texts) < 3 or not (latin and wordy) or words.sum() < max(2, len(texts) / 2) or not spaced.any():
        return none
    advance = float(np.median(widths[words] / chars[words]))
    ratios = gaps[spaced] / advance
    if np.median(ratios) > MONO_GAP or ratios.max() > MONO_GAP_MAX:
        return none
    return spaced


def _cjk_joins(
    texts: Sequence[str], gap_heights: npt.NDArray[np.floating], spaced: npt.NDArray[np.bool_]
) -> npt.NDArray[np.bool_]:
    """Which gaps of a line are CJK prose cut at full-width punctuation: a full-width comma or full stop
    leaves most of its em blank (0.4-0.8 line heights on the ScreenAgent desktops), as does an opening
    bracket before its text. Joined when the left item ends with closing punctuation or the right one
    starts with an opening bracket (``(`` too after a CJK character), within ``CJK_PUNCT_GAP``."""
    left_ends = np.asarray([bool(text) and text[-1] in CJK_CLOSING for text in texts[:-1]], dtype=bool)
    right_opens = np.asarray(
        [
            bool(right) and (right[0] in CJK_OPENING or (right[0] == "(" and bool(left) and is_cjk(left[-1])))
            for left, right in itertools.pairwise(texts)
        ],
        dtype=bool,
    )
    return (left_ends | right_opens) & spaced & (gap_heights <= CJK_PUNCT_GAP)


def is_cjk_text(text: str, least: int = 1) -> bool:
    """Whether ``text`` is CJK: at least ``least`` CJK letters (:func:`is_cjk`), making up :data:`CJK_SHARE`
    of its letters, spaces aside. Such text is written without spaces between words."""
    letters = text.replace(" ", "")
    cjk = sum(is_cjk(c) for c in letters)
    return cjk >= max(least, 1) and cjk >= CJK_SHARE * len(letters)


def is_cjk_bar(text: str) -> bool:
    """Whether an item's text is CJK words without prose punctuation (``首页 番剧直播游戏中心``): a row of
    items whose gaps may be narrower than :data:`SPLIT_GAP` (:data:`CJK_ITEM_GAP`)."""
    return len(text.replace(" ", "")) >= 2 and is_cjk_text(text) and not any(c in CJK_CLOSING for c in text)


def is_cjk(char: str) -> bool:
    """A CJK ideograph, kana, Hangul, CJK punctuation or a full-width form."""
    return (
        "\u3400" <= char <= "\u9fff"
        or "\u3000" <= char <= "\u30ff"
        or "\uac00" <= char <= "\ud7af"
        or "\uf900" <= char <= "\ufaff"
        or "\uff00" <= char <= "\uffef"
    )


def _joined(items: Sequence[TextLine], separator: str = " ") -> TextLine:
    """One line from items of one line: their box, their texts joined by ``separator``, their mean score."""
    if len(items) == 1:
        return items[0]
    points = np.concatenate([q for q, _, _ in items])
    (x1, y1), (x2, y2) = points.min(axis=0), points.max(axis=0)
    quad = np.asarray([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], dtype=np.float64)
    text = separator.join(t.strip() for _, t, _ in items if t.strip())
    return quad, text, float(np.mean([score for _, _, score in items]))


def strip_border_marks(text: str) -> str:
    """The text without a box's border read as an unpaired bracket or bar at either end
    (``[Section #2`` -> ``Section #2``, ``user$]`` -> ``user$``)."""
    text = text.strip()
    if len(text) > 1 and text[0] in "[|" and "]" not in text:
        text = text[1:].lstrip()
    if len(text) > 1 and text[-1] in "]|" and "[" not in text:
        text = text[:-1].rstrip()
    return text


def lines_to_elements(lines: Sequence[TextLine], width: int, height: int, min_score: float) -> list[Element]:
    """Axis-aligned text elements from OCR quads, clipped to the image, empty or weak lines dropped."""
    elements = []
    for quad, text, score in lines:
        text = strip_border_marks(text)
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


def _absorb_short_runs(
    columns: npt.NDArray[np.intp], coloured: npt.NDArray[np.bool_], min_width: int
) -> npt.NDArray[np.bool_]:
    """Ink kinds with every run narrower than ``min_width`` columns given the kind of the run before it
    (of the run after it at the start): the anti-aliased edges of dark glyphs on a coloured background, or
    of coloured glyphs, alternate kinds glyph by glyph and must not split a word."""
    out = coloured.copy()
    changes = np.flatnonzero(np.diff(out.astype(np.int8)) != 0) + 1
    starts = np.concatenate([[0], changes])
    ends = np.concatenate([changes, [len(out)]])
    wide = [columns[e - 1] - columns[s] + 1 >= min_width for s, e in zip(starts, ends, strict=True)]
    if not any(wide):
        out[:] = False
        return out
    kind = bool(out[starts[wide.index(True)]])  # runs before the first wide one take its kind
    for start, end, is_wide in zip(starts, ends, wide, strict=True):
        if is_wide:
            kind = bool(out[start])
        else:
            out[start:end] = kind
    return out
