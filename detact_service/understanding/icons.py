"""DetACT icon matching: name small glyph-like elements by SSIM against a pack of icon templates.

The pack (``icons/pack.npz`` + ``icons/index.json``, made by ``icons/build_pack.py``) holds ink masks of
icon-font glyphs, each cropped to its ink box, padded square and resampled to 48x48 (uint8).

ROIs (crops of the screenshot) and templates are normalised the same way, blind to colour and polarity:

1. ink = RGB distance from the background colour (the median of the ROI's border pixels) over its
   peak, so dark-on-light and light-on-dark glyphs of any colour give the same 0-1 map; ink below
   :data:`INK_FLOOR` is dropped;
2. the ink is resampled into a :data:`FRAME` x :data:`FRAME` frame centred on its centroid and scaled
   so its radius of gyration is :data:`FRAME_RADIUS` px (area averaging to shrink, linear to grow);
3. both are blurred by a Gaussian whose width follows the ROI's pixel pitch in the frame, so a 16 px
   icon is compared with an equally soft template.

Centroid and radius of gyration are sub-pixel measures, unlike an ink bounding box, whose one-pixel
jitter on small icons costs more SSIM than the 0.95 threshold allows: with a bounding-box crop only
about half of the pack's own glyphs drawn at 24-32 px reached 0.95; with moments nearly all do.

Scoring every ROI against every template with SSIM would take minutes, so matching is two steps: a
normalised cross-correlation of every ROI with every template (one matrix product over 16x16
thumbnails) keeps the top :data:`TOP_K` templates per ROI, then exact SSIM (grayscale, as
``skimage.metrics.structural_similarity`` by default: 7x7 uniform window, sample covariance) ranks
those. A name is given when the best SSIM reaches the threshold (``DETACT_ICONS__THRESHOLD``, 0.95).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from scipy.ndimage import gaussian_filter, uniform_filter

from detact_service.core import Element, ElementState, ElementType, ScreenParse
from detact_service.detectors.classical_pixels import border_pixels, edge_cuts
from detact_service.settings import Settings, get_settings
from detact_service.stages import Backend, RGBImage, StageUnavailable, cached_model, register
from detact_service.understanding.glyph_text import is_glyph_text, is_letter_text
from detact_service.understanding.layout_types import layout_types

FloatArray = npt.NDArray[np.float64]
IconMatch = tuple[str | None, float]

PACK_FILE = "pack.npz"
INDEX_FILE = "index.json"
PACK_CHUNK = 512  # templates framed at a time when a pack loads
TEMPLATE_SIZE = 48  # side of the stored templates
FRAME = 32  # side of the frame ROIs and templates are compared in
FRAME_RADIUS = 7.0  # radius of gyration of the ink in the frame (px); 99.9% of the pack's glyphs fit
INK_FLOOR = 0.1  # ink below this share of the peak is background noise
MIN_CONTRAST = 32.0  # RGB distance below which a ROI counts as blank (no glyph)
MIN_RADIUS = 1.5  # ROI ink with a smaller radius of gyration (px) is a dot, not an icon
BLUR_PER_PITCH = 1.1  # Gaussian sigma, in ROI pixels
MIN_BLUR, MAX_BLUR = 0.7, 1.5  # sigma bounds, in frame pixels
PREFILTER_BLUR = 1.0  # sigma (frame px) of the pre-filter's thumbnails, ROIs and templates alike
PREFILTER_POOL = 2  # thumbnails are FRAME / PREFILTER_POOL px square
TOP_K = 12  # candidates per ROI that get an exact SSIM (the right one ranks in the top 8 for 99%+)
MATCH_TYPES = frozenset(
    {
        ElementType.ICON,
        ElementType.REGION,
        ElementType.IMAGE,
        ElementType.BUTTON,
        ElementType.CHECKBOX,
        ElementType.RADIO,
        ElementType.TOGGLE,
        ElementType.TEXT,
    }
)
RETYPE = frozenset({ElementType.REGION, ElementType.IMAGE, ElementType.TEXT})
MARK_CONTROLS = frozenset({ElementType.CHECKBOX, ElementType.RADIO, ElementType.TOGGLE})
# A checkbox, radio or switch whose best template is only a shape (a circle, a ticked square, a switch's
# track) stays a control; one that matches a named pictogram (a gear, a magnifier, a microphone) was a
# round icon the segmenter or the reader mistook.
SHAPE_WORDS = frozenset(
    {
        "checkbox",
        "radiobox",
        "radio",
        "check",
        "square",
        "circle",
        "dot",
        "record",
        "blank",
        "marked",
        "outline",
        "small",
        "medium",
        "large",
        "double",
        "rounded",
        "multiple",
        "toggle",
        "left",
        "right",
        "off",
        "on",
        "checked",
        "unchecked",
        "intermediate",
        "indeterminate",
    }
)
MIN_ASPECT, MAX_ASPECT = 0.5, 2.0
BUTTON_INSET = 0.12  # share of a button's short side cut from each edge before matching its glyph


# --- normalisation ---------------------------------------------------------------------------------


def resize_matrix(n_in: int, n_out: int) -> FloatArray:
    """``(n_out, n_in)`` plain resampling operator (area averaging down, linear up): ``m @ a @ m.T``."""
    return frame_matrices(n_in, np.array([n_in / 2.0]), np.array([n_in / n_out]), n_out)[0]


def frame_matrices(n_in: int, centres: FloatArray, scales: FloatArray, n_out: int = FRAME) -> FloatArray:
    """``(B, n_out, n_in)`` 1-D resampling operators, one per (centre, scale) pair.

    Output pixel ``u`` samples input coordinate ``centre + (u + 0.5 - n_out / 2) * scale`` (pixel
    centres at ``i + 0.5``) with a box of width ``max(scale, 1)``: the mean over its footprint when
    shrinking, linear interpolation when growing. Outside the input counts as zero ink.
    """
    centres = np.asarray(centres, dtype=np.float64).reshape(-1)
    scales = np.asarray(scales, dtype=np.float64).reshape(-1)
    coords = centres[:, None] + (np.arange(n_out) + 0.5 - n_out / 2.0)[None, :] * scales[:, None]
    width = np.maximum(scales, 1.0)[:, None, None]
    pixels = np.arange(n_in, dtype=np.float64)[None, None, :]
    # overlap of [coord - width / 2, coord + width / 2] with pixel [i, i + 1]: F(high) - F(low),
    # where F(x) = clip(x - i, 0, 1)
    high = coords[..., None] + width / 2.0 - pixels
    low = coords[..., None] - width / 2.0 - pixels
    np.clip(high, 0.0, 1.0, out=high)
    np.clip(low, 0.0, 1.0, out=low)
    high -= low
    high /= width
    return high


def ink_map(rgb: npt.ArrayLike, min_contrast: float = MIN_CONTRAST) -> FloatArray | None:
    """Ink in 0-1: each pixel's RGB distance from the background (median border colour), over its peak.

    Below :data:`INK_FLOOR` counts as zero. None when the ROI is blank (peak distance < ``min_contrast``)
    or has no background (half its border or more is ink: noise, texture, a photo).
    """
    image = np.asarray(rgb, dtype=np.float64)
    if image.ndim == 2:
        image = image[..., None]
    if image.shape[0] < 3 or image.shape[1] < 3:
        return None
    border = border_pixels(image)
    background = np.median(border, axis=0)
    ink = np.sqrt(((image - background) ** 2).sum(axis=-1))
    peak = float(ink.max())
    if peak < min_contrast:
        return None
    border_ink = np.sqrt(((border - background) ** 2).sum(axis=-1)) / peak
    if float(np.median(border_ink)) >= INK_FLOOR:  # no background to stand on: texture, photo, noise
        return None
    ink /= peak
    return np.where(ink >= INK_FLOOR, ink, 0.0)


def ink_moments(stack: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Centroid row, centroid column and radius of gyration (px) of each ink image in ``(B, H, W)``."""
    rows = stack.sum(axis=2)
    cols = stack.sum(axis=1)
    total = np.maximum(rows.sum(axis=1), 1e-12)
    ys = np.arange(stack.shape[1]) + 0.5
    xs = np.arange(stack.shape[2]) + 0.5
    cy = (rows * ys).sum(axis=1) / total
    cx = (cols * xs).sum(axis=1) / total
    var_y = (rows * (ys[None, :] - cy[:, None]) ** 2).sum(axis=1)
    var_x = (cols * (xs[None, :] - cx[:, None]) ** 2).sum(axis=1)
    return cy, cx, np.sqrt((var_x + var_y) / total)


def frame_ink(stack: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Ink images ``(B, H, W)`` in the moment frame ``(B, FRAME, FRAME)``, with their radii of gyration."""
    cy, cx, radius = ink_moments(stack)
    scale = np.maximum(radius, 1e-6) / FRAME_RADIUS
    rows = frame_matrices(stack.shape[1], cy, scale)
    cols = frame_matrices(stack.shape[2], cx, scale)
    return rows @ stack @ cols.transpose(0, 2, 1), radius


def blur_sigma(radius: FloatArray) -> FloatArray:
    """Blur (frame px) for ROIs whose ink has ``radius`` of gyration (ROI px): about one ROI pixel."""
    return np.clip(BLUR_PER_PITCH * FRAME_RADIUS / np.maximum(radius, 1e-6), MIN_BLUR, MAX_BLUR)


def blur(stack: npt.NDArray[np.floating], sigma: float) -> npt.NDArray[np.floating]:
    """Gaussian blur of each image in ``(B, H, W)`` (dtype kept)."""
    return np.asarray(gaussian_filter(stack, (0.0, sigma, sigma), mode="constant"))


def _box(stack: npt.NDArray[np.floating], win_size: int) -> npt.NDArray[np.floating]:
    """Mean over a ``win_size`` square window of each image in ``(..., H, W)``."""
    size = (1,) * (stack.ndim - 2) + (win_size, win_size)
    return np.asarray(uniform_filter(stack, size=size))


def _ssim_terms(
    ux: npt.NDArray[np.floating],
    vx: npt.NDArray[np.floating],
    uy: npt.NDArray[np.floating],
    vy: npt.NDArray[np.floating],
    vxy: npt.NDArray[np.floating],
    data_range: float,
    pad: int,
) -> npt.NDArray[np.floating]:
    """Mean of the SSIM map from local means, variances and covariance, the border of ``pad`` left out."""
    c1 = (0.01 * data_range) ** 2
    c2 = (0.03 * data_range) ** 2
    numerator = (2.0 * ux * uy + c1) * (2.0 * vxy + c2)
    denominator = (ux * ux + uy * uy + c1) * (vx + vy + c2)
    ssim_map = (numerator / denominator)[..., pad:-pad, pad:-pad]
    return np.asarray(ssim_map.mean(axis=(-2, -1)))


def batched_ssim(
    x: npt.ArrayLike, y: npt.ArrayLike, data_range: float = 1.0, win_size: int = 7
) -> FloatArray:
    """Mean SSIM of each pair ``x[i]``, ``y[i]`` of grayscale images, stacked ``(N, H, W)``.

    Same result as ``skimage.metrics.structural_similarity(x[i], y[i], data_range=data_range)`` with
    its defaults (uniform 7x7 window, sample covariance, K1=0.01, K2=0.03, border of half a window
    left out of the mean).
    """
    # skimage scores one pair per call (~80 us overhead each); filtering the whole stack scores all at once.
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 3:
        raise ValueError(f"need two equal (N, H, W) stacks, got {a.shape} and {b.shape}")
    cov_norm = win_size**2 / (win_size**2 - 1.0)
    ux, uy = _box(a, win_size), _box(b, win_size)
    vx = cov_norm * (_box(a * a, win_size) - ux * ux)
    vy = cov_norm * (_box(b * b, win_size) - uy * uy)
    vxy = cov_norm * (_box(a * b, win_size) - ux * uy)
    return np.asarray(_ssim_terms(ux, vx, uy, vy, vxy, data_range, (win_size - 1) // 2), dtype=np.float64)


def ssim_one_to_many(x: npt.ArrayLike, ys: npt.ArrayLike, win_size: int = 7) -> FloatArray:
    """SSIM (data range 1) of each ``x[r]`` with each of its candidates ``ys[r, k]``.

    ``x`` is ``(R, H, W)`` and ``ys`` ``(R, K, H, W)``.

    The same numbers as :func:`batched_ssim`, in float32 and with each ``x``'s statistics computed once.
    """
    a = np.asarray(x, dtype=np.float32)[:, None]
    b = np.asarray(ys, dtype=np.float32)
    cov_norm = np.float32(win_size**2 / (win_size**2 - 1.0))
    ux, uy = _box(a, win_size), _box(b, win_size)
    vx = cov_norm * (_box(a * a, win_size) - ux * ux)
    vy = cov_norm * (_box(b * b, win_size) - uy * uy)
    vxy = cov_norm * (_box(a * b, win_size) - ux * uy)
    return np.asarray(_ssim_terms(ux, vx, uy, vy, vxy, 1.0, (win_size - 1) // 2), dtype=np.float64)


def prefilter_features(stack: npt.NDArray[np.floating]) -> npt.NDArray[np.float32]:
    """Pooled thumbnails, zero-mean and unit-norm, flattened: their dot products are cross-correlations."""
    n, side = len(stack), stack.shape[-1] // PREFILTER_POOL
    thumbs = stack.reshape(n, side, PREFILTER_POOL, side, PREFILTER_POOL).mean(axis=(2, 4)).reshape(n, -1)
    thumbs = thumbs - thumbs.mean(axis=1, keepdims=True)
    norms = np.linalg.norm(thumbs, axis=1, keepdims=True)
    return np.asarray(thumbs / np.where(norms > 1e-9, norms, 1.0), dtype=np.float32)


# --- the pack --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IconPack:
    """Templates in memory: names, framed ink images and pre-filter features."""

    names: tuple[str, ...]
    framed: npt.NDArray[np.float32]  # (N, FRAME, FRAME), unblurred
    features: npt.NDArray[np.float32]  # (N, (FRAME / PREFILTER_POOL) ** 2)
    version: str

    def __len__(self) -> int:
        return len(self.names)


def read_index(icons_dir: Path) -> dict[str, object]:
    """The pack's ``index.json`` as a dict."""
    with (Path(icons_dir) / INDEX_FILE).open(encoding="utf-8") as handle:
        index: dict[str, object] = json.load(handle)
    return index


def pack_from_templates(
    templates: npt.NDArray[np.uint8], names: Sequence[str], version: str = ""
) -> IconPack:
    """An in-memory pack from uint8 ink templates ``(N, S, S)`` and their names."""
    if len(templates) != len(names) or len(names) == 0:
        raise ValueError(f"{len(templates)} templates for {len(names)} names")
    # In chunks: framing all ~10k templates at once in float64 peaked at 600 MB of transient memory.
    framed = np.empty((len(templates), FRAME, FRAME), dtype=np.float32)
    features = np.empty((len(templates), (FRAME // PREFILTER_POOL) ** 2), dtype=np.float32)
    for start in range(0, len(templates), PACK_CHUNK):
        chunk = slice(start, start + PACK_CHUNK)
        ink = templates[chunk].astype(np.float64)
        ink[ink < INK_FLOOR * 255.0] = 0.0
        ink /= 255.0
        framed_chunk, _ = frame_ink(ink)
        framed[chunk] = framed_chunk
        features[chunk] = prefilter_features(blur(framed_chunk, PREFILTER_BLUR))
    if not version:
        version = f"icon-pack-{len(names)}-{hashlib.sha256(templates.tobytes()).hexdigest()[:10]}"
    return IconPack(tuple(names), framed, features, version)


def load_pack(icons_dir: Path) -> IconPack:
    """Read ``pack.npz`` + ``index.json`` from ``icons_dir`` (raises StageUnavailable when missing)."""
    icons_dir = Path(icons_dir)
    pack_path = icons_dir / PACK_FILE
    if not pack_path.is_file() or not (icons_dir / INDEX_FILE).is_file():
        raise StageUnavailable(f"icon pack missing in {icons_dir}; run `python icons/build_pack.py`")
    with np.load(pack_path, allow_pickle=False) as data:
        templates = np.asarray(data["templates"], dtype=np.uint8)
    rows = read_index(icons_dir)["templates"]
    if not isinstance(rows, list) or len(rows) != len(templates):
        raise StageUnavailable(f"icon pack in {icons_dir} is inconsistent with its index.json")
    return pack_from_templates(templates, [str(row[0]) for row in rows])


# --- matching --------------------------------------------------------------------------------------


class IconMatcher:
    """Names icon crops by SSIM against the template pack (usable without a pipeline)."""

    def __init__(
        self,
        pack: IconPack | None = None,
        icons_dir: Path | None = None,
        threshold: float = 0.95,
        top_k: int = TOP_K,
    ) -> None:
        self._pack = pack
        self._icons_dir = icons_dir
        self.threshold = threshold
        self.top_k = top_k

    @property
    def pack(self) -> IconPack:
        """The template pack, loaded on first use (once per process per folder)."""
        if self._pack is None:
            chosen = self._icons_dir if self._icons_dir is not None else get_settings().icons.dir
            folder = Path(chosen).resolve()
            self._pack = cached_model(("icon-pack", str(folder)), lambda: load_pack(folder))
        return self._pack

    @staticmethod
    def normalise(rois: Sequence[npt.ArrayLike]) -> list[tuple[FloatArray, float] | None]:
        """Each RGB ROI as (its unblurred frame, its ink's radius of gyration in px); None when blank."""
        out: list[tuple[FloatArray, float] | None] = []
        for roi in rois:
            ink = ink_map(roi)
            if ink is None:
                out.append(None)
                continue
            framed, radius = frame_ink(ink[None])
            out.append(None if radius[0] < MIN_RADIUS else (framed[0], float(radius[0])))
        return out

    def match(self, rois: Sequence[npt.ArrayLike]) -> list[IconMatch]:
        """Best template name and its SSIM for each RGB ROI; the name is None below the threshold."""
        normalised = self.normalise(rois)
        results: list[IconMatch] = [(None, 0.0)] * len(normalised)
        live = [(i, item) for i, item in enumerate(normalised) if item is not None]
        if not live:
            return results
        pack = self.pack
        frames = np.stack([item[0] for _, item in live]).astype(np.float32)
        sigmas = np.round(blur_sigma(np.array([item[1] for _, item in live])), 1)
        k = min(self.top_k, len(pack))
        # pre-filter: cross-correlation of equally blurred thumbnails, all ROIs x all templates at once
        correlation = prefilter_features(blur(frames, PREFILTER_BLUR)) @ pack.features.T
        candidates = np.sort(np.argpartition(-correlation, k - 1, axis=1)[:, :k], axis=1)
        scores = np.empty((len(live), k), dtype=np.float64)
        for sigma in np.unique(sigmas):
            rows = np.flatnonzero(sigmas == sigma)
            chosen = blur(pack.framed[candidates[rows].reshape(-1)], float(sigma))
            rois_blurred = blur(frames[rows], float(sigma))
            scores[rows] = ssim_one_to_many(rois_blurred, chosen.reshape(len(rows), k, FRAME, FRAME))
        best = scores.argmax(axis=1)
        for row, (i, _) in enumerate(live):
            score = float(scores[row, best[row]])
            name = pack.names[int(candidates[row, best[row]])]
            results[i] = (name if score >= self.threshold else None, score)
        return results


# --- the stage -------------------------------------------------------------------------------------


def icon_candidate(element: Element, settings: Settings, letters: bool = False) -> bool:
    """Whether the stage tries to name ``element``: textless, icon-sized, squarish, of a suitable type.

    With ``letters``, an element whose text is one letter or digit is a candidate too (for a model that
    tells letters from pictograms).
    """
    if element.type not in MATCH_TYPES:
        return False
    text = element.text
    read_score = element.score if element.source.startswith("ocr") else 1.0  # the OCR's own confidence
    glyph = is_glyph_text(text or "", read_score)
    if text and text.strip() and not glyph and not (letters and is_letter_text(text)):
        return False
    width, height = element.width, element.height
    if min(width, height) < settings.icons.min_size or max(width, height) > settings.icons.max_size:
        return False
    return MIN_ASPECT <= width / height <= MAX_ASPECT


def named_element(
    element: Element,
    icon: str,
    named_type: ElementType = ElementType.ICON,
    retype: frozenset[ElementType] = RETYPE,
) -> Element:
    """The element once its icon is known: a type fix where the name shows what it really is.

    A mark control named by a picture (not a shape), a text element, and a ``retype`` element become
    ``named_type``.
    """
    if element.type in MARK_CONTROLS:
        if set(icon.split()) <= SHAPE_WORDS:
            return element
        return element.replace(icon=icon, type=named_type, state=ElementState())
    if element.type is ElementType.TEXT:
        return element.replace(icon=icon, type=named_type, text=None, source=element.source)
    new_type = named_type if element.type in retype else element.type
    return element.replace(icon=icon, type=new_type)


def icon_rois(
    images: Sequence[RGBImage], parses: Sequence[ScreenParse], settings: Settings, letters: bool = False
) -> tuple[list[RGBImage], list[tuple[int, int]]]:
    """The ROI of every icon candidate of every screen (see :func:`icon_candidate`), with its index.

    The index is ``(parse, element)``. A button's box is inset by :data:`BUTTON_INSET` first, so its
    rounded corners or outline do not count as ink, and a layout edge reaching into a padded box (a
    header's under a toolbar button) is cut off (:func:`.classical_pixels.edge_cuts`).
    """
    rois: list[RGBImage] = []
    where: list[tuple[int, int]] = []
    for p_index, (image, parse) in enumerate(zip(images, parses, strict=True)):
        for e_index, element in enumerate(parse.elements):
            if not icon_candidate(element, settings, letters):
                continue
            roi = element_roi(image, element.bbox, inset=element.type == ElementType.BUTTON)
            if roi is not None:
                rois.append(roi)
                where.append((p_index, e_index))
    return rois, where


def element_roi(image: RGBImage, bbox: tuple[int, int, int, int], inset: bool) -> RGBImage | None:
    """The pixels of a box to name its glyph from (``inset`` by :data:`BUTTON_INSET` of its short side,
    layout edges reaching into it cut off: :func:`icon_rois`), or None when under 3 px a side."""
    height, width = image.shape[:2]
    x1, y1, x2, y2 = bbox
    if inset:  # cut rounded corners and outlines off the fill
        margin = max(2, round(BUTTON_INSET * min(x2 - x1, y2 - y1)))
        x1, y1, x2, y2 = x1 + margin, y1 + margin, x2 - margin, y2 - margin
    x1, y1, x2, y2 = max(x1, 0), max(y1, 0), min(x2, width), min(y2, height)
    if x2 - x1 < 3 or y2 - y1 < 3:
        return None
    top, bottom, left, right = edge_cuts(image, (x1, y1, x2, y2))
    return image[y1 + top : y2 - bottom, x1 + left : x2 - right]


@register("icons", "ssim")
class IconMatcherStage(Backend):
    """Pipeline stage: sets ``icon`` on icon-like elements whose best template scores >= the threshold.

    Regions and images that get a name become icons; buttons stay buttons (with an icon). A button's
    box is inset by :data:`BUTTON_INSET` first, so its rounded corners or outline do not count as ink.
    """

    config = ("icons",)

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.matcher = IconMatcher(icons_dir=settings.icons.dir, threshold=settings.icons.threshold)

    @classmethod
    def available(cls, settings: Settings) -> str | None:
        folder = Path(settings.icons.dir)
        if not (folder / PACK_FILE).is_file() or not (folder / INDEX_FILE).is_file():
            return f"icon pack missing in {folder}; run `python icons/build_pack.py`"
        return None

    def load(self) -> IconPack:
        return self.matcher.pack

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        """Match every candidate element of every screen in one batch."""
        rois, where = icon_rois(images, parses, self.settings)
        elements = [list(parse.elements) for parse in parses]
        for (p_index, e_index), (icon, _score) in zip(where, self.matcher.match(rois), strict=True):
            if icon is None:
                continue
            elements[p_index][e_index] = named_element(elements[p_index][e_index], icon)
        return [
            layout_types(parse.with_elements(items), image)
            for image, parse, items in zip(images, parses, elements, strict=True)
        ]

    def model_version(self) -> str | None:
        """The pack's id: template count and content hash."""
        return self.matcher.pack.version
