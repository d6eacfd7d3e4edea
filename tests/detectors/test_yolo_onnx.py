"""The detector stage on a real ONNX model: a tiny graph with a fixed YOLOv8-shaped head output."""

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from detact_service.core import LANDSCAPE_DETECTOR_SOURCE, ElementType, ScreenParse
from detact_service.detectors.yolo_onnx import YoloOnnxDetector, input_hw, letterbox
from detact_service.pipeline import ProfileUnavailable, available_profiles, check_profile
from detact_service.settings import DetectorSettings, Settings
from detact_service.stages import StageUnavailable

INPUT = 64
CLASSES = ["button", "checkbox"]
# Rows: cx, cy, w, h (letterboxed input pixels), then one score per class; one column per anchor.
# Anchor 0: button at x 6..26, y 19..29 of the 64px input, i.e. (12, 6, 52, 26) in the 128x64 image.
HEAD = np.array(
    [
        [16, 17, 48, 40],
        [24, 24, 40, 40],
        [20, 20, 8, 8],
        [10, 10, 8, 8],
        [0.90, 0.80, 0.0, 0.10],
        [0.0, 0.0, 0.70, 0.05],
    ],
    dtype=np.float32,
)


def write_model(
    folder: Path,
    name: str = "ui-detector",
    head_rows: np.ndarray = HEAD,
    classes: list[str] = CLASSES,
    **fields: object,
) -> Path:
    """images (B,3,64,64) -> output0 (B,4+classes,anchors): the constant head, tiled over the batch; its
    entry added to the folder's manifest."""
    head = helper.make_tensor("head", TensorProto.FLOAT, [1, *head_rows.shape], head_rows.flatten().tolist())
    zero = helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])
    shape = helper.make_tensor("shape", TensorProto.INT64, [3], [-1, 1, 1])
    nodes = [
        helper.make_node("ReduceMean", ["images"], ["mean"], axes=[1, 2, 3], keepdims=1),
        helper.make_node("Reshape", ["mean", "shape"], ["per_image"]),
        helper.make_node("Mul", ["per_image", "zero"], ["nothing"]),
        helper.make_node("Add", ["nothing", "head"], ["output0"]),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny-yolo-head",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, INPUT, INPUT])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["batch", *head_rows.shape])],
        initializer=[head, zero, shape],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = folder / f"{name}.onnx"
    onnx.save(model, path)
    entry = {"name": name, "kind": "detector", "file": path.name, "classes": classes, "input_size": INPUT}
    manifest = folder / "manifest.json"
    models = json.loads(manifest.read_text())["models"] if manifest.exists() else []
    manifest.write_text(json.dumps({"models": [*models, entry | fields]}))
    return path


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    write_model(tmp_path)
    return Settings(models_dir=tmp_path, device="cpu")


def test_letterbox_keeps_aspect_and_pads_evenly() -> None:
    image = np.zeros((64, 128, 3), dtype=np.uint8)
    tensor, scale, (left, top) = letterbox(image, INPUT)
    assert tensor.shape == (3, INPUT, INPUT) and tensor.dtype == np.float32
    assert scale == 0.5 and (left, top) == (0, 16)


def test_detector_decodes_boxes_into_image_pixels_with_nms(settings: Settings) -> None:
    stage = YoloOnnxDetector(settings)
    images = [np.full((64, 128, 3), 255, dtype=np.uint8)] * 2
    parses = stage.run(images, [ScreenParse(128, 64), ScreenParse(128, 64)])
    for parse in parses:
        found = sorted((e.type, e.bbox, e.score) for e in parse.elements)
        # Anchor 2 overlaps anchor 1 (same class) and loses NMS; anchor 4 is below the confidence bar.
        assert found == [
            (ElementType.BUTTON, (12, 6, 52, 26), 0.9),
            (ElementType.CHECKBOX, (88, 40, 104, 56), 0.7),
        ]
        assert all(e.source == "detector" for e in parse.elements)
    assert stage.model_version().startswith("ui-detector:")


def test_profiles_needing_the_detector_follow_the_manifest(settings: Settings, tmp_path: Path) -> None:
    # a detector alone makes `fast` available; `full` also needs the attribute model
    assert available_profiles(settings) == ["fast", "detact"]
    with pytest.raises(ProfileUnavailable, match=r"no attributes model named .ui-reader."):
        check_profile("full", settings)
    empty = Settings(models_dir=tmp_path / "nothing")
    assert available_profiles(empty) == ["detact"]
    with pytest.raises(ProfileUnavailable, match="not shipped"):
        check_profile("fast", empty)
    with pytest.raises(StageUnavailable):
        YoloOnnxDetector(empty)


# A second, class-agnostic detector: anchor 0 repeats the first's button box at a lower score (suppressed),
# anchor 1 is a new control at (72, 8, 88, 24) of a 128x64 image, anchor 2 is below its own threshold.
LANDSCAPE_HEAD = np.array(
    [[16, 40, 40], [24, 24, 24], [20, 8, 8], [10, 8, 8], [0.5, 0.0, 0.2], [0.0, 0.6, 0.0]], dtype=np.float32
)


def test_a_second_detector_adds_its_boxes_on_landscape_screens_only(tmp_path: Path) -> None:
    write_model(tmp_path)
    write_model(tmp_path, "wide", LANDSCAPE_HEAD, ["Button", "Menu"], agnostic=True, conf=0.3)
    stage = YoloOnnxDetector(
        Settings(models_dir=tmp_path, device="cpu", detector=DetectorSettings(landscape_model="wide"))
    )
    wide, tall = np.full((64, 128, 3), 255, np.uint8), np.full((128, 64, 3), 255, np.uint8)
    landscape, portrait = stage.run([wide, tall], [ScreenParse(128, 64), ScreenParse(64, 128)])
    assert sorted((e.type, e.bbox, e.score, e.source) for e in landscape.elements) == [
        (ElementType.BUTTON, (12, 6, 52, 26), 0.9, "detector"),
        (ElementType.CHECKBOX, (88, 40, 104, 56), 0.7, "detector"),
        # an agnostic detector's box: the merge types it, and admits it (merge.admit_landscape_boxes)
        (ElementType.ICON, (72, 8, 88, 24), 0.6, LANDSCAPE_DETECTOR_SOURCE),
    ]
    assert len(portrait.elements) == 2 and ElementType.ICON not in {e.type for e in portrait.elements}
    assert stage.model_version().startswith("ui-detector:") and "+wide:" in stage.model_version()


def test_a_second_detector_not_in_the_manifest_leaves_the_first_alone(settings: Settings) -> None:
    stage = YoloOnnxDetector(
        settings.model_copy(update={"detector": DetectorSettings(landscape_model="absent")})
    )
    assert stage.landscape_spec is None
    assert len(stage.run([np.full((64, 128, 3), 255, np.uint8)], [ScreenParse(128, 64)])[0].elements) == 2


def test_a_detector_without_upscale_reads_small_screens_at_their_own_scale() -> None:
    assert input_hw(["b", 3, "h", "w"], 768, 1024, 1280, upscale=False) == (768, 1024)
    assert input_hw(["b", 3, "h", "w"], 1080, 1920, 1280, upscale=False) == (736, 1280)
    assert input_hw(["b", 3, "h", "w"], 768, 1024, 1280) == (960, 1280)


def test_a_detector_with_a_minimum_size_enlarges_only_screens_below_it() -> None:
    dynamic = ["b", 3, "h", "w"]
    assert input_hw(dynamic, 210, 160, 1280, upscale=False, min_size=640) == (640, 512)
    assert input_hw(dynamic, 768, 1024, 1280, upscale=False, min_size=640) == (768, 1024)
    assert input_hw(dynamic, 1440, 2560, 1280, upscale=False, min_size=640) == (736, 1280)


def test_the_shipped_detectors_read_at_their_sizes_and_the_setting_overrides_all_but_the_phones() -> None:
    shipped = YoloOnnxDetector(Settings(device="cpu"))
    assert shipped.desktop_spec is not None and shipped.phone_spec is not None
    assert [shipped.input_size_for(spec) for spec in (shipped.spec, shipped.desktop_spec)] == [1280, 1280]
    assert shipped.input_size_for(shipped.phone_spec) == 640
    lowered = YoloOnnxDetector(Settings(device="cpu", detector=DetectorSettings(input_size=800)))
    assert lowered.desktop_spec is not None and lowered.phone_spec is not None
    assert [lowered.input_size_for(spec) for spec in (lowered.spec, lowered.desktop_spec)] == [800, 800]
    assert lowered.input_size_for(lowered.phone_spec) == 640


@pytest.mark.parametrize(
    ("setting", "spec", "own", "others"),
    [
        # 2:1, a phone's shape; 1.25:1, portrait but not a phone; landscape
        ("phone_model", "phone_spec", (128, 64), [(80, 64), (64, 128)]),
        # landscape; square; tall
        ("desktop_model", "desktop_spec", (64, 128), [(64, 64), (128, 64)]),
    ],
)
def test_a_stand_in_detector_replaces_the_first_on_its_screens_only(
    tmp_path: Path, setting: str, spec: str, own: tuple[int, int], others: list[tuple[int, int]]
) -> None:
    write_model(tmp_path)
    write_model(tmp_path, "stand-in", LANDSCAPE_HEAD, ["Button", "Menu"], agnostic=True, conf=0.3)
    stage = YoloOnnxDetector(
        Settings(models_dir=tmp_path, device="cpu", detector=DetectorSettings(**{setting: "stand-in"}))
    )
    screens = [np.full((*shape, 3), 255, np.uint8) for shape in (own, *others)]
    parses = stage.run(screens, [ScreenParse(w, h) for h, w in (own, *others)])
    # the stand-in's two boxes above its own threshold, typed by the merge, as the first detector's
    assert sorted((e.type, e.score, e.source) for e in parses[0].elements) == [
        (ElementType.ICON, 0.5, "detector"),
        (ElementType.ICON, 0.6, "detector"),
    ]
    for parse in parses[1:]:
        assert {e.type for e in parse.elements} == {ElementType.BUTTON, ElementType.CHECKBOX}
    assert "+stand-in:" in stage.model_version()
    absent = YoloOnnxDetector(
        Settings(models_dir=tmp_path, device="cpu", detector=DetectorSettings(**{setting: "absent"}))
    )
    assert getattr(absent, spec) is None
    assert {e.type for e in absent.run(screens[:1], [ScreenParse(own[1], own[0])])[0].elements} == {
        ElementType.BUTTON,
        ElementType.CHECKBOX,
    }


class CallSizes:
    """Stands in for an ONNX Runtime session: runs the real one and keeps each call's image count."""

    def __init__(self, session: object) -> None:
        self.session = session
        self.sizes: list[int] = []

    def get_inputs(self) -> object:
        return self.session.get_inputs()  # type: ignore[attr-defined]

    def run(self, names: object, feeds: dict[str, np.ndarray]) -> object:
        self.sizes.append(len(next(iter(feeds.values()))))
        return self.session.run(names, feeds)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("batch_size", "sizes"), [(0, [1, 1, 1, 1, 1]), (3, [3, 2]), (8, [5])])
def test_a_batch_goes_to_the_detector_in_calls_of_the_set_size(
    settings: Settings, batch_size: int, sizes: list[int]
) -> None:
    stage = YoloOnnxDetector(
        settings.model_copy(update={"detector": DetectorSettings(landscape_model="", batch_size=batch_size)})
    )
    session = CallSizes(stage.load())
    stage.load = lambda spec=None: session  # type: ignore[method-assign]
    images = [np.full((64, 128, 3), 255, np.uint8)] * 5
    parses = stage.run(images, [ScreenParse(128, 64) for _ in images])
    assert session.sizes == sizes  # 0 on CPU: one screenshot a call
    expected = ((12, 6, 52, 26), (88, 40, 104, 56))
    assert {tuple(sorted(e.bbox for e in p.elements)) for p in parses} == {expected}
