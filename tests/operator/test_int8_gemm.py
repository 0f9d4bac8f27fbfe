"""The integer products of the INT8 layers (``operator/nn/_int8_gemm.py``, on onnxruntime's
MatMulInteger): exact int32 sums against float64 products, at the geometries of real networks
and at edges, and the quantized layers equal whichever path computes their products."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.operator.nn import _conv_util as cu
from mxlite.operator.nn import _int8_gemm as ig

pytest.importorskip("onnxruntime", reason="the integer products need onnxruntime ([onnx])")


def _direct(x: np.ndarray, w: np.ndarray, geom: cu.Geometry, spatial: tuple) -> np.ndarray:
    return cu.conv_forward(np, x.astype(np.float64), w.astype(np.float64), geom, spatial)


@pytest.mark.parametrize("dtype", ["uint8", "int8"])
@pytest.mark.parametrize(
    "shape,filters,kernel,stride,pad,dilate",
    [
        ((2, 16, 9, 9), 8, (3, 3), (1, 1), (1, 1), (1, 1)),  # ResNet's 3x3
        ((2, 8, 10, 7), 6, (3, 3), (2, 2), (1, 1), (1, 1)),  # strided, odd sizes
        ((1, 3, 15, 15), 4, (7, 7), (2, 2), (3, 3), (1, 1)),  # the stem
        ((2, 16, 6, 6), 32, (1, 1), (1, 1), (0, 0), (1, 1)),  # bottleneck 1x1
        ((2, 16, 6, 6), 8, (1, 1), (2, 2), (0, 0), (1, 1)),  # downsampling 1x1
        ((1, 1, 5, 5), 1, (3, 3), (1, 1), (2, 2), (1, 1)),  # one channel, padding 2
        ((1, 4, 9, 9), 3, (3, 3), (1, 1), (2, 2), (2, 2)),  # dilated
        ((1, 4, 5, 6), 3, (2, 3), (1, 2), (0, 1), (1, 1)),  # unequal kernel, stride, pad
    ],
)
def test_conv_sums_are_exact(shape, filters, kernel, stride, pad, dilate, dtype) -> None:
    rng = np.random.default_rng(sum(shape) + filters)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)
    w = rng.integers(-128, 127, (filters, shape[1], *kernel), endpoint=True).astype(np.int8)
    geom = cu.Geometry(kernel, stride, dilate, pad, 1, False)
    spatial = tuple(
        (s + 2 * p - d * (k - 1) - 1) // t + 1
        for s, p, d, k, t in zip(shape[2:], pad, dilate, kernel, stride)
    )
    got = ig.Int8Conv(w, geom)(x, spatial)
    assert got.dtype == np.int32
    want = _direct(x, w, geom, spatial).reshape(shape[0], filters, -1).transpose(0, 2, 1)
    np.testing.assert_array_equal(got, want)


def test_matmul_sums_are_exact_at_the_extremes() -> None:
    """-128 x -128 over 4,608 terms (a 3x3 convolution of 512 channels): past float32's
    exact integers, exact here."""
    w = np.full((4608, 3), -128, np.int8)
    a = np.full((2, 4608), -128, np.int8)
    got = ig.Int8Matmul(w)(*ig.as_uint8(a))
    np.testing.assert_array_equal(got, np.full((2, 3), 128 * 128 * 4608, np.int64))


def test_setting_float_turns_the_integer_products_off(monkeypatch) -> None:
    monkeypatch.setenv("MXLITE_INT8_GEMM", "auto")
    assert ig.available()
    monkeypatch.setenv("MXLITE_INT8_GEMM", "float")
    assert not ig.available()
    monkeypatch.setenv("MXLITE_INT8_GEMM", "fast")
    with pytest.raises(ValueError, match="MXLITE_INT8_GEMM='fast'.*auto, onnxruntime, float"):
        ig.available()


def test_forcing_onnxruntime_without_it_names_the_extra(monkeypatch) -> None:
    monkeypatch.setenv("MXLITE_INT8_GEMM", "onnxruntime")
    monkeypatch.setattr(ig.ort, "modules", lambda: None)
    with pytest.raises(ImportError, match=r"MXLITE_INT8_GEMM=onnxruntime .*mxlite\[onnx\]"):
        ig.available()
    monkeypatch.setenv("MXLITE_INT8_GEMM", "auto")
    assert not ig.available()


def _quantized_layer(data: np.ndarray, weight: np.ndarray, op: str, **params) -> list:
    args = [mx.nd.array(data, dtype=data.dtype), mx.nd.array(weight, dtype=np.int8)]
    bias = mx.nd.array(np.arange(weight.shape[0]) - 2, dtype=np.int8)
    ranges = [mx.nd.array([v]) for v in (-1.0, 1.0, -0.5, 0.5, -0.25, 0.25)]
    if data.dtype == np.uint8:
        ranges[0] = mx.nd.array([0.0])
    outs = getattr(mx.nd.contrib, op)(*args, bias, *ranges, **params)
    return [o.asnumpy() for o in outs]


@pytest.mark.parametrize("dtype", ["uint8", "int8"])
def test_quantized_layers_equal_on_either_path(monkeypatch, dtype) -> None:
    rng = np.random.default_rng(7)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, (2, 5, 6, 6), endpoint=True).astype(dtype)
    w = rng.integers(-127, 127, (4, 5, 3, 3), endpoint=True).astype(np.int8)
    conv = dict(op="quantized_conv", kernel=(3, 3), pad=(1, 1), num_filter=4)
    fc = dict(op="quantized_fully_connected", num_hidden=4)
    wfc = rng.integers(-127, 127, (4, 180), endpoint=True).astype(np.int8)
    got = [_quantized_layer(x, w, **conv), _quantized_layer(x, wfc, **fc)]
    monkeypatch.setenv("MXLITE_INT8_GEMM", "float")
    want = [_quantized_layer(x, w, **conv), _quantized_layer(x, wfc, **fc)]
    for g, v in zip(got, want):
        for a, b in zip(g, v):
            np.testing.assert_array_equal(a, b)


def _bound_fc(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    data = mx.sym.var("qdata", shape=x.shape, dtype="int8")
    sym = mx.sym.contrib.quantized_fully_connected(data, num_hidden=len(w), no_bias=True)
    names = sym.list_arguments()
    exe = sym.simple_bind(mx.cpu(), grad_req="null", type_dict={names[1]: "int8"})
    exe.arg_dict[names[0]][:] = mx.nd.array(x, dtype=np.int8)
    exe.arg_dict[names[1]][:] = mx.nd.array(w, dtype=np.int8)
    for name, v in zip(names[2:], (-1.0, 1.0, -0.5, 0.5)):
        exe.arg_dict[name][:] = v
    return exe.forward()[0].asnumpy()


def test_a_new_weight_is_never_taken_for_a_cached_one(monkeypatch) -> None:
    """Executors bound one after another, each dropped before the next (whose weights' engine
    vars may then stand where the last ones stood), each use their own weight."""
    monkeypatch.setenv("MXLITE_INT8_GEMM", "auto")
    rng = np.random.default_rng(11)
    for features in (444, 8192, 444, 8192):
        x = rng.integers(-128, 127, (3, features), endpoint=True).astype(np.int8)
        w = rng.integers(-127, 127, (5, features), endpoint=True).astype(np.int8)
        np.testing.assert_array_equal(_bound_fc(x, w), x.astype(np.int64) @ w.T.astype(np.int64))
