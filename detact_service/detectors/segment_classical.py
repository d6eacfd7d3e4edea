"""Classical (UIED-style) segmentation of the non-text regions of a screenshot.

The ``regions`` stage runs after OCR. It finds the outlines of widgets with a per-channel morphological
gradient, takes connected components of the thresholded edge map, drops the ones that are just text
(mostly inside an OCR line), typing the rest from their geometry and look (checkbox, radio, button,
input, image, icon, region), groups leftover glyph-like specks into icons, and appends the result to
the parse with ``source='segment'``. Everything per pixel is OpenCV or numpy; Python loops only run
over candidate components.

The post-processing shared with the SAM segmenter is :mod:`detact_service.detectors.regions`; the pixel
statistics (edges, components, integral images) are :mod:`detact_service.detectors.classical_pixels`.
Pixel thresholds are given for a 1920x1080 screen and scaled (see :func:`~.regions.screen_scale`).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from detact_service import geometry
from detact_service.core import Element, ElementState, ElementType, ScreenParse
from detact_service.detectors.classical_pixels import (
    EDGE_GROWTH,
    Integrals,
    connected_boxes,
    distance,
    edge_map,
    filled_fraction,
    flat_mask,
    inset,
    luma,
    saturation,
    shrink_growth,
)
from detact_service.detectors.regions import (
    ATOMIC_TYPES,
    CONTAINED_FRACTION,
    ICON_MAX_ASPECT,
    REGION_MIN_SIDE,
    SOURCE,
    TEXT_COVER_DROP,
    TEXT_EXEMPT_TYPES,
    append_regions,
    plausible_boxes,
    postprocess_regions,
    scaled_max,
    scaled_min,
    screen_scale,
    text_coverage,
    text_lines_of,
)
from detact_service.stages import BaseStage, RGBImage, register

__all__ = ["CLASSICAL_VERSION", "SOURCE", "ClassicalSegmenter"]

IntBoxes = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

CLASSICAL_VERSION = "classical-1"

# --- components ----------------------------------------------------------------------------------
MIN_COMPONENT_SIDE = 6
"""Components whose longer side is shorter than this (px at 1080p) are noise."""
MIN_THICKNESS = 4
"""Components thinner than this (px) are rules/separators, not regions."""

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
ICON_MAX_TEXT_COVER = 0.3


# --- photographs ----------------------------------------------------------------------------------
SURROUND = 0.5
"""The ground round a region is sampled this fraction of its longer side wide (at least SURROUND_MIN px)."""
SURROUND_MIN = 4
MIN_FLAT_GROUND = 0.5
"""A region whose ground is flat for less than this share lies on a photograph's texture: a rock or a
leaf, not a control. On `phone_real`'s 290 screens 309 of the `full` parse's 969 segments not matching
a clickable view lie below it and none of the 7 that match; on the data engine's test screens none of
the segments matching a label does (the lowest: 0.61)."""


def on_flat_ground(elements: Sequence[Element], ints: Integrals) -> list[Element]:
    """The ``elements`` whose surroundings are mostly flat (:data:`MIN_FLAT_GROUND`)."""
    if not elements:
        return []
    boxes = np.asarray([e.bbox for e in elements], dtype=np.int64)
    sides = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    pad = np.maximum(SURROUND_MIN, (SURROUND * sides).astype(np.int64))
    flat = ints.band_flat(inset(boxes, -pad), boxes)
    return [e for e, keep in zip(elements, (flat >= MIN_FLAT_GROUND).tolist(), strict=True) if keep]


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
        boxes = shrink_growth(raw)

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
        elements = on_flat_ground(elements, ints)
        min_side = scaled_min(MIN_COMPONENT_SIDE, scale)
        return postprocess_regions(elements, text_boxes, width, height, min_side)

    def _misread_controls(
        self,
        raw: IntBoxes,
        covered: BoolArray,
        text_boxes: IntBoxes,
        texts: Sequence[str],
        ints: Integrals,
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
        boxes = shrink_growth(r)
        bw, bh = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
        long_side, short_side = np.maximum(bw, bh), np.minimum(bw, bh)
        sized = (
            (long_side >= CONTROL_MIN_SIDE)
            & (long_side <= scaled_max(CONTROL_MAX_SIDE, scale))
            & (long_side <= CONTROL_MAX_ASPECT * short_side)
        )
        line = geometry.containment(boxes, text_boxes).argmax(axis=1)
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
    def _integrals(image: RGBImage, edges: npt.NDArray[np.uint8], text_boxes: IntBoxes) -> Integrals:
        height, width = image.shape[:2]
        gray = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
        gray_sum, gray_sq = cv2.integral2(gray, sdepth=cv2.CV_32S, sqdepth=cv2.CV_64F)
        flat = flat_mask(np.asarray(gray, dtype=np.uint8))
        edges_no_text = edges.copy()
        for x1, y1, x2, y2 in geometry.clip(text_boxes, width, height):
            edges_no_text[y1:y2, x1:x2] = 0
            flat[y1:y2, x1:x2] = 1  # a label's letters are the UI's, not a photograph's texture
        return Integrals(
            width=width,
            height=height,
            rgb=np.asarray(cv2.integral(image, sdepth=cv2.CV_32S), dtype=np.int32),
            gray=np.asarray(gray_sum, dtype=np.int32),
            gray_sq=np.asarray(gray_sq, dtype=np.float64),
            edges=np.asarray(cv2.integral(edges, sdepth=cv2.CV_32S), dtype=np.int32),
            edges_no_text=np.asarray(cv2.integral(edges_no_text, sdepth=cv2.CV_32S), dtype=np.int32),
            flat=np.asarray(cv2.integral(flat, sdepth=cv2.CV_32S), dtype=np.int32),
        )

    def _classify(
        self,
        image: RGBImage,
        labels: npt.NDArray[np.integer],
        index: npt.NDArray[np.int64],
        raw: IntBoxes,
        boxes: IntBoxes,
        ints: Integrals,
        text_boxes: IntBoxes,
        scale: float,
    ) -> tuple[list[ElementType | None], list[ElementState]]:
        """A type (None: leave for icon grouping) and a state for every candidate component."""
        width = image.shape[1]
        bw = (boxes[:, 2] - boxes[:, 0]).astype(np.float64)
        bh = (boxes[:, 3] - boxes[:, 1]).astype(np.float64)
        long_side, short_side = np.maximum(bw, bh), np.minimum(bw, bh)

        # Colours: the band just outside, the fill band just inside the outline, the interior.
        outside = ints.band_rgb(inset(boxes, -(1 + BAND)), inset(boxes, -1))
        fill_outer, fill_inner = inset(boxes, BORDER_SKIP), inset(boxes, BORDER_SKIP + BAND)
        fill = ints.band_rgb(fill_outer, fill_inner)
        fill = np.where(np.isnan(fill), ints.mean_rgb(boxes), fill)
        fill_std = ints.band_gray_std(fill_outer, fill_inner)
        fill_contrast = distance(fill, outside)
        filled = (fill_contrast >= FILL_CONTRAST) & (fill_std <= SOLID_MAX_STD)
        lighter = luma(fill) >= np.nan_to_num(luma(outside), nan=0.0) + LIGHT_MARGIN
        content = ints.edge_density(fill_inner) >= CONTENT_MIN_DENSITY

        # Rectangularity: an edge along the middle of every side of the raw component box.
        rectangular = self._side_occupancy(raw, ints) >= RECT_MIN_SIDE_OCCUPANCY

        # Text inside, and whether a text box sits centred like a label.
        texts_inside: BoolArray = geometry.containment(text_boxes, boxes) >= TEXT_INSIDE_FRACTION
        has_text = np.asarray(texts_inside.any(axis=0), dtype=bool)
        centred: BoolArray = np.zeros(len(boxes), dtype=bool)
        if len(text_boxes):
            text_cx = (text_boxes[:, 0] + text_boxes[:, 2]) / 2.0
            box_cx = (boxes[:, 0] + boxes[:, 2]) / 2.0
            near = np.abs(text_cx[:, None] - box_cx[None, :]) <= CENTERED_TEXT_TOLERANCE * bw[None, :]
            centred = np.asarray((texts_inside & near).any(axis=0), dtype=bool)

        # Texture for images (text boxes masked out), away from the frame.
        core = inset(boxes, np.round(short_side * IMAGE_CORE_INSET))
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
            fraction = filled_fraction(labels, int(index[j]), raw[j])
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
    def _side_occupancy(raw: IntBoxes, ints: Integrals) -> FloatArray:
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
    def _control_state(boxes: IntBoxes, ints: Integrals, outside: FloatArray) -> tuple[BoolArray, BoolArray]:
        """For checkbox/radio-sized boxes: (checked, plausible).

        Checked controls hold a mark (edges in the core) or a dot (core unlike the interior ring).
        A uniform accent-coloured shape with neither is a swatch or status dot, not a control.
        """
        if len(boxes) == 0:
            return np.zeros(0, dtype=bool), np.zeros(0, dtype=bool)
        side = np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
        core_at = np.maximum(3, np.round(side * CONTROL_CORE_INSET)).astype(np.int64)
        ring_at = np.maximum(1, core_at - np.maximum(2, np.round(side * CONTROL_RING_WIDTH))).astype(np.int64)
        core_boxes = inset(boxes, core_at)
        core = ints.mean_rgb(core_boxes)
        ring = ints.band_rgb(inset(boxes, ring_at), core_boxes)
        ring = np.where(np.isnan(ring), core, ring)
        outside = np.where(np.isnan(outside), ring, outside)
        mark = ints.edge_density(core_boxes) >= CHECK_MARK_DENSITY
        dot = distance(core, ring) >= CHECK_CONTRAST
        accent = (saturation(ring / 255.0) >= ACCENT_MIN_SATURATION) | (
            luma(ring) <= luma(outside) - ACCENT_LUMA_DROP
        )
        accent_fill = (distance(ring, outside) >= CHECK_CONTRAST) & accent
        checked = mark | dot
        return checked, checked | ~accent_fill

    def _group_icons(
        self, raw: IntBoxes, widgets: Sequence[Element], text_boxes: IntBoxes, width: int, height: int
    ) -> list[Element]:
        """Merge leftover specks that sit close together into icons (UIED's compo merging)."""
        if len(raw) == 0:
            return []
        max_side, min_side = self.settings.icons.max_size, self.settings.icons.min_size
        boxes = shrink_growth(raw)
        small = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) <= max_side
        atomic = np.asarray([e.bbox for e in widgets if e.type in ATOMIC_TYPES], dtype=np.int64)
        atomic = atomic.reshape(-1, 4)
        if len(atomic):
            small &= ~(geometry.containment(boxes, atomic) >= CONTAINED_FRACTION).any(axis=1)
        boxes = boxes[small]
        if len(boxes) == 0:
            return []
        canvas = np.zeros((height, width), dtype=np.uint8)
        gap = round(scaled_max(ICON_GROUP_GAP, screen_scale(width, height)))
        for x1, y1, x2, y2 in geometry.clip(inset(boxes, -gap), width, height):
            canvas[y1:y2, x1:x2] = 1
        _, groups = connected_boxes(canvas)
        groups = geometry.clip(inset(groups[1:], gap), width, height)
        gw, gh = groups[:, 2] - groups[:, 0], groups[:, 3] - groups[:, 1]
        ok = (np.maximum(gw, gh) >= min_side) & (np.maximum(gw, gh) <= max_side) & (np.minimum(gw, gh) > 0)
        ok &= np.maximum(gw, gh) <= ICON_MAX_ASPECT * np.maximum(np.minimum(gw, gh), 1)
        ok &= text_coverage(groups, text_boxes) < ICON_MAX_TEXT_COVER
        score = TYPE_SCORES[ElementType.ICON]
        icon = ElementType.ICON
        return [Element(bbox=_as_bbox(g), type=icon, score=score, source=SOURCE) for g in groups[ok]]


def _as_bbox(box: npt.NDArray[np.integer]) -> tuple[int, int, int, int]:
    return int(box[0]), int(box[1]), int(box[2]), int(box[3])
