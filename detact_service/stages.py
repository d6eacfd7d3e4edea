"""The backend contract, the registry of backends by name and the once-per-process model cache.

A stage takes a batch of images with their parses so far and returns the amended parses. Each backend
is a :class:`Backend` subclass in its own module, registered with ``@register(slot, name)``; it declares
the settings groups it reads (``config``), says whether it can run here (``available``), loads its
model on first use (``load``) and runs (``run``). Constructing a backend is cheap and loads nothing.

Backend modules are imported only when a profile asks for them: the built-in ones are listed in
:data:`BUILTIN_MODULES`; a plug-in names its module in its manifest entry (``"module"``) or in the
``detact_service.backends`` entry-point group of its wheel.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

import numpy as np
import numpy.typing as npt

from detact_service.core import ScreenParse
from detact_service.models import ModelSpec, ModelUnavailable, backend_modules, onnx_session
from detact_service.reparse import Changes
from detact_service.settings import Settings

RGBImage = npt.NDArray[np.uint8]
"""An ``(H, W, 3)`` uint8 RGB array."""

StageUnavailable = ModelUnavailable
"""A stage cannot run here (missing model file, missing checkpoint); the same class as ModelUnavailable."""

ENTRY_POINT_GROUP = "detact_service.backends"


@runtime_checkable
class Stage(Protocol):
    """One step of a pipeline (what the pipeline needs of a backend)."""

    slot: ClassVar[str]
    name: ClassVar[str]

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        """Amend each parse using its image; batch of one is the single call."""
        ...

    def model_version(self) -> str | None:
        """A short id of the model behind this stage, or None when it has none."""
        ...


@runtime_checkable
class ReusingStage(Protocol):
    """A stage that can reuse its previous run's work on the unchanged parts of a screen (re-parse)."""

    def run_reusing(
        self,
        images: Sequence[RGBImage],
        parses: Sequence[ScreenParse],
        previous: Sequence[object | None],
        changes: Sequence[Changes | None],
    ) -> tuple[list[ScreenParse], list[object | None]]:
        """Like ``run``, given each image's previous memo (or ``None``) and changed tiles (or ``None``);
        returns the parses and each image's new memo. The parses must equal those of ``run``."""
        ...


class Backend:
    """The contract every backend follows; subclasses override what they need."""

    slot: ClassVar[str] = ""
    name: ClassVar[str] = ""
    config: ClassVar[tuple[str, ...]] = ()
    """Names of the :class:`Settings` groups this backend reads (``"ocr"``, ``"icons"``, ...)."""
    image_only: ClassVar[bool] = False
    """``run`` reads only the images and appends elements to each parse (it reads nothing of the parse): the
    pipeline may run it beside the stages before it (``DETACT_OVERLAP_STAGES``)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @classmethod
    def available(cls, settings: Settings) -> str | None:
        """``None`` when the backend can run with these settings, else the reason it cannot."""
        return None

    @classmethod
    def cache_key(cls, settings: Settings) -> Hashable:
        """What the backend's behaviour depends on: its name, the device, the models and its groups."""
        groups = tuple(getattr(settings, group) for group in cls.config)
        return (cls.slot, cls.name, settings.device, str(settings.models_dir), groups)

    def load(self) -> Any:
        """Load the model (once per process, through :func:`cached_model`); no-op without one."""
        return None

    def model_version(self) -> str | None:
        """A short id of the model behind this stage, or None when it has none."""
        return None

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        """Amend each parse using its image."""
        raise NotImplementedError


BaseStage = Backend
"""The name earlier versions used for :class:`Backend`."""

BUILTIN_MODULES: dict[tuple[str, str], str] = {
    ("text", "rapidocr"): "detact_service.detectors.ocr_rapid",
    ("text", "easyocr"): "detact_service.detectors.ocr_easy",
    ("regions", "classical"): "detact_service.detectors.segment_classical",
    ("regions", "sam"): "detact_service.detectors.segment_sam",
    ("detect", "yolo-onnx"): "detact_service.detectors.yolo_onnx",
    ("merge", "default"): "detact_service.understanding.merge",
    ("merge", "reader"): "detact_service.understanding.merge_reader",
    ("attributes", "pix2struct"): "detact_service.understanding.attributes",
    ("attributes", "reader"): "detact_service.understanding.reader",
    ("icons", "ssim"): "detact_service.understanding.icons",
    ("icons", "classifier"): "detact_service.understanding.icon_classifier",
    ("colors", "hsv"): "detact_service.understanding.colors",
    ("relevance", "minilm"): "detact_service.understanding.relevance",
    ("relevance", "lexical"): "detact_service.understanding.relevance",
    ("relevance", "llm"): "detact_service.understanding.relevance_llm",
}
"""Where the built-in backends live; their modules are imported on demand (nothing heavy at import)."""

_registry: dict[tuple[str, str], type[Backend]] = {}
_registry_lock = threading.Lock()

B = TypeVar("B", bound=type[Backend])


def register(slot: str, name: str) -> Callable[[B], B]:
    """Class decorator: register a backend under ``(slot, name)`` (and set those class attributes)."""

    def decorate(cls: B) -> B:
        cls.slot, cls.name = slot, name
        register_backend(cls)
        return cls

    return decorate


def register_backend(cls: type[Backend]) -> None:
    """Register a backend class under its ``(slot, name)``; a later registration replaces it."""
    with _registry_lock:
        _registry[(cls.slot, cls.name)] = cls


def unregister_backend(slot: str, name: str) -> None:
    """Forget a registered backend (plug-ins and tests that register one for a while)."""
    with _registry_lock:
        _registry.pop((slot, name), None)


def _entry_point_module(name: str) -> str | None:
    for point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if point.name == name:
            return point.value.partition(":")[0]
    return None


def backend_class(slot: str, name: str, settings: Settings | None = None) -> type[Backend]:
    """The backend class ``name`` of ``slot``, importing its module when not registered yet.

    The module is the built-in one, else the one a manifest entry names for that backend (``settings``
    gives the models folder), else the one of a ``detact_service.backends`` entry point.
    """
    key = (slot, name)
    if key not in _registry:
        module = BUILTIN_MODULES.get(key)
        if module is None and settings is not None:
            module = backend_modules(settings.models_dir).get(name)
        module = module or _entry_point_module(name)
        if module is not None:
            importlib.import_module(module)
    try:
        return _registry[key]
    except KeyError:
        raise ValueError(f"no backend {name!r} for stage {slot!r}; known: {backend_names(slot)}") from None


def backend_names(slot: str) -> list[str]:
    """Names of the backends of a slot known so far (built-in and registered)."""
    with _registry_lock:
        registered = {name for s, name in _registry if s == slot}
    return sorted(registered | {name for s, name in BUILTIN_MODULES if s == slot})


def create_stage(slot: str, name: str, settings: Settings) -> Backend:
    """Instantiate the backend ``name`` of ``slot``; cheap (models load on first run)."""
    return backend_class(slot, name, settings)(settings)


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


def verified_session(spec: ModelSpec, use_cuda: bool, threads: int = 0) -> Any:
    """The ONNX Runtime session of a manifest entry's file (checked against its sha256 on first load),
    once per process per file, device and thread count."""

    def load() -> Any:
        spec.verify()
        return onnx_session(spec.path, threads, use_cuda)

    return cached_model(("onnx", str(spec.path), use_cuda, threads), load)


def run_views(session: Any, views: npt.NDArray[np.uint8], batch: int) -> list[npt.NDArray[np.float32]]:
    """Each output of a model whose input is ``views``, over all the views, run ``batch`` at a time."""
    parts = [session.run(None, {"views": views[i : i + batch]}) for i in range(0, len(views), batch)]
    return [np.concatenate([part[k] for part in parts]) for k in range(len(parts[0]))]


def loaded_model_keys() -> list[Hashable]:
    """Keys of the models loaded so far in this process (for /readyz)."""
    with _cache_lock:
        return list(_model_cache)
