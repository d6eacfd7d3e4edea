"""Segment Anything (SAM) regions stage: automatic masks -> region/icon boxes.

The model loads lazily, once per process, from ``settings.regions.sam_checkpoint`` (a state dict you supply;
nothing is downloaded). Besides the official ``vit_h``/``vit_l``/``vit_b`` architectures,
``vit_tiny`` is a tiny SAM built from ``segment_anything.modeling`` for smoke tests: it has no
published weights and, randomly initialised, segments nothing meaningful.

Mask boxes are typed by size (icon up to ``settings.icons.max_size``, else region), then go through
the post-processing shared with the classical segmenter (size/frame filter, text filter, contents of
atomic widgets, IoU de-duplication).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from detact_service.core import Element, ElementType, ScreenParse
from detact_service.detectors.regions import (
    ICON_MAX_ASPECT,
    REGION_MIN_SIDE,
    SOURCE,
    append_regions,
    postprocess_regions,
    scaled_min,
    screen_scale,
    text_boxes_of,
)
from detact_service.models import torch_device
from detact_service.settings import Settings
from detact_service.stages import Backend, RGBImage, StageUnavailable, cached_model, register

PRED_IOU_THRESH = 0.86
"""SamAutomaticMaskGenerator: keep masks whose predicted IoU is above this."""
STABILITY_SCORE_THRESH = 0.92
"""SamAutomaticMaskGenerator: keep masks stable under a shifted binarisation cutoff."""
BOX_NMS_THRESH = 0.7
"""SamAutomaticMaskGenerator's own box NMS between masks."""
POINTS_PER_BATCH = 64
MIN_MASK_SIDE = 6
"""Masks whose longer side is shorter than this (px at 1080p) are specks."""

# The smoke-test architecture ("vit_tiny"): ~0.2 M parameters, 256 px input.
TINY_IMAGE_SIZE = 256
TINY_PATCH_SIZE = 16
TINY_ENCODER_DIM = 64
TINY_ENCODER_DEPTH = 2
TINY_ENCODER_HEADS = 2
TINY_WINDOW_SIZE = 8
TINY_PROMPT_DIM = 32
TINY_DECODER_MLP_DIM = 64

OFFICIAL_TYPES = ("vit_h", "vit_l", "vit_b")


def build_sam_vit_tiny() -> Any:
    """A tiny, randomly initialised SAM (for smoke tests only; there are no weights for it)."""
    import torch
    from segment_anything.modeling import ImageEncoderViT, MaskDecoder, PromptEncoder, Sam, TwoWayTransformer

    embedding_size = TINY_IMAGE_SIZE // TINY_PATCH_SIZE
    sam = Sam(
        image_encoder=ImageEncoderViT(
            img_size=TINY_IMAGE_SIZE,
            patch_size=TINY_PATCH_SIZE,
            embed_dim=TINY_ENCODER_DIM,
            depth=TINY_ENCODER_DEPTH,
            num_heads=TINY_ENCODER_HEADS,
            mlp_ratio=4,
            out_chans=TINY_PROMPT_DIM,
            qkv_bias=True,
            norm_layer=partial(torch.nn.LayerNorm, eps=1e-6),
            use_rel_pos=True,
            window_size=TINY_WINDOW_SIZE,
            global_attn_indexes=(TINY_ENCODER_DEPTH - 1,),
        ),
        prompt_encoder=PromptEncoder(
            embed_dim=TINY_PROMPT_DIM,
            image_embedding_size=(embedding_size, embedding_size),
            input_image_size=(TINY_IMAGE_SIZE, TINY_IMAGE_SIZE),
            mask_in_chans=4,
        ),
        mask_decoder=MaskDecoder(
            num_multimask_outputs=3,
            transformer=TwoWayTransformer(
                depth=1, embedding_dim=TINY_PROMPT_DIM, mlp_dim=TINY_DECODER_MLP_DIM, num_heads=2
            ),
            transformer_dim=TINY_PROMPT_DIM,
            iou_head_depth=2,
            iou_head_hidden_dim=TINY_PROMPT_DIM,
        ),
        pixel_mean=[123.675, 116.28, 103.53],
        pixel_std=[58.395, 57.12, 57.375],
    )
    return sam.eval()


def sam_builder(model_type: str) -> Callable[[], Any]:
    """A no-argument builder of an untrained SAM of ``model_type``."""
    if model_type == "vit_tiny":
        return build_sam_vit_tiny
    if model_type in OFFICIAL_TYPES:
        from segment_anything import sam_model_registry

        return partial(sam_model_registry[model_type], checkpoint=None)
    known = [*OFFICIAL_TYPES, "vit_tiny"]
    raise StageUnavailable(f"unknown SAM model type {model_type!r}; use one of {known}")


def load_sam(model_type: str, checkpoint: Path, device: str) -> Any:
    """Build a SAM and load its state dict (``torch.load(weights_only=True)``) onto ``device``."""
    import torch

    model = sam_builder(model_type)()
    try:
        state = torch.load(checkpoint, map_location="cpu", weights_only=True)
        model.load_state_dict(state)
    except Exception as exc:  # unpickling, shape and key mismatches all mean "wrong file"
        raise StageUnavailable(
            f"SAM checkpoint {checkpoint} could not be loaded as {model_type!r}: {str(exc)[:300]}"
        ) from exc
    return model.to(device).eval()


def masks_to_regions(
    masks: Sequence[dict[str, Any]], width: int, height: int, icon_min: int, icon_max: int
) -> list[Element]:
    """Mask records of SamAutomaticMaskGenerator (``bbox`` XYWH) -> icon/region candidates."""
    scale = screen_scale(width, height)
    region_min = scaled_min(REGION_MIN_SIDE, scale)
    elements = []
    for mask in masks:
        x, y, w, h = (float(v) for v in mask["bbox"])
        x1, y1 = max(0.0, x), max(0.0, y)
        x2, y2 = min(float(width), x + max(w, 1.0)), min(float(height), y + max(h, 1.0))
        if x2 - x1 < 1 or y2 - y1 < 1:
            continue
        long_side, short_side = max(x2 - x1, y2 - y1), min(x2 - x1, y2 - y1)
        if icon_min <= long_side <= icon_max and long_side <= ICON_MAX_ASPECT * short_side:
            kind = ElementType.ICON
        elif short_side >= region_min:
            kind = ElementType.REGION
        else:
            continue
        score = float(np.clip(float(mask.get("predicted_iou", 0.5)), 0.0, 1.0))
        ix1, iy1 = int(np.floor(x1)), int(np.floor(y1))
        ix2 = min(width, max(int(np.ceil(x2)), ix1 + 1))
        iy2 = min(height, max(int(np.ceil(y2)), iy1 + 1))
        elements.append(Element(bbox=(ix1, iy1, ix2, iy2), type=kind, score=score, source=SOURCE))
    return elements


def sam_checkpoint(settings: Settings) -> Path:
    """The configured checkpoint; :class:`StageUnavailable` when unset or missing."""
    path = settings.regions.sam_checkpoint
    if path is None:
        raise StageUnavailable(
            "the SAM segmenter needs a checkpoint: set DETACT_REGIONS__SAM_CHECKPOINT to a Segment Anything "
            ".pth file (and DETACT_REGIONS__SAM_MODEL_TYPE to its architecture), or use the classical "
            "segmenter"
        )
    if not path.is_file():
        raise StageUnavailable(f"SAM checkpoint {path} does not exist")
    return path


@register("regions", "sam")
class SamSegmenter(Backend):
    """Regions stage on SAM's automatic mask generator (CUDA when available)."""

    config = ("regions", "icons")

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self._lock = threading.Lock()

    @classmethod
    def available(cls, settings: Settings) -> str | None:
        try:
            sam_checkpoint(settings)
        except StageUnavailable as exc:
            return str(exc)
        return None

    def checkpoint(self) -> Path:
        """The configured checkpoint; :class:`StageUnavailable` when unset or missing."""
        return sam_checkpoint(self.settings)

    def model_version(self) -> str | None:
        """``sam-<type>:<checkpoint file name>``."""
        path = self.settings.regions.sam_checkpoint
        return f"sam-{self.settings.regions.sam_model_type}:{path.name if path else 'none'}"

    def load(self) -> Any:
        path = self.checkpoint()
        device = torch_device(self.settings)
        model_type = self.settings.regions.sam_model_type
        key = ("sam", model_type, str(path.resolve()), device)
        return cached_model(key, lambda: load_sam(model_type, path, device))

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        """Append SAM's region/icon boxes to each parse (text-covered and duplicate boxes dropped)."""
        model = self.load()  # StageUnavailable first, before the heavy imports
        import torch
        from segment_anything import SamAutomaticMaskGenerator

        out = []
        for image, parse in zip(images, parses, strict=True):
            rgb = np.ascontiguousarray(image[..., :3], dtype=np.uint8)
            height, width = rgb.shape[:2]
            generator = SamAutomaticMaskGenerator(
                model,
                points_per_side=self.settings.regions.sam_points_per_side,
                points_per_batch=POINTS_PER_BATCH,
                pred_iou_thresh=PRED_IOU_THRESH,
                stability_score_thresh=STABILITY_SCORE_THRESH,
                box_nms_thresh=BOX_NMS_THRESH,
            )
            with self._lock, torch.inference_mode():  # one image at a time per stage: bounded memory
                masks = generator.generate(rgb)
            candidates = masks_to_regions(
                masks, width, height, self.settings.icons.min_size, self.settings.icons.max_size
            )
            min_side = scaled_min(MIN_MASK_SIDE, screen_scale(width, height))
            regions = postprocess_regions(candidates, text_boxes_of(parse), width, height, min_side)
            out.append(append_regions(parse, regions))
        return out
