"""The ``attributes`` stage: a semi-masked Pix2Struct model reads each element's type, state and text.

CAAP's Visual Observer: every element is shown to the model in a semi-masked view (its box outlined, the
rest darkened; :mod:`~detact_service.understanding.semimask`) and the model writes a compact attribute
string (:mod:`~detact_service.understanding.attribute_codec`). All elements of all screens in a batch go
through the model together, in chunks of ``attribute_batch_size``, with greedy decoding and the cache.
OCR text wins over the model's text; a malformed output keeps the element as it was and marks its
``source`` with ``+attributes-unreadable``. The model folder and its manifest entry come from
``models/`` (``kind: attributes``); the stage is unavailable until one is shipped there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from detact_service.core import Element, ElementType, ScreenParse
from detact_service.models import MANIFEST, model_entry, resolve_device
from detact_service.settings import Settings
from detact_service.stages import Backend, RGBImage, StageUnavailable, cached_model, register
from detact_service.understanding.attribute_codec import apply_attributes, decode_attributes
from detact_service.understanding.semimask import semi_masked_views

UNREADABLE = "+attributes-unreadable"


@dataclass(frozen=True)
class AttributeModelSpec:
    """An attribute model's manifest entry, resolved to its folder."""

    name: str
    folder: Path
    sha256: str | None


def attribute_model_spec(settings: Settings) -> AttributeModelSpec:
    """The configured attribute model; :class:`StageUnavailable` when it is not shipped here."""
    name = settings.attributes.model
    entry = model_entry(settings.models_dir, "attributes", name)
    if entry is None:
        raise StageUnavailable(f"no attribute model named {name!r} in {settings.models_dir / MANIFEST}")
    folder = settings.models_dir / (entry.folder or entry.name)
    if not (folder / "config.json").is_file():
        raise StageUnavailable(f"attribute model folder {folder} listed in the manifest is missing")
    return AttributeModelSpec(entry.name, folder, entry.sha256)


@dataclass
class LoadedAttributeModel:
    """Model, image processor and tokenizer of one folder, on one device."""

    model: Any
    processor: Any
    tokenizer: Any
    device: str


def load_attribute_model(folder: Path, device: str) -> LoadedAttributeModel:
    """Load a saved Pix2Struct attribute model (``from_pretrained`` on a local folder only)."""
    from transformers import (
        Pix2StructForConditionalGeneration,
        Pix2StructImageProcessor,
        PreTrainedTokenizerFast,
    )

    model = Pix2StructForConditionalGeneration.from_pretrained(folder, local_files_only=True)
    model.to(device).eval()  # type: ignore[arg-type]
    processor = Pix2StructImageProcessor.from_pretrained(folder, local_files_only=True)
    tokenizer = PreTrainedTokenizerFast.from_pretrained(folder, local_files_only=True)
    return LoadedAttributeModel(model, processor, tokenizer, device)


def read_attributes(
    loaded: LoadedAttributeModel, views: Sequence[RGBImage], batch_size: int, max_new_tokens: int
) -> list[str]:
    """The model's attribute strings for semi-masked ``views`` (greedy, batched)."""
    import torch

    outputs: list[str] = []
    with torch.inference_mode():
        for start in range(0, len(views), batch_size):
            chunk = list(views[start : start + batch_size])
            encoded = loaded.processor(images=chunk, return_tensors="pt")
            ids = loaded.model.generate(
                flattened_patches=encoded["flattened_patches"].to(loaded.device),
                attention_mask=encoded["attention_mask"].to(loaded.device),
                max_new_tokens=max_new_tokens,
                do_sample=False,
                use_cache=True,
            )
            outputs += loaded.tokenizer.batch_decode(ids, skip_special_tokens=True)
    return outputs


def amend(element: Element, output: str) -> Element:
    """The element with the model's attributes, or flagged unchanged when the output is malformed."""
    attributes = decode_attributes(output)
    if attributes is None or attributes.type is ElementType.REGION:
        return element.replace(source=element.source + UNREADABLE)
    return apply_attributes(element, attributes)


@register("attributes", "pix2struct")
class Pix2StructAttributeStage(Backend):
    """Type, state and missing text of every element (not regions) from the attribute model."""

    config = ("attributes",)

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.spec = attribute_model_spec(settings)

    @classmethod
    def available(cls, settings: Settings) -> str | None:
        try:
            attribute_model_spec(settings)
        except StageUnavailable as exc:
            return str(exc)
        return None

    def model_version(self) -> str | None:
        return f"{self.spec.name}:{(self.spec.sha256 or 'unknown')[:12]}"

    def load(self) -> LoadedAttributeModel:
        """Model, processor and tokenizer, once per process per folder and device."""
        device = resolve_device(self.settings)
        folder = self.spec.folder
        return cached_model(("attributes", str(folder), device), lambda: load_attribute_model(folder, device))

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        views: list[RGBImage] = []
        owners: list[tuple[int, int]] = []
        for p, (image, parse) in enumerate(zip(images, parses, strict=True)):
            picked = [i for i, e in enumerate(parse.elements) if e.type is not ElementType.REGION]
            views += semi_masked_views(image, [parse.elements[i].bbox for i in picked])
            owners += [(p, i) for i in picked]
        if not views:
            return list(parses)
        outputs = read_attributes(
            self.load(), views, self.settings.attributes.batch_size, self.settings.attributes.max_new_tokens
        )
        amended = [list(parse.elements) for parse in parses]
        for (p, i), output in zip(owners, outputs, strict=True):
            amended[p][i] = amend(amended[p][i], output)
        return [parse.with_elements(elements) for parse, elements in zip(parses, amended, strict=True)]
