"""Int8 quantisation of the service's ONNX models: ``python -m training.quantize {ocr-rec,detector} ...``.

- ``ocr-rec``: the PP-OCRv6 small recogniser from the installed ``rapidocr`` wheel, quantised with ONNX
  Runtime (``--mode static``: QDQ, per-channel int8 weights, uint8 activations calibrated on text-line
  crops cut from rendered screens by the service's own detection and line splitting; ``--mode dynamic``:
  weights only, activations quantised at run time).
- ``detector``: a UI detector of the manifest (``--name``, default ``ui-detector``), static QDQ calibrated
  on phone and desktop screenshots letterboxed as :mod:`detact_service.detectors.yolo_onnx` does (the
  entry's input size and upscaling); the detect head (its last nodes) can be kept in float.
- ``ocr-det``: no quantisation: the PP-OCRv6 small text detector from the ``rapidocr`` wheel with its
  subnormal float32 weights set to zero (:func:`without_subnormal_weights`), which an Intel CPU computes
  with a hundred times slower.

Weights are quantised to 7 bits (``--weight-bits 7``, ONNX Runtime's ``reduce_range``): ONNX Runtime's x86
kernels without VNNI add pairs of uint8 x int8 products in a saturating int16, which 8-bit weights overflow.

The calibration images are chosen deterministically (sorted names, fixed stride), so a run recreates the
same file. Numbers and the commands that made the shipped files: ``models/manifest.json``, ``docs/OCR.md``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parent.parent
SCREENS = ROOT / "data" / "screens"
SHARED = ROOT.parent / "shared"
PHONE_REAL = SHARED / "data" / "phone_real"
DESKTOP_SAMPLES = SHARED / "samples" / "desktop-screenagent"
# The ``data/screens`` families used to calibrate the recogniser (train-split templates only; never MiniWoB++
# seeds 1000-1099, the evaluation episodes, nor the desktop samples that ``bench.ocr`` times).
OPSET = 13
REC_FAMILIES = ("web", "qt", "thirdparty", "grid", "miniwob")


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _calibration_screens(root: Path, per_family: int, desktops: int = 0) -> list[Path]:
    """``per_family`` screens of each family of ``root`` whose template is in the data engine's train
    split (never val or test, never MiniWoB++ evaluation seeds 1000-1099), evenly spread over the sorted
    names, and ``desktops`` ScreenAgent desktop samples."""
    from training.data.export import split_of

    chosen: list[Path] = []
    for family in REC_FAMILIES:
        files = []
        for path in sorted(root.glob(f"{family}-*.png")):
            labels = path.with_suffix(".json")
            if family == "miniwob" and 1000 <= int(path.stem.split("-")[-1]) <= 1099:
                continue
            if (
                not labels.is_file()
                or split_of(str(json.loads(labels.read_text()).get("template"))) != "train"
            ):
                continue
            files.append(path)
        if files:
            step = max(1, len(files) // per_family)
            chosen.extend(files[::step][:per_family])
    if desktops:  # real 1024x768 JPEG desktops (small, compressed text): all but the 3 bench.ocr times
        files = sorted(DESKTOP_SAMPLES.glob("*.jpg"))[3:]
        chosen.extend(files[:: max(1, len(files) // desktops)][:desktops])
    return chosen


def rec_calibration_batches(screens: Sequence[Path], max_crops: int) -> list[npt.NDArray[np.float32]]:
    """Recognition inputs exactly as the service makes them: detection, line splitting and per-rung
    batches of :class:`detact_service.detectors.ocr_rapid.RapidOCRStage` on each screen."""
    from PIL import Image

    from detact_service.detectors import ocr_rapid
    from detact_service.settings import Settings

    # the fp32 recogniser, on one thread of batches: the crops are captured in the service's order
    stage = ocr_rapid.RapidOCRStage(Settings(device="cpu", ocr={"int8": False, "rec_workers": 1}))
    engine = stage._engine()
    captured: list[npt.NDArray[np.float32]] = []

    class Capture:
        """Stands in for the recognition session: keeps every batch, answers with the real model."""

        def __init__(self, session: Any) -> None:
            self.session = session

        def get_inputs(self) -> Any:
            return self.session.get_inputs()

        def run(self, names: Any, feeds: dict[str, npt.NDArray[np.float32]]) -> Any:
            captured.extend(np.split(next(iter(feeds.values())), len(next(iter(feeds.values())))))
            return self.session.run(names, feeds)

    real = engine.recs
    engine.recs = [Capture(session) for session in real]
    try:
        for path in screens:
            image = np.asarray(Image.open(path).convert("RGB"))
            stage.read(image)
    finally:
        engine.recs = real
    if len(captured) > max_crops:  # evenly spread over the screens, deterministic
        captured = [captured[i] for i in np.linspace(0, len(captured) - 1, max_crops).round().astype(int)]
    return captured


class ArrayReader:
    """An ONNX Runtime calibration data reader over a list of input arrays."""

    def __init__(self, name: str, arrays: Sequence[npt.NDArray[np.float32]]) -> None:
        self.name = name
        self.items: Iterator[npt.NDArray[np.float32]] = iter(arrays)

    def get_next(self) -> dict[str, npt.NDArray[np.float32]] | None:
        item = next(self.items, None)
        return None if item is None else {self.name: item}

    def rewind(self) -> None:  # pragma: no cover - only some calibrators call it
        pass


def _preprocessed(source: Path, work: Path) -> Path:
    import onnx
    from onnx import version_converter
    from onnxruntime.quantization.shape_inference import quant_pre_process

    model = onnx.load(str(source))
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), OPSET)
    if opset < OPSET:  # per-channel QDQ (DequantizeLinear's axis) needs opset 13
        model = version_converter.convert_version(model, OPSET)
    upgraded = work / f"{source.stem}-opset.onnx"
    onnx.save(model, str(upgraded))
    out = work / f"{source.stem}-pre.onnx"
    quant_pre_process(str(upgraded), str(out), skip_symbolic_shape=True)
    return out


def quantise_static(
    source: Path,
    out: Path,
    arrays: Sequence[npt.NDArray[np.float32]],
    *,
    method: str,
    op_types: Sequence[str] | None,
    exclude: Sequence[str] = (),
    per_channel: bool = True,
    reduce_range: bool = False,
) -> None:
    import onnx
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static

    with tempfile.TemporaryDirectory() as tmp:
        pre = _preprocessed(source, Path(tmp))
        input_name = onnx.load(str(pre), load_external_data=False).graph.input[0].name
        quantize_static(
            str(pre),
            str(out),
            ArrayReader(input_name, arrays),
            quant_format=QuantFormat.QDQ,
            op_types_to_quantize=list(op_types) if op_types else None,
            per_channel=per_channel,
            reduce_range=reduce_range,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            nodes_to_exclude=list(exclude),
            calibrate_method={
                "minmax": CalibrationMethod.MinMax,
                "entropy": CalibrationMethod.Entropy,
                "percentile": CalibrationMethod.Percentile,
            }[method],
            extra_options={"CalibMovingAverage": method == "minmax", "CalibTensorRangeSymmetric": False},
        )


def quantise_dynamic(source: Path, out: Path, op_types: Sequence[str]) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory() as tmp:
        pre = _preprocessed(source, Path(tmp))
        quantize_dynamic(
            str(pre),
            str(out),
            op_types_to_quantize=list(op_types),
            weight_type=QuantType.QInt8,
            per_channel=True,
        )


def rec_source() -> Path:
    from detact_service.detectors.ocr_rapid import MODEL_SETS

    models = MODEL_SETS["ppocrv6-small"]
    return models.path(models.rec)


def det_source() -> Path:
    from detact_service.detectors.ocr_rapid import MODEL_SETS

    models = MODEL_SETS["ppocrv6-small"]
    return models.path(models.det)


def subnormal_weights(model: Any) -> int:
    """How many float32 weights (initializers and ``Constant`` nodes) of an ONNX ``ModelProto`` are subnormal:
    non-zero and below float32's smallest normal number."""
    from onnx import numpy_helper

    return sum(int(np.count_nonzero(_subnormal(numpy_helper.to_array(t)))) for t in _float_tensors(model))


def without_subnormal_weights(source: Path, out: Path) -> int:
    """Write the ONNX model ``source`` to ``out`` with its subnormal float32 weights set to zero; how many.

    Zero is what such a weight is worth in any product with an activation, and an Intel CPU computes with
    subnormal numbers in microcode: PP-OCRv6's small text detector, a tenth of whose weights are subnormal,
    ran 3.4x faster there with them at zero (``docs/OCR.md``).
    """
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(source))
    flushed = 0
    for tensor in _float_tensors(model):
        weights = numpy_helper.to_array(tensor)
        subnormal = _subnormal(weights)
        if subnormal.any():
            flushed += int(np.count_nonzero(subnormal))
            tensor.CopyFrom(numpy_helper.from_array(np.where(subnormal, np.float32(0), weights), tensor.name))
    onnx.save(model, str(out))
    return flushed


def _float_tensors(model: Any) -> list[Any]:
    import onnx

    constants = [
        attribute.t
        for node in model.graph.node
        if node.op_type == "Constant"
        for attribute in node.attribute
        if attribute.name == "value"
    ]
    return [t for t in [*model.graph.initializer, *constants] if t.data_type == onnx.TensorProto.FLOAT]


def _subnormal(weights: npt.NDArray[np.float32]) -> npt.NDArray[np.bool_]:
    return (np.abs(weights) < np.finfo(np.float32).tiny) & (weights != 0)


def detector_calibration(
    apps: int,
    per_app: int,
    desktops: int,
    size: int,
    per_family: int = 0,
    upscale: bool = True,
    landscape_only: bool = False,
) -> list[npt.NDArray[np.float32]]:
    """Detector inputs made as the backend makes them (``size``, ``upscale``): ``per_app`` screenshots of each
    of the first ``apps`` phone_real train apps, ``desktops`` ScreenAgent desktop screenshots (after the 3
    that ``bench.ocr`` times) and ``per_family`` train-split screens of each ``data/screens`` family (web, Qt,
    MiniWoB++, ...); with ``landscape_only``, the screens wider than tall among them (what a
    ``landscape_model`` sees)."""
    from PIL import Image

    from detact_service.detectors.yolo_onnx import input_hw, letterbox
    from training.data.phone_real import load_screens

    by_app: dict[str, list[Path]] = {}
    for screen in load_screens(split="train"):
        by_app.setdefault(screen.app, []).append(screen.image_path)
    paths: list[Path] = []
    for app in sorted(by_app)[:apps]:
        files = sorted(by_app[app])
        step = max(1, len(files) // per_app)
        paths.extend(files[::step][:per_app])
    paths.extend(sorted(DESKTOP_SAMPLES.glob("*.jpg"))[3 : 3 + desktops])
    if per_family:
        paths.extend(_calibration_screens(SCREENS, per_family))
    arrays = []
    for path in paths:
        image = np.asarray(Image.open(path).convert("RGB"))
        if landscape_only and image.shape[1] <= image.shape[0]:
            continue
        shape = input_hw(("batch", 3, "height", "width"), image.shape[0], image.shape[1], size, upscale)
        arrays.append(letterbox(image, shape)[0][None])
    return arrays


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="model", required=True)
    rec = sub.add_parser("ocr-rec", help="the PP-OCRv6 small recogniser")
    rec.add_argument("--mode", choices=("static", "dynamic"), default="static")
    rec.add_argument("--method", choices=("minmax", "entropy", "percentile"), default="minmax")
    rec.add_argument("--ops", default="Conv,MatMul", help="comma list of op types to quantise ('' = all)")
    rec.add_argument("--per-family", type=int, default=16, help="calibration screens per data/screens family")
    rec.add_argument("--max-crops", type=int, default=1000)
    rec.add_argument("--desktops", type=int, default=16, help="ScreenAgent desktop samples to calibrate on")
    rec.add_argument("--exclude", default="", help="comma list of node names kept in float")
    rec.add_argument("--out", type=Path, default=ROOT / "models" / "ppocrv6-rec-small-int8.onnx")
    flush = sub.add_parser("ocr-det", help="the PP-OCRv6 small text detector, subnormal weights at zero")
    flush.add_argument("--out", type=Path, default=ROOT / "models" / "ppocrv6-det-small.onnx")
    det = sub.add_parser("detector", help="a UI detector of the manifest (default: ui-detector)")
    det.add_argument("--name", default="ui-detector", help="its manifest entry: file, input size, upscale")
    det.add_argument("--landscape-only", action="store_true", help="calibrate on screens wider than tall")
    det.add_argument("--apps", type=int, default=20)
    det.add_argument("--per-app", type=int, default=2)
    det.add_argument("--desktops", type=int, default=10)
    det.add_argument("--per-family", type=int, default=0, help="train-split data/screens per family")
    det.add_argument("--method", choices=("minmax", "entropy", "percentile"), default="minmax")
    det.add_argument(
        "--exclude",
        default=r"^/model\.23/(?!cv[23])",
        help="regular expression of the node names kept in float (default: the head after its convolutions)",
    )
    det.add_argument("--ops", default="", help="comma list of op types to quantise ('' = all)")
    det.add_argument("--out", type=Path, default=None, help="default: models/<name>-int8.onnx")
    for command in (rec, det):
        command.add_argument(
            "--weight-bits",
            type=int,
            choices=(7, 8),
            default=7,
            help="7: weights in [-64, 64], exact on every x86 CPU; 8: full range, which saturates on CPUs "
            "without VNNI (AVX2, AVX512F)",
        )
    args = parser.parse_args(argv)

    if args.model == "ocr-det":
        flushed = without_subnormal_weights(det_source(), args.out)
        print(f"{args.out}: {flushed} subnormal weights set to zero, sha256 {sha256(args.out)}")
        return
    ops = [o for o in args.ops.split(",") if o] or None
    if args.model == "ocr-rec":
        source = rec_source()
        if args.mode == "dynamic":
            quantise_dynamic(source, args.out, ops or ["Conv", "MatMul"])
            print(f"{args.out}: {args.out.stat().st_size / 1e6:.1f} MB, sha256 {sha256(args.out)}")
            return
        screens = _calibration_screens(SCREENS, args.per_family, args.desktops)
        arrays = rec_calibration_batches(screens, args.max_crops)
        print(f"calibration: {len(screens)} screens, {len(arrays)} crops")
        exclude = [e for e in args.exclude.split(",") if e]
    else:
        import onnx

        from detact_service.models import model_spec

        spec = model_spec(ROOT / "models", "detector", args.name)
        source = spec.path
        args.out = args.out or ROOT / "models" / f"{args.name}-int8.onnx"
        arrays = detector_calibration(
            args.apps,
            args.per_app,
            args.desktops,
            spec.input_size,
            args.per_family,
            spec.upscale,
            args.landscape_only,
        )
        print(f"calibration: {len(arrays)} screenshots")
        graph = onnx.load(str(spec.path)).graph
        exclude = [n.name for n in graph.node if args.exclude and re.search(args.exclude, n.name)]
    quantise_static(
        source,
        args.out,
        arrays,
        method=args.method,
        op_types=ops,
        exclude=exclude,
        reduce_range=args.weight_bits == 7,
    )
    print(f"{args.out}: {args.out.stat().st_size / 1e6:.1f} MB, sha256 {sha256(args.out)}")


if __name__ == "__main__":
    main()
