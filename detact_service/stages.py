"""The stage interface and the registry of backends, chosen by name.

A stage takes a batch of images with their parses so far and returns the amended parses. Backends
register a factory under ``(slot, name)``; the factory receives the settings and must not load any
model (models load on first use, once per process, through :func:`cached_model`).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Protocol, TypeVar, runtime_checkable

import numpy as np
import numpy.typing as npt

from detact_service.core import ScreenParse
from detact_service.settings import Settings

RGBImage = npt.NDArray[np.uint8]
"""An ``(H, W, 3)`` uint8 RGB array."""


@runtime_checkable
class Stage(Protocol):
    """One step of a pipeline."""

    slot: str
    name: str

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        """Amend each parse using its image; batch of one is the single call."""
        ...

    def model_version(self) -> str | None:
        """A short id of the model behind this stage, or None when it has none."""
        ...


class BaseStage:
    """Shared plumbing of the built-in stages: keeps the settings; no model unless overridden."""

    slot: str = ""
    name: str = ""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def model_version(self) -> str | None:
        return None

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        raise NotImplementedError


class StageUnavailable(RuntimeError):
    """A stage cannot run here (missing model file, missing checkpoint)."""


StageFactory = Callable[[Settings], Stage]

# slot -> backend name -> "module:factory"; imported on demand so nothing heavy loads at import time.
_BACKENDS: dict[str, dict[str, str]] = {
    "text": {
        "rapidocr": "detact_service.detectors.ocr_rapid:RapidOCRStage",
        "easyocr": "detact_service.detectors.ocr_easy:EasyOCRStage",
    },
    "regions": {
        "classical": "detact_service.detectors.segment_classical:ClassicalSegmenter",
        "sam": "detact_service.detectors.segment_sam:SamSegmenter",
    },
    "detect": {"yolo-onnx": "detact_service.detectors.yolo_onnx:YoloOnnxDetector"},
    "merge": {"default": "detact_service.understanding.merge:MergeStage"},
    "attributes": {"pix2struct": "detact_service.understanding.attributes:Pix2StructAttributeStage"},
    "icons": {"ssim": "detact_service.understanding.icons:IconMatcherStage"},
    "colors": {"hsv": "detact_service.understanding.colors:ColorStage"},
    "relevance": {
        "minilm": "detact_service.understanding.relevance:MiniLMRelevanceStage",
        "lexical": "detact_service.understanding.relevance:LexicalRelevanceStage",
        "llm": "detact_service.understanding.relevance_llm:LLMRelevanceStage",
    },
}


def register_backend(slot: str, name: str, target: str) -> None:
    """Register a backend as ``"package.module:Factory"`` (for plugins and tests)."""
    _BACKENDS.setdefault(slot, {})[name] = target


def unregister_backend(slot: str, name: str) -> None:
    """Forget a backend :func:`register_backend` added (a plugin unloading, a test cleaning up)."""
    _BACKENDS.get(slot, {}).pop(name, None)


def backend_names(slot: str) -> list[str]:
    return sorted(_BACKENDS.get(slot, {}))


def create_stage(slot: str, name: str, settings: Settings) -> Stage:
    """Instantiate the backend ``name`` of ``slot``; cheap (models load on first run)."""
    try:
        target = _BACKENDS[slot][name]
    except KeyError:
        raise ValueError(f"no backend {name!r} for stage {slot!r}; known: {backend_names(slot)}") from None
    module_name, _, attr = target.partition(":")
    factory: StageFactory = getattr(importlib.import_module(module_name), attr)
    return factory(settings)


T = TypeVar("T")
_model_cache: dict[Hashable, object] = {}
_model_locks: dict[Hashable, threading.Lock] = {}
_cache_lock = threading.Lock()


def cached_model(key: Hashable, loader: Callable[[], T]) -> T:
    """Load a model once per process per key; concurrent callers wait for the first load."""
    with _cache_lock:
        if key in _model_cache:
            return _model_cache[key]  # type: ignore[return-value]
        lock = _model_locks.setdefault(key, threading.Lock())
    with lock:
        if key not in _model_cache:
            _model_cache[key] = loader()
        return _model_cache[key]  # type: ignore[return-value]


def loaded_model_keys() -> list[Hashable]:
    """Keys of the models loaded so far in this process (for /readyz)."""
    with _cache_lock:
        return list(_model_cache)
