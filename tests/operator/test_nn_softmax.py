"""softmax, log_softmax, softmin and SoftmaxActivation against MXNet 1.9.1 golden values
(tools/golden/cases/nn_loss.py), numeric gradients, req=ADD and parameter errors."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, MXNetError, ParamError, ShapeError
from mxlite.operator.req import OpReq
from tests.operator.opcheck import backward, forward, golden, numeric_grad

GOLD = golden("nn_loss")
PREFIXES = ("softmax_", "log_softmax_", "softmin_", "sact_")
CASES = sorted(k for k in GOLD.cases if k.startswith(PREFIXES))


def _case(name: str):
    meta = GOLD.cases[name]
    return meta["op"], meta["params"], GOLD.inputs(name), GOLD.heads(name)


def _tol(dtype) -> dict:
    return {
        np.dtype(np.float16): dict(rtol=1e-2, atol=2e-3),
        np.dtype(np.float32): dict(rtol=1e-4, atol=1e-6),
        np.dtype(np.float64): dict(rtol=1e-9, atol=1e-12),
    }[np.dtype(dtype)]


def test_cases_present():
    assert len(CASES) >= 12


@pytest.mark.parametrize("name", CASES)
def test_forward_matches_mxnet(name):
    op, params, inputs, _ = _case(name)
    out = forward(op, inputs, is_train=True, **params)[0]
    want = GOLD[f"{name}/out0"]
    assert out.dtype == want.dtype and out.shape == want.shape
    # MXNet computes in the input's dtype and casts (dtype=...), so the input sets the tolerance
    np.testing.assert_allclose(out.astype(np.float64), want, **_tol(inputs[0].dtype))


@pytest.mark.parametrize("name", CASES)
def test_backward_matches_mxnet(name):
    op, params, inputs, heads = _case(name)
    grad = backward(op, inputs, heads, **params)[0]
    want = GOLD[f"{name}/grad0"]
    assert grad.dtype == want.dtype
    np.testing.assert_allclose(grad.astype(np.float64), want, **_tol(inputs[0].dtype))


@pytest.mark.parametrize("name", CASES)
def test_backward_add_accumulates(name):
    op, params, inputs, heads = _case(name)
    init = [np.full(a.shape, 0.5, a.dtype) for a in inputs]
    got = backward(op, inputs, heads, req=OpReq.ADD, grad_init=init, **params)[0]
    plain = backward(op, inputs, heads, **params)[0]
    np.testing.assert_allclose(
        got.astype(np.float64), (plain + init[0]).astype(np.float64), **_tol(got.dtype)
    )


NUMERIC = [
    ("softmax", (3, 4), {}),
    ("softmax", (2, 3, 2), {"axis": 1, "temperature": 1.7}),
    ("log_softmax", (3, 4), {}),
    ("log_softmax", (2, 3), {"axis": 0, "temperature": 0.6}),
    ("softmin", (2, 4), {"temperature": 2.0}),
    ("SoftmaxActivation", (3, 4), {}),
    ("SoftmaxActivation", (2, 3, 2), {"mode": "channel"}),
]


@pytest.mark.parametrize("op,shape,params", NUMERIC)
def test_backward_matches_numeric(op, shape, params):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape)
    head = rng.standard_normal(shape)
    got = backward(op, [x], [head], **params)[0]
    want = numeric_grad(op, [x], [head], **params)[0]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_softmax_length_numeric_and_mask():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 4))
    length = np.array([2, 4, 0], np.int32)
    head = rng.standard_normal((3, 4))
    y = forward("softmax", [x, length], use_length=True)[0]
    assert np.all(y[0, 2:] == 0) and np.all(y[2] == 0)
    np.testing.assert_allclose(y[:2].sum(axis=1), 1.0)
    got = backward("softmax", [x, length], [head], use_length=True)[0]
    want = numeric_grad("softmax", [x, length], [head], use_length=True)[0]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_large_inputs_are_stable():
    x = np.array([[1000.0, 0.0, -1000.0]], np.float32)
    assert np.allclose(forward("softmax", [x])[0], [[1, 0, 0]])
    assert np.all(np.isfinite(forward("log_softmax", [x])[0][:, :2]))


ERRORS = [
    ("softmax", [np.ones((2, 3), np.float32)], {"axis": 2}, ShapeError, r"softmax.*axis"),
    ("softmax", [np.ones((2, 3), np.float32)], {"temperature": "hot"}, ParamError, "temperature"),
    ("softmax", [np.ones((2, 3), np.float32)], {"dtype": "int32"}, ParamError, "dtype"),
    (
        "softmax",
        [np.ones((2, 3), np.float32), np.ones(2, np.float32)],
        {"use_length": True},
        DTypeError,
        r"softmax.*length",
    ),
    (
        "softmax",
        [np.ones((2, 3), np.float32), np.ones(3, np.int32)],
        {"use_length": True},
        ShapeError,
        r"softmax.*length",
    ),
    ("softmax", [np.ones((2, 3), np.float32)], {"use_length": True}, ShapeError, "inputs"),
    ("softmax", [np.ones((2, 3), np.int32)], {}, DTypeError, r"softmax.*data"),
    ("log_softmax", [np.ones((2, 3), np.float32)], {"use_length": True}, ShapeError, "use_length"),
    ("softmin", [np.ones((2, 3), np.float32)], {"axis": -3}, ShapeError, r"softmin.*axis"),
    ("SoftmaxActivation", [np.ones((2, 3), np.float32)], {"mode": "channel"}, ShapeError, "mode"),
    ("SoftmaxActivation", [np.ones((2, 3), np.float32)], {"mode": "all"}, ParamError, "mode"),
]


@pytest.mark.parametrize("op,inputs,params,exc,match", ERRORS)
def test_bad_input_raises(op, inputs, params, exc, match):
    with pytest.raises(exc, match=match):
        forward(op, inputs, **params)


def test_public_functions_and_autograd():
    x = np.array([[0.1, 0.5, -0.3], [1.0, 2.0, 3.0]], np.float32)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    sm = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(mx.nd.softmax(mx.nd.array(x)).asnumpy(), sm, rtol=1e-6)
    np.testing.assert_allclose(mx.nd.log_softmax(mx.nd.array(x)).asnumpy(), np.log(sm), rtol=1e-5)
    e2 = np.exp(-x - (-x).max(axis=1, keepdims=True))
    np.testing.assert_allclose(
        mx.nd.softmin(mx.nd.array(x)).asnumpy(), e2 / e2.sum(axis=1, keepdims=True), rtol=1e-6
    )
    np.testing.assert_allclose(mx.nd.SoftmaxActivation(mx.nd.array(x)).asnumpy(), sm, rtol=1e-6)
    length = mx.nd.array([1, 3], dtype="int32")
    masked = mx.nd.softmax(mx.nd.array(x), length, use_length=True).asnumpy()
    np.testing.assert_allclose(masked[0], [1, 0, 0])
    assert mx.nd.softmax(mx.nd.array(x), dtype="float64").dtype == np.float64
    np.testing.assert_allclose(mx.nd.array(x).softmax().asnumpy(), sm, rtol=1e-6)

    a = mx.nd.array(x)
    a.attach_grad()
    head = np.array([[1.0, 0.0, 2.0], [0.5, -1.0, 0.0]], np.float32)
    with mx.autograd.record():
        y = mx.nd.softmax(a, axis=-1)
    y.backward(mx.nd.array(head))
    want = sm * (head - (head * sm).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(a.grad.asnumpy(), want, rtol=1e-5, atol=1e-7)


def test_error_through_public_function():
    with pytest.raises(MXNetError, match="axis"):
        mx.nd.softmax(mx.nd.ones((2, 3)), axis=5).asnumpy()


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_short_rows_take_the_fast_reductions_and_agree(op: str, dtype: type) -> None:
    # (1120, 28): a classifier's logits, where the row max and sum are computed column-wise
    # and as a product with ones (softmax.row_max / row_sum); the same as row by row
    from mxlite.operator.nn.softmax import _short_rows

    rng = np.random.default_rng(0)
    x = (rng.standard_normal((40, 28, 28)) * 5).astype(dtype)
    x[3, 4] += 60.0  # one row far above the rest: the per-row shift must hold
    assert _short_rows(np, x, -1) and not _short_rows(np, x, 1)
    head = rng.standard_normal(x.shape).astype(dtype)
    (y,) = forward(op, [x], axis=-1)
    (dx,) = backward(op, [x], [head], axis=-1)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    sm = e / e.sum(axis=-1, keepdims=True)
    want = np.log(sm) if op == "log_softmax" else sm
    if op == "log_softmax":
        want_dx = head - sm * head.sum(axis=-1, keepdims=True)
    else:
        want_dx = sm * (head - (head * sm).sum(axis=-1, keepdims=True))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(y, want, rtol=tol, atol=tol)
    np.testing.assert_allclose(dx, want_dx, rtol=tol * 10, atol=tol * 10)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape", [(600, 768), (2, 300, 1000), (5, 3136)])
def test_long_rows_split_over_threads_agree(monkeypatch, op: str, shape: tuple) -> None:
    # last-axis rows split over three kernel threads, written straight into the output, the
    # sums as products with ones and the broadcasts with a one-row buffer: float64 reference
    from mxlite.operator import parallel

    monkeypatch.setattr(parallel, "num_threads", lambda: 3)
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    head = rng.standard_normal(shape).astype(np.float32)
    (y,) = forward(op, [x], axis=-1)
    (dx,) = backward(op, [x], [head], axis=-1)
    x64, h64 = x.astype(np.float64), head.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=-1, keepdims=True))
    sm = e / e.sum(axis=-1, keepdims=True)
    if op == "log_softmax":
        want, want_dx = np.log(sm), h64 - sm * h64.sum(axis=-1, keepdims=True)
    else:
        want, want_dx = sm, sm * (h64 - (h64 * sm).sum(axis=-1, keepdims=True))
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, want, rtol=2e-5, atol=1e-6)
    # (log_softmax: g - exp(y) * sum(g) cancels; sum(g) over 1000 entries is ~30)
    np.testing.assert_allclose(dx, want_dx, rtol=1e-4, atol=1e-5)


def test_softmax_in_place_and_into_other_outputs() -> None:
    from mxlite.operator.nn.softmax import softmax_axis

    rng = np.random.default_rng(2)
    x = rng.standard_normal((700, 512)).astype(np.float32)
    want = softmax_axis(np, x.copy(), -1)
    same = x.copy()
    assert softmax_axis(np, same, -1, out=same) is same  # the output may be the input
    np.testing.assert_array_equal(same, want)
    f16 = np.empty(x.shape, np.float16)  # not the compute dtype: a new array is returned
    got = softmax_axis(np, x, -1, out=f16)
    assert got is not f16 and got.dtype == np.float32
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(mx.nd.softmax(mx.nd.array(x)).asnumpy(), want)


@pytest.mark.parametrize("shape", [(0, 5), (3, 0), (2, 0, 4)])
def test_empty_softmax_forward_and_backward(shape) -> None:
    # zero-size arrays keep the general path (MXNet's test_npx_softmax has them)
    x = np.zeros(shape, np.float32)
    for op in ("softmax", "log_softmax"):
        for axis in (-1, 0):
            (y,) = forward(op, [x], axis=axis)
            (dx,) = backward(op, [x], [np.ones(shape, np.float32)], axis=axis)
            assert y.shape == dx.shape == shape
