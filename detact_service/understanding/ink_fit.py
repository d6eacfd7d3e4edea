"""Fit a detector's padded box to the control it found, on screens driven by a pointer.

The UI detectors learned on phones, where a control's extent is its touch target: a 24 px glyph in a
48 px view. On a desktop or a web page the control is what is drawn (a radio's circle, an icon link), and
the detector's box, padded as on a phone, misses it at IoU 0.5 (a 26 px radio in a 46 px box). A small
detector box whose border lies on flat ground (one colour all round) holds a control drawn smaller than
the box; the box shrinks to that drawing's extent plus a margin, or to its extent alone when it is a filled
disc (a dot, a round avatar: its edge is the control's). A box that crosses a visible edge (a
button's frame or fill, another region) is left as it is, and so is every box on a phone-shaped screen;
one whose side lies on a rule with the ground past it too (a list's separator) is fitted within the rule.
OCR text in a box keeps it too (a table cell, a menu item), unless it is a drawing read as text (``×``, a
magnifier read ``Q``). A box round nothing but an upright stroke (a ruler's tick, a separator) is no
control and goes, and so does a box round a patch of the ground it lies on (:func:`is_blank_patch`).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from detact_service.core import DETECTOR_SOURCE, PHONE_ASPECT, Element, ElementType
from detact_service.detectors.classical_pixels import border_pixels, box_sums, edge_cuts, edge_depths
from detact_service.geometry import areas, boxes_of, containment
from detact_service.stages import RGBImage
from detact_service.understanding.glyph_text import is_glyph_text, is_letter_text
from detact_service.understanding.line_split import RULE_SHARE

OCR_SOURCE = "ocr"
TEXT_INSIDE = 0.6
"""Share of an OCR line's area inside a detector box for the box to hold that text."""
TEXT_COVER = 0.2
"""Share of a detector box's area an OCR line covers for the box to hold text (a line read across several
table cells lies in none of them)."""
MAX_SIDE = 96
"""Boxes larger than this (either side, px) are rows, fields or panels, whose drawn part is not their
extent."""
INK_CONTRAST = 24
"""A pixel differs from the ground by this much in some channel (0-255) to count as drawn."""
RING_NOISE = 0.03
"""Share of the border ring's pixels allowed to differ from its colour (JPEG noise, a stray pixel)."""
FIT_SHARE = 0.5
"""The drawing fills at most this share of the box's area for the box to shrink."""
MIN_SIDE = 12
"""The fitted box is at least this wide and tall (px, within the detector's box): a thin drawing (an
ellipsis, a dash) is a glyph of an icon font, whose box is a square.

A drawing taller than wide is fitted to a square for the same reason (a vertical ellipsis, a bookmark, a
pin: an icon font draws them narrow in a square em box); one wider than tall keeps its shape (a switch,
a slider, a dropdown's arrow). Measured through `full` (same 15 test screens a source): web-synthetic
0.767 -> 0.775 per control, Qt 0.658 -> 0.663, the other sources unchanged."""
MAX_SIDE_HEIGHTS = 4.0
"""On a screen of large text (a page zoomed, a high-DPI capture) the limit is this many of its median text
line heights instead, when that is more."""
MARGIN = 0.1
"""Margin kept round the drawing, as a share of its smaller side (plus one pixel): a toolbar button's
hover frame lies a little outside its glyph."""
DISC_MATCH = 0.93
"""Share of a drawing's extent on which it agrees with the ellipse inscribed in that extent for it to be a
filled disc (MiniWoB++'s 18 px dots 0.96; a data-engine Qt toolbar's solid glyphs, a cube, a car, 0.68-0.84;
at 18 px a filled hexagon 0.90, a rounded square 0.85-0.91, a square 0.79), whose edge is the control's
own: the box becomes its extent, no margin."""
DISC_FIT_SHARE = 0.75
"""A disc fills at most this share of the box for the box to shrink to it (MiniWoB++'s 18 px dots in the
detector's 24 px boxes fill 0.56, above :data:`FIT_SHARE`)."""
STROKE_WIDTH = 2
"""A drawing at most this wide (px) is an upright stroke, no control: the box goes. On the 60 ScreenAgent
desktops 66 of 1,659 fitted boxes held one, 44 of them a word processor's ruler ticks (1x4 px)."""


def ink_against_border(crop: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """(which pixels of ``crop`` are drawn, which of its border ring's pixels are): each differs by more
    than :data:`INK_CONTRAST` in some channel from the ground, the median colour of the border ring."""
    pixels = crop.astype(np.int16)
    border = border_pixels(pixels)
    ground = np.median(border, axis=0)
    drawn: npt.NDArray[np.bool_] = np.abs(pixels - ground).max(axis=2) > INK_CONTRAST
    ring: npt.NDArray[np.bool_] = np.abs(border - ground).max(axis=1) > INK_CONTRAST
    return drawn, ring


EDGE_RULE_SHARE = 0.9
"""A line along a box's side drawn on this share of its length is a rule the box lies on ..."""
EDGE_RULE_REACH = 0.15
"""... looked for this share of the box's size deep inside its side (at least :data:`EDGE_RULE_DEPTH` px);
the ground must lie past the rule within as far outside the box (a separator between two rows, drawn
thicker on a page zoomed, not the edge of another region) ..."""
EDGE_RULE_DEPTH = 3
EDGE_RULE_GROUND = 0.1
"""... where at most this share of a line differs from the box's ground ..."""
EDGE_RULE_SIDES = 2
"""... on at most this many sides (three or four drawn sides are a frame round the control)."""


def padded_shares(shares: npt.NDArray[np.float64], before: int, after: int) -> npt.NDArray[np.float64]:
    """``shares`` with ``before`` and ``after`` lines off the screen added at its ends, reading 1: no ground
    lies past the screen's edge."""
    return np.concatenate([np.ones(before), shares, np.ones(after)])


def rule_trim(lines: npt.NDArray[np.float64], reach: int) -> int | None:
    """How deep a rule lies inside one side (``lines``: the drawn shares of the lines parallel to it, from
    ``reach`` outside the box to ``reach`` inside), 0 for none; None when the side crosses into another
    region (no ground line past the rule)."""
    ruled = np.flatnonzero(lines[reach:] >= EDGE_RULE_SHARE)
    if not len(ruled):
        return 0
    if not (lines[: reach + int(ruled[0])] <= EDGE_RULE_GROUND).any():
        return None
    return int(ruled.max()) + 1


def without_edge_rules(image: npt.NDArray[np.uint8], box: Sequence[int]) -> tuple[int, int, int, int] | None:
    """How many pixels to trim from the (top, bottom, left, right) of a box whose side lies on a rule with
    the ground on its far side too (a list's separator under a row of action icons), or None when no side
    does, when too many do, or when a side crosses into another region (a window's title bar past a
    button's box, a taskbar's edge). Such a rule crosses the box's border ring, which would otherwise
    leave the box unfitted; the ground is read inside the rules' reach, where they cannot outvote it."""
    x0, y0, x1, y1 = box
    if min(x1 - x0, y1 - y0) < 4 * EDGE_RULE_DEPTH:
        return None
    reach_x = max(EDGE_RULE_DEPTH, round(EDGE_RULE_REACH * (x1 - x0)))
    reach_y = max(EDGE_RULE_DEPTH, round(EDGE_RULE_REACH * (y1 - y0)))
    ground = np.median(border_pixels(image[y0 + reach_y : y1 - reach_y, x0 + reach_x : x1 - reach_x]), axis=0)
    height, width = image.shape[:2]
    gx0, gy0 = max(x0 - reach_x, 0), max(y0 - reach_y, 0)
    gx1, gy1 = min(x1 + reach_x, width), min(y1 + reach_y, height)
    area = image[gy0:gy1, gx0:gx1].astype(np.int16)
    ink = np.abs(area - ground.astype(np.int16)).max(axis=2) > INK_CONTRAST
    rows = padded_shares(ink[:, x0 - gx0 : x1 - gx0].mean(axis=1), gy0 - (y0 - reach_y), y1 + reach_y - gy1)
    columns = padded_shares(ink[y0 - gy0 : y1 - gy0].mean(axis=0), gx0 - (x0 - reach_x), x1 + reach_x - gx1)
    trims = (
        rule_trim(rows[: 2 * reach_y], reach_y),
        rule_trim(rows[::-1][: 2 * reach_y], reach_y),
        rule_trim(columns[: 2 * reach_x], reach_x),
        rule_trim(columns[::-1][: 2 * reach_x], reach_x),
    )
    if any(t is None for t in trims):
        return None
    top, bottom, left, right = (int(t or 0) for t in trims)
    sides = sum(t > 0 for t in (top, bottom, left, right))
    return (top, bottom, left, right) if 0 < sides <= EDGE_RULE_SIDES else None


def drawing_and_roundness(
    image: npt.NDArray[np.uint8], box: Sequence[int], max_side: float = MAX_SIDE
) -> tuple[tuple[int, int, int, int], float] | None:
    """The extent of what is drawn in a small box on flat ground (None for a large box, a box crossing an
    edge, nothing drawn), and the share of that extent on which the drawing agrees with the ellipse
    inscribed in it (a filled disc near 1, a glyph's strokes far less)."""
    height, width = image.shape[:2]
    x0, y0, x1, y1 = box
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
    if x1 - x0 < 6 or y1 - y0 < 6 or max(x1 - x0, y1 - y0) > max_side:
        return None
    ink, ring = ink_against_border(image[y0:y1, x0:x1])
    if ring.mean() > RING_NOISE:
        trimmed = without_edge_rules(image, (x0, y0, x1, y1))
        if trimmed is None:
            return None
        top, bottom, left, right = trimmed
        x0, y0, x1, y1 = x0 + left, y0 + top, x1 - right, y1 - bottom
        ink, ring = ink_against_border(image[y0:y1, x0:x1])
        if ring.mean() > RING_NOISE:
            return None
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if not len(rows):
        return None
    drawn = ink[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    roundness = disc_agreement(drawn)
    return (int(x0 + cols[0]), int(y0 + rows[0]), int(x0 + cols[-1] + 1), int(y0 + rows[-1] + 1)), roundness


BLANK_CONTRAST = 8
"""A pixel differs from a blank box's colour by this much in some channel (0-255) to count as faint
drawing: an empty field's light grey frame, a dark theme's unchecked box (15 levels above its ground)."""
FAINT_SHARE = 0.03
"""Share of a blank box's pixels allowed to be faintly drawn (JPEG noise)."""
BLANK_NOISE = 2
"""Pixels of a blank box allowed to differ by :data:`INK_CONTRAST` (a key's ``.`` is more)."""
FRAME_SIDES = 3
"""A box that layout edges reach into on this many sides lies in a frame (a field, a cell): not blank."""
OUTSIDE_BAND = 3
"""Width (px) of the band along each side of a box compared with its inside."""
GROUND_SIDE = 0.9
"""A side whose band is the inside's colour (within :data:`GROUND_CONTRAST`) on this share of its pixels,
or that lies on the screen's edge, is open to the ground."""
GROUND_CONTRAST = 16
"""How far (0-255, some channel) the band's pixels may be from the inside's colour (JPEG noise, a page's
grey beside a toolbar's white)."""
OPEN_SIDES = 2
"""A blank inside open to the ground on this many sides is the ground itself, not a swatch."""


def open_sides(image: npt.NDArray[np.uint8], box: Sequence[int], ground: npt.NDArray[np.float64]) -> int:
    """How many sides of ``box`` lie on the screen's edge or have the ``ground`` colour running on past
    them (a band of :data:`OUTSIDE_BAND` px outside each side)."""
    height, width = image.shape[:2]
    x0, y0, x1, y1 = box
    band = OUTSIDE_BAND
    sides = [
        image[max(y0 - band, 0) : y0, x0:x1],
        image[y1 : min(y1 + band, height), x0:x1],
        image[y0:y1, max(x0 - band, 0) : x0],
        image[y0:y1, x1 : min(x1 + band, width)],
    ]
    return sum(
        1
        for side in sides
        if not side.size
        or (np.abs(side.reshape(-1, 3).astype(np.int16) - ground).max(axis=1) <= GROUND_CONTRAST).mean()
        >= GROUND_SIDE
    )


def is_blank_patch(image: npt.NDArray[np.uint8], box: Sequence[int]) -> bool:
    """Whether a small box holds nothing but the ground round it: nothing drawn in it (faint frames count)
    once the layout edges reaching into it are cut off (:func:`.classical_pixels.edge_cuts`), not inside a
    frame, and its colour running on past :data:`OPEN_SIDES` of its sides (a coloured swatch differs from
    what surrounds it). The UI detectors draw such boxes at a screen's edge, beside a toolbar's first
    button or on an empty stretch of a status bar."""
    height, width = image.shape[:2]
    x0, y0, x1, y1 = max(box[0], 0), max(box[1], 0), min(box[2], width), min(box[3], height)
    if x1 - x0 < 6 or y1 - y0 < 6 or max(x1 - x0, y1 - y0) > MAX_SIDE:
        return False
    # The inside no edge cut reaches: strongly drawn there, drawn however the cuts fall (most boxes: a glyph)
    depth_y, depth_x = edge_depths((x0, y0, x1, y1))
    core = image[y0 + depth_y : y1 - depth_y, x0 + depth_x : x1 - depth_x].reshape(-1, 3).astype(np.int16)
    core_off = np.abs(core - np.median(core, axis=0)).max(axis=1) > INK_CONTRAST + BLANK_CONTRAST
    if core_off.sum() > BLANK_NOISE:
        return False
    cuts = edge_cuts(image, (x0, y0, x1, y1))
    if sum(cut > 0 for cut in cuts) >= FRAME_SIDES:
        return False
    top, bottom, left, right = cuts
    x0, y0, x1, y1 = x0 + left, y0 + top, x1 - right, y1 - bottom
    crop = image[y0:y1, x0:x1].astype(np.int16)
    ground = np.median(crop.reshape(-1, 3), axis=0)
    difference = np.abs(crop - ground).max(axis=2)
    if (difference > BLANK_CONTRAST).mean() > FAINT_SHARE or (difference > INK_CONTRAST).sum() > BLANK_NOISE:
        return False
    return open_sides(image, (x0, y0, x1, y1), ground) >= OPEN_SIDES


def disc_agreement(drawn: npt.NDArray[np.bool_]) -> float:
    """Share of a drawing's extent (``drawn``: its pixels) on which it agrees with the ellipse inscribed in
    that extent (a pixel is inside when its centre is)."""
    height, width = drawn.shape
    y = (np.arange(height) + 0.5) / height * 2.0 - 1.0
    x = (np.arange(width) + 0.5) / width * 2.0 - 1.0
    return float((drawn == (y[:, None] ** 2 + x[None, :] ** 2 <= 1.0)).mean())


def fit_to_drawing(
    box: Sequence[int], drawing: Sequence[int], roundness: float = 0.0
) -> tuple[int, int, int, int] | None:
    """``box`` fitted to the ``drawing`` inside it, or None when the drawing fills too much of it. A filled
    disc (``roundness`` at least :data:`DISC_MATCH`) is the control's own edge: the box becomes its extent."""
    x0, y0, x1, y1 = box
    ix0, iy0, ix1, iy1 = drawing
    share = (ix1 - ix0) * (iy1 - iy0) / max((x1 - x0) * (y1 - y0), 1)
    if roundness >= DISC_MATCH and share <= DISC_FIT_SHARE and min(ix1 - ix0, iy1 - iy0) >= MIN_SIDE:
        return ix0, iy0, ix1, iy1
    if share > FIT_SHARE:
        return None
    margin = MARGIN * min(ix1 - ix0, iy1 - iy0) + 1
    half_height = max((iy1 - iy0) / 2 + margin, MIN_SIDE / 2)
    half_width = max((ix1 - ix0) / 2 + margin, half_height)  # taller than wide: a square (MIN_SIDE)
    cx, cy = (ix0 + ix1) / 2, (iy0 + iy1) / 2
    return (
        max(round(cx - half_width), box[0]),
        max(round(cy - half_height), box[1]),
        min(round(cx + half_width), box[2]),
        min(round(cy + half_height), box[3]),
    )


def fitted_box(image: npt.NDArray[np.uint8], box: Sequence[int]) -> tuple[int, int, int, int] | None:
    """The box fitted to the drawing inside it, or None when it stays as it is."""
    found = drawing_and_roundness(image, box)
    return None if found is None else fit_to_drawing(box, *found)


def is_stroke(drawing: Sequence[int]) -> bool:
    """Whether a drawing is one upright stroke at most :data:`STROKE_WIDTH` wide: a ruler's tick, a
    toolbar's separator, a text caret; no control is drawn so (a minimise button's dash lies flat)."""
    return drawing[2] - drawing[0] <= STROKE_WIDTH


def reads_a_drawing(line: Element) -> bool:
    """Whether an OCR line is a drawing read as text: a pictogram (:func:`.glyph_text.is_glyph_text`:
    ``×``, ``≡``) or one letter (a magnifier read ``Q``, a toolbar's ``B``); a lone digit is a table
    cell's text."""
    text = (line.text or "").strip()
    return is_glyph_text(text, line.score) or (is_letter_text(text) and not text.isdigit())


def fit_to_ink(image: RGBImage | None, elements: Sequence[Element]) -> list[Element]:
    """The elements with each small textless detector box on flat ground fitted to what it holds (module
    docstring). A box that holds an OCR line keeps its extent: a table cell, a menu item or a labelled
    button spans more than its words."""
    if image is None:
        return list(elements)
    height, width = image.shape[:2]
    if height >= PHONE_ASPECT * width:
        return list(elements)
    detected = [i for i, e in enumerate(elements) if e.source == DETECTOR_SOURCE]
    if not detected:
        return list(elements)
    words = [e for e in elements if e.type is ElementType.TEXT and e.source == OCR_SOURCE]
    lines = boxes_of([e for e in words if not reads_a_drawing(e)])
    holds_text: npt.NDArray[np.bool_] = np.zeros(len(detected), dtype=bool)
    if len(lines):
        boxes = boxes_of([elements[i] for i in detected])
        inside = containment(lines, boxes) >= TEXT_INSIDE
        covering = containment(boxes, lines) >= TEXT_COVER  # [box, line]
        holds_text = np.asarray(inside.any(axis=0) | covering.any(axis=1), dtype=bool)
    heights = [e.height for e in words]
    max_side = max(MAX_SIDE, MAX_SIDE_HEIGHTS * float(np.median(heights))) if heights else MAX_SIDE
    out: list[Element | None] = list(elements)
    # One crop per box, each at most max_side px a side: 2-14 ms for a 1024x768 desktop's boxes (measured).
    for index, has_text in zip(detected, holds_text.tolist(), strict=True):
        if has_text:
            continue
        if is_blank_patch(image, elements[index].bbox):
            out[index] = None
            continue
        found = drawing_and_roundness(image, elements[index].bbox, max_side)
        if found is None:
            continue
        drawing, roundness = found
        if is_stroke(drawing):
            out[index] = None
            continue
        fitted = fit_to_drawing(elements[index].bbox, drawing, roundness)
        if fitted is not None:
            out[index] = elements[index].replace(bbox=fitted)
    return [e for e in out if e is not None]


BARE_RING = 3
"""Pixels round a box that must be bare too (an empty field's frame or underline lies just outside)."""
BARE_CONTRAST = 10
"""A pixel differs from the box's colour by more than this in some channel (0-255) to count as drawn."""
BARE_INK = 0.003
"""Share of drawn pixels (JPEG noise, a stray pixel) a bare box and its ring may hold."""
BARE_STD = 3.0
"""Grey standard deviation of a bare box and of its ring, at half scale (the quick test, all boxes at
once, before the exact one)."""


def drop_bare_boxes(image: RGBImage | None, elements: Sequence[Element]) -> list[Element]:
    """The elements without the detector boxes that lie on bare ground, any screen: nothing drawn in the
    box or in a ring round it, not even a frame. The phone detector draws them at a screen's side edges
    and over empty stretches of a page (a `phone_real` Bing screen's blank middle typed an input); none
    of the 59 on the `phone_real` val and test screens is a clickable view. The grey variance of every box
    and of its ring comes from integral images of the screen at half scale (about 2 ms a 1920x1080
    screen; at full scale 5 ms, and box by box up to 15 ms); only the flat ones are checked pixel by
    pixel."""
    detected = [i for i, e in enumerate(elements) if e.source == DETECTOR_SOURCE and not e.text]
    if image is None or not detected or min(image.shape[:2]) < 2:  # no half-scale image of a 1 px strip
        return list(elements)
    height, width = image.shape[:2]
    half = cv2.resize(
        cv2.cvtColor(image, cv2.COLOR_RGB2GRAY), (width // 2, height // 2), interpolation=cv2.INTER_AREA
    )
    sums, squares = cv2.integral2(half, sdepth=cv2.CV_64F, sqdepth=cv2.CV_64F)
    inner = boxes_of([elements[i] for i in detected]).astype(np.int64)
    outer = inner + np.array([-BARE_RING, -BARE_RING, BARE_RING, BARE_RING])
    for boxes in (inner, outer):
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, width)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, height)
    inner_half = np.concatenate([(inner[:, :2] + 1) // 2, inner[:, 2:] // 2], axis=1)
    outer_half = np.concatenate([outer[:, :2] // 2, (outer[:, 2:] + 1) // 2], axis=1)
    outer_half[:, 2] = outer_half[:, 2].clip(0, half.shape[1])
    outer_half[:, 3] = outer_half[:, 3].clip(0, half.shape[0])
    inner_half[:, 2:] = np.maximum(inner_half[:, 2:], inner_half[:, :2])
    area_in, area_out = areas(inner_half), areas(outer_half)
    sum_in, sum_out = box_sums(sums, inner_half), box_sums(sums, outer_half)
    square_in, square_out = box_sums(squares, inner_half), box_sums(squares, outer_half)
    ring = np.maximum(area_out - area_in, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_in, mean_ring = sum_in / area_in, (sum_out - sum_in) / ring
        var_in = square_in / area_in - mean_in**2
        var_ring = (square_out - square_in) / ring - mean_ring**2
    flat = (
        (area_in > 0)
        & (var_in <= BARE_STD**2)
        & (var_ring <= BARE_STD**2)
        & (np.abs(mean_in - mean_ring) <= BARE_STD)
    )
    bare = set()
    for row in np.flatnonzero(flat).tolist():
        x0, y0, x1, y1 = outer[row].tolist()
        pixels = image[y0:y1, x0:x1].reshape(-1, 3).astype(np.int16)
        drawn = np.abs(pixels - np.median(pixels, axis=0)).max(axis=1) > BARE_CONTRAST
        if drawn.mean() <= BARE_INK:
            bare.add(detected[row])
    return [e for i, e in enumerate(elements) if i not in bare]


LABEL_ROW_ASPECT = 3.0
"""A checkable's box at least this many heights wide is row-shaped: the detector may have boxed it across
its form's row."""
LABEL_TAIL = 0.25
"""The box ends where its ink does, plus a margin, when at least this share of its width past the ink is
bare ground."""
LABEL_MARGIN = 0.15
"""Margin kept past the label's last ink, as a share of the box's height (plus one pixel)."""
LABELLED_CHECKS = frozenset({ElementType.CHECKBOX, ElementType.RADIO})


def fit_labels_to_ink(image: RGBImage, elements: Sequence[Element]) -> list[Element]:
    """The elements with each check box or radio with words, boxed by the detector as a row, ending where its
    label's ink does. On a desktop or a web page a check box is its indicator and its label (Qt, GTK, a
    ``<label>``); the detectors, which learnt phones' full-width rows, box it across its form's row
    (1225-1539 px for Qt's `Remember me` at 1229-1353). Phone-shaped screens keep their rows. The
    indicator's end of the box stays: only bare ground past the label goes, and a frame's side or rule
    there (a group box round the options) is no ink of the label."""
    height, width = image.shape[:2]
    if height >= PHONE_ASPECT * width:
        return list(elements)
    out = list(elements)
    for index, element in enumerate(elements):
        x0, y0, x1, y1 = element.bbox
        if (
            element.type not in LABELLED_CHECKS
            or not element.source.startswith(DETECTOR_SOURCE)
            or not element.text
            or x1 - x0 < LABEL_ROW_ASPECT * (y1 - y0)
        ):
            continue
        cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
        if cx1 - cx0 < 6 or cy1 - cy0 < 6:
            continue
        ink, _ = ink_against_border(image[cy0:cy1, cx0:cx1])
        ink = ink[ink.mean(axis=1) < RULE_SHARE]  # a frame's or rule's row across the box
        if not len(ink):
            continue
        columns = np.flatnonzero(ink.any(axis=0) & (ink.mean(axis=0) < FRAME_COLUMN_SHARE))
        if not len(columns):
            continue
        end = cx0 + int(columns[-1]) + 1 + round(LABEL_MARGIN * (y1 - y0)) + 1
        if x1 - end >= LABEL_TAIL * (x1 - x0):
            out[index] = element.replace(bbox=(x0, y0, end, y1))
    return out


FRAME_COLUMN_SHARE = 0.8
"""A column inked down this share of the row's height is a frame's side (a group box's, round the
options), not its label's (a letter's stem spans the glyphs, about half of the row)."""


INDICATOR_GAP = 2
"""Bare columns (px) that end a check box's indicator at the left of its label."""
INDICATOR_PAD = 2
INDICATOR_ASPECT = (0.6, 1.6)
"""Width over height of an indicator's ink: about square."""


def indicator_box(image: RGBImage, box: Sequence[int]) -> tuple[int, int, int, int] | None:
    """The box of the first drawing from the left of ``box`` (a check box's indicator before its label):
    the ink up to the first :data:`INDICATOR_GAP` bare columns, padded; None when it is not about square
    (the label's first letter touching its indicator, nothing drawn)."""
    height, width = image.shape[:2]
    x0, y0, x1, y1 = max(box[0], 0), max(box[1], 0), min(box[2], width), min(box[3], height)
    if x1 - x0 < 6 or y1 - y0 < 6:
        return None
    ink, _ = ink_against_border(image[y0:y1, x0:x1])
    columns: npt.NDArray[np.bool_] = np.asarray(ink.any(axis=0), dtype=bool)
    drawn = np.flatnonzero(columns)
    if not len(drawn):
        return None
    start = int(drawn[0])
    bare = np.flatnonzero(~columns[start:])
    gaps = bare[np.flatnonzero(np.diff(bare, prepend=-2) != 1)]  # first column of each bare run
    runs = [g for g in gaps.tolist() if columns[start + g : start + g + INDICATOR_GAP].sum() == 0]
    end = start + (runs[0] if runs else int(columns[start:].size))
    rows = np.flatnonzero(ink[:, start:end].any(axis=1))
    side_x, side_y = end - start, int(rows[-1] - rows[0] + 1)
    if not INDICATOR_ASPECT[0] <= side_x / side_y <= INDICATOR_ASPECT[1]:
        return None
    return (
        max(x0 + start - INDICATOR_PAD, 0),
        max(y0 + int(rows[0]) - INDICATOR_PAD, 0),
        min(x0 + end + INDICATOR_PAD, width),
        min(y0 + int(rows[-1]) + 1 + INDICATOR_PAD, height),
    )
