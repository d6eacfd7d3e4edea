"""Service settings, read from ``DETACT_*`` environment variables once at start-up.

Nothing here runs at import time: call :func:`get_settings` (cached) or build ``Settings()`` yourself.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    """Every knob of the service; each field is the env var ``DETACT_<NAME>``."""

    model_config = SettingsConfigDict(env_prefix="DETACT_", extra="ignore", frozen=True)

    profile: str | None = Field(
        None,
        description="Default profile (detact, fast, full); unset = the best one whose models are present.",
    )
    device: Literal["auto", "cpu", "cuda"] = Field(
        "auto", description="Where models run; auto = CUDA when available, else CPU."
    )
    ocr_backend: Literal["rapidocr", "easyocr"] | None = Field(
        None, description="OCR engine; unset = rapidocr on CPU (fast), easyocr on CUDA."
    )
    ocr_min_score: float = Field(0.5, ge=0.0, le=1.0, description="Drop OCR lines scored below this.")
    ocr_models: Literal["ppocrv6-small", "ppocrv4"] = Field(
        "ppocrv6-small", description="rapidocr models: ppocrv6-small (keeps spaces) or ppocrv4 (the old)."
    )
    ocr_det_max_side: int = Field(
        1280, ge=320, le=8192, description="rapidocr text detection runs at most this long a side (pixels)."
    )
    ocr_threads: int = Field(0, ge=0, le=64, description="rapidocr ONNX Runtime threads; 0 = usable cores.")
    segmenter: Literal["classical", "sam"] | None = Field(
        None, description="Region segmenter; unset = sam when sam_checkpoint is set, else classical."
    )
    sam_checkpoint: Path | None = Field(None, description="Segment Anything checkpoint (.pth) you supply.")
    sam_model_type: Literal["vit_h", "vit_l", "vit_b", "vit_tiny"] = Field(
        "vit_b", description="SAM architecture; vit_tiny is a tiny one for smoke tests only."
    )
    sam_points_per_side: int = Field(16, ge=2, le=64, description="SAM automatic mask grid density.")
    icons_dir: Path = Field(REPO_ROOT / "icons", description="Folder of the icon template pack.")
    icon_threshold: float = Field(0.95, ge=0.0, le=1.0, description="SSIM needed to name an icon (DetACT).")
    icon_min_size: int = Field(8, ge=4, description="Smallest icon side in pixels.")
    icon_max_size: int = Field(96, ge=8, description="Largest icon side in pixels.")
    models_dir: Path = Field(REPO_ROOT / "models", description="Folder of shipped models and manifest.json.")
    detector_model: str = Field("ui-yolov8", description="Detector name in models/manifest.json.")
    detector_conf: float = Field(0.25, ge=0.0, le=1.0, description="Detector confidence threshold.")
    attribute_model: str = Field(
        "ui-pix2struct", description="Attribute model (semi-masked Pix2Struct) name in models/manifest.json."
    )
    attribute_batch_size: int = Field(64, ge=1, description="Element views per attribute-model call.")
    attribute_max_new_tokens: int = Field(
        16, ge=4, le=64, description="Most tokens the attribute model writes per element."
    )
    relevance_backend: Literal["minilm", "lexical", "llm"] = Field(
        "minilm", description="Task relevance ranker: minilm (local), lexical (no model) or llm (endpoint)."
    )
    relevance_embed_budget_ms: float = Field(
        50.0, ge=0, description="Most ms a parse spends embedding new words (rest: lexical only); 0 = no cap."
    )
    relevance_cache_size: int = Field(50_000, ge=0, description="Word embeddings kept in the ranker's LRU.")
    llm_base_url: str | None = Field(
        None, description="OpenAI-compatible endpoint of the llm ranker, e.g. https://api.openai.com/v1."
    )
    llm_model: str = Field("gpt-4o-mini", description="Chat model the llm ranker asks.")
    llm_api_key: SecretStr | None = Field(None, description="Key of the llm endpoint; else OPENAI_API_KEY.")
    llm_timeout_s: float = Field(20.0, gt=0, description="Timeout of one llm ranker call; then local ranker.")
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


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read from the environment on first call."""
    return Settings()
