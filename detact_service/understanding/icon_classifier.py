"""Icon names that generalise beyond the template pack: SSIM for exact hits, a small CNN for the rest.

The SSIM matcher (:mod:`detact_service.understanding.icons`) names an icon only when it is drawn exactly
as one of its templates. This backend keeps those exact hits and names every other candidate with a
small CNN (``models/ui-icons.onnx``, trained by ``python -m training.icons`` on glyphs of many icon
sets, tested on sets it never saw; see ``docs/ICONS.md``). The CNN reads the same normalised ink the
SSIM matcher compares: ink = distance from the border colour (colour- and polarity-blind), resampled
into a 32x32 frame centred on the ink's centroid and scaled by its radius of gyration. Its first class
is ``unknown``; a name is given only when the best class is not ``unknown`` and its probability reaches
``settings.icons.classifier_threshold`` (unset: the model's own, ``conf`` in its manifest entry, chosen
on the validation set, else :data:`DEFAULT_THRESHOLD`). A candidate left unnamed whose box was taken as it
is (not a button's, which is inset) is read once more inset as a button's: a glyph's padded box that
reaches a container's rounded corner (a search field's magnifier on a phone) has that corner's background
as ink, which the CNN takes for part of the glyph.

An icon named on an element typed ``image``, ``region``, ``text`` or ``icon`` is an icon button: its type
becomes ``button``. Buttons stay buttons. A checkbox or radio (a round or square icon the segmenter
took for a control) becomes a button only when its name is a pictogram: a name made of shape words
(``check square``, ``circle``) leaves it a control, as in the SSIM stage.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from detact_service.core import Element, ElementType, ScreenParse
from detact_service.detectors.classical_pixels import border_pixels
from detact_service.models import ModelSpec, model_spec, resolve_device
from detact_service.settings import Settings
from detact_service.stages import Backend, RGBImage, StageUnavailable, register, verified_session
from detact_service.understanding.icons import (
    FRAME,
    INDEX_FILE,
    INK_FLOOR,
    MIN_CONTRAST,
    MIN_RADIUS,
    PACK_FILE,
    IconMatcher,
    element_roi,
    frame_ink,
    icon_rois,
)
from detact_service.understanding.icons import (
    named_element as named_by_matcher,
)
from detact_service.understanding.layout_types import layout_types

UNKNOWN = "unknown"
DEFAULT_THRESHOLD = 0.5
MODEL_KIND = "icons"
CHUNK = 256  # ROIs normalised together (zero-padded to the largest of them)
ICON_BUTTON_FROM = frozenset({ElementType.REGION, ElementType.IMAGE, ElementType.TEXT, ElementType.ICON})


def _median(values: npt.NDArray[np.float32], counts: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
    """``np.median`` of the first ``counts[i]`` entries of each row of ``values`` ``(N, M, ...)``."""
    ordered = np.sort(values, axis=1)
    low = ((counts - 1) // 2).reshape((-1, 1) + (1,) * (values.ndim - 2))
    high = (counts // 2).reshape(low.shape)
    pick = np.take_along_axis(ordered, low, axis=1) + np.take_along_axis(ordered, high, axis=1)
    return np.asarray(pick[:, 0] * 0.5, dtype=np.float32)


def frames(rois: Sequence[npt.ArrayLike]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
    """The classifier's input for each RGB ROI, ``(N, FRAME, FRAME)`` float32, and which ROIs have ink.

    See :func:`frames_batch`; ROIs go :data:`CHUNK` at a time, so memory stays small for any count.
    """
    if len(rois) <= CHUNK:
        return frames_batch(rois)
    parts = [frames_batch(rois[start : start + CHUNK]) for start in range(0, len(rois), CHUNK)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def frames_batch(rois: Sequence[npt.ArrayLike]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
    """The classifier's input for each RGB ROI, ``(N, FRAME, FRAME)`` float32, and which ROIs have ink.

    The same maps as :func:`~detact_service.understanding.icons.ink_map` then
    :func:`~detact_service.understanding.icons.frame_ink` give one ROI at a time, for the whole batch at
    once: the ROIs are zero-padded to one size (padding is no ink, so moments and resampling do not
    change). A blank ROI, one without a plain background (texture, photo) or one whose ink is a dot
    gets zeros and ``False``.
    """
    images = [np.asarray(roi, dtype=np.float32) for roi in rois]
    images = [image[..., None] if image.ndim == 2 else image for image in images]
    count = len(images)
    out = np.zeros((count, FRAME, FRAME), dtype=np.float32)
    valid = np.array([image.shape[0] >= 3 and image.shape[1] >= 3 for image in images], dtype=bool)
    if not valid.any():
        return out, valid
    live = np.flatnonzero(valid)
    shapes = np.array([images[i].shape[:2] for i in live])
    height, width = int(shapes[:, 0].max()), int(shapes[:, 1].max())
    channels = max(images[i].shape[2] for i in live)
    stack = np.zeros((len(live), height, width, channels), dtype=np.float32)
    border_len = 2 * (shapes[:, 0] + shapes[:, 1]) - 4
    border = np.zeros((len(live), int(border_len.max()), channels), dtype=np.float32)
    for row, i in enumerate(live):
        image = images[i]
        h, w = image.shape[:2]
        stack[row, :h, :w, : image.shape[2]] = image
        edge = border_pixels(image)
        border[row, : len(edge), : image.shape[2]] = edge
        border[row, len(edge) :] = np.inf  # sorts last: the median counts only the real border
    background = _median(border, border_len)  # (n, channels)
    inside = (np.arange(height)[None, :, None] < shapes[:, 0, None, None]) & (
        np.arange(width)[None, None, :] < shapes[:, 1, None, None]
    )
    diff = stack - background[:, None, None, :]
    ink = np.sqrt(np.einsum("nhwc,nhwc->nhw", diff, diff)) * inside
    peak = ink.reshape(len(live), -1).max(axis=1)
    border_diff = border - background[:, None, :]
    border_ink = np.sqrt(np.einsum("nbc,nbc->nb", border_diff, border_diff))
    border_ink[~np.isfinite(border_ink)] = np.inf
    keep = (peak >= MIN_CONTRAST) & (_median(border_ink, border_len) < INK_FLOOR * np.maximum(peak, 1e-6))
    ink /= np.maximum(peak, 1e-6)[:, None, None]
    ink[ink < INK_FLOOR] = 0.0
    framed, radius = frame_ink(ink.astype(np.float64))
    keep &= radius >= MIN_RADIUS
    out[live[keep]] = framed[keep]
    valid[:] = False
    valid[live[keep]] = True
    return out, valid


@dataclass(frozen=True)
class IconClassifier:
    """The ONNX session and its class names (``unknown`` first)."""

    session: Any
    classes: tuple[str, ...]

    def probabilities(self, batch: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Softmax over the classes for frames ``(N, FRAME, FRAME)``, in one call."""
        if len(batch) == 0:
            return np.zeros((0, len(self.classes)), dtype=np.float32)
        (logits,) = self.session.run(None, {"frames": batch[:, None].astype(np.float32)})
        logits = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return np.asarray(exp / exp.sum(axis=1, keepdims=True), dtype=np.float32)

    def name(self, rois: Sequence[npt.ArrayLike], threshold: float) -> list[tuple[str | None, float]]:
        """Best meaning and its probability for each ROI; None for unknown, blank or below ``threshold``."""
        batch, valid = frames(rois)
        results: list[tuple[str | None, float]] = [(None, 0.0)] * len(rois)
        live = np.flatnonzero(valid)
        probs = self.probabilities(batch[live])
        for row, i in enumerate(live):
            best = int(probs[row].argmax())
            score = float(probs[row, best])
            name = self.classes[best]
            results[int(i)] = (None if name == UNKNOWN or score < threshold else name, score)
        return results


def classifier_spec(settings: Settings) -> ModelSpec:
    """The classifier's manifest entry and file (:class:`StageUnavailable` when missing)."""
    spec = model_spec(settings.models_dir, MODEL_KIND, settings.icons.classifier_model)
    if not spec.classes or spec.classes[0] != UNKNOWN:
        raise StageUnavailable(f"icon model {spec.name!r}: its classes must start with {UNKNOWN!r}")
    return spec


def load_classifier(spec: ModelSpec, use_cuda: bool = False) -> IconClassifier:
    """The classifier of a manifest entry; its session once per process (file checked against its sha256)."""
    return IconClassifier(verified_session(spec, use_cuda, threads=1), spec.classes)


def named_element(element: Element, icon: str) -> Element:
    """The element once its icon is known; an image, region, text or icon element becomes an icon button.

    A one-letter text stays: it may be OCR's reading of the pictogram (a magnifier read as 'Q') or the
    letter a toolbar button shows ('A' for text formatting); the name says which.
    """
    return named_by_matcher(element, icon, ElementType.BUTTON, ICON_BUTTON_FROM)


@register("icons", "classifier")
class IconClassifierStage(Backend):
    """Pipeline stage: SSIM exact hits, then the CNN for the remaining icon-like elements (one call)."""

    config = ("icons", "device")

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.matcher = IconMatcher(icons_dir=settings.icons.dir, threshold=settings.icons.threshold)
        self._spec: ModelSpec | None = None

    @classmethod
    def available(cls, settings: Settings) -> str | None:
        try:
            classifier_spec(settings)
        except StageUnavailable as exc:
            return str(exc)
        return None

    @property
    def spec(self) -> ModelSpec:
        if self._spec is None:
            self._spec = classifier_spec(self.settings)
        return self._spec

    def has_pack(self) -> bool:
        folder = self.settings.icons.dir
        return (folder / PACK_FILE).is_file() and (folder / INDEX_FILE).is_file()

    def load(self) -> IconClassifier:
        if self.has_pack():
            _ = self.matcher.pack
        return load_classifier(self.spec, resolve_device(self.settings) == "cuda")

    def model_version(self) -> str | None:
        return self.spec.version_tag()

    @property
    def threshold(self) -> float:
        """The probability needed to name an icon: the setting, else the model's own, else the default."""
        if self.settings.icons.classifier_threshold is not None:
            return self.settings.icons.classifier_threshold
        own = self.spec.entry.conf
        return own if own is not None else DEFAULT_THRESHOLD

    def name_rois(self, rois: Sequence[RGBImage]) -> list[str | None]:
        """SSIM's name where it is an exact hit, else the classifier's (None when unknown)."""
        names: list[str | None] = [None] * len(rois)
        if self.has_pack():
            names = [name for name, _ in self.matcher.match(rois)]
        rest = [i for i, name in enumerate(names) if name is None]
        if rest:
            classifier = self.load()
            guesses = classifier.name([rois[i] for i in rest], self.threshold)
            for i, (name, _) in zip(rest, guesses, strict=True):
                names[i] = name
        return names

    def inset_names(
        self,
        images: Sequence[RGBImage],
        parses: Sequence[ScreenParse],
        where: Sequence[tuple[int, int]],
        names: list[str | None],
    ) -> list[str | None]:
        """``names`` with each candidate left unnamed whose box was not inset (not a button) named by the
        CNN from its box inset as a button's, where it can: a glyph in a padded box whose corners show a
        container's rounded edge (a search field's magnifier), in one call."""
        retry = [
            (k, roi)
            for k, (name, (p_index, e_index)) in enumerate(zip(names, where, strict=True))
            if name is None
            and parses[p_index].elements[e_index].type is not ElementType.BUTTON
            and (roi := element_roi(images[p_index], parses[p_index].elements[e_index].bbox, inset=True))
            is not None
        ]
        if not retry:
            return names
        guesses = self.load().name([roi for _, roi in retry], self.threshold)
        named = list(names)
        for (k, _), (name, _) in zip(retry, guesses, strict=True):
            named[k] = name
        return named

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        """Name every candidate element of every screen in one batch (and the unnamed again, inset)."""
        rois, where = icon_rois(images, parses, self.settings, letters=True)
        names = self.inset_names(images, parses, where, self.name_rois(rois))
        elements = [list(parse.elements) for parse in parses]
        for (p_index, e_index), icon in zip(where, names, strict=True):
            if icon is not None:
                elements[p_index][e_index] = named_element(elements[p_index][e_index], icon)
        return [
            layout_types(parse.with_elements(items), image)
            for image, parse, items in zip(images, parses, elements, strict=True)
        ]
