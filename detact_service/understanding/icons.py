"""DetACT icon matching: name small glyph-like elements by SSIM against a pack of icon templates.

The pack (``icons/pack.npz`` + ``icons/index.json``, made by ``icons/build_pack.py``) holds ink masks of
icon-font glyphs, each cropped to its ink box, padded square and resampled to 48x48.

A region of interest (ROI) is normalised the same way, so matching is blind to colour and polarity:

1. ink = distance in RGB from the background colour (the median of the ROI's border pixels), scaled
   by its peak, so dark-on-light and light-on-dark glyphs of any colour give the same map;
2. crop to the box of pixels with at least :data:`INK_THRESHOLD` of the peak ink, pad square;
3. resample that square to :data:`MATCH_SIZE` (area averaging down, linear interpolation up).

Templates are resampled to the ROI's own pixel size before step 3 when the ROI is small, so a 16 px
icon is compared with a 16 px rendering of the template, not with a sharp one.

Scoring every ROI against every template with SSIM would take minutes, so matching is two steps:
a normalised cross-correlation of every ROI with every template (one matrix product) keeps the top
:data:`TOP_K` templates per ROI, then exact SSIM (grayscale, 7x7 uniform window, as
``skimage.metrics.structural_similarity`` by default) ranks those. A name is given when the best
SSIM reaches the threshold (``settings.icon_threshold``, 0.95 in DetACT).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from scipy.ndimage import uniform_filter

from detact_service.core import Element, ElementType, ScreenParse
from detact_service.settings import Settings
from detact_service.stages import RGBImage, StageUnavailable, cached_model

FloatArray = npt.NDArray[np.float64]

PACK_FILE = "pack.npz"
INDEX_FILE = "index.json"
TEMPLATE_SIZE = 48  # side of the stored templates
MATCH_SIZE = 32  # side at which ROIs and templates are compared
PREFILTER_SIZE = 16  # side of the blurred thumbnails the cross-correlation pre-filter compares
TOP_K = 24  # candidates per ROI that get an exact SSIM
INK_THRESHOLD = 0.35  # share of the peak ink that counts as glyph when cropping
MIN_CONTRAST = 32.0  # RGB distance below which a ROI counts as blank (no glyph)
MIN_INK_SIDE = 4  # glyphs whose ink box is smaller than this (px) are not matched
MATCH_TYPES = frozenset({ElementType.ICON, ElementType.REGION, ElementType.IMAGE, ElementType.BUTTON})
RETYPE = frozenset({ElementType.REGION, ElementType.IMAGE})
MIN_ASPECT, MAX_ASPECT = 0.5, 2.0

IconMatch = tuple[str | None, float]


@functools.lru_cache(maxsize=512)
def resize_matrix(n_in: int, n_out: int) -> FloatArray:
    """``(n_out, n_in)`` 1-D resampling operator: area averaging to shrink, linear interpolation to grow.

    A square image ``a`` resamples as ``m @ a @ m.T``; the same operator serves ROIs and templates.
    """
    if n_in < 1 or n_out < 1:
        raise ValueError("sizes must be positive")
    if n_out <= n_in:
        edges = np.arange(n_out + 1, dtype=np.float64) * (n_in / n_out)
        pixels = np.arange(n_in, dtype=np.float64)
        overlap = np.minimum(edges[1:, None], pixels[None, :] + 1.0) - np.maximum(edges[:-1, None], pixels[None, :])
        weights = np.clip(overlap, 0.0, None)
    else:
        centres = np.clip((np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5, 0.0, n_in - 1.0)
        left = np.floor(centres).astype(np.int64)
        right = np.minimum(left + 1, n_in - 1)
        frac = centres - left
        weights = np.zeros((n_out, n_in), dtype=np.float64)
        rows = np.arange(n_out)
        np.add.at(weights, (rows, left), 1.0 - frac)
        np.add.at(weights, (rows, right), frac)
    weights /= weights.sum(axis=1, keepdims=True)
    weights.flags.writeable = False
    return weights


def resample_stack(stack: FloatArray, size: int) -> FloatArray:
    """Resample a stack of square images ``(N, s, s)`` to ``(N, size, size)``."""
    m = resize_matrix(stack.shape[-1], size)
    return np.asarray(np.einsum("ij,njk,lk->nil", m, stack, m, optimize=True), dtype=np.float64)


def ink_map(rgb: npt.ArrayLike, min_contrast: float = MIN_CONTRAST) -> FloatArray | None:
    """Ink in 0-1: each pixel's RGB distance from the background (median border colour), over its peak.

    None when the ROI is blank (peak distance below ``min_contrast``).
    """
    image = np.asarray(rgb, dtype=np.float64)
    if image.ndim == 2:
        image = image[..., None]
    if image.shape[0] < 3 or image.shape[1] < 3:
        return None
    border = np.concatenate([image[0], image[-1], image[1:-1, 0], image[1:-1, -1]], axis=0)
    background = np.median(border, axis=0)
    ink = np.sqrt(((image - background) ** 2).sum(axis=-1))
    peak = float(ink.max())
    if peak < min_contrast:
        return None
    return np.asarray(ink / peak, dtype=np.float64)


def crop_square(ink: FloatArray, threshold: float = INK_THRESHOLD) -> FloatArray | None:
    """Crop ``ink`` (0-1, peak 1) to the box of pixels >= ``threshold`` and zero-pad it square (centred)."""
    mask = ink >= threshold
    rows = np.flatnonzero(mask.any(axis=1))
    cols = np.flatnonzero(mask.any(axis=0))
    if rows.size == 0:
        return None
    crop = ink[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    height, width = crop.shape
    side = max(height, width)
    square = np.zeros((side, side), dtype=np.float64)
    top, left = (side - height) // 2, (side - width) // 2
    square[top : top + height, left : left + width] = crop
    return square


def normalise_ink(ink: FloatArray, size: int = MATCH_SIZE) -> FloatArray | None:
    """Crop to the ink box, pad square and resample to ``size`` x ``size`` (None when there is no ink)."""
    square = crop_square(ink)
    if square is None:
        return None
    return resample_stack(square[None], size)[0]


def batched_ssim(x: npt.ArrayLike, y: npt.ArrayLike, data_range: float = 1.0, win_size: int = 7) -> FloatArray:
    """Mean SSIM of each pair ``x[i]``, ``y[i]`` of grayscale images, stacked ``(N, H, W)``.

    Same result as ``skimage.metrics.structural_similarity`` with its defaults (uniform 7x7 window,
    sample covariance, K1=0.01, K2=0.03, border of half a window left out of the mean).
    """
    # skimage scores one pair per call (python overhead ~100 us each); filtering the stack scores all at once.
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 3:
        raise ValueError(f"need two equal (N, H, W) stacks, got {a.shape} and {b.shape}")
    size = (1, win_size, win_size)
    ux = uniform_filter(a, size=size)
    uy = uniform_filter(b, size=size)
    uxx = uniform_filter(a * a, size=size)
    uyy = uniform_filter(b * b, size=size)
    uxy = uniform_filter(a * b, size=size)
    n_pixels = win_size**2
    cov_norm = n_pixels / (n_pixels - 1.0)
    vx = cov_norm * (uxx - ux * ux)
    vy = cov_norm * (uyy - uy * uy)
    vxy = cov_norm * (uxy - ux * uy)
    c1 = (0.01 * data_range) ** 2
    c2 = (0.03 * data_range) ** 2
    numerator = (2.0 * ux * uy + c1) * (2.0 * vxy + c2)
    denominator = (ux * ux + uy * uy + c1) * (vx + vy + c2)
    pad = (win_size - 1) // 2
    ssim_map = (numerator / denominator)[:, pad:-pad, pad:-pad]
    return np.asarray(ssim_map.mean(axis=(1, 2)), dtype=np.float64)


def _prefilter_features(stack: FloatArray) -> npt.NDArray[np.float32]:
    """Blurred thumbnails, zero-mean and unit-norm, flattened: dot products are cross-correlations."""
    thumbs = resample_stack(stack, PREFILTER_SIZE).reshape(len(stack), -1)
    thumbs = thumbs - thumbs.mean(axis=1, keepdims=True)
    norms = np.linalg.norm(thumbs, axis=1, keepdims=True)
    return np.asarray(thumbs / np.where(norms > 1e-9, norms, 1.0), dtype=np.float32)


@dataclass(frozen=True)
class IconPack:
    """Templates in memory: names, 48 px masks (0-1) and their 32 px versions and pre-filter features."""

    names: tuple[str, ...]
    templates: FloatArray  # (N, 48, 48)
    matched: FloatArray  # (N, 32, 32)
    features: npt.NDArray[np.float32]  # (N, PREFILTER_SIZE**2)
    version: str

    def __len__(self) -> int:
        return len(self.names)


def read_index(icons_dir: Path) -> dict[str, object]:
    """The pack's ``index.json`` as a dict."""
    with (Path(icons_dir) / INDEX_FILE).open(encoding="utf-8") as handle:
        index: dict[str, object] = json.load(handle)
    return index


def load_pack(icons_dir: Path) -> IconPack:
    """Read ``pack.npz`` + ``index.json`` from ``icons_dir`` (raises StageUnavailable when missing)."""
    icons_dir = Path(icons_dir)
    pack_path = icons_dir / PACK_FILE
    if not pack_path.is_file() or not (icons_dir / INDEX_FILE).is_file():
        raise StageUnavailable(f"icon pack missing in {icons_dir}; run `python icons/build_pack.py`")
    with np.load(pack_path, allow_pickle=False) as data:
        raw = np.asarray(data["templates"], dtype=np.uint8)
    rows = read_index(icons_dir)["templates"]
    assert isinstance(rows, list)
    names = tuple(str(row[0]) for row in rows)
    if len(names) != len(raw):
        raise StageUnavailable(f"icon pack in {icons_dir} is inconsistent: {len(raw)} templates, {len(names)} names")
    templates = raw.astype(np.float64) / 255.0
    matched = resample_stack(templates, MATCH_SIZE)
    digest = hashlib.sha256(raw.tobytes()).hexdigest()[:10]
    return IconPack(names, templates, matched, _prefilter_features(matched), f"icon-pack-{len(names)}-{digest}")


def _degraded_templates(pack: IconPack, indices: npt.NDArray[np.int64], side: int) -> FloatArray:
    """Templates ``indices`` as they look when drawn ``side`` px wide, then brought to the match size."""
    if side >= MATCH_SIZE:
        return pack.matched[indices]
    small = resample_stack(pack.templates[indices], side)
    peaks = small.reshape(len(small), -1).max(axis=1)
    small /= np.where(peaks > 1e-9, peaks, 1.0)[:, None, None]
    return resample_stack(small, MATCH_SIZE)


class IconMatcher:
    """Names icon crops by SSIM against the template pack (usable without a pipeline)."""

    def __init__(
        self,
        pack: IconPack | None = None,
        icons_dir: Path | None = None,
        threshold: float = 0.95,
        top_k: int = TOP_K,
    ) -> None:
        if pack is None and icons_dir is None:
            icons_dir = Settings().icons_dir
        self._pack = pack
        self._icons_dir = icons_dir
        self.threshold = threshold
        self.top_k = top_k

    @property
    def pack(self) -> IconPack:
        """The template pack, loaded on first use (once per process per folder)."""
        if self._pack is None:
            folder = Path(self._icons_dir or Settings().icons_dir).resolve()
            self._pack = cached_model(("icon-pack", str(folder)), lambda: load_pack(folder))
        return self._pack

    def normalise(self, rois: Sequence[npt.ArrayLike]) -> list[tuple[FloatArray, int] | None]:
        """Each ROI as (its ``MATCH_SIZE`` ink image, its ink square side in px), or None when blank."""
        out: list[tuple[FloatArray, int] | None] = []
        for roi in rois:
            ink = ink_map(roi)
            square = None if ink is None else crop_square(ink)
            if square is None or square.shape[0] < MIN_INK_SIDE:
                out.append(None)
                continue
            out.append((resample_stack(square[None], MATCH_SIZE)[0], square.shape[0]))
        return out

    def match(self, rois: Sequence[npt.ArrayLike]) -> list[IconMatch]:
        """Best template name and its SSIM for each RGB ROI; name is None below the threshold."""
        normalised = self.normalise(rois)
        results: list[IconMatch] = [(None, 0.0)] * len(normalised)
        live = [i for i, item in enumerate(normalised) if item is not None]
        if not live:
            return results
        pack = self.pack
        images = np.stack([normalised[i][0] for i in live])  # type: ignore[index]
        sides = np.array([normalised[i][1] for i in live], dtype=np.int64)  # type: ignore[index]
        k = min(self.top_k, len(pack))
        correlation = _prefilter_features(images) @ pack.features.T  # (R, N): one matrix product
        candidates = np.argpartition(-correlation, k - 1, axis=1)[:, :k]
        scores = np.empty(candidates.shape, dtype=np.float64)
        effective = np.minimum(sides, MATCH_SIZE)
        for side in np.unique(effective):
            rows = np.flatnonzero(effective == side)
            wanted, inverse = np.unique(candidates[rows], return_inverse=True)
            degraded = _degraded_templates(pack, wanted, int(side))
            pairs = degraded[inverse.reshape(len(rows), k)].reshape(-1, MATCH_SIZE, MATCH_SIZE)
            rois_rep = np.repeat(images[rows], k, axis=0)
            scores[rows] = batched_ssim(rois_rep, pairs).reshape(len(rows), k)
        best = scores.argmax(axis=1)
        for row, i in enumerate(live):
            score = float(scores[row, best[row]])
            name = pack.names[int(candidates[row, best[row]])]
            results[i] = (name if score >= self.threshold else None, score)
        return results


def icon_candidate(element: Element, settings: Settings) -> bool:
    """Whether the stage tries to name ``element``: textless, icon-sized, squarish, of a suitable type."""
    if element.type not in MATCH_TYPES or (element.text and element.text.strip()):
        return False
    width, height = element.width, element.height
    if min(width, height) < settings.icon_min_size or max(width, height) > settings.icon_max_size:
        return False
    return MIN_ASPECT <= width / height <= MAX_ASPECT


class IconMatcherStage:
    """Pipeline stage: sets ``icon`` on icon-like elements whose best template scores >= the threshold."""

    slot = "icons"
    name = "ssim"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.matcher = IconMatcher(icons_dir=settings.icons_dir, threshold=settings.icon_threshold)

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        """Match every candidate element of every screen in one batch."""
        rois: list[RGBImage] = []
        where: list[tuple[int, int]] = []
        for p_index, (image, parse) in enumerate(zip(images, parses, strict=True)):
            height, width = image.shape[:2]
            for e_index, element in enumerate(parse.elements):
                if not icon_candidate(element, self.settings):
                    continue
                x1, y1, x2, y2 = element.bbox
                x1, y1, x2, y2 = max(x1, 0), max(y1, 0), min(x2, width), min(y2, height)
                if x2 - x1 < 3 or y2 - y1 < 3:
                    continue
                rois.append(image[y1:y2, x1:x2])
                where.append((p_index, e_index))
        elements = [list(parse.elements) for parse in parses]
        for (p_index, e_index), (name, _score) in zip(where, self.matcher.match(rois), strict=True):
            if name is None:
                continue
            element = elements[p_index][e_index]
            new_type = ElementType.ICON if element.type in RETYPE else element.type
            elements[p_index][e_index] = element.replace(icon=name, type=new_type)
        return [parse.with_elements(items) for parse, items in zip(parses, elements, strict=True)]

    def model_version(self) -> str | None:
        """The pack's id (template count and content hash)."""
        return self.matcher.pack.version
