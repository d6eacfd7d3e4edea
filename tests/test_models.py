"""The model registry: the manifest (one writer, cached reads, validation), specs and wheel models."""

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from detact_service.models import (
    ModelUnavailable,
    read_manifest,
    resolve_device,
    write_manifest_entry,
)
from detact_service.models import model_spec as spec_of
from detact_service.pipeline import ProfileUnavailable, check_profile
from detact_service.settings import Settings


def test_the_writer_upserts_by_name_and_keeps_other_entries_and_extra_fields(tmp_path: Path) -> None:
    (tmp_path / "a.onnx").write_bytes(b"a")
    first = {"name": "a", "file": "a.onnx", "classes": ["button"], "metrics": {"m": 1}}
    write_manifest_entry(tmp_path, first)
    write_manifest_entry(tmp_path, {"name": "b", "kind": "attributes", "folder": "b"})
    write_manifest_entry(tmp_path, {"name": "a", "file": "a.onnx", "classes": ["link"], "input_size": 320})
    raw = json.loads((tmp_path / "manifest.json").read_text())
    assert [m["name"] for m in raw["models"]] == ["b", "a"]
    assert raw["models"][1] == {"name": "a", "kind": "detector", "file": "a.onnx", "classes": ["link"],
                                "input_size": 320}  # fmt: skip
    entry = read_manifest(tmp_path).find("detector", "a")
    assert entry is not None and entry.classes == ["link"] and entry.input_size == 320
    assert read_manifest(tmp_path).find("detector", "b") is None  # b is of another kind


def test_the_manifest_is_parsed_once_per_version(tmp_path: Path) -> None:
    assert read_manifest(tmp_path).models == []  # no manifest: empty, not an error
    write_manifest_entry(tmp_path, {"name": "a", "file": "a.onnx"})
    first = read_manifest(tmp_path)
    assert read_manifest(tmp_path) is first
    write_manifest_entry(tmp_path, {"name": "c", "file": "c.onnx"})
    assert [m.name for m in read_manifest(tmp_path).models] == ["a", "c"]


def test_invalid_manifests_are_rejected(tmp_path: Path) -> None:
    twice = {"models": [{"name": "a", "file": "x"}, {"name": "a", "file": "y"}]}
    (tmp_path / "manifest.json").write_text(json.dumps(twice))
    with pytest.raises(ModelUnavailable, match=r"not a valid manifest.*twice"):
        read_manifest(tmp_path)
    assert check_profile("detact", Settings(models_dir=tmp_path)) is None  # needs no model: still runs
    with pytest.raises(ProfileUnavailable, match="not a valid manifest"):
        check_profile("fast", Settings(models_dir=tmp_path))
    with pytest.raises(ValidationError, match="sha256"):
        write_manifest_entry(tmp_path / "other", {"name": "a", "file": "x", "sha256": "not-hex"})


def test_a_manifest_of_earlier_exporters_still_reads(tmp_path: Path) -> None:
    (tmp_path / "ui-yolov8.onnx").write_bytes(b"weights")
    digest = hashlib.sha256(b"weights").hexdigest()
    entry = {
        "name": "ui-yolov8",
        "kind": "detector",
        "file": "ui-yolov8.onnx",
        "sha256": digest,
        "classes": ["button", "link"],
        "input_size": 1024,
        "data_version": "web+qt",
        "metrics": {"mAP50": 0.8},
        "command": "python -m training.detector.export ...",
    }
    (tmp_path / "manifest.json").write_text(json.dumps({"models": [entry]}, indent=1))
    spec = spec_of(tmp_path, "detector", "ui-yolov8")
    assert spec.path == tmp_path / "ui-yolov8.onnx" and spec.classes == ("button", "link")
    assert spec.input_size == 1024 and spec.version_tag() == f"ui-yolov8:{digest[:12]}"
    assert spec.entry.model_extra == {"data_version": "web+qt", "metrics": {"mAP50": 0.8},
                                      "command": entry["command"]}  # fmt: skip
    spec.verify()
    (tmp_path / "ui-yolov8.onnx").write_bytes(b"tampered")
    with pytest.raises(ModelUnavailable, match="sha256"):
        spec.verify()
    with pytest.raises(ModelUnavailable, match="no detector model named 'other'"):
        spec_of(tmp_path, "detector", "other")


def fake_wheel(site: Path, version: str = "1.2.0") -> Path:
    """An installed package ``toywheel_models`` (with its dist-info) holding ``weights/det.onnx``."""
    weights = site / "toywheel_models" / "weights" / "det.onnx"
    weights.parent.mkdir(parents=True)
    (site / "toywheel_models" / "__init__.py").write_text("raise ImportError('never imported')\n")
    weights.write_bytes(b"onnx bytes")
    info = site / f"toywheel_models-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: toywheel-models\nVersion: {version}\n")
    return weights


def test_models_from_installed_packages_carry_their_provenance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    weights = fake_wheel(tmp_path / "site")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    digest = hashlib.sha256(b"onnx bytes").hexdigest()
    models = tmp_path / "models"
    entry = {
        "name": "wheel-det",
        "package": "toywheel_models",
        "version": "1.2.0",
        "path": "weights/det.onnx",
        "sha256": digest,
        "licence": "AGPL-3.0",
        "classes": ["button"],
    }
    write_manifest_entry(models, entry)
    spec = spec_of(models, "detector", "wheel-det")  # found without importing the package
    assert spec.path.resolve() == weights.resolve()
    assert spec.provenance() == {
        "package": "toywheel_models",
        "version": "1.2.0",
        "path": "weights/det.onnx",
        "sha256": digest,
        "licence": "AGPL-3.0",
    }
    spec.verify()
    write_manifest_entry(models, {**entry, "version": "9.0"})
    with pytest.raises(ModelUnavailable, match=r"toywheel-models==9\.0; 1\.2\.0 is installed"):
        spec_of(models, "detector", "wheel-det")
    write_manifest_entry(models, {**entry, "package": "no_such_models_pkg", "version": None})
    with pytest.raises(ModelUnavailable, match="not installed"):
        spec_of(models, "detector", "wheel-det")


def test_devices_are_resolved_here() -> None:
    assert resolve_device("cpu") == "cpu" and resolve_device(Settings(device="cuda")) == "cuda"
    assert resolve_device(Settings(device="auto")) in {"cpu", "cuda"}


def test_an_optional_model_is_none_when_unnamed_or_not_shipped(tmp_path: Path) -> None:
    from detact_service.models import optional_model_spec

    models = Settings().models_dir
    assert optional_model_spec(models, "dimmed", "") is None
    assert optional_model_spec(models, "dimmed", "no-such-model") is None
    assert optional_model_spec(tmp_path, "dimmed", "ui-dimmed") is None  # no manifest there
    spec = optional_model_spec(models, "dimmed", "ui-dimmed")
    assert spec is not None and spec.path.name == "ui-dimmed.onnx"


def test_an_openvino_session_answers_as_onnx_runtime_does() -> None:
    """Same inputs, same outputs (float32) and the same ONNX metadata as an ONNX Runtime session."""
    import onnxruntime as ort

    from detact_service.detectors.ocr_rapid import MODEL_SETS
    from detact_service.models import OpenVinoSession

    models = MODEL_SETS["ppocrv6-small"]
    path = models.path(models.rec)
    session = OpenVinoSession(path, 1, streams=2)
    reference = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert [p.name for p in session.get_inputs()] == [p.name for p in reference.get_inputs()]
    assert session.get_modelmeta().custom_metadata_map == reference.get_modelmeta().custom_metadata_map
    assert len(session.get_modelmeta().custom_metadata_map["character"]) > 10_000
    views = np.random.default_rng(0).uniform(-1, 1, (2, 3, 48, 160)).astype(np.float32)
    (mine,) = session.run(None, {"x": views})
    (theirs,) = reference.run(None, {"x": views})
    assert mine.shape == theirs.shape and np.abs(mine - theirs).max() < 1e-4
    (strided,) = session.run(None, {"x": np.asfortranarray(views)})  # handed over as a contiguous copy
    assert np.array_equal(strided, mine)
    with pytest.raises(ValueError, match="every output"):
        session.run(["softmax"], {"x": views})


def test_an_openvino_session_runs_calls_from_several_threads_at_once() -> None:
    """Each thread gets its own infer request: concurrent calls give what one-by-one calls give."""
    from concurrent.futures import ThreadPoolExecutor

    from detact_service.detectors.ocr_rapid import MODEL_SETS
    from detact_service.models import OpenVinoSession

    models = MODEL_SETS["ppocrv6-small"]
    session = OpenVinoSession(models.path(models.rec), 2, streams=2)
    rng = np.random.default_rng(1)
    inputs = [rng.uniform(-1, 1, (1, 3, 48, width)).astype(np.float32) for width in (32, 96, 160, 64) * 3]
    alone = [session.run(None, {"x": x})[0] for x in inputs]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda x: session.run(None, {"x": x})[0], inputs))
    assert all(np.array_equal(a, b) for a, b in zip(alone, together, strict=True))


def test_no_shipped_model_carries_subnormal_weights() -> None:
    """An Intel CPU multiplies subnormal float32 numbers in microcode: the wheel's PP-OCRv6 text detector
    ran 3.4x slower with them (docs/OCR.md). Every ONNX file in ``models/`` has none."""
    import onnx

    from training.quantize import subnormal_weights

    shipped = sorted(Settings().models_dir.glob("*.onnx"))
    assert any(path.name == "ppocrv6-det-small.onnx" for path in shipped) and len(shipped) >= 10
    assert {path.name: subnormal_weights(onnx.load(str(path))) for path in shipped} == {
        path.name: 0 for path in shipped
    }
