"""The Set-of-Mark (SoM) format: the screenshot with every element boxed and numbered by its id.

Drawn with supervision's ``BoxAnnotator`` and ``LabelAnnotator`` (one colour per element, cycling a
dark palette so the white numbers stay readable); sizes scale with the screenshot.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from detact_service.core import ScreenParse
from detact_service.formats.common import element_ids
from detact_service.stages import RGBImage

# Dark, saturated colours: white label text reads on all of them.
PALETTE = (
    "#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
    "#17becf", "#bcbd22", "#ff7f0e", "#393b79", "#637939", "#843c39",
)  # fmt: skip


def _as_pil(image: RGBImage | Image.Image) -> Image.Image:
    if isinstance(image, Image.Image):
        return image.convert("RGB")
    array = np.asarray(image)
    if array.ndim != 3 or array.shape[2] != 3 or array.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 3) uint8 RGB array, got {array.shape} {array.dtype}")
    return Image.fromarray(array, mode="RGB")


def annotate_som(image: RGBImage | Image.Image, parse: ScreenParse) -> Image.Image:
    """A copy of the screenshot with the parse's boxes and ids drawn on it."""
    scene = _as_pil(image)
    if scene.size != (parse.width, parse.height):
        width, height = scene.size
        raise ValueError(f"image is {width}x{height} but the parse is {parse.width}x{parse.height}")
    if not parse.elements:
        return scene.copy()
    import supervision as sv  # heavy import, only when a SoM image is asked for

    boxes = parse.boxes().astype(np.float32)
    boxes[:, 2:] -= 1  # our right/bottom edges are exclusive; the annotators draw inclusive ones
    detections = sv.Detections(xyxy=boxes, class_id=np.arange(len(boxes)))
    scale = max(parse.width, parse.height) / 1920
    palette = sv.ColorPalette.from_hex(list(PALETTE))
    box_annotator = sv.BoxAnnotator(
        color=palette, thickness=max(1, round(2 * scale)), color_lookup=sv.ColorLookup.INDEX
    )
    label_annotator = sv.LabelAnnotator(
        color=palette,
        color_lookup=sv.ColorLookup.INDEX,
        text_color=sv.Color.WHITE,
        text_scale=max(0.35, 0.55 * scale),
        text_thickness=max(1, round(scale)),
        text_padding=max(1, round(3 * scale)),
        text_position=sv.Position.TOP_LEFT,
    )
    labels = [str(element_id) for element_id in element_ids(parse)]
    annotated = box_annotator.annotate(scene=scene.copy(), detections=detections)
    return label_annotator.annotate(scene=annotated, detections=detections, labels=labels)


def to_som_png(image: RGBImage | Image.Image, parse: ScreenParse) -> bytes:
    """The SoM image as PNG bytes."""
    buffer = io.BytesIO()
    annotate_som(image, parse).save(buffer, format="PNG", compress_level=3)
    return buffer.getvalue()
