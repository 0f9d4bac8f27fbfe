"""MXNet 1.9.1's image-classification networks through ONNX (golden files from
tools/golden/cases/onnx.py): ONNX Runtime matches real MXNet's outputs at the exported batch and,
exported with a dynamic batch, at another; the graph passes the full checker and shape
inference; import gives the same outputs in mxlite."""

from __future__ import annotations

import os

import numpy as np
import pytest

import mxlite as mx
from tests.golden_file import load

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")
_G = load("onnx/golden/onnx.npz")
SHAPES = _G.cases
WITH_OUTPUTS = sorted(n for n in SHAPES if f"{n}/x2" in _G)
# small enough to run in mxlite with random weights within the test budget
SYMBOL_ONLY_RUN = ["mobilenet", "inception-bn", "gluon-resnet18_v1", "gluon-mobilenetv2_0.25"]


def run_ort(path: str, x: np.ndarray) -> np.ndarray:
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    return sess.run(None, {sess.get_inputs()[0].name: x})[0]


def checked(path: str) -> onnx.ModelProto:
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    for out in inferred.graph.output:
        assert out.type.tensor_type.HasField("shape"), out.name
    inputs = {i.name for i in model.graph.input}
    assert not inputs & {t.name for t in model.graph.initializer}
    return model


@pytest.mark.parametrize("name", WITH_OUTPUTS)
def test_network_matches_mxnet(name: str, tmp_path) -> None:
    prefix = os.path.join(GOLDEN, name)
    gold = _G.arrays(name)
    path = str(tmp_path / f"{name}.onnx")
    x2 = gold["x2"]
    mx.onnx.export_model(
        prefix + "-symbol.json", prefix + "-0000.params", [x2.shape], np.float32, path,
        dynamic=True, dynamic_input_shapes=[(None, *x2.shape[1:])],
    )  # fmt: skip
    model = checked(path)
    assert [i.name for i in model.graph.input] == ["data"]
    np.testing.assert_allclose(run_ort(path, x2), gold["y2"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(run_ort(path, gold["x3"]), gold["y3"], rtol=1e-4, atol=1e-5)

    sym, arg_params, aux_params = mx.onnx.import_model(path)
    exe = sym.bind(mx.cpu(), {**arg_params, "data": mx.nd.array(x2)}, aux_states=aux_params)
    y = exe.forward(is_train=False)[0].asnumpy()
    np.testing.assert_allclose(y, gold["y2"], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["lenet", "resnet"])
def test_network_static_batch(name: str, tmp_path) -> None:
    prefix = os.path.join(GOLDEN, name)
    gold = _G.arrays(name)
    sym = mx.sym.load(prefix + "-symbol.json")
    params = mx.nd.load(prefix + "-0000.params")
    arg = {k[4:]: v for k, v in params.items() if k.startswith("arg:")}
    aux = {k[4:]: v for k, v in params.items() if k.startswith("aux:")}
    path = mx.onnx.export_model(sym, [arg, aux], [gold["x3"].shape], np.float32,
                                str(tmp_path / "m.onnx"), opset_version=13)  # fmt: skip
    model = checked(path)
    assert model.opset_import[0].version == 13
    dims = model.graph.input[0].type.tensor_type.shape.dim
    assert [d.dim_value for d in dims] == list(gold["x3"].shape)
    np.testing.assert_allclose(run_ort(path, gold["x3"]), gold["y3"], rtol=1e-4, atol=1e-5)


def random_checkpoint(name: str, seed: int = 0) -> tuple:
    sym = mx.sym.load(os.path.join(GOLDEN, f"{name}-symbol.json"))
    data = tuple(SHAPES[name]["data"])
    arg_shapes, _, aux_shapes = sym.infer_shape(data=(1, *data))
    rng = np.random.default_rng(seed)
    params = {}
    for n, s in zip(sym.list_arguments() + sym.list_auxiliary_states(), arg_shapes + aux_shapes):
        if n in ("data", "softmax_label"):
            continue
        scale = np.sqrt(2.0 / max(int(np.prod(s[1:])), 1))
        if n.endswith(("var", "gamma")):
            params[n] = rng.uniform(0.5, 1.5, s).astype(np.float32)
        else:
            params[n] = rng.standard_normal(s, dtype=np.float32) * np.float32(scale)
    return sym, params, data


@pytest.mark.parametrize("name", SYMBOL_ONLY_RUN)
def test_symbol_only_network_matches_mxlite(name: str, tmp_path) -> None:
    from mxlite.onnx._check import mxlite_outputs

    sym, params, data = random_checkpoint(name)
    path = mx.onnx.export_model(sym, params, [(2, *data)], np.float32, str(tmp_path / "m.onnx"),
                                dynamic=True)  # fmt: skip
    checked(path)
    x = np.random.default_rng(1).standard_normal((3, *data)).astype(np.float32)
    ref = mxlite_outputs(sym, params, {"data": x})[0]
    # float32 rounding is bounded by the output's scale, not by each (possibly cancelled) value:
    # mxlite's Winograd convolutions and ONNX Runtime's direct ones differ by ~1e-6 of it
    scale = float(np.abs(ref).max())
    np.testing.assert_allclose(run_ort(path, x), ref, rtol=1e-4, atol=1e-5 * max(scale, 1.0))


@pytest.mark.parametrize("name", ["googlenet", "inception-v3", "gluon-resnet18_v2"])
def test_large_network_exports_clean_graph(name: str, tmp_path) -> None:
    sym = mx.sym.load(os.path.join(GOLDEN, f"{name}-symbol.json"))
    data = tuple(SHAPES[name]["data"])
    arg_shapes, _, aux_shapes = sym.infer_shape(data=(1, *data))
    names = sym.list_arguments() + sym.list_auxiliary_states()
    params = {  # zero weights, unit variances: every class gets the same score
        n: np.full(s, 1.0 if n.endswith(("var", "gamma")) else 0.0, np.float32)
        for n, s in zip(names, arg_shapes + aux_shapes)
        if n not in ("data", "softmax_label")
    }
    path = mx.onnx.export_model(sym, params, [(1, *data)], np.float32, str(tmp_path / "m.onnx"),
                                dynamic=True)  # fmt: skip
    model = checked(path)
    used = {i for node in model.graph.node for i in node.input}
    assert all(t.name in used for t in model.graph.initializer)
    y = run_ort(path, np.ones((2, *data), np.float32))
    assert y.shape == (2, 10)
    np.testing.assert_allclose(y, y[:, :1] * np.ones((1, 10)), rtol=1e-5)
