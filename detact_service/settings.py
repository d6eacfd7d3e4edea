"""Service settings, read from ``DETACT_*`` environment variables once at start-up.

Nothing here runs at import time: call :func:`get_settings` (cached) or build ``Settings()`` yourself.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

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
    max_upload_mb: float = Field(25.0, gt=0, description="Largest accepted upload in MiB.")
    max_pixels: int = Field(40_000_000, gt=0, description="Largest accepted image, width x height.")
    host: str = Field("127.0.0.1", description="Address `detact serve` binds to.")
    port: int = Field(8000, ge=1, le=65535, description="Port `detact serve` listens on.")
    warmup: bool = Field(False, description="Load the default profile's models at server start.")


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read from the environment on first call."""
    return Settings()
