"""Service settings, read from ``DETACT_*`` environment variables once at start-up.

Model knobs are grouped per stage (``settings.ocr.engine`` is ``DETACT_OCR__ENGINE``); HTTP knobs stay
flat (``DETACT_MAX_QUEUE``). The flat names of earlier versions (``DETACT_OCR_BACKEND``, ...) are still
accepted, as environment variables and as keyword arguments, and land in their group.
Nothing here runs at import time: call :func:`get_settings` (cached) or build ``Settings()`` yourself.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent


class StageSettings(BaseModel):
    """Base of the per-stage groups: immutable (hashable, so usable as cache keys), typos rejected."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class OcrSettings(StageSettings):
    """The ``text`` stage."""

    engine: Literal["rapidocr", "easyocr"] | None = Field(
        None, description="OCR engine; unset = rapidocr on CPU (fast), easyocr on CUDA."
    )
    min_score: float = Field(0.5, ge=0.0, le=1.0, description="Drop OCR lines scored below this.")
    models: Literal["ppocrv6-small", "ppocrv4"] = Field(
        "ppocrv6-small", description="rapidocr models: ppocrv6-small (keeps spaces) or ppocrv4 (the old)."
    )
    det_max_side: int = Field(
        1280, ge=320, le=8192, description="rapidocr text detection runs at most this long a side (pixels)."
    )
    det_max_side_phone: int = Field(
        960,
        ge=0,
        le=8192,
        description="rapidocr: text detection's long side at most on a phone-shaped screenshot (1.6 times "
        "taller than wide, under 1250 px wide), whose text is large; 0 = det_max_side.",
    )
    det_max_shrink: float = Field(
        1.5,
        ge=0.0,
        le=16.0,
        description="rapidocr: a landscape screenshot wider than det_max_side times this is detected at its "
        "width over this, up to 1.5 x det_max_side, not shrunk further (4K text); 0 = off.",
    )
    threads: int = Field(0, ge=0, le=64, description="rapidocr model threads; 0 = usable cores.")
    int8: bool = Field(
        False,
        description="rapidocr: the int8 recogniser in models/manifest.json (2x less CPU; see docs/OCR.md).",
    )
    rec_workers: int = Field(
        2,
        ge=1,
        le=16,
        description="rapidocr: recognition batches run on this many threads at once, sharing the threads.",
    )
    runtime: Literal["auto", "onnxruntime", "openvino"] = Field(
        "auto",
        description=(
            "rapidocr on CPU: what runs the recogniser; openvino reads in bfloat16 where the CPU has it in"
            " hardware; auto = openvino where that was measured faster (bfloat16 in hardware, and AMX on an"
            " Intel CPU), else onnxruntime."
        ),
    )


class RegionSettings(StageSettings):
    """The ``regions`` stage (segmentation)."""

    segmenter: Literal["classical", "sam"] | None = Field(
        None, description="Region segmenter; unset = sam when sam_checkpoint is set, else classical."
    )
    sam_checkpoint: Path | None = Field(None, description="Segment Anything checkpoint (.pth) you supply.")
    sam_model_type: Literal["vit_h", "vit_l", "vit_b", "vit_tiny"] = Field(
        "vit_b", description="SAM architecture; vit_tiny is a tiny one for smoke tests only."
    )
    sam_points_per_side: int = Field(16, ge=2, le=64, description="SAM automatic mask grid density.")


class DetectorSettings(StageSettings):
    """The ``detect`` stage."""

    model: str = Field("ui-detector", description="Detector name in models/manifest.json.")
    conf: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="The first detector's confidence threshold; unset = its own (manifest).",
    )
    input_size: int | None = Field(
        None,
        ge=32,
        description="The longer side, in pixels, at which the first detector (or the desktop one in its "
        "place) reads a screen at most (a "
        "smaller one at its own scale, one under 640 enlarged to 640); unset = the manifest's (1280). 640 "
        "reads every screen at 640, as before 2026-11-27: faster, fewer web controls found.",
    )
    int8: bool = Field(
        True,
        description="Run the int8 copy '<model>-int8' of each detector when the manifest ships one (CPU): "
        "2.5x less CPU for recall within 0.01 of fp32 (models/README.md); false: the fp32 files.",
    )
    landscape_model: str = Field(
        "uitag-ui",
        description="A second detector run on screens wider than tall (desktops, web pages), its boxes "
        "added to the first's; empty: none.",
    )
    phone_model: str = Field(
        "ui-detector-phone",
        description="A detector run instead of the first on phone-shaped screens (at least 1.6 times taller "
        "than wide), fine-tuned for them; empty, or absent from the manifest: the first everywhere.",
    )
    desktop_model: str = Field(
        "ui-detector-desktop",
        description="A detector run instead of the first on screens wider than tall (desktops, web pages): "
        "the phone detector's weights read at the screen's own scale; empty, or absent from the manifest: "
        "the first on those screens too.",
    )
    batch_size: int = Field(
        0,
        ge=0,
        description="Screenshots per detector call in a batch parse; 0: one on CPU (a batched call is no "
        "faster there and holds every image's activations at once), the whole batch on CUDA.",
    )


class AttributeSettings(StageSettings):
    """The ``attributes`` stage."""

    model: str = Field(
        "ui-reader",
        description="Attribute model name in models/manifest.json: the CPU reader (`ui-reader`) or a "
        "semi-masked Pix2Struct folder; its manifest entry's `backend` picks the stage (default `reader`).",
    )
    check_model: str = Field(
        "ui-checks",
        description="Check-state model (manifest kind `checks`) that reads whether the reader's checkboxes, "
        "radios and toggles are on from their indicator at full scale; empty: the reader's own answer.",
    )
    disabled_model: str = Field(
        "",
        description="Disabled-state model (manifest kind `dimmed`, e.g. `ui-dimmed`, opt-in) that also reads "
        "whether the reader's controls are disabled, from the control at about its own scale; empty: the "
        "reader's own answer.",
    )
    # 16: the reader's 96 px views in chunks of 16 stay in cache: 0.5 ms a view against 0.9 in chunks of 32 on
    # an AMD EPYC with a 32 MiB L3, at most 7 % slower than 32 on an earlier CPU, the same answers
    # (docs/ARCHITECTURE.md).
    batch_size: int = Field(16, ge=1, description="Element views per attribute-model call.")
    min_confidence: float = Field(
        0.0, ge=0.0, le=1.0, description="The reader's type is used only at this confidence or more."
    )
    max_new_tokens: int = Field(
        16, ge=4, le=64, description="Most tokens the attribute model writes per element."
    )


class IconSettings(StageSettings):
    """The ``icons`` stage; the size bounds are shared with the segmenters."""

    dir: Path = Field(REPO_ROOT / "icons", description="Folder of the icon template pack.")
    threshold: float = Field(0.95, ge=0.0, le=1.0, description="SSIM needed to name an icon (DetACT).")
    min_size: int = Field(8, ge=4, description="Smallest icon side in pixels.")
    max_size: int = Field(96, ge=8, description="Largest icon side in pixels.")
    classifier_model: str = Field("ui-icons", description="Icon classifier: its manifest entry (kind icons).")
    classifier_threshold: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="Classifier probability needed to name an icon (else unknown); unset = the model's own.",
    )


class RelevanceSettings(StageSettings):
    """The ``relevance`` stage (and locate's word embedder)."""

    backend: Literal["minilm", "lexical", "llm"] = Field(
        "minilm", description="Task relevance ranker: minilm (local), lexical (no model) or llm (endpoint)."
    )
    embed_budget_ms: float = Field(
        50.0, ge=0, description="Most ms a parse spends embedding new words (rest: lexical only); 0 = no cap."
    )
    cache_size: int = Field(50_000, ge=0, description="Word embeddings kept in the ranker's LRU.")


class LlmSettings(StageSettings):
    """The ``llm`` relevance backend's endpoint."""

    base_url: str | None = Field(
        None, description="OpenAI-compatible endpoint of the llm ranker, e.g. https://api.openai.com/v1."
    )
    model: str = Field("gpt-4o-mini", description="Chat model the llm ranker asks.")
    api_key: SecretStr | None = Field(None, description="Key of the llm endpoint; else OPENAI_API_KEY.")
    timeout_s: float = Field(20.0, gt=0, description="Timeout of one llm ranker call; then local ranker.")


LEGACY_NAMES: dict[str, tuple[str, str]] = {
    "ocr_backend": ("ocr", "engine"),
    "ocr_min_score": ("ocr", "min_score"),
    "ocr_models": ("ocr", "models"),
    "ocr_det_max_side": ("ocr", "det_max_side"),
    "ocr_threads": ("ocr", "threads"),
    "segmenter": ("regions", "segmenter"),
    "sam_checkpoint": ("regions", "sam_checkpoint"),
    "sam_model_type": ("regions", "sam_model_type"),
    "sam_points_per_side": ("regions", "sam_points_per_side"),
    "detector_model": ("detector", "model"),
    "detector_conf": ("detector", "conf"),
    "attribute_model": ("attributes", "model"),
    "attribute_batch_size": ("attributes", "batch_size"),
    "attribute_max_new_tokens": ("attributes", "max_new_tokens"),
    "icons_dir": ("icons", "dir"),
    "icon_threshold": ("icons", "threshold"),
    "icon_min_size": ("icons", "min_size"),
    "icon_max_size": ("icons", "max_size"),
    "relevance_backend": ("relevance", "backend"),
    "relevance_embed_budget_ms": ("relevance", "embed_budget_ms"),
    "relevance_cache_size": ("relevance", "cache_size"),
    "llm_base_url": ("llm", "base_url"),
    "llm_model": ("llm", "model"),
    "llm_api_key": ("llm", "api_key"),
    "llm_timeout_s": ("llm", "timeout_s"),
}
"""Flat setting names of earlier versions -> (group, field); still read, the nested name wins."""


class Settings(BaseSettings):
    """Every knob of the service; ``DETACT_<NAME>`` for flat ones, ``DETACT_<GROUP>__<NAME>`` in groups."""

    model_config = SettingsConfigDict(
        env_prefix="DETACT_", env_nested_delimiter="__", extra="ignore", frozen=True
    )

    profile: str | None = Field(
        None,
        description="Default profile (detact, fast, full); unset = the best one whose models are present.",
    )
    device: Literal["auto", "cpu", "cuda"] = Field(
        "auto", description="Where models run; auto = CUDA when available, else CPU."
    )
    models_dir: Path = Field(REPO_ROOT / "models", description="Folder of shipped models and manifest.json.")
    ocr: OcrSettings = OcrSettings()
    regions: RegionSettings = RegionSettings()
    detector: DetectorSettings = DetectorSettings()
    attributes: AttributeSettings = AttributeSettings()
    icons: IconSettings = IconSettings()
    relevance: RelevanceSettings = RelevanceSettings()
    llm: LlmSettings = LlmSettings()
    max_upload_mb: float = Field(25.0, gt=0, description="Largest accepted upload in MiB.")
    max_pixels: int = Field(40_000_000, gt=0, description="Largest accepted image, width x height.")
    host: str = Field("127.0.0.1", description="Address `detact serve` binds to.")
    port: int = Field(8000, ge=1, le=65535, description="Port `detact serve` listens on.")
    warmup: bool = Field(False, description="Load the default profile's models at server start.")
    request_timeout_s: float = Field(
        120.0, gt=0, description="Longest a parse request may take (waiting included); then 504."
    )
    max_in_flight: int = Field(
        1, ge=1, description="Pipeline runs (each a batch of up to batch_max_size images) at once."
    )
    max_queue: int = Field(
        8, ge=0, description="Parse requests that may wait beyond those running; past it 503 + Retry-After."
    )
    retry_after_s: int = Field(2, ge=1, description="Retry-After seconds of a 503 when the queue is full.")
    overlap_stages: bool = Field(
        True, description="Run the stages that read only the image (the detector) beside the text stage."
    )
    tile_long_screens: bool = Field(
        True,
        description="Parse a screenshot longer than a screen (a full-page capture, monitors side by side) as "
        "overlapping screen-shaped tiles, each read as a screen (detact_service/tiling.py); false: whole.",
    )
    batch_max_size: int = Field(4, ge=1, description="Most images grouped into one pipeline run.")
    batch_wait_ms: float = Field(
        5.0, ge=0, description="How long a batch waits for more requests of the same profile."
    )
    api_keys: Annotated[tuple[SecretStr, ...], NoDecode] = Field(
        (), description="Accepted API keys (comma list or JSON list); empty = no authentication."
    )
    cors_origins: Annotated[tuple[str, ...], NoDecode] = Field(
        (), description="Origins allowed by CORS (comma list or JSON list, `*` for any); empty = CORS off."
    )
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        "info", description="Log level of `detact serve` (JSON lines on stderr)."
    )
    console_enabled: bool = Field(True, description="Serve the web console at `/` (off: `/` answers 404).")
    reparse_cache_size: int = Field(
        128, ge=0, description="Recent parses remembered for `previous` re-parses (LRU); 0 = none."
    )
    reparse_ttl_s: float = Field(600.0, gt=0, description="How long a remembered parse can be `previous`.")
    reparse_max_changed: float = Field(
        0.4, ge=0.0, le=1.0, description="Re-parse: above this share of changed tiles, parse in full."
    )

    @model_validator(mode="before")
    @classmethod
    def _legacy_names(cls, data: Any) -> Any:
        """Move flat names of earlier versions (keyword or ``DETACT_<NAME>`` variable) into their group."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for old, (group, field) in LEGACY_NAMES.items():
            if old in data:
                value = data.pop(old)
            elif f"DETACT_{old.upper()}" in os.environ:
                value = os.environ[f"DETACT_{old.upper()}"]
            else:
                continue
            current = data.get(group) or {}
            if isinstance(current, BaseModel):
                current = current.model_dump(exclude_unset=True)
            if isinstance(current, dict) and field not in current:
                data[group] = {**current, field: value}
        return data

    @field_validator("api_keys", "cors_origins", mode="before")
    @classmethod
    def _split_list(cls, value: object) -> object:
        """Accept a comma list or a JSON list for list settings given as text."""
        if isinstance(value, str):
            text = value.strip()
            value = json.loads(text) if text.startswith("[") else [part.strip() for part in text.split(",")]
        if isinstance(value, list | tuple):
            return tuple(item for item in value if str(item).strip())
        return value


def env_names() -> list[str]:
    """Every environment variable the settings read (nested groups spelled ``DETACT_GROUP__FIELD``)."""
    names = []
    for name, info in Settings.model_fields.items():
        group = info.annotation
        if isinstance(group, type) and issubclass(group, StageSettings):
            names += [f"DETACT_{name.upper()}__{field.upper()}" for field in group.model_fields]
        else:
            names.append(f"DETACT_{name.upper()}")
    return names


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read from the environment on first call."""
    return Settings()
