"""Classical (UIED-style) segmentation of the non-text regions of a screenshot.

The ``regions`` stage runs after OCR. It finds the outlines of widgets with a per-channel morphological
gradient, takes connected components of the thresholded edge map, drops the ones that are just text
(mostly inside an OCR line), typing the rest from their geometry and look (checkbox, radio, button,
input, image, icon, region), groups leftover glyph-like specks into icons, and appends the result to
the parse with ``source='segment'``. Everything per pixel is OpenCV or numpy; Python loops only run
over candidate components.

The second half of this module is the post-processing shared with the SAM segmenter
(:mod:`detact_service.detectors.segment_sam`): text coverage, size/frame filtering, dropping the
contents of atomic widgets and IoU de-duplication.

Pixel thresholds below are given for a 1920x1080 screen and scaled with :func:`screen_scale` (lower
bounds shrink on small screens, upper bounds grow on large ones; see :func:`scaled_min` and
:func:`scaled_max`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt
import supervision as sv

from detact_service.core import Element, ElementState, ElementType, ScreenParse
from detact_service.stages import BaseStage, RGBImage, register

IntBoxes = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

SOURCE = "segment"
"""``Element.source`` of everything the regions stage adds."""
CLASSICAL_VERSION = "classical-1"

# --- scale ---------------------------------------------------------------------------------------
REFERENCE_PIXELS = 1920 * 1080
"""Screen area the pixel constants below are tuned for."""
MIN_SCALE, MAX_SCALE = 0.4, 2.5

# --- edges ---------------------------------------------------------------------------------------
GRADIENT_KERNEL = 3
"""Side of the square kernel of the morphological gradient."""
GRADIENT_THRESHOLD = 16
"""An edge pixel has a gradient above this in at least one RGB channel (0-255)."""
LOSSY_WEAK_GRADIENT = 6
LOSSY_WEAK_FRACTION = 0.05
"""A screenshot is lossy when more than this fraction of its non-zero gradients are at most
LOSSY_WEAK_GRADIENT (rendered PNG screens: < 1 %; JPEG: 7-50 %)."""
LOSSY_GRADIENT_THRESHOLD = 32
"""Edge threshold for lossy screenshots (after denoising); faint borders are lost there."""
DENOISE_DIAMETER, DENOISE_SIGMA_COLOR, DENOISE_SIGMA_SPACE = 5, 30.0, 5.0
"""The bilateral filter applied to lossy screenshots."""
EDGE_GROWTH = GRADIENT_KERNEL // 2
"""The gradient marks this many pixels outside a shape; component boxes are shrunk back by it."""

# --- components ----------------------------------------------------------------------------------
MIN_COMPONENT_SIDE = 6
"""Components whose longer side is shorter than this (px at 1080p) are noise."""
MIN_THICKNESS = 4
"""Components thinner than this (px) are rules/separators, not regions."""

# --- shared post-processing ----------------------------------------------------------------------
TEXT_BOX_PAD = 2
"""OCR boxes grow by this (px) before coverage is measured (the gradient spills past the ink)."""
TEXT_COVER_DROP = 0.6
"""A box at least this much inside OCR text boxes is text, not a region."""
MAX_AREA_FRACTION = 0.35
"""Boxes larger than this fraction of the screen are page containers and are dropped."""
FRAME_FRACTION = 0.95
"""A box spanning this fraction of both screen sides is the screen frame."""
DEDUP_IOU = 0.7
"""Of two boxes overlapping more than this IoU only the better scored is kept."""
CONTAINED_FRACTION = 0.85
"""A box this much inside an atomic widget (checkbox, radio, button, image, icon) is its content."""
TEXT_EXEMPT_TYPES = frozenset({ElementType.CHECKBOX, ElementType.RADIO})
"""Types the final text filter spares: controls OCR misread as a glyph passed their own text check."""
ATOMIC_TYPES = frozenset(
    {ElementType.CHECKBOX, ElementType.RADIO, ElementType.BUTTON, ElementType.IMAGE, ElementType.ICON}
)
TYPE_SCORES: dict[ElementType, float] = {
    ElementType.CHECKBOX: 0.85,
    ElementType.RADIO: 0.85,
    ElementType.BUTTON: 0.8,
    ElementType.INPUT: 0.75,
    ElementType.IMAGE: 0.6,
    ElementType.ICON: 0.5,
    ElementType.REGION: 0.4,
}
"""Confidence of each heuristic type; also the priority when de-duplicating."""

# --- checkboxes and radios -----------------------------------------------------------------------
CONTROL_MIN_SIDE = 12
"""Smallest checkbox/radio (px). Not scaled down: control sizes follow the DPI, not the resolution."""
CONTROL_MAX_SIDE = 40
CONTROL_MAX_ASPECT = 1.25
SQUARE_MIN_FILL = 0.9
"""A checkbox's filled outline covers at least this fraction of its box (a square: ~1.0)."""
CIRCLE_FILL_RANGE = (0.65, 0.9)
"""A radio's filled outline covers this fraction of its box (a disc: pi/4 ~ 0.785)."""
CONTROL_CORE_INSET = 0.3
"""The core of a control (where the mark or dot is) starts this fraction of its side inside."""
CONTROL_RING_WIDTH = 0.1
"""The interior ring compared with the core hugs it, this fraction of the side wide (at least 2 px),
so that it stays clear of a radio's circular outline."""
CHECK_CONTRAST = 60.0
"""RGB distance between a control's core and its interior ring that means a dot ("checked"); also
the distance between fill and outside that makes a fill an accent."""
CHECK_MARK_DENSITY = 0.1
"""Edge density in the core above which a control holds a mark."""
ACCENT_MIN_SATURATION = 0.35
"""A fill this saturated (HSV S, 0-1) is an accent colour."""
ACCENT_LUMA_DROP = 40.0
"""A fill this much darker than the outside is an accent colour."""
LOOKALIKE_GLYPHS = frozenset("OoQDB80@©®Øøaecs")
"""Characters shaped like a control (what an OCR reads a swallowed radio or checkbox as)."""
CONTROL_LABEL_GAP = 0.3
"""A control the OCR line swallowed without reading it must be this fraction of its side (at least)
clear of the label's ink; letters within a word are closer."""
GLYPH_LABEL_GAP = 0.8
"""The same when the OCR read the control as a look-alike glued to the label ('OWeekly'): the ink
gap after a letter O and a word space (its OCR may drop) reaches ~0.65 of its height."""

# --- rectangles: buttons, inputs, regions --------------------------------------------------------
RECT_SIDE_SPAN = 0.6
"""Middle fraction of each side checked for an edge (tolerates rounded corners)."""
RECT_MIN_SIDE_OCCUPANCY = 0.8
"""Every side's middle must be this fraction edge for the component to be a rectangle."""
RECT_SIDE_DEPTH = 2
"""Depth (px) of the band along each side checked for edges."""
RECT_SIDE_SEARCH = 2
"""How many pixels inwards the band along each side is searched."""
BORDER_SKIP = 3
"""Pixels skipped inside a box (its outline) before its fill colour is sampled."""
BAND = 3
"""Width (px) of the bands sampled for fill and surrounding colours."""
FILL_CONTRAST = 40.0
"""RGB distance between a rectangle's fill and its surroundings that makes it "filled"."""
SOLID_MAX_STD = 24.0
"""Grey-level std of the fill band of a solid rectangle."""
CONTENT_MIN_DENSITY = 0.01
"""Edge density inside a rectangle above which it has content (a label, an icon)."""
BUTTON_MIN_HEIGHT, BUTTON_MAX_HEIGHT = 18, 96
BUTTON_MIN_WIDTH = 24
BUTTON_MAX_WIDTH_FRACTION = 0.4
"""Buttons are narrower than this fraction of the screen width."""
INPUT_MIN_HEIGHT, INPUT_MAX_HEIGHT = 18, 80
INPUT_MIN_WIDTH = 80
INPUT_MIN_ASPECT = 3.0
"""Inputs are at least this many times wider than tall."""
TEXT_INSIDE_FRACTION = 0.8
"""An OCR box this much inside a rectangle is its text (a label, a placeholder)."""
CENTERED_TEXT_TOLERANCE = 0.15
"""Text whose centre is within this fraction of the width from the box centre is a centred label."""
LIGHT_MARGIN = 10.0
"""A fill this much lighter (grey level) than the outside reads as a field, not a button."""
REGION_MIN_SIDE = 24
"""Rectangles thinner than this are not regions (nor are those within icon size: they are icons)."""

# --- images --------------------------------------------------------------------------------------
IMAGE_MIN_SIDE = 48
IMAGE_CORE_INSET = 0.1
"""Texture is measured this fraction of the side inside an image's box (away from its frame)."""
IMAGE_MIN_EDGE_DENSITY = 0.12
"""Non-text edge density of an image's core (photos and illustrations are busy)."""
IMAGE_MIN_STD = 10.0
"""Grey-level std of an image's core (flat hatching is not a picture)."""

# --- icons ---------------------------------------------------------------------------------------
ICON_GROUP_GAP = 3
"""Leftover specks closer than this (px at 1080p, more on larger screens) are parts of one icon."""
ICON_MAX_ASPECT = 2.5
ICON_MAX_TEXT_COVER = 0.3


# ================================================================================================
# Shared post-processing (also used by the SAM segmenter)
# ================================================================================================


def screen_scale(width: int, height: int) -> float:
    """How much larger this screen is than 1920x1080 (by side length), clipped to a sane range."""
    return float(np.clip(math.sqrt(width * height / REFERENCE_PIXELS), MIN_SCALE, MAX_SCALE))


def scaled_min(value: float, scale: float) -> float:
    """A lower bound in pixels: shrinks on small screens, never grows."""
    return value * min(scale, 1.0)


def scaled_max(value: float, scale: float) -> float:
    """An upper bound in pixels: grows on large screens, never shrinks."""
    return value * max(scale, 1.0)


def text_boxes_of(parse: ScreenParse) -> IntBoxes:
    """The boxes of the text lines (OCR output) already in a parse, as ``(M, 4)`` xyxy."""
    return text_lines_of(parse)[0]


def text_lines_of(parse: ScreenParse) -> tuple[IntBoxes, list[str]]:
    """The boxes (``(M, 4)`` xyxy) and strings of the text lines already in a parse."""
    lines = [e for e in parse.elements if e.type is ElementType.TEXT]
    boxes = np.asarray([e.bbox for e in lines], dtype=np.int64).reshape(-1, 4)
    return boxes, [e.text or "" for e in lines]


def box_areas(boxes: npt.NDArray[np.number]) -> FloatArray:
    """Areas of ``(N, 4)`` xyxy boxes."""
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    return np.clip(b[:, 2] - b[:, 0], 0, None) * np.clip(b[:, 3] - b[:, 1], 0, None)


def intersection_areas(a: npt.NDArray[np.number], b: npt.NDArray[np.number]) -> FloatArray:
    """``(N, M)`` areas of the intersections of every box of ``a`` with every box of ``b``."""
    a = np.asarray(a, dtype=np.float64).reshape(-1, 1, 4)
    b = np.asarray(b, dtype=np.float64).reshape(1, -1, 4)
    w = np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0])
    h = np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1])
    return np.clip(w, 0, None) * np.clip(h, 0, None)


def containment(inner: npt.NDArray[np.number], outer: npt.NDArray[np.number]) -> FloatArray:
    """``(N, M)``: the fraction of each ``inner`` box's area that lies inside each ``outer`` box."""
    return intersection_areas(inner, outer) / np.maximum(box_areas(inner), 1.0)[:, None]


def text_coverage(
    boxes: npt.NDArray[np.number], text_boxes: npt.NDArray[np.number], pad: int = TEXT_BOX_PAD
) -> FloatArray:
    """The fraction of each box covered by (padded) text boxes, from 0 to 1."""
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    if len(boxes) == 0 or len(text_boxes) == 0:
        return np.zeros(len(boxes), dtype=np.float64)
    padded = np.asarray(text_boxes, dtype=np.float64).reshape(-1, 4) + np.array([-pad, -pad, pad, pad])
    return np.clip(containment(boxes, padded).sum(axis=1), 0.0, 1.0)


def plausible_boxes(
    boxes: npt.NDArray[np.number],
    width: int,
    height: int,
    min_side: float,
    max_area_fraction: float = MAX_AREA_FRACTION,
) -> BoolArray:
    """Which boxes are neither specks, page-sized containers nor the screen frame."""
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    big_enough = np.maximum(w, h) >= min_side
    not_huge = w * h <= max_area_fraction * width * height
    not_frame = ~((w >= FRAME_FRACTION * width) & (h >= FRAME_FRACTION * height))
    return big_enough & not_huge & not_frame


def drop_atomic_contents(elements: Sequence[Element]) -> list[Element]:
    """Drop elements lying inside a smaller-grained widget (a checkbox's mark, a button's label)."""
    if len(elements) < 2:
        return list(elements)
    boxes = np.asarray([e.bbox for e in elements], dtype=np.float64)
    areas = box_areas(boxes)
    atomic = np.asarray([e.type in ATOMIC_TYPES for e in elements])
    inside = containment(boxes, boxes) >= CONTAINED_FRACTION
    np.fill_diagonal(inside, False)
    inside &= atomic[None, :] & (areas[:, None] < areas[None, :])
    dropped: list[bool] = np.asarray(inside.any(axis=1), dtype=bool).tolist()
    return [e for e, drop in zip(elements, dropped, strict=True) if not drop]


def deduplicate(elements: Sequence[Element], iou_threshold: float = DEDUP_IOU) -> list[Element]:
    """Class-agnostic NMS (supervision): of overlapping duplicates keep the best-scored one."""
    if len(elements) < 2:
        return list(elements)
    predictions = np.asarray([[*e.bbox, e.score] for e in elements], dtype=np.float64)
    keep = sv.box_non_max_suppression(predictions, iou_threshold=iou_threshold)
    return [e for e, k in zip(elements, keep, strict=True) if k]


def postprocess_regions(
    candidates: Sequence[Element], text_boxes: IntBoxes, width: int, height: int, min_side: float
) -> list[Element]:
    """Shared tail of both segmenters: size/frame filter, text filter, contents, de-duplication."""
    if not candidates:
        return []
    boxes = np.asarray([e.bbox for e in candidates], dtype=np.int64)
    keep = plausible_boxes(boxes, width, height, min_side)
    exempt = np.asarray([e.type in TEXT_EXEMPT_TYPES for e in candidates])
    keep &= exempt | (text_coverage(boxes, text_boxes) < TEXT_COVER_DROP)
    kept = [e for e, k in zip(candidates, keep, strict=True) if k]
    return deduplicate(drop_atomic_contents(kept))


def append_regions(parse: ScreenParse, regions: Sequence[Element]) -> ScreenParse:
    """The parse with ``regions`` appended after the elements it already holds."""
    return parse.with_elements([*parse.elements, *regions])


# ================================================================================================
# The classical segmenter
# ================================================================================================


def _box_sums(integral: npt.NDArray[np.number], boxes: IntBoxes) -> FloatArray:
    """Sums over xyxy boxes (already clipped to the image) from an OpenCV integral image."""
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    total = integral[y2, x2].astype(np.float64) - integral[y1, x2] - integral[y2, x1] + integral[y1, x1]
    return np.asarray(total, dtype=np.float64)


def _clip_boxes(boxes: IntBoxes, width: int, height: int) -> IntBoxes:
    out = boxes.copy()
    out[:, [0, 2]] = np.clip(out[:, [0, 2]], 0, width)
    out[:, [1, 3]] = np.clip(out[:, [1, 3]], 0, height)
    out[:, 2] = np.maximum(out[:, 2], out[:, 0])
    out[:, 3] = np.maximum(out[:, 3], out[:, 1])
    return out


def _inset(boxes: IntBoxes, by: npt.ArrayLike) -> IntBoxes:
    """Boxes shrunk by ``by`` (a number or one per box) on every side; negative grows; never inverted."""
    d = np.broadcast_to(np.asarray(by, dtype=np.int64), (len(boxes),))[:, None]
    out = boxes + np.hstack([d, d, -d, -d])
    cx, cy = (boxes[:, 0] + boxes[:, 2]) // 2, (boxes[:, 1] + boxes[:, 3]) // 2
    out[:, 0] = np.minimum(out[:, 0], cx)
    out[:, 1] = np.minimum(out[:, 1], cy)
    out[:, 2] = np.maximum(out[:, 2], out[:, 0])
    out[:, 3] = np.maximum(out[:, 3], out[:, 1])
    return out


@dataclass
class _Integrals:
    """Integral images of one screenshot, for O(1) box statistics."""

    width: int
    height: int
    rgb: npt.NDArray[np.int32]
    gray: npt.NDArray[np.int32]
    gray_sq: npt.NDArray[np.float64]
    edges: npt.NDArray[np.int32]
    edges_no_text: npt.NDArray[np.int32]

    def _stat(self, integral: npt.NDArray[np.number], boxes: IntBoxes) -> tuple[FloatArray, FloatArray]:
        clipped = _clip_boxes(boxes, self.width, self.height)
        return _box_sums(integral, clipped), box_areas(clipped)

    def mean_rgb(self, boxes: IntBoxes) -> FloatArray:
        sums, areas = self._stat(self.rgb, boxes)
        return sums / np.maximum(areas, 1.0)[:, None]

    def band_rgb(self, outer: IntBoxes, inner: IntBoxes) -> FloatArray:
        """Mean colour of the band between ``outer`` and ``inner`` boxes (NaN when empty)."""
        so, ao = self._stat(self.rgb, outer)
        si, ai = self._stat(self.rgb, inner)
        area = ao - ai
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(area[:, None] > 0, (so - si) / area[:, None], np.nan)

    def band_gray_std(self, outer: IntBoxes, inner: IntBoxes) -> FloatArray:
        so, ao = self._stat(self.gray, outer)
        si, ai = self._stat(self.gray, inner)
        qo, _ = self._stat(self.gray_sq, outer)
        qi, _ = self._stat(self.gray_sq, inner)
        area = np.maximum(ao - ai, 1.0)
        mean = (so - si) / area
        return np.sqrt(np.clip((qo - qi) / area - mean**2, 0.0, None))

    def gray_std(self, boxes: IntBoxes) -> FloatArray:
        s, a = self._stat(self.gray, boxes)
        q, _ = self._stat(self.gray_sq, boxes)
        a = np.maximum(a, 1.0)
        return np.sqrt(np.clip(q / a - (s / a) ** 2, 0.0, None))

    def edge_density(self, boxes: IntBoxes, no_text: bool = False) -> FloatArray:
        s, a = self._stat(self.edges_no_text if no_text else self.edges, boxes)
        return s / np.maximum(a, 1.0)


def _luma(rgb: FloatArray) -> FloatArray:
    return rgb @ np.array([0.299, 0.587, 0.114])


def _saturation(rgb: FloatArray) -> FloatArray:
    hi, lo = rgb.max(axis=-1), rgb.min(axis=-1)
    return np.where(hi > 0, (hi - lo) / np.maximum(hi, 1e-6), 0.0)


def _distance(a: FloatArray, b: FloatArray) -> FloatArray:
    """RGB distance; NaN (an empty band at the screen edge) counts as no contrast."""
    return np.nan_to_num(np.linalg.norm(a - b, axis=-1), nan=0.0)


def _strongest_gradient(image: RGBImage) -> npt.NDArray[np.uint8]:
    kernel = np.ones((GRADIENT_KERNEL, GRADIENT_KERNEL), np.uint8)
    r, g, b = cv2.split(cv2.morphologyEx(image, cv2.MORPH_GRADIENT, kernel))
    return np.asarray(cv2.max(cv2.max(r, g), b), dtype=np.uint8)


def looks_lossy(gradient: npt.NDArray[np.uint8]) -> bool:
    """Whether a screenshot went through lossy compression (JPEG): rendered UIs are flat, so weak
    gradients are rare; compression noise makes them common."""
    nonzero = cv2.countNonZero(gradient)
    weak = cv2.countNonZero(cv2.inRange(gradient, 1, LOSSY_WEAK_GRADIENT))
    return nonzero > 0 and weak > LOSSY_WEAK_FRACTION * nonzero


def edge_map(image: RGBImage) -> npt.NDArray[np.uint8]:
    """Binary (0/1) edges: the per-channel morphological gradient, maxed over channels, thresholded.

    Lossy screenshots are first smoothed with an edge-preserving (bilateral) filter and thresholded
    higher, or compression ringing would thicken and merge every outline.
    """
    strongest = _strongest_gradient(image)
    threshold = GRADIENT_THRESHOLD
    if looks_lossy(strongest):
        smooth = cv2.bilateralFilter(image, DENOISE_DIAMETER, DENOISE_SIGMA_COLOR, DENOISE_SIGMA_SPACE)
        strongest = _strongest_gradient(np.asarray(smooth, dtype=np.uint8))
        threshold = LOSSY_GRADIENT_THRESHOLD
    _, edges = cv2.threshold(strongest, threshold, 1, cv2.THRESH_BINARY)
    return np.asarray(edges, dtype=np.uint8)


def connected_boxes(binary: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.integer], IntBoxes]:
    """8-connected components of a 0/1 map: the label image and ``(N, 4)`` xyxy boxes (row 0: background).

    16-bit labels are several times faster in OpenCV; busy maps that overflow them fall back to 32-bit.
    """
    try:
        _, labels, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8, ltype=cv2.CV_16U)
    except cv2.error:
        _, labels, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8, ltype=cv2.CV_32S)
    boxes = np.column_stack(
        [stats[:, 0], stats[:, 1], stats[:, 0] + stats[:, 2], stats[:, 1] + stats[:, 3]]
    ).astype(np.int64)
    return np.asarray(labels), boxes


def _filled_fraction(labels: npt.NDArray[np.integer], index: int, box: Sequence[int]) -> float:
    """Fraction of the component's box covered by its outline with the holes filled."""
    x1, y1, x2, y2 = box
    crop = (labels[y1:y2, x1:x2] == index).astype(np.uint8)
    contours, _ = cv2.findContours(crop, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(crop)
    cv2.drawContours(filled, contours, -1, 1, thickness=cv2.FILLED)
    return float(cv2.countNonZero(filled)) / max(crop.size, 1)


@register("regions", "classical")
class ClassicalSegmenter(BaseStage):
    """UIED-like regions stage: gradient edges, components, heuristics; no model."""

    config = ("icons",)

    def model_version(self) -> str | None:
        """No model: the version of the heuristics."""
        return CLASSICAL_VERSION

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        """Append the non-text regions of each image to its parse."""
        return [
            append_regions(parse, self.segment(image, *text_lines_of(parse)))
            for image, parse in zip(images, parses, strict=True)
        ]

    # -- the pipeline of one image ---------------------------------------------------------------

    def segment(
        self, image: RGBImage, text_boxes: npt.ArrayLike, texts: Sequence[str] | None = None
    ) -> list[Element]:
        """The typed non-text regions of one ``(H, W, 3)`` RGB screenshot given its OCR lines
        (boxes, and optionally their strings, which let controls misread as a glyph be recovered)."""
        image = np.ascontiguousarray(image[..., :3], dtype=np.uint8)
        height, width = image.shape[:2]
        scale = screen_scale(width, height)
        text_boxes = np.asarray(text_boxes, dtype=np.int64).reshape(-1, 4)
        texts = list(texts) if texts is not None else [""] * len(text_boxes)

        edges = edge_map(image)
        labels, raw = connected_boxes(edges)  # raw: grown by EDGE_GROWTH px by the gradient
        if len(raw) <= 1:
            return []
        ints = self._integrals(image, edges, text_boxes)
        index = np.arange(len(raw))
        w, h = raw[:, 2] - raw[:, 0], raw[:, 3] - raw[:, 1]
        keep = (index > 0) & (np.maximum(w, h) >= scaled_min(MIN_COMPONENT_SIDE, scale))
        keep &= plausible_boxes(raw, width, height, 0.0)
        index, raw = index[keep], raw[keep]
        covered = text_coverage(raw, text_boxes) >= TEXT_COVER_DROP
        misread = self._misread_controls(raw, covered, text_boxes, texts, ints, scale)
        keep = ~covered | misread
        index, raw, misread = index[keep], raw[keep], misread[keep]
        if len(index) == 0:
            return []
        boxes = _shrink_growth(raw)

        kinds, states = self._classify(image, labels, index, raw, boxes, ints, text_boxes, scale)
        # A component kept only because it might be a misread control is text unless it is one.
        kinds = [
            kind if kind in TEXT_EXEMPT_TYPES or not maybe_text else None
            for kind, maybe_text in zip(kinds, misread.tolist(), strict=True)
        ]
        elements = [
            Element(bbox=_as_bbox(box), type=kind, score=TYPE_SCORES[kind], source=SOURCE, state=state)
            for box, kind, state in zip(boxes, kinds, states, strict=True)
            if kind is not None
        ]
        leftovers = np.asarray([kind is None for kind in kinds]) & ~misread
        elements += self._group_icons(raw[leftovers], elements, text_boxes, width, height)
        min_side = scaled_min(MIN_COMPONENT_SIDE, scale)
        return postprocess_regions(elements, text_boxes, width, height, min_side)

    def _misread_controls(
        self,
        raw: IntBoxes,
        covered: BoolArray,
        text_boxes: IntBoxes,
        texts: Sequence[str],
        ints: _Integrals,
        scale: float,
    ) -> BoolArray:
        """Text-covered components that may be a checkbox or radio swallowed by an OCR line.

        OCR line boxes often take in the control beside a label, read as nothing ('Accept terms'), as
        a glyph glued to the label ('OWeekly') or alone ('口', 'O'). A control-sized, square-ish
        component is let through (to be kept only if it then types as a checkbox or radio) when

        * it is the whole line (one character), or
        * it sits at one end of the line, clear of the rest by CONTROL_LABEL_GAP of its side, and the
          string's character at that end is not a control look-alike (the OCR ignored the control), or
        * that character is a look-alike glued to the label ('OWeekly', no space) and the gap is a
          wider GLYPH_LABEL_GAP (a word space after a letter "O" is narrower).
        """
        out = np.zeros(len(raw), dtype=bool)
        candidates = np.flatnonzero(covered)
        if len(candidates) == 0 or len(text_boxes) == 0:
            return out
        r = raw[candidates]
        boxes = _shrink_growth(r)
        bw, bh = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
        long_side, short_side = np.maximum(bw, bh), np.minimum(bw, bh)
        sized = (
            (long_side >= CONTROL_MIN_SIDE)
            & (long_side <= scaled_max(CONTROL_MAX_SIDE, scale))
            & (long_side <= CONTROL_MAX_ASPECT * short_side)
        )
        line = containment(boxes, text_boxes).argmax(axis=1)
        lines = text_boxes[line]
        at_start = boxes[:, 0] - lines[:, 0] <= 0.5 * long_side
        at_end = lines[:, 2] - boxes[:, 2] <= 0.5 * long_side

        def clear(fraction: float) -> tuple[BoolArray, BoolArray]:
            """Edge-free strips after/before the raw box (the gradient grew both shapes by EDGE_GROWTH)."""
            gap = np.maximum(np.ceil(fraction * long_side).astype(np.int64) - 2 * EDGE_GROWTH, 1)
            after = np.column_stack([r[:, 2], r[:, 1], r[:, 2] + gap, r[:, 3]])
            before = np.column_stack([r[:, 0] - gap, r[:, 1], r[:, 0], r[:, 3]])
            return ints.edge_density(after) == 0.0, ints.edge_density(before) == 0.0

        after, before = clear(CONTROL_LABEL_GAP)
        far_after, far_before = clear(GLYPH_LABEL_GAP)
        for k in np.flatnonzero(sized).tolist():
            text = texts[int(line[k])].strip()
            if not text:  # unknown string (boxes only): no evidence either way, it stays text
                continue
            if len(text) == 1:
                out[candidates[k]] = True
                continue
            first, last = text[0] in LOOKALIKE_GLYPHS, text[-1] in LOOKALIKE_GLYPHS
            glued_first, glued_last = first and not text[1].isspace(), last and not text[-2].isspace()
            starts = at_start[k] and ((after[k] and not first) or (far_after[k] and glued_first))
            ends = at_end[k] and ((before[k] and not last) or (far_before[k] and glued_last))
            out[candidates[k]] = bool(starts or ends)
        return out

    @staticmethod
    def _integrals(image: RGBImage, edges: npt.NDArray[np.uint8], text_boxes: IntBoxes) -> _Integrals:
        height, width = image.shape[:2]
        gray = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
        gray_sum, gray_sq = cv2.integral2(gray, sdepth=cv2.CV_32S, sqdepth=cv2.CV_64F)
        edges_no_text = edges.copy()
        for x1, y1, x2, y2 in _clip_boxes(text_boxes, width, height):
            edges_no_text[y1:y2, x1:x2] = 0
        return _Integrals(
            width=width,
            height=height,
            rgb=np.asarray(cv2.integral(image, sdepth=cv2.CV_32S), dtype=np.int32),
            gray=np.asarray(gray_sum, dtype=np.int32),
            gray_sq=np.asarray(gray_sq, dtype=np.float64),
            edges=np.asarray(cv2.integral(edges, sdepth=cv2.CV_32S), dtype=np.int32),
            edges_no_text=np.asarray(cv2.integral(edges_no_text, sdepth=cv2.CV_32S), dtype=np.int32),
        )

    def _classify(
        self,
        image: RGBImage,
        labels: npt.NDArray[np.integer],
        index: npt.NDArray[np.int64],
        raw: IntBoxes,
        boxes: IntBoxes,
        ints: _Integrals,
        text_boxes: IntBoxes,
        scale: float,
    ) -> tuple[list[ElementType | None], list[ElementState]]:
        """A type (None: leave for icon grouping) and a state for every candidate component."""
        width = image.shape[1]
        bw = (boxes[:, 2] - boxes[:, 0]).astype(np.float64)
        bh = (boxes[:, 3] - boxes[:, 1]).astype(np.float64)
        long_side, short_side = np.maximum(bw, bh), np.minimum(bw, bh)

        # Colours: the band just outside, the fill band just inside the outline, the interior.
        outside = ints.band_rgb(_inset(boxes, -(1 + BAND)), _inset(boxes, -1))
        fill_outer, fill_inner = _inset(boxes, BORDER_SKIP), _inset(boxes, BORDER_SKIP + BAND)
        fill = ints.band_rgb(fill_outer, fill_inner)
        fill = np.where(np.isnan(fill), ints.mean_rgb(boxes), fill)
        fill_std = ints.band_gray_std(fill_outer, fill_inner)
        fill_contrast = _distance(fill, outside)
        filled = (fill_contrast >= FILL_CONTRAST) & (fill_std <= SOLID_MAX_STD)
        lighter = _luma(fill) >= np.nan_to_num(_luma(outside), nan=0.0) + LIGHT_MARGIN
        content = ints.edge_density(fill_inner) >= CONTENT_MIN_DENSITY

        # Rectangularity: an edge along the middle of every side of the raw component box.
        rectangular = self._side_occupancy(raw, ints) >= RECT_MIN_SIDE_OCCUPANCY

        # Text inside, and whether a text box sits centred like a label.
        texts_inside: BoolArray = containment(text_boxes, boxes) >= TEXT_INSIDE_FRACTION
        has_text = np.asarray(texts_inside.any(axis=0), dtype=bool)
        centred: BoolArray = np.zeros(len(boxes), dtype=bool)
        if len(text_boxes):
            text_cx = (text_boxes[:, 0] + text_boxes[:, 2]) / 2.0
            box_cx = (boxes[:, 0] + boxes[:, 2]) / 2.0
            near = np.abs(text_cx[:, None] - box_cx[None, :]) <= CENTERED_TEXT_TOLERANCE * bw[None, :]
            centred = np.asarray((texts_inside & near).any(axis=0), dtype=bool)

        # Texture for images (text boxes masked out), away from the frame.
        core = _inset(boxes, np.round(short_side * IMAGE_CORE_INSET))
        busy = (ints.edge_density(core, no_text=True) >= IMAGE_MIN_EDGE_DENSITY) & (
            ints.gray_std(core) >= IMAGE_MIN_STD
        )

        control_size = (
            (long_side >= CONTROL_MIN_SIDE)
            & (long_side <= scaled_max(CONTROL_MAX_SIDE, scale))
            & (long_side <= CONTROL_MAX_ASPECT * short_side)
        )
        button_size = (
            (bh >= scaled_min(BUTTON_MIN_HEIGHT, scale))
            & (bh <= scaled_max(BUTTON_MAX_HEIGHT, scale))
            & (bw >= scaled_min(BUTTON_MIN_WIDTH, scale))
            & (bw <= BUTTON_MAX_WIDTH_FRACTION * width)
        )
        input_size = (
            (bh >= scaled_min(INPUT_MIN_HEIGHT, scale))
            & (bh <= scaled_max(INPUT_MAX_HEIGHT, scale))
            & (bw >= scaled_min(INPUT_MIN_WIDTH, scale))
            & (bw >= INPUT_MIN_ASPECT * bh)
        )
        # A compact non-rectangular shape up to icon size is an icon (left to icon grouping).
        image_size = (short_side >= scaled_min(IMAGE_MIN_SIDE, scale)) & (
            rectangular | (long_side > self.settings.icons.max_size)
        )
        # Shapes up to icon size that are nothing else are icons (swatches, badges, avatars).
        region_size = (short_side >= scaled_min(REGION_MIN_SIDE, scale)) & (
            long_side > self.settings.icons.max_size
        )
        thick = short_side >= scaled_min(MIN_THICKNESS, scale)

        rectangular, thick = rectangular.tolist(), thick.tolist()
        kinds: list[ElementType | None] = [None] * len(boxes)
        states = [ElementState()] * len(boxes)
        control_idx = np.flatnonzero(control_size)
        checked, plausible = self._control_state(boxes[control_idx], ints, outside[control_idx])
        for j, is_checked, ok in zip(control_idx.tolist(), checked.tolist(), plausible.tolist(), strict=True):
            if not ok:
                continue
            fraction = _filled_fraction(labels, int(index[j]), raw[j])
            if fraction >= SQUARE_MIN_FILL and rectangular[j]:
                kinds[j] = ElementType.CHECKBOX
            elif CIRCLE_FILL_RANGE[0] <= fraction < CIRCLE_FILL_RANGE[1]:
                kinds[j] = ElementType.RADIO
            else:
                continue
            states[j] = ElementState(checked=bool(is_checked))

        for j in range(len(boxes)):
            if kinds[j] is not None or not thick[j]:
                continue
            if rectangular[j] and input_size[j] and not centred[j] and (not filled[j] or lighter[j]):
                kinds[j] = ElementType.INPUT
            elif rectangular[j] and button_size[j] and filled[j] and (has_text[j] or content[j]):
                kinds[j] = ElementType.BUTTON
            elif rectangular[j] and button_size[j] and centred[j]:
                kinds[j] = ElementType.BUTTON  # an outlined button with a centred label
            elif image_size[j] and busy[j]:
                kinds[j] = ElementType.IMAGE
            elif rectangular[j] and region_size[j]:
                kinds[j] = ElementType.REGION
        return kinds, states

    @staticmethod
    def _side_occupancy(raw: IntBoxes, ints: _Integrals) -> FloatArray:
        """The least edge density over the middle of the four sides of each raw component box.

        Each side's band is searched a few pixels inwards (its best position counts), so stray
        pixels (anti-aliasing, JPEG ringing) that push the box out do not hide a straight side.
        """
        x1, y1, x2, y2 = raw.T
        mx = ((x2 - x1) * (1.0 - RECT_SIDE_SPAN) / 2.0).astype(np.int64)
        my = ((y2 - y1) * (1.0 - RECT_SIDE_SPAN) / 2.0).astype(np.int64)
        d = RECT_SIDE_DEPTH
        best = []
        quarter = np.minimum(x2 - x1, y2 - y1) // 4
        for o in (np.minimum(k, quarter) for k in range(RECT_SIDE_SEARCH + 1)):
            sides = [
                np.column_stack([x1 + mx, y1 + o, x2 - mx, y1 + o + d]),  # top
                np.column_stack([x1 + mx, y2 - o - d, x2 - mx, y2 - o]),  # bottom
                np.column_stack([x1 + o, y1 + my, x1 + o + d, y2 - my]),  # left
                np.column_stack([x2 - o - d, y1 + my, x2 - o, y2 - my]),  # right
            ]
            best.append([ints.edge_density(side) for side in sides])
        return np.asarray(best).max(axis=0).min(axis=0)

    @staticmethod
    def _control_state(boxes: IntBoxes, ints: _Integrals, outside: FloatArray) -> tuple[BoolArray, BoolArray]:
        """For checkbox/radio-sized boxes: (checked, plausible).

        Checked controls hold a mark (edges in the core) or a dot (core unlike the interior ring).
        A uniform accent-coloured shape with neither is a swatch or status dot, not a control.
        """
        if len(boxes) == 0:
            return np.zeros(0, dtype=bool), np.zeros(0, dtype=bool)
        side = np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
        core_at = np.maximum(3, np.round(side * CONTROL_CORE_INSET)).astype(np.int64)
        ring_at = np.maximum(1, core_at - np.maximum(2, np.round(side * CONTROL_RING_WIDTH))).astype(np.int64)
        core_boxes = _inset(boxes, core_at)
        core = ints.mean_rgb(core_boxes)
        ring = ints.band_rgb(_inset(boxes, ring_at), core_boxes)
        ring = np.where(np.isnan(ring), core, ring)
        outside = np.where(np.isnan(outside), ring, outside)
        mark = ints.edge_density(core_boxes) >= CHECK_MARK_DENSITY
        dot = _distance(core, ring) >= CHECK_CONTRAST
        accent = (_saturation(ring / 255.0) >= ACCENT_MIN_SATURATION) | (
            _luma(ring) <= _luma(outside) - ACCENT_LUMA_DROP
        )
        accent_fill = (_distance(ring, outside) >= CHECK_CONTRAST) & accent
        checked = mark | dot
        return checked, checked | ~accent_fill

    def _group_icons(
        self, raw: IntBoxes, widgets: Sequence[Element], text_boxes: IntBoxes, width: int, height: int
    ) -> list[Element]:
        """Merge leftover specks that sit close together into icons (UIED's compo merging)."""
        if len(raw) == 0:
            return []
        max_side, min_side = self.settings.icons.max_size, self.settings.icons.min_size
        boxes = _shrink_growth(raw)
        small = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) <= max_side
        atomic = np.asarray([e.bbox for e in widgets if e.type in ATOMIC_TYPES], dtype=np.int64)
        atomic = atomic.reshape(-1, 4)
        if len(atomic):
            small &= ~(containment(boxes, atomic) >= CONTAINED_FRACTION).any(axis=1)
        boxes = boxes[small]
        if len(boxes) == 0:
            return []
        canvas = np.zeros((height, width), dtype=np.uint8)
        gap = round(scaled_max(ICON_GROUP_GAP, screen_scale(width, height)))
        for x1, y1, x2, y2 in _clip_boxes(_inset(boxes, -gap), width, height):
            canvas[y1:y2, x1:x2] = 1
        _, groups = connected_boxes(canvas)
        groups = _clip_boxes(_inset(groups[1:], gap), width, height)
        gw, gh = groups[:, 2] - groups[:, 0], groups[:, 3] - groups[:, 1]
        ok = (np.maximum(gw, gh) >= min_side) & (np.maximum(gw, gh) <= max_side) & (np.minimum(gw, gh) > 0)
        ok &= np.maximum(gw, gh) <= ICON_MAX_ASPECT * np.maximum(np.minimum(gw, gh), 1)
        ok &= text_coverage(groups, text_boxes) < ICON_MAX_TEXT_COVER
        score = TYPE_SCORES[ElementType.ICON]
        icon = ElementType.ICON
        return [Element(bbox=_as_bbox(g), type=icon, score=score, source=SOURCE) for g in groups[ok]]


def _as_bbox(box: npt.NDArray[np.integer]) -> tuple[int, int, int, int]:
    return int(box[0]), int(box[1]), int(box[2]), int(box[3])


def _shrink_growth(raw: IntBoxes) -> IntBoxes:
    """Undo the gradient's outward growth of component boxes (keeping at least one pixel)."""
    out = _inset(raw, EDGE_GROWTH)
    out[:, 2] = np.maximum(out[:, 2], out[:, 0] + 1)
    out[:, 3] = np.maximum(out[:, 3], out[:, 1] + 1)
    return out
