"""Tests of GridGenerator, BilinearSampler, SpatialTransformer, Correlation, im2col and col2im
against MXNet 1.9.1 golden values and finite differences."""

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError, ParamError, ShapeError
from mxlite.operator.req import OpReq
from tests.operator.opcheck import backward, forward, golden, numeric_grad, prop_of

_GOLD = golden("nn_spatial")
_META = [{"name": k, **c} for k, c in _GOLD.cases.items()]
_TOL = {"float32": dict(rtol=1e-4, atol=1e-5), "float64": dict(rtol=1e-7, atol=1e-9)}


def _ins(meta):
    return [_GOLD[f"{meta['name']}/in{i}"] for i in range(meta["n_in"])]


def _heads(meta, ins):
    outs = forward(meta["op"], ins, **meta["params"])
    return [_GOLD[f"{meta['name']}/head0"]] + [np.zeros_like(o) for o in outs[1:]]


@pytest.mark.parametrize("meta", _META, ids=[m["name"] for m in _META])
def test_forward_golden(meta):
    got = forward(meta["op"], _ins(meta), **meta["params"])[0]
    want = _GOLD[f"{meta['name']}/out0"]
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, **_TOL[meta["dtype"]])


@pytest.mark.parametrize("meta", _META, ids=[m["name"] for m in _META])
def test_backward_golden(meta):
    ins = _ins(meta)
    got = backward(meta["op"], ins, _heads(meta, ins), **meta["params"])
    for i, g in enumerate(got):
        np.testing.assert_allclose(g, _GOLD[f"{meta['name']}/grad{i}"], **_TOL[meta["dtype"]])


_NUMERIC = [
    ("GridGenerator", [(2, 6)], dict(transform_type="affine", target_shape=(2, 3))),
    ("GridGenerator", [(1, 2, 3, 2)], dict(transform_type="warp")),
    ("BilinearSampler", [(1, 2, 4, 3), (1, 2, 2, 3)], {}),
    (
        "SpatialTransformer",
        [(1, 2, 4, 3), (1, 6)],
        dict(target_shape=(2, 2), transform_type="affine", sampler_type="bilinear"),
    ),
    (
        "Correlation",
        [(1, 2, 5, 6), (1, 2, 5, 6)],
        dict(kernel_size=3, max_displacement=1, pad_size=1, stride2=1),
    ),
    (
        "Correlation",
        [(1, 2, 5, 5), (1, 2, 5, 5)],
        dict(kernel_size=1, max_displacement=2, stride1=2, stride2=2, is_multiply=False),
    ),
    ("im2col", [(2, 2, 7)], dict(kernel=(3,), dilate=(2,), pad=(1,))),
    ("im2col", [(1, 2, 4, 3, 3)], dict(kernel=(2, 2, 2), stride=(2, 1, 1), pad=(0, 1, 0))),
    ("col2im", [(1, 6, 5)], dict(output_size=(7,), kernel=(3,), dilate=(2,), pad=(1,))),
]


@pytest.mark.parametrize("case", _NUMERIC, ids=[f"{c[0]}{i}" for i, c in enumerate(_NUMERIC)])
def test_backward_numeric(case):
    op, shapes, params = case
    rng = np.random.default_rng(3)
    ins = [rng.uniform(-1, 1, s) for s in shapes]
    if op == "SpatialTransformer":
        ins[1] = np.array([[0.9, 0.1, 0.05, -0.1, 0.8, 0.02]]) + rng.uniform(-0.1, 0.1, (1, 6))
    outs = forward(op, ins, **params)
    heads = [rng.standard_normal(outs[0].shape)] + [np.zeros_like(o) for o in outs[1:]]
    got = backward(op, ins, heads, **params)
    want = numeric_grad(op, ins, heads, **params)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("meta", _META[::2], ids=[m["name"] for m in _META[::2]])
def test_req_add(meta):
    ins = _ins(meta)
    heads = _heads(meta, ins)
    base = backward(meta["op"], ins, heads, **meta["params"])
    init = [np.full_like(a, 0.25) for a in ins]
    got = backward(meta["op"], ins, heads, req=OpReq.ADD, grad_init=init, **meta["params"])
    for g, b, i in zip(got, base, init):
        np.testing.assert_allclose(g, b + i, rtol=1e-6, atol=1e-6)


def test_im2col_matches_loop():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 2, 9))
    col = forward("im2col", [x], kernel=(3,), stride=(2,), dilate=(2,), pad=(1,))[0]
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1)))
    want = np.stack([xp[:, :, j * 2 : j * 2 + 5 : 2] for j in range(col.shape[2])], axis=-1)
    np.testing.assert_allclose(col, want.reshape(1, 6, -1))
    back = forward(
        "col2im", [col], output_size=(9,), kernel=(3,), stride=(2,), dilate=(2,), pad=(1,)
    )[0]
    assert back.shape == x.shape


def test_float16_and_float64():
    rng = np.random.default_rng(1)
    d, g = rng.uniform(-1, 1, (1, 2, 4, 4)), rng.uniform(-1, 1, (1, 2, 3, 3))
    ref = forward("BilinearSampler", [d, g])[0]
    got = forward("BilinearSampler", [d.astype(np.float16), g.astype(np.float16)])[0]
    assert got.dtype == np.float16
    np.testing.assert_allclose(got, ref, atol=1e-2)


def test_bad_input():
    with pytest.raises(ParamError, match="GridGenerator.*transform_type"):
        prop_of("GridGenerator", transform_type="projective")
    with pytest.raises(ParamError, match="GridGenerator.*target_shape"):
        prop_of("GridGenerator", transform_type="affine").infer_shape([(2, 6)])
    with pytest.raises(ShapeError, match="GridGenerator.*data"):
        prop_of("GridGenerator", transform_type="affine", target_shape=(2, 2)).infer_shape([(2, 5)])
    with pytest.raises(ShapeError, match="BilinearSampler.*grid"):
        prop_of("BilinearSampler").infer_shape([(1, 2, 3, 3), (1, 3, 3, 3)])
    with pytest.raises(ShapeError, match="BilinearSampler.*inputs"):
        prop_of("BilinearSampler").infer_shape([(1, 2, 3, 3)])
    with pytest.raises(ShapeError, match="SpatialTransformer.*loc"):
        prop_of(
            "SpatialTransformer",
            target_shape=(2, 2),
            transform_type="affine",
            sampler_type="bilinear",
        ).infer_shape([(1, 2, 3, 3), (1, 4)])
    with pytest.raises(ParamError, match="SpatialTransformer.*sampler_type"):
        prop_of("SpatialTransformer", transform_type="affine", sampler_type="nearest")
    with pytest.raises(ParamError, match="Correlation.*kernel_size"):
        prop_of("Correlation", kernel_size=2).infer_shape([(1, 1, 5, 5), (1, 1, 5, 5)])
    with pytest.raises(ParamError, match="Correlation.*kernel_size"):
        prop_of("Correlation", kernel_size=-1)
    with pytest.raises(ShapeError, match="Correlation.*data1"):
        prop_of("Correlation").infer_shape([(1, 1, 5, 5), (1, 2, 5, 5)])
    with pytest.raises(ShapeError, match="Correlation.*too small"):
        prop_of("Correlation", max_displacement=4).infer_shape([(1, 1, 5, 5), (1, 1, 5, 5)])
    with pytest.raises(ParamError, match="im2col.*kernel"):
        prop_of("im2col", kernel=(0, 2)).infer_shape([(1, 1, 5, 5)])
    with pytest.raises(ParamError, match="im2col.*stride"):
        prop_of("im2col", kernel=(2, 2), stride=(1,)).infer_shape([(1, 1, 5, 5)])
    with pytest.raises(ShapeError, match="im2col.*data"):
        prop_of("im2col", kernel=(2, 2)).infer_shape([(1, 5, 5)])
    with pytest.raises(ShapeError, match="col2im.*data"):
        prop_of("col2im", kernel=(2, 2), output_size=(3, 3)).infer_shape([(1, 5, 4)])
    with pytest.raises(MXNetError, match="im2col"):
        mx.nd.im2col(mx.nd.ones((1, 1, 2, 2)), kernel=(3, 3))


@pytest.mark.parametrize("meta", _META, ids=[m["name"] for m in _META])
def test_public_function(meta):
    xs = [mx.nd.array(a, dtype=a.dtype) for a in _ins(meta)]
    for x in xs:
        x.attach_grad()
    with mx.autograd.record():
        y = getattr(mx.nd, meta["op"])(*xs, **meta["params"])
    assert isinstance(y, mx.nd.NDArray)
    y.backward(mx.nd.array(_GOLD[f"{meta['name']}/head0"], dtype=y.dtype))
    tol = _TOL[meta["dtype"]]
    np.testing.assert_allclose(y.asnumpy(), _GOLD[f"{meta['name']}/out0"], **tol)
    for i, x in enumerate(xs):
        np.testing.assert_allclose(x.grad.asnumpy(), _GOLD[f"{meta['name']}/grad{i}"], **tol)
