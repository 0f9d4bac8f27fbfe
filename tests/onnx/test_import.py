"""The importer on ONNX models written by other tools (built here with onnx.helper, as
PyTorch's and TensorFlow's exporters write them), opsets 13 to current."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx

from .cases import import_and_compare

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

RNG = np.random.default_rng(3)


def const(name: str, value) -> TensorProto:
    return numpy_helper.from_array(np.asarray(value), name)


def model(nodes, inputs, outputs, inits=(), opset=13) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs],
        list(inits),
    )  # fmt: skip
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def f32(*shape) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def check(m: onnx.ModelProto, feeds: dict, tmp_path, **tol) -> None:
    path = str(tmp_path / "m.onnx")
    onnx.save(m, path)
    import_and_compare(path, feeds, **tol)


def test_cnn_like_pytorch(tmp_path) -> None:
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         strides=[2, 2]),
        helper.make_node("BatchNormalization", ["c", "g", "beta", "m", "v"], ["bn"],
                         epsilon=1e-5),
        helper.make_node("Relu", ["bn"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2],
                         ceil_mode=1),
        helper.make_node("GlobalAveragePool", ["p"], ["gap"]),
        helper.make_node("Flatten", ["gap"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "fw", "fb"], ["y"], transB=1),
        helper.make_node("Softmax", ["y"], ["prob"], axis=-1),
    ]  # fmt: skip
    inits = [const("w", f32(4, 3, 3, 3)), const("b", f32(4)), const("g", f32(4)),
             const("beta", f32(4)), const("m", f32(4)), const("v", np.abs(f32(4)) + 0.5),
             const("fw", f32(5, 4)), const("fb", f32(5))]  # fmt: skip
    m = model(nodes, [("x", ["N", 3, 9, 9])], ["prob"], inits)
    check(m, {"x": f32(2, 3, 9, 9)}, tmp_path)
    sym, arg, aux = mx.onnx.import_model(str(tmp_path / "m.onnx"))
    assert set(aux) == {"m", "v"} and "w" in arg and "x" not in arg


def test_gemm_without_transpose_and_matmul(tmp_path) -> None:
    nodes = [
        helper.make_node("Gemm", ["x", "w", "b"], ["g"], alpha=0.5, beta=2.0),
        helper.make_node("MatMul", ["g", "w2"], ["mm"]),
        helper.make_node("MatMul", ["x3", "y3"], ["bm"]),
        helper.make_node("Add", ["mm", "one"], ["out"]),
    ]
    inits = [const("w", f32(4, 3)), const("b", f32(3)), const("w2", f32(3, 2)),
             const("one", np.float32(1.0))]  # fmt: skip
    m = model(nodes, [("x", [2, 4]), ("x3", [2, 3, 4]), ("y3", [2, 4, 5])], ["out", "bm"], inits)
    check(m, {"x": f32(2, 4), "x3": f32(2, 3, 4), "y3": f32(2, 4, 5)}, tmp_path)


@pytest.mark.parametrize("opset", [13, 18, 21])
def test_shape_ops_and_reductions(opset: int, tmp_path) -> None:
    axes_in = opset >= 18
    red = (
        helper.make_node("ReduceMean", ["t", "ax"], ["rm"], keepdims=1)
        if axes_in
        else helper.make_node("ReduceMean", ["t"], ["rm"], axes=[1], keepdims=1)
    )
    split = (
        helper.make_node("Split", ["x"], ["s0", "s1"], axis=1, num_outputs=2)
        if opset >= 18
        else helper.make_node("Split", ["x", "sp"], ["s0", "s1"], axis=1)
    )
    nodes = [
        helper.make_node("Reshape", ["x", "shape"], ["r"]),
        helper.make_node("Transpose", ["r"], ["t"], perm=[0, 2, 1]),
        red,
        helper.make_node("Unsqueeze", ["rm", "ax0"], ["u"]),
        helper.make_node("Squeeze", ["u", "ax0"], ["sq"]),
        split,
        helper.make_node("Concat", ["s1", "s0"], ["cat"], axis=1),
        helper.make_node("Slice", ["cat", "st", "en", "sax", "stp"], ["sl"]),
        helper.make_node("ReduceSum", ["sl", "ax"], ["rs"], keepdims=0),
        helper.make_node("Pad", ["x", "pads", "pv"], ["pad"], mode="constant"),
        helper.make_node("Clip", ["pad", "lo", "hi"], ["clip"]),
    ]
    inits = [const("shape", np.array([0, 3, -1], np.int64)), const("ax", np.array([1])),
             const("ax0", np.array([0])), const("sp", np.array([2, 2])),
             const("st", np.array([3, 0])), const("en", np.array([-100, 2**62])),
             const("sax", np.array([1, 2])), const("stp", np.array([-1, 1])),
             const("pads", np.array([0, 0, 1, 0, 0, 0, 2, 1])), const("pv", np.float32(0.5)),
             const("lo", np.float32(-0.3)), const("hi", np.float32(0.4))]  # fmt: skip
    m = model(nodes, [("x", [2, 4, 3, 2])], ["sq", "rs", "clip"], inits, opset)
    check(m, {"x": f32(2, 4, 3, 2)}, tmp_path)


def test_elementwise_and_logic(tmp_path) -> None:
    nodes = [
        helper.make_node("Sub", ["two", "x"], ["a"]),
        helper.make_node("Div", ["a", "y"], ["b"]),
        helper.make_node("Pow", ["b", "two"], ["c"]),
        helper.make_node("Greater", ["x", "y"], ["gt"]),
        helper.make_node("Where", ["gt", "c", "half"], ["w"]),
        helper.make_node("Max", ["w", "x", "y"], ["mx"]),
        helper.make_node("Sum", ["mx", "x"], ["sm"]),
        helper.make_node("Exp", ["sm"], ["e"]),
        helper.make_node("LeakyRelu", ["x"], ["lr"], alpha=0.1),
        helper.make_node("PRelu", ["xc", "slope"], ["pr"]),
        helper.make_node("HardSigmoid", ["x"], ["hs"]),
        helper.make_node("Round", ["halves"], ["rd"]),
    ]
    inits = [
        const("two", np.float32(2.0)),
        const("half", np.full((1, 3), 0.5, np.float32)),
        const("slope", f32(3, 1, 1)),
        const("halves", np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.4, -3.7], np.float32)),
    ]
    m = model(nodes, [("x", [2, 3]), ("y", [2, 3]), ("xc", [2, 3, 2, 2])],
              ["e", "lr", "pr", "hs", "rd"], inits)  # fmt: skip
    y = np.abs(f32(2, 3)) + 0.5
    check(m, {"x": f32(2, 3), "y": y, "xc": f32(2, 3, 2, 2)}, tmp_path, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("op", ["LSTM", "GRU", "RNN"])
def test_recurrent(op: str, tmp_path) -> None:
    T, N, C, H = 3, 2, 4, 5
    g = {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
    attrs = {"hidden_size": H, "direction": "bidirectional"}
    if op == "GRU":
        attrs["linear_before_reset"] = 1
    ins = ["x", "W", "R", "B", "", "h0"] + (["c0"] if op == "LSTM" else [])
    nodes = [helper.make_node(op, ins, ["y", "yh"], **attrs)]
    inits = [const("W", f32(2, g * H, C) * 0.5), const("R", f32(2, g * H, H) * 0.5),
             const("B", f32(2, 2 * g * H) * 0.5)]  # fmt: skip
    inputs = [("x", [T, N, C]), ("h0", [2, N, H])] + ([("c0", [2, N, H])] if op == "LSTM" else [])
    m = model(nodes, inputs, ["y", "yh"], inits)
    feeds = {"x": f32(T, N, C), "h0": f32(2, N, H), "c0": f32(2, N, H)}
    check(m, feeds, tmp_path, rtol=1e-4, atol=1e-5)


def test_resize_depth_to_space_and_constants(tmp_path) -> None:
    nodes = [
        helper.make_node("Constant", [], ["scales"],
                         value=const("s", np.array([1, 1, 2, 2], np.float32))),
        helper.make_node("Resize", ["x", "", "scales"], ["up"], mode="nearest"),
        helper.make_node("DepthToSpace", ["up"], ["d2s"], blocksize=2, mode="DCR"),
        helper.make_node("SpaceToDepth", ["d2s"], ["s2d"], blocksize=2),
        helper.make_node("AveragePool", ["s2d"], ["ap"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         count_include_pad=1),
        helper.make_node("LRN", ["ap"], ["lrn"], size=3, alpha=1e-3, beta=0.75, bias=2.0),
    ]  # fmt: skip
    m = model(nodes, [("x", [1, 4, 3, 3])], ["lrn"], [])
    check(m, {"x": f32(1, 4, 3, 3)}, tmp_path)


def test_unsupported_node_names_node_and_operator(tmp_path) -> None:
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3],
                              pads=[0, 0, 1, 1], name="odd_pad")]  # fmt: skip
    m = model(nodes, [("x", [1, 1, 5, 5])], ["c"], [const("w", f32(1, 1, 3, 3))])
    path = str(tmp_path / "m.onnx")
    onnx.save(m, path)
    with pytest.raises(mx.MXNetError, match="odd_pad.*Conv.*asymmetric"):
        mx.onnx.import_model(path)
    nodes = [helper.make_node("Det", ["x"], ["d"], name="det0")]
    onnx.save(model(nodes, [("x", [2, 2])], ["d"], []), path)
    with pytest.raises(mx.MXNetError, match="det0.*Det"):
        mx.onnx.import_model(path)


def test_old_opset_is_refused(tmp_path) -> None:
    m = model([helper.make_node("Relu", ["x"], ["y"])], [("x", [2])], ["y"], [], opset=11)
    path = str(tmp_path / "m.onnx")
    onnx.save(m, path)
    with pytest.raises(mx.MXNetError, match="opset 11"):
        mx.onnx.import_model(path)


def test_get_model_metadata(tmp_path) -> None:
    m = model([helper.make_node("Relu", ["x"], ["y"])], [("x", ["N", 3])], ["y"], [])
    path = str(tmp_path / "m.onnx")
    onnx.save(m, path)
    with pytest.warns(DeprecationWarning):
        meta = mx.contrib.onnx.get_model_metadata(path)
    assert meta == {"input_tensor_data": [("x", (0, 3), TensorProto.FLOAT)],
                    "output_tensor_data": [("y", ())]}  # fmt: skip


def test_shape_arithmetic_like_pytorch_is_folded(tmp_path) -> None:
    # x.view(x.size(0), -1) as torch.onnx writes it, for a static input shape
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "ax0"], ["n1"]),
        helper.make_node("Concat", ["n1", "minus1"], ["shape"], axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["flat"]),
        helper.make_node("Relu", ["flat"], ["y"]),
    ]
    inits = [const("zero", np.array(0)), const("ax0", np.array([0])),
             const("minus1", np.array([-1]))]  # fmt: skip
    m = model(nodes, [("x", [2, 3, 4])], ["y"], inits)
    check(m, {"x": f32(2, 3, 4)}, tmp_path)
