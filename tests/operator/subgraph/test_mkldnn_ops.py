"""``_sg_mkldnn_conv`` and ``_sg_mkldnn_fully_connected``: float fused nodes against the graphs
they replace, int8 nodes against an integer reference of MKLDNN's arithmetic (scales of
127.5 / 255.5 over max|range|, per-channel weight scales, int32 accumulation, requantization
rounded to nearest)."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.symbol.graph import Node, topo_order


def _run(sym: mx.sym.Symbol, feed: dict) -> list[np.ndarray]:
    args = {k: mx.nd.array(v, dtype=v.dtype) for k, v in feed.items()
            if k in sym.list_arguments()}  # fmt: skip
    aux = {k: mx.nd.array(v, dtype=v.dtype) for k, v in feed.items()
           if k in sym.list_auxiliary_states()}  # fmt: skip
    exe = sym.bind(mx.cpu(), args, aux_states=aux, grad_req="null")
    return [o.asnumpy() for o in exe.forward(is_train=False)]


def _feed(sym: mx.sym.Symbol, rng: np.random.RandomState, data: tuple) -> dict:
    shapes, _, aux_shapes = sym.infer_shape(data=data)
    feed = {n: (rng.randn(*s) * 0.4).astype(np.float32)
            for n, s in zip(sym.list_arguments(), shapes)}  # fmt: skip
    for n, s in zip(sym.list_auxiliary_states(), aux_shapes):
        feed[n] = (rng.rand(*s) + (0.5 if "var" in n else 0)).astype(np.float32)
    return feed


def _fused_ops(sym: mx.sym.Symbol) -> list[Node]:
    return [n for n in topo_order(sym._entries) if n.op and n.op.startswith("_sg_mkldnn")]


ACTS = {
    "relu": lambda y: mx.sym.Activation(y, act_type="relu"),
    "sigmoid": lambda y: mx.sym.Activation(y, act_type="sigmoid"),
    "leaky": lambda y: mx.sym.LeakyReLU(y, act_type="leaky", slope=0.2),
    "relu6": lambda y: mx.sym.clip(y, a_min=0, a_max=6),
    "none": lambda y: y,
}


@pytest.mark.parametrize("act", sorted(ACTS))
@pytest.mark.parametrize("bn", [False, True])
@pytest.mark.parametrize("total", [False, True])
def test_fused_float_conv_matches_its_graph(act: str, bn: bool, total: bool) -> None:
    rng = np.random.RandomState(7)
    x = mx.sym.var("data")
    skip = mx.sym.Convolution(x, kernel=(1, 1), num_filter=6, name="skip")
    y = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=6, no_bias=bn, name="c")
    if bn:
        y = mx.sym.BatchNorm(y, fix_gamma=False, name="bn")
    y = ACTS[act](y) if not total else mx.sym.elemwise_add(y, mx.sym.Pooling(
        skip, kernel=(1, 1), pool_type="max"), name="sum")  # fmt: skip
    if total:
        y = ACTS[act](y)
    fused = y.get_backend_symbol("MKLDNN")
    node = [n for n in _fused_ops(fused) if n.name.startswith("sg_mkldnn_conv_")][-1]
    assert (node.attrs.get("with_bn") == "true") == bn
    assert (node.attrs.get("with_sum") == "true") == total
    feed = _feed(y, rng, (2, 3, 7, 7))
    np.testing.assert_allclose(_run(fused, feed)[0], _run(y, feed)[0], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op", ["relu", "sigmoid", "square", "sqrt", "exp", "abs", "none"])
def test_fused_float_fc_matches_its_graph(op: str) -> None:
    rng = np.random.RandomState(3)
    y = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=5, name="fc")
    if op in ("relu", "sigmoid"):
        y = mx.sym.Activation(y, act_type=op)
    elif op == "sqrt":
        y = mx.sym.sqrt(mx.sym.abs(y))  # abs fuses; sqrt then stays outside
    elif op != "none":
        y = getattr(mx.sym, op)(y)
    fused = y.get_backend_symbol("MKLDNN")
    assert _fused_ops(fused)[0].op == "_sg_mkldnn_fully_connected"
    feed = _feed(y, rng, (4, 2, 3))
    np.testing.assert_allclose(_run(fused, feed)[0], _run(y, feed)[0], rtol=1e-5, atol=1e-6)


def _quantized_conv(relu: bool, calib: tuple | None) -> tuple[mx.sym.Symbol, list[str]]:
    """A quantized fused conv node alone (as MXNet's quantization pass leaves it)."""
    y = mx.sym.Convolution(mx.sym.var("data"), kernel=(3, 3), pad=(1, 1), num_filter=5, name="c")
    if relu:
        y = mx.sym.Activation(y, act_type="relu", name="r")
    node = _fused_ops(y.get_backend_symbol("MKLDNN_QUANTIZE"))[0]
    attrs = {**node.attrs, "quantized": "true"}
    if calib:
        attrs.update(min_calib_range=str(calib[0]), max_calib_range=str(calib[1]))
    probe = Node(node.op, "q", attrs, [], node.subgraphs)
    names = probe.prop().list_arguments()
    fused = Node(node.op, "q", attrs, [(Node(None, k), 0) for k in names], node.subgraphs)
    return mx.sym.Symbol([(fused, 0), (fused, 1), (fused, 2)]), names


def _int_conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Exact integer 3x3 pad-1 convolution (int64)."""
    n, _, h, wd = x.shape
    xp = np.pad(x.astype(np.int64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, len(w), h, wd), np.int64)
    for i in range(3):
        for j in range(3):
            out += np.einsum("nchw,fc->nfhw", xp[:, :, i : i + h, j : j + wd], w[:, :, i, j])
    return out


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("relu", [False, True])
def test_int8_conv_calibrated_matches_integer_reference(dtype: str, relu: bool) -> None:
    rng = np.random.RandomState(11)
    lo_out, hi_out = (0.0, 3.0) if relu else (-2.5, 3.0)
    sym, names = _quantized_conv(relu, (lo_out, hi_out))
    w = (rng.randn(5, 4, 3, 3) * 0.3).astype(np.float32)
    b = (rng.randn(5) * 0.2).astype(np.float32)
    info = np.iinfo(dtype)
    x = rng.randint(info.min, info.max + 1, (2, 4, 6, 6)).astype(dtype)
    d_lo, d_hi = (-1.2, 1.2) if dtype == "int8" else (0.0, 1.5)
    feed = {
        "data": x,
        "weight": w,
        "bias": b,
        "data_min": np.array([d_lo], np.float32),
        "data_max": np.array([d_hi], np.float32),
    }
    out, omin, omax = _run(sym, {k: feed[k] for k in names})
    ds = np.float32((127.5 if dtype == "int8" else 255.5) / max(abs(d_lo), abs(d_hi)))
    ws = np.float32(127.5) / np.abs(w).reshape(5, -1).max(axis=1).astype(np.float32)
    qw = np.clip(np.rint(w * ws[:, None, None, None]), -128, 127).astype(np.int64)
    qb = np.rint(b * ws * ds).astype(np.int64)
    acc = _int_conv(x, qw) + qb[None, :, None, None]
    odt = np.uint8 if relu else np.int8
    os_ = np.float32((255.5 if relu else 127.5) / max(abs(lo_out), abs(hi_out)))
    y = acc * (os_ / ds / ws)[None, :, None, None]
    if relu:
        y = np.maximum(y, 0)
    want = np.clip(np.rint(y), np.iinfo(odt).min, np.iinfo(odt).max)
    assert out.dtype == odt
    diff = np.abs(out.astype(np.int64) - want)
    assert diff.max() <= 1 and (diff == 0).mean() > 0.99
    assert (omin[0], omax[0]) == (np.float32(lo_out), np.float32(hi_out))


def test_int8_conv_uncalibrated_gives_int32_and_mxnets_range() -> None:
    rng = np.random.RandomState(5)
    sym, names = _quantized_conv(False, None)
    w = (rng.randn(5, 4, 3, 3) * 0.3).astype(np.float32)
    x = rng.randint(-128, 128, (1, 4, 5, 5)).astype(np.int8)
    feed = {
        "data": x,
        "weight": w,
        "bias": np.zeros(5, np.float32),
        "data_min": np.array([-1.0], np.float32),
        "data_max": np.array([1.0], np.float32),
    }
    out, omin, omax = _run(sym, {k: feed[k] for k in names})
    assert out.dtype == np.int32
    wmax = np.float32(np.abs(w).max())
    qw = np.clip(np.rint(w * (np.float32(127.5) / wmax)), -128, 127).astype(np.int64)
    np.testing.assert_array_equal(out, _int_conv(x, qw))
    one = np.float32(np.float32(1.0 / 127) * np.float32(wmax / 127))  # s8 x s8: 127 levels
    assert omax[0] == pytest.approx(one * np.float32(2147483647), rel=1e-6)
    assert omin[0] == -omax[0]


def test_legacy_with_relu_attribute_is_read() -> None:
    y = mx.sym.Activation(mx.sym.Convolution(mx.sym.var("data"), kernel=(1, 1), num_filter=2),
                          act_type="relu")  # fmt: skip
    node = _fused_ops(y.get_backend_symbol("MKLDNN"))[0]
    attrs = {k: v for k, v in node.attrs.items() if k != "with_act"}
    old = Node(node.op, node.name, {**attrs, "with_relu": "true"}, node.inputs, node.subgraphs)
    assert old.prop().param.with_act


def test_fused_node_without_its_subgraph_is_refused() -> None:
    node = Node("_sg_mkldnn_conv", "lonely", {}, [])
    with pytest.raises(mx.MXNetError, match="_sg_mkldnn_conv.*subgraph"):
        node.prop().list_arguments()


def test_quantization_facts_are_mxnets() -> None:
    """What the quantization pass reads: the fused nodes quantize to themselves, requantized;
    the conv keeps weight, bias and BatchNorm inputs float; the FC only channel-wise."""
    y = mx.sym.BatchNorm(mx.sym.Convolution(mx.sym.var("data"), kernel=(3, 3), num_filter=2))
    y = mx.sym.elemwise_add(y, mx.sym.var("other"))
    conv = _fused_ops(y.get_backend_symbol("MKLDNN_QUANTIZE"))[0].prop()
    assert conv.quantizable == "must" and conv.need_requantize
    assert conv.quantized_op("tensor-wise") == ("_sg_mkldnn_conv", {"quantized": "true"})
    kept = [i for i in range(len(conv.list_arguments()))
            if conv.avoid_quantize_input(i, "tensor-wise")]  # fmt: skip
    assert [conv.list_arguments()[i] for i in kept] == [
        "weight",
        "bias",
        "gamma",
        "beta",
        "mean",
        "var",
    ]
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3)
    fcp = _fused_ops(fc.get_backend_symbol("MKLDNN_QUANTIZE"))[0].prop()
    assert fcp.quantized_op("tensor-wise") == ("_sg_mkldnn_fully_connected", {"quantized": "True"})
    # channel-wise the node keeps the float weight and says so (MXNet's SgMKLDNNFCQuantizedOp)
    assert fcp.quantized_op("channel-wise") == (
        "_sg_mkldnn_fully_connected",
        {"channel_wise_quantize": "True", "quantized": "True"},
    )
    assert not any(fcp.avoid_quantize_input(i, "tensor-wise") for i in range(3))
    assert [fcp.avoid_quantize_input(i, "channel-wise") for i in range(3)] == [False, True, True]
