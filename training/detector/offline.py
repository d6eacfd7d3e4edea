"""Keep Ultralytics off the network: no hub sync, no font or weight downloads, no pip auto-installs."""

from __future__ import annotations

import os


def go_offline() -> None:
    """Set before importing ultralytics; the train/export calls also pass plots=False (fonts)."""
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "false")
    os.environ.setdefault("YOLO_VERBOSE", "false")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
