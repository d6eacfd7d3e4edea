"""Whether a checkbox, radio or toggle is on, read from its indicator at full scale.

The reader's view squeezes a context window three times the element's size into 96 px, so the indicator
of a checkbox boxed with its label ("[x] Remember me", 150 x 23 px) shrinks to about two pixels across
and its mark is lost (data engine, Qt checkboxes: checked accuracy 0.57). The indicator sits at one end of
such a box (a web or desktop checkbox on the left, an Android switch on the right), so the check view is
the two squares at the box's ends, each scaled to ``side`` px and laid side by side: the mark keeps
roughly its own size. A small CNN (``training.reader.checks``) reads the chance that the element is on,
and the chance that there is an indicator at all: the reader, from its small view, calls some toolbar
icons and ruler ticks radios, and the check model overrules it.
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
KIND = "checks"
"""The manifest kind of check-state models."""
SIDE = 40
"""Default side of each end square in the view (the model's manifest entry stores its own)."""
MARGIN = 1.3
"""An end square is this many times the box's short side: a padded or tight box keeps the whole indicator."""


def end_squares(boxes: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The square at the start and at the end of each box's long axis (N x 4 xyxy each, not clipped)."""
    boxes = np.asarray(boxes, dtype=np.int64).reshape(-1, 4)
    width = boxes[:, 2] - boxes[:, 0]
    height = boxes[:, 3] - boxes[:, 1]
    short = np.maximum(np.minimum(width, height), 1)
    side = np.maximum(np.round(short * MARGIN).astype(np.int64), 2)
    half = side // 2
    cy = (boxes[:, 1] + boxes[:, 3]) // 2
    cx = (boxes[:, 0] + boxes[:, 2]) // 2
    tall = height > width
    # Centres of the two end squares: along x for a wide box, along y for a tall one.
    start_x = np.where(tall, cx, boxes[:, 0] + short // 2)
    start_y = np.where(tall, boxes[:, 1] + short // 2, cy)
    end_x = np.where(tall, cx, boxes[:, 2] - short // 2)
    end_y = np.where(tall, boxes[:, 3] - short // 2, cy)
    start = np.stack([start_x - half, start_y - half, start_x - half + side, start_y - half + side], axis=1)
    end = np.stack([end_x - half, end_y - half, end_x - half + side, end_y - half + side], axis=1)
    return start, end


def _square(image: RGBImage, box: npt.NDArray[np.int64], side: int) -> RGBImage:
    """``box`` cut from ``image`` (edge pixels repeated outside it), resized to ``side`` x ``side``."""
    height, width = image.shape[:2]
    x1, y1, x2, y2 = (int(v) for v in box)
    crop = image[max(y1, 0) : min(y2, height), max(x1, 0) : min(x2, width)]
    if crop.size == 0:
        return np.zeros((side, side, 3), dtype=np.uint8)
    pad = ((max(-y1, 0), max(y2 - height, 0)), (max(-x1, 0), max(x2 - width, 0)), (0, 0))
    if any(p for pair in pad[:2] for p in pair):
        crop = np.pad(crop, pad, mode="edge")
    interpolation = cv2.INTER_AREA if crop.shape[0] > side else cv2.INTER_LINEAR
    return np.asarray(cv2.resize(crop, (side, side), interpolation=interpolation), dtype=np.uint8)


def check_views(image: RGBImage, boxes: npt.NDArray[np.int64], side: int = SIDE) -> RGBImage:
    """N views (N x side x 2*side x 3 uint8): each box's start and end squares side by side."""
    boxes = np.asarray(boxes, dtype=np.int64).reshape(-1, 4)
    views = np.zeros((len(boxes), side, 2 * side, 3), dtype=np.uint8)
    starts, ends = end_squares(boxes)
    # One resize per square: the crops have different shapes.
    for i, (start, end) in enumerate(zip(starts, ends, strict=True)):
        views[i, :, :side] = _square(image, start, side)
        views[i, :, side:] = _square(image, end, side)
    return views


@dataclass(frozen=True)
class CheckReader:
    """A shipped check-state model: its manifest entry and its view side."""

    spec: ModelSpec
    side: int

    @classmethod
    def configured(cls, settings: Settings) -> CheckReader | None:
        """The configured model, or None when it is not named or not shipped here."""
        spec = optional_model_spec(settings.models_dir, KIND, settings.attributes.check_model)
        return None if spec is None else cls(spec, int(spec.entry.input_size))

    def probabilities(
        self, settings: Settings, views: RGBImage
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """For each view: the chance that the element is on, and that it is a checkable at all (one call
        per ``batch_size`` views)."""
        if not len(views):
            return np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.float32)
        session = verified_session(self.spec, resolve_device(settings) == "cuda")
        on, checkable = run_views(session, views, settings.attributes.batch_size)
        return on.reshape(-1).astype(np.float32), checkable.reshape(-1).astype(np.float32)
