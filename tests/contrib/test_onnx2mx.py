"""MXNet's module paths of the ONNX converters: mx.onnx.mx2onnx and
mx.contrib.onnx.onnx2mx (import_model, import_to_gluon, import_onnx.GraphProto/convert_map),
on mxlite's exporter and importer."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import mxlite as mx

onnx = pytest.importorskip("onnx")


def _exported(tmp_path: Path) -> str:
    sym = mx.sym.softmax(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc"))
    params = {"fc_weight": mx.nd.ones((3, 4)) * 0.1, "fc_bias": mx.nd.array([0.0, 1.0, 2.0])}
    return mx.onnx.mx2onnx.export_model(sym, params, [(2, 4)], np.float32,
                                        str(tmp_path / "m.onnx"))  # fmt: skip


def test_mx2onnx_is_the_export_half_of_mx_onnx() -> None:
    assert mx.onnx.mx2onnx.export_model is mx.onnx.export_model
    assert mx.onnx.mx2onnx.get_operator_support is mx.onnx.get_operator_support
    assert "FullyConnected" in mx.onnx.mx2onnx.get_operator_support(13)


def test_graph_proto_imports_a_graph_as_import_model(tmp_path: Path) -> None:
    from mxlite.contrib.onnx.onnx2mx.import_onnx import GraphProto, convert_map

    path = _exported(tmp_path)
    model = onnx.load(path)
    proto = GraphProto()
    sym, arg, aux = proto.from_onnx(model.graph, model.opset_import[0].version)
    want_sym, want_arg, _ = mx.contrib.onnx.onnx2mx.import_model.import_model(path)
    assert sym.list_arguments() == want_sym.list_arguments() and aux == {}
    x = mx.nd.ones((2, 4))
    got = sym.eval(**{"data": x, **arg})[0].asnumpy()
    np.testing.assert_allclose(got, want_sym.eval(**{"data": x, **want_arg})[0].asnumpy())
    assert proto.model_metadata["input_tensor_data"][0][:2] == ("data", (2, 4))
    assert {"Gemm", "Softmax", "Conv"} <= set(convert_map)


def test_import_to_gluon_without_and_with_the_advice(tmp_path: Path) -> None:
    path = _exported(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the onnx2mx path gives no deprecation advice
        net = mx.contrib.onnx.onnx2mx.import_to_gluon.import_to_gluon(path, mx.cpu())
    y = net(mx.nd.ones((2, 4))).asnumpy()
    np.testing.assert_allclose(y.sum(axis=1), [1.0, 1.0], rtol=1e-6)
    with pytest.warns(DeprecationWarning, match="deprecated"):
        mx.contrib.onnx.import_to_gluon(path, mx.cpu())
    assert (
        mx.contrib.onnx.import_to_gluon_ is mx.contrib.onnx.onnx2mx.import_to_gluon.import_to_gluon
    )
