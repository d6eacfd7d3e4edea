"""Pixel statistics of the classical segmenter: edges, connected components and O(1) box statistics
from integral images (everything per pixel is OpenCV or numpy)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import cv2
import numpy as np
import numpy.typing as npt

from detact_service import geometry
from detact_service.stages import RGBImage

IntBoxes = npt.NDArray[np.int64]
NumberT = TypeVar("NumberT", bound=np.number[Any])
FloatArray = npt.NDArray[np.float64]

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
FLAT_GRADIENT = 24.0
"""A pixel is flat when its grey Sobel gradient (|dx| + |dy|, 3x3) is below this: a UI's background is,
through JPEG noise too; a photograph's texture is not."""
EDGE_GROWTH = GRADIENT_KERNEL // 2
"""The gradient marks this many pixels outside a shape; component boxes are shrunk back by it."""


def box_sums(integral: npt.NDArray[np.number], boxes: IntBoxes) -> FloatArray:
    """Sums over xyxy boxes (already clipped to the image) from an OpenCV integral image."""
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    total = integral[y2, x2].astype(np.float64) - integral[y1, x2] - integral[y2, x1] + integral[y1, x1]
    return np.asarray(total, dtype=np.float64)


def inset(boxes: IntBoxes, by: npt.ArrayLike) -> IntBoxes:
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
class Integrals:
    """Integral images of one screenshot, for O(1) box statistics."""

    width: int
    height: int
    rgb: npt.NDArray[np.int32]
    gray: npt.NDArray[np.int32]
    gray_sq: npt.NDArray[np.float64]
    edges: npt.NDArray[np.int32]
    edges_no_text: npt.NDArray[np.int32]
    flat: npt.NDArray[np.int32]

    def _stat(self, integral: npt.NDArray[np.number], boxes: IntBoxes) -> tuple[FloatArray, FloatArray]:
        clipped = geometry.clip(boxes, self.width, self.height)
        return box_sums(integral, clipped), geometry.areas(clipped)

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

    def band_flat(self, outer: IntBoxes, inner: IntBoxes) -> FloatArray:
        """Share of flat pixels (:func:`flat_mask`) in the band between ``outer`` and ``inner`` (1 when
        the band is empty)."""
        so, ao = self._stat(self.flat, outer)
        si, ai = self._stat(self.flat, inner)
        area = ao - ai
        return np.where(area > 0, (so - si) / np.maximum(area, 1.0), 1.0)

    def gray_std(self, boxes: IntBoxes) -> FloatArray:
        s, a = self._stat(self.gray, boxes)
        q, _ = self._stat(self.gray_sq, boxes)
        a = np.maximum(a, 1.0)
        return np.sqrt(np.clip(q / a - (s / a) ** 2, 0.0, None))

    def edge_density(self, boxes: IntBoxes, no_text: bool = False) -> FloatArray:
        s, a = self._stat(self.edges_no_text if no_text else self.edges, boxes)
        return s / np.maximum(a, 1.0)


def border_pixels(crop: npt.NDArray[NumberT]) -> npt.NDArray[NumberT]:
    """The pixels along the border of an image crop, each once (``(N, ...)``: channels kept)."""
    return np.concatenate([crop[0], crop[-1], crop[1:-1, 0], crop[1:-1, -1]])


EDGE_DEPTH = 0.15
"""Share of each side of a box within which :func:`edge_cuts` looks for an edge reaching into it."""
EDGE_ROW = 0.9
"""Share of a row (column) of a box that differs from the box's ground for the row to be an edge's."""
EDGE_CONTRAST = 24
"""A pixel differs from the ground by this much in some channel (0-255) to count as an edge's."""
EDGE_REACH = 3
"""How far (px) outside the box an edge's row is checked to run on."""


def edge_depths(box: Sequence[int]) -> tuple[int, int]:
    """How deep (rows, columns) an edge cut may reach into ``box``: :data:`EDGE_DEPTH` of its height and
    width, at least 1."""
    x0, y0, x1, y1 = box
    return max(1, round(EDGE_DEPTH * (y1 - y0))), max(1, round(EDGE_DEPTH * (x1 - x0)))


def edge_cuts(image: npt.NDArray[np.uint8], box: Sequence[int]) -> tuple[int, int, int, int]:
    """How many rows or columns to cut off each side of ``box`` (a clipped ``(x0, y0, x1, y1)``) where an
    edge of the screen's layout reaches into it: rows (columns) at its side, within :data:`EDGE_DEPTH` of
    it, of another colour than the box's ground (its border's median colour) all along, that run on past
    the box on at least one side (a header's or a toolbar's edge under a padded button; a glyph's own
    stroke ends inside the box). Returns (top, bottom, left, right)."""
    height, width = image.shape[:2]
    x0, y0, x1, y1 = box
    if x1 - x0 < 3 or y1 - y0 < 3:
        return 0, 0, 0, 0
    wx0, wy0 = max(x0 - EDGE_REACH, 0), max(y0 - EDGE_REACH, 0)
    window = image[wy0 : min(y1 + EDGE_REACH, height), wx0 : min(x1 + EDGE_REACH, width)].astype(np.int16)
    bx0, by0, bx1, by1 = x0 - wx0, y0 - wy0, x1 - wx0, y1 - wy0  # the box inside the window
    ground = np.median(border_pixels(window[by0:by1, bx0:bx1]), axis=0)
    off = np.abs(window - ground).max(axis=2) > EDGE_CONTRAST

    def edges(
        inside: npt.NDArray[np.bool_], before: npt.NDArray[np.bool_], after: npt.NDArray[np.bool_]
    ) -> npt.NDArray[np.bool_]:
        """Per line (axis 0): differing all along inside the box and running on past it on one side."""
        runs_on = np.zeros(len(inside), dtype=bool)
        for beyond in (before, after):
            if beyond.shape[1]:
                runs_on |= beyond.mean(axis=1) >= EDGE_ROW
        return np.asarray((inside.mean(axis=1) >= EDGE_ROW) & runs_on, dtype=bool)

    rows = edges(off[by0:by1, bx0:bx1], off[by0:by1, :bx0], off[by0:by1, bx1:])
    columns = edges(off[by0:by1, bx0:bx1].T, off[:by0, bx0:bx1].T, off[by1:, bx0:bx1].T)

    def leading(flags: npt.NDArray[np.bool_], limit: int) -> int:
        flags = flags[:limit]
        return int(len(flags) if flags.all() else flags.argmin())

    depth_y, depth_x = edge_depths(box)
    return (
        leading(rows, depth_y),
        leading(rows[::-1], depth_y),
        leading(columns, depth_x),
        leading(columns[::-1], depth_x),
    )


def flat_mask(gray: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """0/1: the pixels whose grey gradient is below :data:`FLAT_GRADIENT` (saturating 8-bit sums: only
    the threshold matters)."""
    dx = cv2.convertScaleAbs(cv2.Sobel(gray, cv2.CV_16S, 1, 0, ksize=3))
    dy = cv2.convertScaleAbs(cv2.Sobel(gray, cv2.CV_16S, 0, 1, ksize=3))
    return np.asarray(cv2.add(dx, dy) < FLAT_GRADIENT, dtype=np.uint8)


def luma(rgb: FloatArray) -> FloatArray:
    return rgb @ np.array([0.299, 0.587, 0.114])


def saturation(rgb: FloatArray) -> FloatArray:
    hi, lo = rgb.max(axis=-1), rgb.min(axis=-1)
    return np.where(hi > 0, (hi - lo) / np.maximum(hi, 1e-6), 0.0)


def distance(a: FloatArray, b: FloatArray) -> FloatArray:
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


def filled_fraction(labels: npt.NDArray[np.integer], index: int, box: Sequence[int]) -> float:
    """Fraction of the component's box covered by its outline with the holes filled."""
    x1, y1, x2, y2 = box
    crop = (labels[y1:y2, x1:x2] == index).astype(np.uint8)
    contours, _ = cv2.findContours(crop, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(crop)
    cv2.drawContours(filled, contours, -1, 1, thickness=cv2.FILLED)
    return float(cv2.countNonZero(filled)) / max(crop.size, 1)


def shrink_growth(raw: IntBoxes) -> IntBoxes:
    """Undo the gradient's outward growth of component boxes (keeping at least one pixel)."""
    out = inset(raw, EDGE_GROWTH)
    out[:, 2] = np.maximum(out[:, 2], out[:, 0] + 1)
    out[:, 3] = np.maximum(out[:, 3], out[:, 1] + 1)
    return out
