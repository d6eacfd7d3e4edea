"""``training.quantize ocr-det``: subnormal float32 weights go to zero, in initializers and Constant nodes,
and nothing else in the model changes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from training.quantize import subnormal_weights, without_subnormal_weights

TINY = np.finfo(np.float32).tiny


def toy_model() -> onnx.ModelProto:
    """y = x @ W + c, with two subnormal numbers in W (an initializer) and one in c (a Constant node)."""
    weights = np.array([[1.0, TINY / 4], [-TINY / 8, 0.5]], dtype=np.float32)
    bias = np.array([TINY / 2, 2.0], dtype=np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(bias, "c")),
            helper.make_node("MatMul", ["x", "W"], ["xw"]),
            helper.make_node("Add", ["xw", "c"], ["y"]),
        ],
        "toy",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])],
        [numpy_helper.from_array(weights, "W")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_subnormal_weights_are_set_to_zero_and_the_rest_kept(tmp_path: Path) -> None:
    source, out = tmp_path / "toy.onnx", tmp_path / "flushed.onnx"
    onnx.save(toy_model(), str(source))
    assert subnormal_weights(onnx.load(str(source))) == 3
    assert without_subnormal_weights(source, out) == 3
    flushed = onnx.load(str(out))
    assert subnormal_weights(flushed) == 0
    (weights,) = [numpy_helper.to_array(t) for t in flushed.graph.initializer]
    assert weights.tolist() == [[1.0, 0.0], [0.0, 0.5]]
    constants = [n.attribute[0].t for n in flushed.graph.node if n.op_type == "Constant"]
    (constant,) = [numpy_helper.to_array(t) for t in constants]
    assert constant.tolist() == [0.0, 2.0]
    x = np.array([[3.0, 4.0]], dtype=np.float32)
    (y,) = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"]).run(None, {"x": x})
    assert y.tolist() == [[3.0, 4.0]]  # 3 * 1 + 0, 4 * 0.5 + 2
    assert without_subnormal_weights(out, tmp_path / "again.onnx") == 0
    assert (tmp_path / "again.onnx").read_bytes() == out.read_bytes()
