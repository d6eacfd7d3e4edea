"""The ``detect`` stage: an Ultralytics-exported YOLOv8 ONNX model run with ONNX Runtime.

The model file and its class names come from a manifest entry of kind ``detector`` (a file under
``models/`` or a path inside an installed wheel; see :mod:`detact_service.models`); until one is
shipped, profiles that need this stage report themselves unavailable.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from detact_service import geometry
from detact_service.core import (
    DETECTOR_SOURCE,
    LANDSCAPE_DETECTOR_SOURCE,
    PHONE_ASPECT,
    Element,
    ElementType,
    ScreenParse,
)
from detact_service.models import (
    MANIFEST,
    ModelSpec,
    ModelUnavailable,
    model_entry,
    model_spec,
    optional_model_spec,
    resolve_device,
)
from detact_service.settings import Settings
from detact_service.stages import Backend, RGBImage, StageUnavailable, register, verified_session

NMS_IOU = 0.5
DEFAULT_CONF = 0.25  # for a manifest entry that names no confidence of its own
LETTERBOX_FILL = 114  # Ultralytics' padding grey
STRIDE = 32  # YOLO's largest feature stride: dynamic inputs are padded to a multiple of it
CLASSLESS = frozenset({"icon", "interactive", "element"})
"""Class names of one-class interactable detectors: their boxes are controls of a type the merge decides."""


DetectorSpec = ModelSpec
"""A detector's resolved manifest entry (file, classes, input size, sha256, provenance)."""


INT8_SUFFIX = "-int8"
"""A detector ``NAME`` may have an int8 copy, manifest entry ``NAME-int8`` (``python -m training.quantize
detector``), run instead on CPU while ``DETACT_DETECTOR__INT8`` is on (the default)."""


def int8_detector(settings: Settings, name: str | None = None) -> ModelSpec | None:
    """The int8 copy of detector ``name`` (default: the configured one) to run instead, if shipped and
    wanted here."""
    name = name or settings.detector.model
    if not settings.detector.int8 or name.endswith(INT8_SUFFIX) or resolve_device(settings) == "cuda":
        return None
    return optional_model_spec(settings.models_dir, "detector", name + INT8_SUFFIX)


def detector_spec(settings: Settings, name: str) -> ModelSpec:
    """Detector ``name``'s spec (its int8 copy when shipped and wanted: :func:`int8_detector`);
    :class:`StageUnavailable` when it is not shipped here."""
    spec = int8_detector(settings, name) or model_spec(settings.models_dir, "detector", name)
    if not spec.classes:
        raise StageUnavailable(f"detector {name!r} in the manifest lists no classes")
    return spec


def detector_model_path(settings: Settings) -> ModelSpec:
    """The configured detector's spec."""
    return detector_spec(settings, settings.detector.model)


def optional_detector(settings: Settings, name: str) -> ModelSpec | None:
    """Detector ``name`` when it is configured and shipped here (like an int8 copy, a deployment without its
    file runs the first detector alone)."""
    if not name or model_entry(settings.models_dir, "detector", name) is None:
        return None
    try:
        return detector_spec(settings, name)
    except ModelUnavailable:
        return None


def landscape_detector(settings: Settings) -> ModelSpec | None:
    """The second detector for screens wider than tall, if any."""
    return optional_detector(settings, settings.detector.landscape_model)


def phone_detector(settings: Settings) -> ModelSpec | None:
    """The detector that replaces the first on phone-shaped screens, if any."""
    return optional_detector(settings, settings.detector.phone_model)


def desktop_detector(settings: Settings) -> ModelSpec | None:
    """The detector that replaces the first on screens wider than tall, if any."""
    return optional_detector(settings, settings.detector.desktop_model)


def is_phone_shaped(image: RGBImage) -> bool:
    return bool(image.shape[0] >= PHONE_ASPECT * image.shape[1])


def detector_unavailable(settings: Settings) -> str | None:
    """Why the configured detector cannot run here, or None."""
    if model_entry(settings.models_dir, "detector", settings.detector.model) is None:
        return (
            f"no detector named {settings.detector.model!r} in {settings.models_dir / MANIFEST} "
            "(the trained YOLOv8 UI detector is not shipped yet; use profile 'detact')"
        )
    try:
        detector_model_path(settings)
    except StageUnavailable as exc:
        return str(exc)
    return None


def input_hw(
    model_shape: Sequence[object],
    height: int,
    width: int,
    size: int,
    upscale: bool = True,
    min_size: int = 0,
) -> tuple[int, int]:
    """The network input for an image: the model's fixed one, else the image's aspect ratio kept.

    With dynamic axes the longer side becomes ``size`` and each side is padded up to the stride, so a
    1080x2340 phone screen is read at 320x640 rather than squeezed into a 640 square with 3/4 padding.
    Without ``upscale`` a smaller screen keeps its own scale, unless its longer side is below
    ``min_size``: then it is enlarged to that.
    """
    fixed_h, fixed_w = model_shape[2], model_shape[3]
    if isinstance(fixed_h, int) and isinstance(fixed_w, int):
        return fixed_h, fixed_w
    scale = size / max(height, width)
    if not upscale:
        scale = min(scale, max(1.0, min_size / max(height, width)))
    return (
        max(STRIDE, math.ceil(height * scale / STRIDE) * STRIDE),
        max(STRIDE, math.ceil(width * scale / STRIDE) * STRIDE),
    )


def letterbox(
    image: RGBImage, size: int | tuple[int, int]
) -> tuple[npt.NDArray[np.float32], float, tuple[float, float]]:
    """Resize keeping aspect ratio and pad to ``size`` (square, or ``(h, w)``); CHW input, scale, padding."""
    out_h, out_w = (size, size) if isinstance(size, int) else size
    height, width = image.shape[:2]
    scale = min(out_w / width, out_h / height)
    new_w, new_h = max(round(width * scale), 1), max(round(height * scale), 1)
    resized = cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_LINEAR)  # as Ultralytics trains
    pad_x, pad_y = (out_w - new_w) / 2, (out_h - new_h) / 2
    canvas = np.full((out_h, out_w, 3), LETTERBOX_FILL, dtype=np.uint8)
    top, left = round(pad_y - 0.1), round(pad_x - 0.1)
    canvas[top : top + new_h, left : left + new_w] = resized
    return canvas.transpose(2, 0, 1).astype(np.float32) / 255.0, scale, (left, top)


def decode(
    output: npt.NDArray[np.float32],
    scale: float,
    padding: tuple[float, float],
    width: int,
    height: int,
    conf: float,
    agnostic: bool = False,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """YOLO head output ``(4 + classes, anchors)`` to xyxy boxes in image pixels, scores, classes.

    ``agnostic`` suppresses overlapping boxes across classes too (one element per place on screen).
    """
    predictions = output.T
    class_scores = predictions[:, 4:]
    classes = class_scores.argmax(axis=1)
    scores = class_scores[np.arange(len(classes)), classes]
    keep = scores >= conf
    cx, cy, w, h = predictions[keep, :4].T
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1).astype(np.float64)
    boxes[:, [0, 2]] = (boxes[:, [0, 2]] - padding[0]) / scale
    boxes[:, [1, 3]] = (boxes[:, [1, 3]] - padding[1]) / scale
    boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, width)
    boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, height)
    scores, classes = scores[keep].astype(np.float64), classes[keep].astype(np.int64)
    if len(boxes) == 0:
        return boxes, scores, classes
    xywh = np.column_stack([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]])
    nms_classes = np.zeros_like(classes) if agnostic else classes
    picked = cv2.dnn.NMSBoxesBatched(xywh.tolist(), scores.tolist(), nms_classes.tolist(), conf, NMS_IOU)
    kept = np.asarray(picked, dtype=np.int64).reshape(-1)
    return boxes[kept], scores[kept], classes[kept]


def class_to_type(name: str) -> ElementType:
    """Map a detector class name to an element type (a one-class detector's boxes are icons until the
    merge gives them their text; unknown names become regions)."""
    if name in CLASSLESS:
        return ElementType.ICON
    try:
        return ElementType(name)
    except ValueError:
        return ElementType.REGION


Detections = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], list[ElementType], list[str]]
"""One screen's boxes (xyxy, image pixels), scores, element types and sources."""


def is_agnostic(spec: ModelSpec) -> bool:
    """Whether every class of the detector means 'a control here' (its boxes typed by the merge)."""
    return bool(spec.entry.agnostic) or all(name in CLASSLESS for name in spec.classes)


@register("detect", "yolo-onnx")
class YoloOnnxDetector(Backend):
    """Runs the detector on a batch of screenshots in one ONNX Runtime call per input shape; on screens
    wider than tall, a second detector (``landscape_model``) too, its boxes added where the first has none;
    on phone-shaped screens, the phone detector (``phone_model``) instead of the first, and on screens wider
    than tall the desktop one (``desktop_model``)."""

    config = ("detector",)
    image_only = True

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.spec = detector_model_path(settings)
        self.landscape_spec = landscape_detector(settings)
        self.phone_spec = phone_detector(settings)
        self.desktop_spec = desktop_detector(settings)

    @classmethod
    def available(cls, settings: Settings) -> str | None:
        return detector_unavailable(settings)

    def load(self, spec: ModelSpec | None = None) -> Any:
        """The ONNX Runtime session of ``spec`` (default: the first detector), its file checked against the
        manifest's sha256 first."""
        return verified_session(spec or self.spec, resolve_device(self.settings) == "cuda")

    @property
    def specs(self) -> list[ModelSpec]:
        """The detectors this stage runs: the first, then the landscape, the phone and the desktop ones if
        any."""
        others = (self.landscape_spec, self.phone_spec, self.desktop_spec)
        return [self.spec, *(spec for spec in others if spec is not None)]

    def model_version(self) -> str | None:
        return "+".join(spec.version_tag() for spec in self.specs)

    def images_per_call(self, images: int) -> int:
        """Screenshots per detector call (``DETACT_DETECTOR__BATCH_SIZE``; 0: one on CPU, all on CUDA).

        On 2 CPU cores a parse_batch of five 1920x1080 screens took as long with one image per call as
        with all five in one, and its peak RSS fell from 1183-1327 to 1025-1105 MiB (docs/ARCHITECTURE.md)."""
        chosen = self.settings.detector.batch_size
        if chosen:
            return chosen
        return max(images, 1) if resolve_device(self.settings) == "cuda" else 1

    def input_size_for(self, spec: ModelSpec) -> int:
        """The longer side detector ``spec`` reads a screen at most: its manifest's, or for the first and the
        desktop detector ``DETACT_DETECTOR__INPUT_SIZE`` when set (the phone one keeps its training size)."""
        if spec is self.phone_spec:
            return spec.input_size
        return self.settings.detector.input_size or spec.input_size

    def detect(
        self,
        spec: ModelSpec,
        images: Sequence[RGBImage],
        conf: float | None,
        source: str = DETECTOR_SOURCE,
        size: int | None = None,
    ) -> list[Detections]:
        """One detector's boxes on each image, at ``conf`` (None: the manifest's, else ``DEFAULT_CONF``) and
        the input ``size`` (None: the manifest's)."""
        session = self.load(spec)
        model_input = session.get_inputs()[0]
        longest = size or spec.input_size
        shapes = [
            input_hw(
                model_input.shape,
                image.shape[0],
                image.shape[1],
                longest,
                spec.upscale,
                min(spec.min_input_size, longest),
            )
            for image in images
        ]
        prepared = [letterbox(image, shape) for image, shape in zip(images, shapes, strict=True)]
        outputs: list[npt.NDArray[np.float32]] = [np.empty(0, np.float32)] * len(images)
        per_call = 1 if isinstance(model_input.shape[0], int) else self.images_per_call(len(images))
        for shape in dict.fromkeys(shapes):  # one call per input shape, the images of that shape batched
            members = [i for i, s in enumerate(shapes) if s == shape]
            groups = [members[k : k + per_call] for k in range(0, len(members), per_call)]
            for group in groups:
                batch = np.stack([prepared[i][0] for i in group])
                for i, output in zip(group, session.run(None, {model_input.name: batch})[0], strict=True):
                    outputs[i] = output
        if conf is None:
            conf = spec.entry.conf if spec.entry.conf is not None else DEFAULT_CONF
        agnostic = is_agnostic(spec)
        types = [ElementType.ICON if agnostic else class_to_type(name) for name in spec.classes]
        found: list[Detections] = []
        for image, (_, scale, padding), output in zip(images, prepared, outputs, strict=True):
            boxes, scores, classes = decode(
                output, scale, padding, image.shape[1], image.shape[0], conf, agnostic=agnostic
            )
            sizable = (boxes[:, 2] - boxes[:, 0] >= 1) & (boxes[:, 3] - boxes[:, 1] >= 1)
            kept = classes[sizable]
            found.append((boxes[sizable], scores[sizable], [types[c] for c in kept], [source] * len(kept)))
        return found

    def first_for(self, image: RGBImage) -> ModelSpec:
        """The detector that reads ``image`` first: the phone one on a phone-shaped screen, the desktop one
        on a screen wider than tall, else the first."""
        if self.phone_spec is not None and is_phone_shaped(image):
            return self.phone_spec
        if self.desktop_spec is not None and image.shape[1] > image.shape[0]:
            return self.desktop_spec
        return self.spec

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        chosen = [self.first_for(image) for image in images]
        by_image: dict[int, Detections] = {}
        for spec in {id(spec): spec for spec in chosen}.values():  # one batched call per detector
            members = [i for i, used in enumerate(chosen) if used is spec]
            detected = self.detect(
                spec,
                [images[i] for i in members],
                self.settings.detector.conf,
                size=self.input_size_for(spec),
            )
            by_image.update(zip(members, detected, strict=True))
        found = [by_image[i] for i in range(len(images))]
        wide = [i for i, image in enumerate(images) if image.shape[1] > image.shape[0]]
        if self.landscape_spec is not None and wide:
            extra = self.detect(
                self.landscape_spec, [images[i] for i in wide], None, LANDSCAPE_DETECTOR_SOURCE
            )
            for i, more in zip(wide, extra, strict=True):
                found[i] = combined(found[i], more)
        results = []
        for parse, (boxes, scores, types, sources) in zip(parses, found, strict=True):
            elements = [
                Element.from_xyxy(
                    box, type=kind, score=round(float(score), 4), source=source, interactive=True
                )
                for box, score, kind, source in zip(boxes, scores, types, sources, strict=True)
            ]
            results.append(parse.with_elements([*parse.elements, *elements]))
        return results


def combined(first: Detections, second: Detections) -> Detections:
    """Two detectors' boxes on one screen as one set: the second's boxes where the first drew none (IoU at
    most ``NMS_IOU`` with each of its boxes), so the first detector's extent of a control always stands."""
    if len(first[0]) and len(second[0]):
        new = geometry.iou_matrix(second[0], first[0]).max(axis=1) <= NMS_IOU
    else:
        new = np.ones(len(second[0]), dtype=bool)
    kept = np.flatnonzero(new)
    return (
        np.concatenate([first[0], second[0][kept]]),
        np.concatenate([first[1], second[1][kept]]),
        [*first[2], *(second[2][i] for i in kept)],
        [*first[3], *(second[3][i] for i in kept)],
    )
