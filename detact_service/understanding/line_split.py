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

import math
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
from rapidfuzz import fuzz

from detact_service import geometry
from detact_service.core import DETECTOR_SOURCE, Element
from detact_service.detectors.ocr_base import is_cjk_text, line_ink
from detact_service.stages import RGBImage

ROW_OVERLAP = 0.5  # share of the line's height a detector box must span to sit on the line
PARTIAL = 0.9  # a box covering less than this share of the line's width holds only some of its words
MAX_BOX_LINES = 3.0  # a box this many line heights tall or taller is a panel, not a control on the line
RULE_SHARE = 0.6  # a row of the line inked over this share of its width is a rule or an edge, not text
GAP_MARGIN = 1  # a word gap must be this many pixels wider than the widest gap inside a word (2 missed
# the 3 px gaps of arXiv's 13 px `new | recent | 2108`, JPEG, against its letters' 2), ...
MIN_WORD_GAP = 3  # ... and at least this many pixels (2 px apart, the letters of a 16 px `one` stand out of
# its neighbour `two`'s 1 px) ...
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
    if narrowest < max(widest_rest + GAP_MARGIN, MIN_WORD_GAP) or narrowest < GAP_RATIO * widest_rest:
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


CJK_LETTERS = 3  # a line of at least this many CJK letters (:func:`.ocr_base.is_cjk_text`) is CJK
BOX_IN_LINE = 0.8  # share of a detector box inside a line (grown by 2 px) for it to lie on the line
BOX_LINE_HEIGHTS = 1.6  # a box this many line heights tall or taller is a control round the line
GLYPH_GAP = 0.3  # line heights: ink this close beyond a box's ink, on the line, is the same run of text
CJK_CONFIDENCE = 0.85  # a line read with less is likely a row of icons read as characters (`图三三三首だ`)
LINE_OWNED = 0.6  # a box holding this share of a line takes its text (the merge's TEXT_INSIDE): its control
PROSE_MARKS = frozenset("，。、；！？")  # full-width punctuation: a line with one is a sentence, not a bar


def boxes_on_lines(boxes: npt.NDArray[np.float64], lines: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """[box, line]: whether each box lies on each text line (at least :data:`BOX_IN_LINE` of it inside the
    line grown by 2 px: OCR's box hugs the ink, a detector's pads it)."""
    return geometry.containment(boxes, lines + np.array([-2.0, -2.0, 2.0, 2.0])) >= BOX_IN_LINE


def textless_boxes_on_lines(
    lines: Sequence[Element], widgets: Sequence[Element]
) -> tuple[list[int], npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """The textless detector boxes among ``widgets`` (their indices and boxes), the ``lines``' boxes, and
    [box, line]: whether each box lies on each line (:func:`boxes_on_lines`) and is less than
    :data:`BOX_LINE_HEIGHTS` of its height tall (a taller box is a control round the line)."""
    boxes = [i for i, w in enumerate(widgets) if w.source == DETECTOR_SOURCE and not w.text]
    box_array = geometry.boxes_of([widgets[i] for i in boxes])
    line_boxes = geometry.boxes_of(lines)
    if not boxes or not len(lines):
        return boxes, box_array, line_boxes, np.zeros((len(boxes), len(lines)), dtype=bool)
    on_line = boxes_on_lines(box_array, line_boxes)
    heights = line_boxes[:, 3] - line_boxes[:, 1]
    on_line &= (box_array[:, 3] - box_array[:, 1])[:, None] < BOX_LINE_HEIGHTS * heights[None, :]
    return boxes, box_array, line_boxes, on_line


def ink_gaps(
    image: RGBImage, line: npt.NDArray[np.float64], box: npt.NDArray[np.float64]
) -> tuple[float, float] | None:
    """The blank columns between the line's ink inside ``box`` and its nearest ink outside, on the left
    and on the right (``inf`` where the line has none there); None when the box holds none of its ink."""
    x1, y1, x2, y2 = (int(v) for v in np.round(line))
    x1, y1, x2, y2 = max(x1, 0), max(y1, 0), min(x2, image.shape[1]), min(y2, image.shape[0])
    if x2 - x1 < 2 or y2 - y1 < 2:
        return None
    columns = np.flatnonzero(line_ink(image[y1:y2, x1:x2].astype(np.int16)).any(axis=0)) + x1
    inside = (columns >= box[0]) & (columns < box[2])
    if not inside.any():
        return None
    first, last = columns[inside][[0, -1]]
    left, right = columns[columns < box[0]], columns[columns >= box[2]]
    return (
        float(first - left[-1] - 1) if len(left) else math.inf,
        float(right[0] - last - 1) if len(right) else math.inf,
    )


def runs_on(image: RGBImage, line: npt.NDArray[np.float64], box: npt.NDArray[np.float64]) -> bool:
    """Whether the ink inside ``box`` runs on into the line's ink beside it: on one side at least, the
    line's nearest ink outside the box lies within :data:`GLYPH_GAP` line heights of the box's ink."""
    gaps = ink_gaps(image, line, box)
    return gaps is not None and min(gaps) <= GLYPH_GAP * (line[3] - line[1])


def drop_boxes_in_cjk_words(
    image: RGBImage | None, texts: Sequence[Element], widgets: Sequence[Element]
) -> list[Element]:
    """Drop the textless detector boxes that lie on a Chinese, Japanese or Korean text line and whose ink
    runs on into the line's (:func:`runs_on`): a character or a phrase of a headline, a tab's title or a
    logo, not a control. Written without spaces, such a line gives the detector no word to box, and it
    boxes one to six of its characters here and there (164 boxes on the 60 ScreenAgent desktops' Chinese
    lines, 132 of them dropped here), each an icon without text beside the line that holds their text.

    In a sentence (a line with full-width punctuation, ``，`` or ``。``) every such box goes: the detector
    boxes its phrases between commas, whose ink stands clear of the next phrase by the comma's blank
    half. Elsewhere boxes with clear space round their ink stay (a navigation bar's items, a favicon, an
    arrow). A box that holds most of the line stays (it takes the line's text), and so do the boxes on a
    line read with little confidence (a toolbar's icons read as ``三``)."""
    lines = [t for t in texts if t.score >= CJK_CONFIDENCE and is_cjk_text(t.text or "", CJK_LETTERS)]
    boxes, box_array, line_boxes, on_line = textless_boxes_on_lines(lines, widgets)
    if image is None or not on_line.any():
        return list(widgets)
    on_line &= geometry.containment(line_boxes, box_array).T < LINE_OWNED
    prose = [not PROSE_MARKS.isdisjoint(t.text or "") for t in lines]
    dropped = {
        boxes[b]
        for b, line in zip(*np.nonzero(on_line), strict=True)
        if prose[line] or runs_on(image, line_boxes[line], box_array[b])
    }
    return [w for i, w in enumerate(widgets) if i not in dropped]


MIN_NAME_CHARACTERS = 2
WORD_SLACK = 0.3
"""Line heights a detector box may fall short of a word it names on either side (OCR hugs the ink; the
detector pads, but not always)."""


def words_for_boxes_on_lines(
    image: RGBImage | None, texts: Sequence[Element], widgets: Sequence[Element]
) -> list[Element]:
    """``widgets`` with each textless detector box that lies on an OCR line over whole words of it given
    those words: an inline link (an author's name in a list of authors, a title's word in a search result)
    that the detector boxed inside a line of text, which stays whole (:func:`items_line`: words with letters
    lie outside the boxes). The line's words are located by its ink (:func:`word_extents`); the box names
    the words whose centres it holds, only when each of them lies inside it (within :data:`WORD_SLACK` line
    heights) and no word it cuts through has its centre outside it."""
    worded = [t for t in texts if len((t.text or "").split()) >= 2]
    boxes, box_array, line_boxes, on_line = textless_boxes_on_lines(worded, widgets)
    if image is None or not on_line.any():
        return list(widgets)
    heights = line_boxes[:, 3] - line_boxes[:, 1]
    out = list(widgets)
    extents: dict[int, npt.NDArray[np.int64] | None] = {}
    for b, line in zip(*np.nonzero(on_line), strict=True):
        text = worded[line]
        words = (text.text or "").split()
        if line not in extents:
            extents[line] = word_extents(image, text.bbox, len(words))
        spans = extents[line]
        if spans is None:
            continue
        x0, _, x1, _ = box_array[b]
        slack = WORD_SLACK * heights[line]
        centres = spans.mean(axis=1)
        held = (centres >= x0) & (centres < x1)
        cut = (spans[:, 1] > x0) & (spans[:, 0] < x1) & ~held
        if (
            not held.any()
            or cut.any()
            or (spans[held, 0] < x0 - slack).any()
            or (spans[held, 1] > x1 + slack).any()
        ):
            continue
        named = " ".join(w for w, h in zip(words, held.tolist(), strict=True) if h)
        if sum(c.isalnum() for c in named) >= MIN_NAME_CHARACTERS:  # not a glyph or a lone digit read as one
            out[boxes[b]] = out[boxes[b]].replace(text=named)
    return out


BoxReader = Callable[[RGBImage, npt.NDArray[np.int64]], list[tuple[str, float]]]
"""Reads each ``(n, 4)`` box of an image as one line of text: its text and confidence (the OCR stage's
:meth:`~detact_service.detectors.ocr_base.OcrStage.read_boxes`)."""

READ_CONFIDENCE = 0.8  # a box's own read below this is a glyph or an icon read as letters (`o`, `č`, `{`)
READ_IN_LINE = 70  # rapidfuzz partial ratio of a box's read to its line's text (`null` in `nul1`: 75)
READ_WORD_GAP = 0.15  # line heights of blank between a box's ink and the line's beyond it: a word gap
WORD_EDGES = frozenset(" ,.;:!?()[]{}<>'\"|/-")  # a read that starts or ends at one of these is whole words
TRAILING_PUNCTUATION = ",;"  # a sentence's comma after a box's words is the sentence's, not the box's


def read_boxes_on_lines(
    image: RGBImage | None, texts: Sequence[Element], widgets: Sequence[Element], read: BoxReader | None
) -> list[Element]:
    """``widgets`` with each textless detector box that lies on an OCR line of two or more words (or a
    CJK line: :func:`is_cjk_words`) given the text of its own pixels, read by ``read`` (all boxes of the
    screen in one call): inline code, links and table cells whose words :func:`words_for_boxes_on_lines`
    cannot locate, because OCR glued or split words the ink does not (``out file`` for ``outfile``,
    ``propertyobjectMode``) or a cell's rule sits in the gap between two words; a link in a line written
    without spaces (``《隐私政策》``); and a breadcrumb's ``Home`` whose line a box round the rest of it
    took (``texts`` are the lines before any box took them). A read is kept when it is confident
    (:data:`READ_CONFIDENCE`), has two letters or digits, is part of the line's text (:data:`READ_IN_LINE`:
    the box is text, not an icon), and holds whole words: it starts and ends at word edges of the line's
    text, or the box's ink stands a word gap (:data:`READ_WORD_GAP`) clear of the line's ink beside it."""
    worded = [t for t in texts if len((t.text or "").split()) >= 2 or is_cjk_words(t)]
    boxes, box_array, line_boxes, on_line = textless_boxes_on_lines(worded, widgets)
    if image is None or read is None or not on_line.any():
        return list(widgets)
    picked = np.flatnonzero(on_line.any(axis=1))
    lines = on_line[picked].argmax(axis=1)
    crops = np.stack(
        [
            np.maximum(box_array[picked, 0], line_boxes[lines, 0]),
            line_boxes[lines, 1],
            np.minimum(box_array[picked, 2], line_boxes[lines, 2]),
            line_boxes[lines, 3],
        ],
        axis=1,
    )
    crops = np.clip(np.round(crops), 0, [image.shape[1], image.shape[0]] * 2).astype(np.int64)
    wide = (crops[:, 2] - crops[:, 0] >= 3) & (crops[:, 3] - crops[:, 1] >= 3)
    picked, lines, crops = picked[wide], lines[wide], crops[wide]
    if not len(picked):
        return list(widgets)
    out = list(widgets)
    for b, line, (text, score) in zip(picked.tolist(), lines.tolist(), read(image, crops), strict=True):
        words = text.strip().rstrip(TRAILING_PUNCTUATION).strip()
        if score < READ_CONFIDENCE or sum(c.isalnum() for c in words) < MIN_NAME_CHARACTERS:
            continue
        line_text = worded[line].text or ""
        if not in_line(words, line_text):
            continue
        gaps = ink_gaps(image, line_boxes[line], box_array[b])
        height = line_boxes[line, 3] - line_boxes[line, 1]
        clear = gaps is not None and min(gaps) >= max(MIN_WORD_GAP, READ_WORD_GAP * height)
        if clear or at_word_edges(words, line_text):
            out[boxes[b]] = out[boxes[b]].replace(text=words)
    return out


def is_cjk_words(line: Element) -> bool:
    """Whether ``line`` is CJK text read with confidence (:func:`drop_boxes_in_cjk_words`' lines): written
    without spaces, it holds several words however it splits (``同意《用户许可协议》《隐私政策》``)."""
    return line.score >= CJK_CONFIDENCE and is_cjk_text(line.text or "", CJK_LETTERS)


def squeezed(text: str) -> str:
    """``text`` without spaces, case-folded: OCR glues and splits words differently in a line and a box."""
    return "".join(text.split()).casefold()


def in_line(words: str, line_text: str) -> bool:
    """Whether ``words`` read in a box are part of the line's text (:data:`READ_IN_LINE`)."""
    return (
        max(
            fuzz.partial_ratio(words.casefold(), line_text.casefold()),
            fuzz.partial_ratio(squeezed(words), squeezed(line_text)),
        )
        >= READ_IN_LINE
    )


def at_word_edges(words: str, line_text: str) -> bool:
    """Whether ``words`` match a run of the line's text that starts and ends at word edges (a space, a
    punctuation mark or the line's ends): a box that cuts a word (``devi`` of ``device``) does not."""
    text, line = words.casefold(), line_text.casefold()
    match = fuzz.partial_ratio_alignment(text, line)
    if match is None:
        return False
    start, end = match.dest_start, match.dest_end
    starts = start == 0 or line[start - 1] in WORD_EDGES or text[:1] in WORD_EDGES
    ends = end >= len(line) or line[end] in WORD_EDGES or text[-1:] in WORD_EDGES
    return starts and ends
