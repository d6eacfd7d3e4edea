"""The backend contract: a new backend is one module plus one manifest entry, nothing else."""

import hashlib
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from detact_service.models import write_manifest_entry
from detact_service.pipeline import (
    ProfileUnavailable,
    available_profiles,
    check_profile,
    get_pipeline,
    resolve_backend,
)
from detact_service.settings import Settings
from detact_service.stages import (
    BUILTIN_MODULES,
    Backend,
    backend_class,
    backend_names,
    create_stage,
    register,
    unregister_backend,
)

TOY_MODULE = "toy_detector_plugin"
TOY_BACKEND = textwrap.dedent(
    '''
    """A toy detector: its "weights" file holds the element type it reports at a fixed box."""

    from detact_service.core import Element, ElementType
    from detact_service.models import ModelUnavailable, model_spec
    from detact_service.stages import Backend, cached_model, register


    @register("detect", "toy-boxes")
    class ToyDetector(Backend):
        config = ("detector",)

        def __init__(self, settings):
            super().__init__(settings)
            self.spec = model_spec(settings.models_dir, "detector", settings.detector.model)

        @classmethod
        def available(cls, settings):
            try:
                model_spec(settings.models_dir, "detector", settings.detector.model)
            except ModelUnavailable as exc:
                return str(exc)
            return None

        def load(self):
            return cached_model(("toy", str(self.spec.path)), lambda: self.spec.path.read_text().strip())

        def model_version(self):
            return self.spec.version_tag()

        def run(self, images, parses):
            kind = ElementType(self.load())
            found = Element(bbox=(10, 10, 50, 30), type=kind, score=0.9, source="toy")
            return [parse.with_elements([*parse.elements, found]) for parse in parses]
    '''
)


@pytest.fixture
def plugin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on ``sys.path`` holding only the toy backend's module."""
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / f"{TOY_MODULE}.py").write_text(TOY_BACKEND)
    monkeypatch.syspath_prepend(str(tmp_path / "plugins"))
    yield tmp_path / "plugins"
    unregister_backend("detect", "toy-boxes")
    sys.modules.pop(TOY_MODULE, None)


def test_a_toy_detector_needs_only_its_module_and_a_manifest_entry(plugin_dir: Path, tmp_path: Path) -> None:
    models = tmp_path / "models"
    settings = Settings(
        models_dir=models, device="cpu", detector={"model": "toy"}, relevance={"backend": "lexical"}
    )
    assert "fast" not in available_profiles(settings)
    assert "toy-boxes" not in backend_names("detect")

    (models / "toy.txt").parent.mkdir()
    (models / "toy.txt").write_text("button\n")
    digest = hashlib.sha256(b"button\n").hexdigest()
    write_manifest_entry(
        models,
        {
            "name": "toy",
            "kind": "detector",
            "backend": "toy-boxes",
            "module": TOY_MODULE,
            "file": "toy.txt",
            "sha256": digest,
            "classes": ["button"],
        },
    )
    assert resolve_backend("detect", None, settings) == "toy-boxes"
    check_profile("fast", settings)
    assert available_profiles(settings) == ["fast", "detact"]
    assert "toy-boxes" in backend_names("detect")

    pipeline = get_pipeline(settings, "fast")
    assert [stage.name for stage in pipeline.stages] == ["rapidocr", "classical", "toy-boxes", "default",
                                                         "ssim", "hsv", "lexical"]  # fmt: skip
    parse = pipeline.parse(np.full((64, 96, 3), 255, dtype=np.uint8))
    toy = [e for e in parse.elements if e.source == "toy"]
    assert len(toy) == 1 and toy[0].type == "button" and toy[0].bbox == (10, 10, 50, 30)
    assert parse.models["detect"] == f"toy:{digest[:12]}"


def test_a_profile_says_which_backend_cannot_run_and_why(plugin_dir: Path, tmp_path: Path) -> None:
    models = tmp_path / "models"
    entry = {"name": "toy", "backend": "toy-boxes", "module": TOY_MODULE, "file": "gone"}
    write_manifest_entry(models, entry)
    settings = Settings(models_dir=models, detector={"model": "toy"})
    with pytest.raises(ProfileUnavailable, match=r"'fast' is not available here: detector file .*gone"):
        check_profile("fast", settings)
    write_manifest_entry(models, {"name": "toy", "backend": "no-such-backend", "file": "gone"})
    with pytest.raises(ProfileUnavailable, match="no backend 'no-such-backend' for stage 'detect'"):
        check_profile("fast", settings)
    with pytest.raises(ValueError, match="unknown profile"):
        check_profile("nope", settings)


def test_registration_sets_slot_and_name_and_can_be_undone() -> None:
    @register("colors", "test-grey")
    class Grey(Backend):
        pass

    try:
        assert (Grey.slot, Grey.name) == ("colors", "test-grey")
        assert backend_class("colors", "test-grey") is Grey
        assert isinstance(create_stage("colors", "test-grey", Settings()), Grey)
        assert Grey.available(Settings()) is None  # the default: always available
    finally:
        unregister_backend("colors", "test-grey")
    with pytest.raises(ValueError, match="no backend 'test-grey'"):
        backend_class("colors", "test-grey")


def test_every_builtin_backend_registers_itself_under_its_table_name() -> None:
    for (slot, name), module in BUILTIN_MODULES.items():
        cls = backend_class(slot, name)
        assert (cls.slot, cls.name, cls.__module__) == (slot, name, module)


def test_backend_modules_do_not_import_the_pipeline() -> None:
    """No cycle through the pipeline: backends get devices and specs from detact_service.models."""
    modules = sorted(set(BUILTIN_MODULES.values()))
    code = (
        f"import importlib, sys; [importlib.import_module(m) for m in {modules!r}];"
        "print('detact_service.pipeline' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_wheel_can_bring_a_backend_through_an_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    (site / "toy_ep_plugin-0.1.dist-info").mkdir(parents=True)
    (site / "toy_ep_plugin-0.1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: toy-ep-plugin\nVersion: 0.1\n"
    )
    (site / "toy_ep_plugin-0.1.dist-info" / "entry_points.txt").write_text(
        "[detact_service.backends]\ntoy-ep = toy_ep_module:Tint\n"
    )
    (site / "toy_ep_module.py").write_text(
        "from detact_service.stages import Backend, register\n\n\n"
        "@register('colors', 'toy-ep')\nclass Tint(Backend):\n    pass\n"
    )
    monkeypatch.syspath_prepend(str(site))
    try:
        cls = backend_class("colors", "toy-ep")
        assert cls.__name__ == "Tint" and cls.__module__ == "toy_ep_module"
    finally:
        unregister_backend("colors", "toy-ep")
        sys.modules.pop("toy_ep_module", None)


def test_a_verified_session_loads_once_and_batched_views_read_as_one_call() -> None:
    from detact_service.models import model_spec
    from detact_service.stages import run_views, verified_session

    spec = model_spec(Settings().models_dir, "dimmed", "ui-dimmed")
    session = verified_session(spec, use_cuda=False)
    assert verified_session(spec, use_cuda=False) is session
    views = np.random.default_rng(0).integers(0, 256, (5, 32, 128, 3), dtype=np.uint8)
    (in_twos,) = run_views(session, views, batch=2)
    (at_once,) = run_views(session, views, batch=8)
    assert in_twos.shape[0] == 5 and np.allclose(in_twos, at_once, atol=1e-5)
