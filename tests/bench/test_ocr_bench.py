import numpy as np
import pytest

from bench.ocr import miniwob_truth, score
from bench.profile import count_model_calls
from detact_service.core import Element, ElementType


def text(box: tuple[float, float, float, float], value: str) -> Element:
    return Element.from_xyxy(box, type=ElementType.TEXT, text=value)


def test_score_counts_exact_texts_characters_and_words() -> None:
    truth = [((10, 10, 110, 30), "Sign in now"), ((10, 50, 60, 70), "Help"), ((10, 90, 60, 110), "Exit")]
    read = [
        text((10, 10, 50, 30), "Sign"),  # a line read in two pieces is joined left to right
        text((55, 10, 110, 30), "in now"),
        text((10, 50, 60, 70), "Hclp"),
    ]
    counts = score(read, truth)
    assert (counts.texts, counts.exact) == (3, 1)
    assert counts.cer == pytest.approx((0 + 1 + 4) / (11 + 4 + 4))
    assert counts.word_recall == pytest.approx(3 / 5)
    assert ("Exit", "") in counts.misses


def test_miniwob_truth_keeps_only_stand_alone_one_line_texts() -> None:
    labels = [
        text((0, 0, 150, 12), "Search for comedy movies"),  # holds a highlighted word: left out
        text((60, 0, 90, 12), "comedy"),  # inside a text: left out
        text((0, 40, 50, 52), "Duration:"),  # same row, closer than the split gap: left out
        text((53, 40, 90, 52), "3h 20m"),
        text((0, 80, 60, 92), "Submit"),
        text((0, 100, 60, 160), "A paragraph over lines"),  # more than one line high
        text((0, 170, 20, 182), "..."),  # no letter or digit
    ]
    assert miniwob_truth(labels, scale=1.0) == [((0, 80, 60, 92), "Submit")]


def test_miniwob_truth_leaves_out_wrapped_texts_and_texts_the_viewport_cuts() -> None:
    labels = [
        text((10, 10, 120, 28), "Welcome! Type help for a list of available commands."),  # two lines of 9 px
        text((10, 40, 70, 52), "Submit"),
        text((10, 190, 120, 210), "Cut at the bottom"),  # touches the 160x210 screen's edge
    ]
    assert miniwob_truth(labels, scale=1.0, size=(160, 210)) == [((10, 40, 70, 52), "Submit")]
    assert len(miniwob_truth(labels, scale=1.0)) == 2  # without a size, nothing is cut


def test_model_calls_are_counted_per_model_file(tmp_path: object) -> None:
    onnx = pytest.importorskip("onnx")
    import onnxruntime as ort
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
    )
    path = f"{tmp_path}/relu.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    with count_model_calls() as calls:
        for _ in range(3):
            session.run(None, {"x": np.ones(1, dtype=np.float32)})
    session.run(None, {"x": np.ones(1, dtype=np.float32)})  # outside: not counted
    assert calls.calls == {"relu.onnx": 3}
