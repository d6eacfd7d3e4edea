"""Whether a control is disabled, read from the control at about its own scale.

The reader's view fits a window three times an element's size into 96 px: a button drawn at half
opacity, or a menu item in the theme's grey, keeps its shape there but little of its contrast, and the
reader finds a third of the disabled controls of templates it never saw (``docs/READER.md``). The dimmed
view is the control with a margin of its own background around it, resized to a fixed strip: the
contrast between its ink, its fill and its surroundings is what a small CNN (``training.reader.dimmed``)
reads as the chance that it is disabled.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from detact_service.models import ModelSpec, optional_model_spec, resolve_device
from detact_service.settings import Settings
from detact_service.stages import run_views, verified_session

RGBImage = npt.NDArray[np.uint8]
KIND = "dimmed"
"""The manifest kind of disabled-state models."""
HEIGHT = 32
WIDTH = 128
MARGIN = 0.3
"""The view takes this many times the box's short side around it on every side: the surroundings."""


def dimmed_boxes(boxes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Each box grown by :data:`MARGIN` of its short side on every side (not clipped)."""
    boxes = np.asarray(boxes, dtype=np.int64).reshape(-1, 4)
    short = np.maximum(np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]), 1)
    margin = np.maximum(np.round(short * MARGIN).astype(np.int64), 1)[:, None]
    return boxes + np.concatenate([-margin, -margin, margin, margin], axis=1)


def dimmed_views(
    image: RGBImage, boxes: npt.NDArray[np.int64], height: int = HEIGHT, width: int = WIDTH
) -> RGBImage:
    """N views (N x height x width x 3 uint8): each grown box, edge pixels repeated outside the image."""
    grown = dimmed_boxes(boxes)
    views = np.zeros((len(grown), height, width, 3), dtype=np.uint8)
    rows, cols = image.shape[:2]
    # One resize per box: the crops have different shapes.
    for i, (x1, y1, x2, y2) in enumerate(grown.tolist()):
        crop = image[max(y1, 0) : min(y2, rows), max(x1, 0) : min(x2, cols)]
        if crop.size == 0:
            continue
        pad = ((max(-y1, 0), max(y2 - rows, 0)), (max(-x1, 0), max(x2 - cols, 0)), (0, 0))
        if any(p for pair in pad[:2] for p in pair):
            crop = np.pad(crop, pad, mode="edge")
        shrink = crop.shape[0] > height or crop.shape[1] > width
        views[i] = cv2.resize(
            crop, (width, height), interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR
        )
    return views


@dataclass(frozen=True)
class DimmedReader:
    """A shipped disabled-state model: its manifest entry and its view size."""

    spec: ModelSpec
    height: int
    width: int
    threshold: float = 0.5
    """The chance at which a control counts as disabled (the manifest entry's ``conf``)."""

    @classmethod
    def configured(cls, settings: Settings) -> DimmedReader | None:
        """The configured model, or None when it is not named or not shipped here."""
        spec = optional_model_spec(settings.models_dir, KIND, settings.attributes.disabled_model)
        if spec is None:
            return None
        height, width = (int(v) for v in (spec.entry.model_extra or {}).get("view", (HEIGHT, WIDTH)))
        threshold = spec.entry.conf if spec.entry.conf is not None else 0.5
        return cls(spec, height, width, threshold)

    def probabilities(self, settings: Settings, views: RGBImage) -> npt.NDArray[np.float32]:
        """For each view, the chance that the control is disabled (one call per ``batch_size`` views)."""
        if not len(views):
            return np.zeros(0, dtype=np.float32)
        session = verified_session(self.spec, resolve_device(settings) == "cuda")
        (disabled,) = run_views(session, views, settings.attributes.batch_size)
        return disabled.reshape(-1).astype(np.float32)

    def as_state_probability(self, chance: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """``chance`` mapped monotonically so that the reader's 0.5 cut falls at this model's threshold."""
        t = min(max(self.threshold, 1e-6), 1.0 - 1e-6)
        below = 0.5 * chance / t
        above = 0.5 + 0.5 * (chance - t) / (1.0 - t)
        return np.where(chance < t, below, above).astype(np.float32)
