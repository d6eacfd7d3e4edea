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
from detact_service.settings import Settings
from detact_service.stages import RGBImage

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
CONTROL_MIN_SIDE = 10
CONTROL_MAX_SIDE = 40
CONTROL_MAX_ASPECT = 1.25
SQUARE_MIN_FILL = 0.9
"""A checkbox's filled outline covers at least this fraction of its box (a square: ~1.0)."""
CIRCLE_FILL_RANGE = (0.65, 0.9)
"""A radio's filled outline covers this fraction of its box (a disc: pi/4 ~ 0.785)."""
CONTROL_RING_INSET = 0.15
"""The interior ring of a control starts this fraction of its side inside (past the outline)."""
CONTROL_CORE_INSET = 0.3
"""The core of a control (where the mark or dot is) starts this fraction of its side inside."""
CHECK_CONTRAST = 60.0
"""RGB distance between core and interior (or fill and outside) that means "checked"."""
CHECK_MARK_DENSITY = 0.1
"""Edge density in the core above which a control holds a mark."""
ACCENT_MIN_SATURATION = 0.35
"""A fill this saturated (HSV S, 0-1) is an accent colour: a filled control is checked."""
ACCENT_LUMA_DROP = 40.0
"""A fill this much darker than the outside is an accent colour."""

# --- rectangles: buttons, inputs, regions --------------------------------------------------------
RECT_SIDE_SPAN = 0.6
"""Middle fraction of each side checked for an edge (tolerates rounded corners)."""
RECT_MIN_SIDE_OCCUPANCY = 0.8
"""Every side's middle must be this fraction edge for the component to be a rectangle."""
RECT_SIDE_DEPTH = 2
"""Depth (px) of the band along each side checked for edges."""
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
CENTERED_TEXT_TOLERANCE = 0.15
"""Text whose centre is within this fraction of the width from the box centre is a centred label."""
LIGHT_MARGIN = 10.0
"""A fill this much lighter (grey level) than the outside reads as a field, not a button."""
REGION_MIN_SIDE = 24
"""Rectangles smaller than this on either side are not regions."""

# --- images --------------------------------------------------------------------------------------
IMAGE_MIN_SIDE = 48
IMAGE_MIN_EDGE_DENSITY = 0.12
"""Non-text edge density of an image's box (photos and illustrations are busy)."""
IMAGE_MIN_STD = 25.0
"""Grey-level std of an image's box."""

# --- icons ---------------------------------------------------------------------------------------
ICON_GROUP_GAP = 3
"""Leftover specks closer than this (px) are parts of one icon."""
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
    boxes = [e.bbox for e in parse.elements if e.type is ElementType.TEXT]
    return np.asarray(boxes, dtype=np.int64).reshape(-1, 4)


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


def text_coverage(boxes: npt.NDArray[np.number], text_boxes: npt.NDArray[np.number],
                  pad: int = TEXT_BOX_PAD) -> FloatArray:
    """The fraction of each box covered by (padded) text boxes, from 0 to 1."""
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    if len(boxes) == 0 or len(text_boxes) == 0:
        return np.zeros(len(boxes), dtype=np.float64)
    padded = np.asarray(text_boxes, dtype=np.float64).reshape(-1, 4) + np.array([-pad, -pad, pad, pad])
    return np.clip(containment(boxes, padded).sum(axis=1), 0.0, 1.0)


def plausible_boxes(boxes: npt.NDArray[np.number], width: int, height: int, min_side: float,
                    max_area_fraction: float = MAX_AREA_FRACTION) -> BoolArray:
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
    return [e for e, drop in zip(elements, inside.any(axis=1), strict=True) if not drop]


def deduplicate(elements: Sequence[Element], iou_threshold: float = DEDUP_IOU) -> list[Element]:
    """Class-agnostic NMS (supervision): of overlapping duplicates keep the best-scored one."""
    if len(elements) < 2:
        return list(elements)
    predictions = np.asarray([[*e.bbox, e.score] for e in elements], dtype=np.float64)
    keep = sv.box_non_max_suppression(predictions, iou_threshold=iou_threshold)
    return [e for e, k in zip(elements, keep, strict=True) if k]


def postprocess_regions(candidates: Sequence[Element], text_boxes: IntBoxes, width: int, height: int,
                        min_side: float) -> list[Element]:
    """Shared tail of both segmenters: size/frame filter, text filter, contents, de-duplication."""
    if not candidates:
        return []
    boxes = np.asarray([e.bbox for e in candidates], dtype=np.int64)
    keep = plausible_boxes(boxes, width, height, min_side)
    keep &= text_coverage(boxes, text_boxes) < TEXT_COVER_DROP
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
    return total


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


def edge_map(image: RGBImage) -> npt.NDArray[np.uint8]:
    """Binary (0/1) edges: the per-channel morphological gradient, maxed over channels, thresholded."""
    kernel = np.ones((GRADIENT_KERNEL, GRADIENT_KERNEL), np.uint8)
    gradient = cv2.morphologyEx(image, cv2.MORPH_GRADIENT, kernel)
    r, g, b = cv2.split(gradient)
    strongest = cv2.max(cv2.max(r, g), b)
    _, edges = cv2.threshold(strongest, GRADIENT_THRESHOLD, 1, cv2.THRESH_BINARY)
    return edges


def _filled_fraction(labels: npt.NDArray[np.int32], index: int, box: Sequence[int]) -> float:
    """Fraction of the component's box covered by its outline with the holes filled."""
    x1, y1, x2, y2 = box
    crop = (labels[y1:y2, x1:x2] == index).astype(np.uint8)
    contours, _ = cv2.findContours(crop, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(crop)
    cv2.drawContours(filled, contours, -1, 1, thickness=cv2.FILLED)
    return float(cv2.countNonZero(filled)) / max(crop.size, 1)


class ClassicalSegmenter:
    """UIED-like regions stage: gradient edges, components, heuristics; no model."""

    slot = "regions"
    name = "classical"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def model_version(self) -> str | None:
        """No model: the version of the heuristics."""
        return CLASSICAL_VERSION

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        """Append the non-text regions of each image to its parse."""
        return [
            append_regions(parse, self.segment(image, text_boxes_of(parse)))
            for image, parse in zip(images, parses, strict=True)
        ]

    # -- the pipeline of one image ---------------------------------------------------------------

    def segment(self, image: RGBImage, text_boxes: IntBoxes) -> list[Element]:
        """The typed non-text regions of one ``(H, W, 3)`` RGB screenshot given its OCR line boxes."""
        image = np.ascontiguousarray(image[..., :3], dtype=np.uint8)
        height, width = image.shape[:2]
        scale = screen_scale(width, height)
        text_boxes = np.asarray(text_boxes, dtype=np.int64).reshape(-1, 4)

        edges = edge_map(image)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(edges, connectivity=8)
        if count <= 1:
            return []
        # Component boxes as drawn: the gradient grew every shape by EDGE_GROWTH pixels.
        raw = np.column_stack(
            [stats[:, 0], stats[:, 1], stats[:, 0] + stats[:, 2], stats[:, 1] + stats[:, 3]]
        ).astype(np.int64)
        index = np.arange(count)
        w, h = stats[:, 2], stats[:, 3]
        keep = (index > 0) & (np.maximum(w, h) >= scaled_min(MIN_COMPONENT_SIDE, scale))
        keep &= plausible_boxes(raw, width, height, 0.0)
        keep[keep] &= text_coverage(raw[keep], text_boxes) < TEXT_COVER_DROP
        index, raw = index[keep], raw[keep]
        if len(index) == 0:
            return []
        boxes = _shrink_growth(raw)

        ints = self._integrals(image, edges, text_boxes)
        kinds, states = self._classify(image, labels, index, raw, boxes, ints, text_boxes, scale)

        elements = [
            Element(bbox=tuple(int(v) for v in box), type=kind, score=TYPE_SCORES[kind],  # type: ignore[arg-type]
                    source=SOURCE, state=state)
            for box, kind, state in zip(boxes, kinds, states, strict=True)
            if kind is not None
        ]
        leftovers = np.asarray([kind is None for kind in kinds])
        elements += self._group_icons(raw[leftovers], elements, text_boxes, width, height)
        min_side = scaled_min(MIN_COMPONENT_SIDE, scale)
        return postprocess_regions(elements, text_boxes, width, height, min_side)

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
            rgb=cv2.integral(image, sdepth=cv2.CV_32S),
            gray=gray_sum,
            gray_sq=gray_sq,
            edges=cv2.integral(edges, sdepth=cv2.CV_32S),
            edges_no_text=cv2.integral(edges_no_text, sdepth=cv2.CV_32S),
        )

    def _classify(self, image: RGBImage, labels: npt.NDArray[np.int32], index: npt.NDArray[np.int64],
                  raw: IntBoxes, boxes: IntBoxes, ints: _Integrals, text_boxes: IntBoxes,
                  scale: float) -> tuple[list[ElementType | None], list[ElementState]]:
        """A type (None: leave for icon grouping) and a state for every candidate component."""
        height, width = image.shape[:2]
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
        texts_inside = containment(text_boxes, boxes) >= 0.8 if len(text_boxes) else np.zeros((0, len(boxes)), bool)
        has_text = texts_inside.any(axis=0)
        centred = np.zeros(len(boxes), dtype=bool)
        if len(text_boxes):
            text_cx = (text_boxes[:, 0] + text_boxes[:, 2]) / 2.0
            box_cx = (boxes[:, 0] + boxes[:, 2]) / 2.0
            near = np.abs(text_cx[:, None] - box_cx[None, :]) <= CENTERED_TEXT_TOLERANCE * bw[None, :]
            centred = (texts_inside & near).any(axis=0)

        # Texture for images (text boxes masked out).
        busy = (ints.edge_density(boxes, no_text=True) >= IMAGE_MIN_EDGE_DENSITY) & (
            ints.gray_std(boxes) >= IMAGE_MIN_STD
        )

        control_size = (
            (long_side >= scaled_min(CONTROL_MIN_SIDE, scale))
            & (long_side <= scaled_max(CONTROL_MAX_SIDE, scale))
            & (long_side <= CONTROL_MAX_ASPECT * short_side)
        )
        button_size = (
            (bh >= scaled_min(BUTTON_MIN_HEIGHT, scale)) & (bh <= scaled_max(BUTTON_MAX_HEIGHT, scale))
            & (bw >= scaled_min(BUTTON_MIN_WIDTH, scale)) & (bw <= BUTTON_MAX_WIDTH_FRACTION * width)
        )
        input_size = (
            (bh >= scaled_min(INPUT_MIN_HEIGHT, scale)) & (bh <= scaled_max(INPUT_MAX_HEIGHT, scale))
            & (bw >= scaled_min(INPUT_MIN_WIDTH, scale)) & (bw >= INPUT_MIN_ASPECT * bh)
        )
        image_size = short_side >= scaled_min(IMAGE_MIN_SIDE, scale)
        region_size = short_side >= scaled_min(REGION_MIN_SIDE, scale)
        thick = short_side >= scaled_min(MIN_THICKNESS, scale)

        kinds: list[ElementType | None] = [None] * len(boxes)
        states = [ElementState()] * len(boxes)
        control_idx = np.flatnonzero(control_size)
        checked = self._checked(boxes[control_idx], ints, outside[control_idx])
        for j, is_checked in zip(control_idx, checked, strict=True):
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
        """The least edge density over the middle of the four sides of each raw component box."""
        x1, y1, x2, y2 = raw.T
        mx = ((x2 - x1) * (1.0 - RECT_SIDE_SPAN) / 2.0).astype(np.int64)
        my = ((y2 - y1) * (1.0 - RECT_SIDE_SPAN) / 2.0).astype(np.int64)
        d = RECT_SIDE_DEPTH
        sides = [
            np.column_stack([x1 + mx, y1, x2 - mx, y1 + d]),  # top
            np.column_stack([x1 + mx, y2 - d, x2 - mx, y2]),  # bottom
            np.column_stack([x1, y1 + my, x1 + d, y2 - my]),  # left
            np.column_stack([x2 - d, y1 + my, x2, y2 - my]),  # right
        ]
        return np.min([ints.edge_density(s) for s in sides], axis=0)

    @staticmethod
    def _checked(boxes: IntBoxes, ints: _Integrals, outside: FloatArray) -> BoolArray:
        """Whether each checkbox/radio box holds a mark, a dot or an accent fill."""
        if len(boxes) == 0:
            return np.zeros(0, dtype=bool)
        side = np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
        ring_at = np.maximum(1, np.round(side * CONTROL_RING_INSET)).astype(np.int64)
        core_at = np.maximum(ring_at + 1, np.round(side * CONTROL_CORE_INSET)).astype(np.int64)
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
        return mark | dot | accent_fill

    def _group_icons(self, raw: IntBoxes, widgets: Sequence[Element], text_boxes: IntBoxes, width: int,
                     height: int) -> list[Element]:
        """Merge leftover specks that sit close together into icons (UIED's compo merging)."""
        if len(raw) == 0:
            return []
        max_side, min_side = self.settings.icon_max_size, self.settings.icon_min_size
        boxes = _shrink_growth(raw)
        small = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) <= max_side
        atomic = np.asarray([e.bbox for e in widgets if e.type in ATOMIC_TYPES], dtype=np.int64).reshape(-1, 4)
        if len(atomic):
            small &= ~(containment(boxes, atomic) >= CONTAINED_FRACTION).any(axis=1)
        boxes = boxes[small]
        if len(boxes) == 0:
            return []
        canvas = np.zeros((height, width), dtype=np.uint8)
        for x1, y1, x2, y2 in _clip_boxes(_inset(boxes, -ICON_GROUP_GAP), width, height):
            canvas[y1:y2, x1:x2] = 1
        count, _, stats, _ = cv2.connectedComponentsWithStats(canvas, connectivity=4)
        groups = np.column_stack(
            [stats[1:, 0], stats[1:, 1], stats[1:, 0] + stats[1:, 2], stats[1:, 1] + stats[1:, 3]]
        ).astype(np.int64)
        groups = _clip_boxes(_inset(groups, ICON_GROUP_GAP), width, height)
        gw, gh = groups[:, 2] - groups[:, 0], groups[:, 3] - groups[:, 1]
        ok = (np.maximum(gw, gh) >= min_side) & (np.maximum(gw, gh) <= max_side) & (np.minimum(gw, gh) > 0)
        ok &= np.maximum(gw, gh) <= ICON_MAX_ASPECT * np.maximum(np.minimum(gw, gh), 1)
        ok &= text_coverage(groups, text_boxes) < ICON_MAX_TEXT_COVER
        return [
            Element(bbox=tuple(int(v) for v in g), type=ElementType.ICON,  # type: ignore[arg-type]
                    score=TYPE_SCORES[ElementType.ICON], source=SOURCE)
            for g in groups[ok]
        ]


def _shrink_growth(raw: IntBoxes) -> IntBoxes:
    """Undo the gradient's outward growth of component boxes (keeping at least one pixel)."""
    out = _inset(raw, EDGE_GROWTH)
    out[:, 2] = np.maximum(out[:, 2], out[:, 0] + 1)
    out[:, 3] = np.maximum(out[:, 3], out[:, 1] + 1)
    return out
