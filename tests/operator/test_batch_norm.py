"""BatchNorm's one-pass kernels (mxlite/operator/nn/_batch_norm.py) against the direct
formula in float64 and finite differences, at the edges of their layouts: channel axis last,
2-D data, batch 1, the per-row (S >= 128) and per-column (small S) sums, several column
groups, channels whose mean is far from 0 against their spread, float16, in-place output,
req='add' and the kernel threads. MXNet's own values are checked in test_nn_norm.py."""

from __future__ import annotations

import numpy as np
import pytest

from mxlite.operator import parallel
from mxlite.operator.nn import _batch_norm
from mxlite.operator.req import OpReq
from tests.operator.opcheck import backward, forward, numeric_grad

EPS = 1e-3


def _direct(x, gamma, beta, dy, axis, fix_gamma, eps=EPS):
    """Output, mean, 1/std and the three gradients in float64 by the textbook formulas."""
    x, dy = x.astype(np.float64), dy.astype(np.float64)
    red = tuple(i for i in range(x.ndim) if i != axis)
    shape = [1] * x.ndim
    shape[axis] = -1
    g = np.ones_like(gamma, np.float64) if fix_gamma else gamma.astype(np.float64)
    mean, var = x.mean(axis=red), x.var(axis=red)
    invstd = 1 / np.sqrt(var + eps)
    xhat = (x - mean.reshape(shape)) * invstd.reshape(shape)
    y = xhat * g.reshape(shape) + beta.reshape(shape)
    n = x.size // x.shape[axis]
    sum_g, sum_gx = dy.sum(axis=red), (dy * xhat).sum(axis=red)
    dx = (g * invstd / n).reshape(shape) * (
        n * dy - sum_g.reshape(shape) - xhat * sum_gx.reshape(shape)
    )
    dgamma = np.zeros_like(sum_gx) if fix_gamma else sum_gx
    return y, mean, invstd, dx, dgamma, sum_g


def _inputs(shape, axis, dtype=np.float64, loc=0.3, seed=0):
    rng = np.random.default_rng(seed)
    c = shape[axis]
    x = (loc + rng.standard_normal(shape)).astype(dtype)
    gamma, beta = rng.uniform(0.5, 1.5, c), rng.uniform(-1, 1, c)
    acc = np.float32 if dtype == np.float16 else dtype
    params = [gamma.astype(acc), beta.astype(acc), np.zeros(c, acc), np.ones(c, acc)]
    return x, params, rng.standard_normal(shape).astype(dtype)


SHAPES = [
    ((4, 3, 16, 16), 1),  # per-row sums (S = 256)
    ((4, 3, 5, 7), 1),  # per-column sums (S = 35)
    ((4, 3, 5, 6), -1),  # channel axis last (S = 1)
    ((4, 6, 5, 3), 2),
    ((7, 5), 1),  # 2-D
    ((7, 5), 0),
    ((1, 3, 12, 12), 1),  # batch 1: the element-wise passes split columns
    ((1, 4), 1),
    ((5000, 3), -1),  # more rows than one column group holds
]


@pytest.mark.parametrize("shape,axis", SHAPES)
@pytest.mark.parametrize("fix_gamma", [False, True])
def test_matches_direct_formula(shape, axis, fix_gamma) -> None:
    x, params, dy = _inputs(shape, axis)
    kw = {"axis": axis, "fix_gamma": fix_gamma, "eps": EPS}
    y, mean, invstd = forward("BatchNorm", [x, *params], is_train=True, **kw)
    dx, dgamma, dbeta = backward("BatchNorm", [x, *params], [dy, None, None], **kw)
    want = _direct(x, params[0], params[1], dy, axis % x.ndim, fix_gamma)
    for got, exp in zip((y, mean, invstd, dx, dgamma, dbeta), want):
        np.testing.assert_allclose(got, exp, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("shape,axis", [((3, 2, 4), 1), ((3, 4), -1), ((1, 2, 3, 3), 1)])
def test_gradient_matches_finite_differences(shape, axis) -> None:
    x, params, dy = _inputs(shape, axis, seed=1)
    kw = {"axis": axis, "fix_gamma": False}
    got = backward("BatchNorm", [x, *params], [dy, None, None], **kw)
    want = numeric_grad("BatchNorm", [x, *params], [dy, None, None], **kw)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("shape,axis", [((4, 3, 16, 16), 1), ((4, 3, 5, 7), 1), ((64, 3), 1)])
def test_float32_channels_far_from_zero_stay_accurate(shape, axis) -> None:
    # mean 1e3 against a spread of 1: the one-pass variance would lose every digit
    x, params, dy = _inputs(shape, axis, dtype=np.float32, loc=1e3, seed=2)
    x[:, 0] -= 1e3  # one channel near 0 (one-pass sums), the others far (recomputed)
    kw = {"axis": axis, "fix_gamma": False, "eps": EPS}
    y, mean, invstd = forward("BatchNorm", [x, *params], is_train=True, **kw)
    dx, dgamma, dbeta = backward("BatchNorm", [x, *params], [dy, None, None], **kw)
    want = _direct(x, params[0], params[1], dy, axis, False)
    # gamma's gradient reads the float32 mean (as MXNet's does): half an ulp of 1e3 against a
    # spread of 1 moves it by ~4e-5 of its scale; the old two-pass kernel did the same
    for got, exp, tol in zip((y, mean, invstd, dx, dgamma, dbeta), want, [2e-5] * 4 + [1e-4, 2e-5]):
        assert np.abs(got - exp).max() <= tol * np.abs(exp).max()


def test_float32_one_pass_equals_two_pass_within_rounding() -> None:
    x, params, dy = _inputs((8, 16, 12, 12), 1, dtype=np.float32, loc=1.0, seed=3)
    kw = {"fix_gamma": False, "eps": EPS}
    outs = forward("BatchNorm", [x, *params], is_train=True, **kw)
    grads = backward("BatchNorm", [x, *params], [dy, None, None], **kw)
    want = _direct(x, params[0], params[1], dy, 1, False)
    for got, exp in zip([*outs, *grads], want):
        np.testing.assert_allclose(got, exp, rtol=2e-5, atol=2e-5)


def test_float16_computes_in_float32() -> None:
    x, params, dy = _inputs((4, 3, 6, 6), 1, dtype=np.float16, seed=4)
    kw = {"fix_gamma": False}
    y, mean, invstd = forward("BatchNorm", [x, *params], is_train=True, **kw)
    dx, dgamma, dbeta = backward("BatchNorm", [x, *params], [dy, None, None], **kw)
    assert (y.dtype, mean.dtype, dx.dtype, dgamma.dtype) == (
        np.float16, np.float32, np.float16, np.float32,
    )  # fmt: skip
    want = _direct(x, params[0], params[1], dy, 1, False)
    for got, exp, tol in zip((y, mean, invstd, dx, dgamma, dbeta), want, (3e-3,) + (1e-5,) * 2
                             + (3e-3,) * 3):  # fmt: skip
        np.testing.assert_allclose(got, exp, rtol=tol, atol=tol)


@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("shape", [(4, 3, 5, 5), (4, 3, 16, 16)])
def test_output_in_place_over_data(train, shape) -> None:
    """The planner may give the output x's own buffer (forward_inplace_option)."""
    from mxlite.context import cpu
    from mxlite.operator.registry import OpContext
    from tests.operator.opcheck import prop_of

    x, params, _ = _inputs(shape, 1, dtype=np.float32, seed=5)
    x[:, 1] += 100.0  # far from 0: its variance recomputed on its own slice
    want = forward("BatchNorm", [x, *params], is_train=train, fix_gamma=False)[0]
    data = x.copy()
    outs = [data, np.empty(3, np.float32), np.empty(3, np.float32)]
    op = prop_of("BatchNorm", fix_gamma=False).create_operator(cpu())
    aux = [a.copy() for a in params[2:]]
    op.forward(OpContext(train, None, []), [data, *params[:2]], [OpReq.WRITE] * 3, outs, aux)
    np.testing.assert_allclose(data, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("train", [True, False])
def test_req_add_output_and_gradients(train) -> None:
    x, params, dy = _inputs((2, 3, 4, 40), 1, dtype=np.float32, seed=6)
    kw = {"fix_gamma": False, "use_global_stats": not train}
    plain = forward("BatchNorm", [x, *params], is_train=True, **kw)[0]
    init = np.ones_like(plain)
    added = forward("BatchNorm", [x, *params], True, OpReq.ADD, [init, *_zeros(3)], **kw)[0]
    np.testing.assert_allclose(added, init + plain, rtol=1e-6, atol=1e-6)
    grads = backward("BatchNorm", [x, *params], [dy, None, None], **kw)
    starts = [np.full_like(g, 0.5) for g in grads]
    summed = backward(
        "BatchNorm", [x, *params], [dy, None, None], req=OpReq.ADD, grad_init=starts, **kw
    )
    for g, s, a in zip(grads, starts, summed):
        np.testing.assert_allclose(a, s + g, rtol=1e-5, atol=1e-6)


def _zeros(c: int) -> list[np.ndarray]:
    return [np.zeros(c, np.float32), np.zeros(c, np.float32)]


def test_global_stats_gradient_uses_moving_statistics() -> None:
    x, params, dy = _inputs((3, 4, 10, 13), 1, seed=7)
    params[2], params[3] = np.full(4, 0.2), np.full(4, 2.0)
    kw = {"fix_gamma": False, "use_global_stats": True, "eps": EPS}
    dx, dgamma, dbeta = backward("BatchNorm", [x, *params], [dy, None, None], **kw)
    invstd = 1 / np.sqrt(2.0 + EPS)
    xhat = (x - 0.2) * invstd
    np.testing.assert_allclose(dx, dy * (params[0] * invstd).reshape(1, 4, 1, 1), rtol=1e-12)
    np.testing.assert_allclose(dgamma, (dy * xhat).sum(axis=(0, 2, 3)), rtol=1e-10)
    np.testing.assert_allclose(dbeta, dy.sum(axis=(0, 2, 3)), rtol=1e-10)


@pytest.mark.parametrize("shape", [(6, 5, 20, 20), (1, 5, 30, 30), (6, 5, 3, 3)])
def test_kernel_threads_give_the_same_values(monkeypatch, shape) -> None:
    x, params, dy = _inputs(shape, 1, dtype=np.float32, seed=8)
    kw = {"fix_gamma": False}
    whole = forward("BatchNorm", [x, *params], is_train=True, **kw)
    whole += backward("BatchNorm", [x, *params], [dy, None, None], **kw)
    monkeypatch.setattr(parallel, "_MIN_ELEMENTS", 1)
    monkeypatch.setattr(parallel, "num_threads", lambda: 3)
    monkeypatch.setattr(_batch_norm, "_CHUNK", 64)  # several blocks per thread
    split = forward("BatchNorm", [x, *params], is_train=True, **kw)
    split += backward("BatchNorm", [x, *params], [dy, None, None], **kw)
    for a, b in zip(whole, split):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(1, 6, 1, 1), (1, 6)])
@pytest.mark.parametrize("loc", [0.0, 3.0])
def test_one_element_per_channel_gives_exactly_zero_data_gradient(shape, loc) -> None:
    """dy - mean(dy) is exactly 0 there; a rounding error times gamma / sqrt(eps) (~300)
    would reach every earlier layer (SSD's 1x1 maps at batch 1; MXNet gives exact zeros)."""
    x, params, dy = _inputs(shape, 1, dtype=np.float32, loc=loc, seed=9)
    if loc == 0.0:
        x[...] = 0  # mean and variance 0
    kw = {"fix_gamma": False, "eps": 1e-5}
    y = forward("BatchNorm", [x, *params], is_train=True, **kw)[0]
    dx = backward("BatchNorm", [x, *params], [dy, None, None], **kw)[0]
    assert not dx.any()
    np.testing.assert_array_equal(y, np.broadcast_to(params[1].reshape(1, -1, *shape[2:]), shape))


# Training's statistics and element-wise passes at the shapes of real networks, against the
# float64 textbook formulas: every output within float32 rounding of its scale (max abs
# difference / max abs value), as issue 28 asks of kernels.
NETWORK_SHAPES = [
    ((8, 32, 112, 112), 1),  # MobileNet v1 at batch 8
    ((8, 128, 56, 56), 1),
    ((8, 512, 14, 14), 1),
    ((8, 1024, 7, 7), 1),  # short planes: per-column sums
    ((32, 256, 14, 14), 1),  # ResNet at batch 32
    ((1, 64, 56, 56), 1),  # batch 1: the passes split columns
    ((1, 512, 7, 7), 1),  # 49 elements per channel
    ((8, 7, 7, 256), -1),  # channels last
    ((4, 14, 64, 14), 2),
]


def _scale_error(got: np.ndarray, want: np.ndarray) -> float:
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


def _check_network_shape(shape, axis, fix_gamma, dtype, loc, tol, **kw) -> None:
    x, params, dy = _inputs(shape, axis, dtype=dtype, loc=loc, seed=10)
    kw = {"axis": axis, "fix_gamma": fix_gamma, "eps": EPS, **kw}
    outs = forward("BatchNorm", [x, *params], is_train=True, **kw)
    grads = backward("BatchNorm", [x, *params], [dy, None, None], **kw)
    want = _direct(x, params[0], params[1], dy, axis % x.ndim, fix_gamma)
    for name, got, exp in zip(("y", "mean", "invstd", "dx", "dgamma", "dbeta"), [*outs, *grads],
                              want):  # fmt: skip
        if name == "dgamma" and fix_gamma:
            assert not got.any()
            continue
        assert _scale_error(got, exp) <= tol, (name, _scale_error(got, exp))


@pytest.mark.parametrize("shape,axis", NETWORK_SHAPES)
@pytest.mark.parametrize("fix_gamma", [True, False])
def test_network_shapes_match_float64_within_float32_rounding(shape, axis, fix_gamma) -> None:
    _check_network_shape(shape, axis, fix_gamma, np.float32, 0.3, 2e-6)


# channels 3, 7 and 50 standard deviations from 0: at 50 the one-pass variance is recomputed
# on the channel's slice (module note of _batch_norm), and gamma's gradient reads the float32
# mean output as MXNet's does (half an ulp of 50 against a spread of 1: ~3e-6 of its scale)
@pytest.mark.parametrize("loc,tol", [(3.0, 2e-6), (7.0, 2e-6), (50.0, 1e-5)])
def test_channels_near_and_far_from_zero(loc, tol) -> None:
    _check_network_shape((8, 16, 14, 14), 1, False, np.float32, loc, tol)


def test_a_mix_of_far_constant_and_near_channels() -> None:
    x, params, dy = _inputs((8, 6, 20, 20), 1, dtype=np.float32, seed=11)
    x[:, 1] += 500.0  # far: its variance recomputed on its own slice
    x[:, 4] = 2.0  # constant: variance 0, far
    kw = {"fix_gamma": False, "eps": EPS}
    outs = forward("BatchNorm", [x, *params], is_train=True, **kw)
    grads = backward("BatchNorm", [x, *params], [dy, None, None], **kw)
    want = _direct(x, params[0], params[1], dy, 1, False)
    for got, exp in zip([*outs, *grads], want):
        for ch in range(6):  # each channel against its own scale
            g, e = got[:, ch] if got.ndim > 1 else got[ch], exp[:, ch] if exp.ndim > 1 else exp[ch]
            assert np.abs(g - e).max() <= 2e-5 * max(np.abs(e).max(), 1e-3)
    np.testing.assert_array_equal(outs[0][:, 4], np.broadcast_to(params[1][4], (8, 20, 20)))


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float16, 2e-3)])
def test_network_shape_float64_and_float16(dtype, tol) -> None:
    _check_network_shape((8, 64, 14, 14), 1, False, dtype, 0.3, tol)


def test_global_stats_and_output_mean_var_at_network_shape() -> None:
    import mxlite as mx

    x, params, dy = _inputs((8, 32, 14, 14), 1, dtype=np.float32, seed=12)
    params[2], params[3] = np.full(32, 0.2, np.float32), np.full(32, 2.0, np.float32)
    args = [mx.nd.array(a, dtype=np.float32) for a in (x, *params)]
    with mx.autograd.record(train_mode=True):
        y, mean, invstd = mx.nd.BatchNorm(*args, fix_gamma=False, eps=EPS, output_mean_var=True)
    want = _direct(x, params[0], params[1], dy, 1, False)
    for got, exp in zip((y, mean, invstd), want):
        assert _scale_error(got.asnumpy(), exp) <= 2e-6
    scale = params[0] / np.sqrt(2.0 + EPS)
    expect = (x - 0.2) * scale.reshape(1, -1, 1, 1) + params[1].reshape(1, -1, 1, 1)
    for train, kw in ((True, {"use_global_stats": True}), (False, {})):
        with mx.autograd.record(train_mode=train):
            y, mean, invstd = mx.nd.BatchNorm(*args, fix_gamma=False, eps=EPS,
                                              output_mean_var=True, **kw)  # fmt: skip
        assert _scale_error(y.asnumpy(), expect) <= 2e-6
        np.testing.assert_allclose(mean.asnumpy(), 0.2, rtol=1e-7)
        np.testing.assert_allclose(invstd.asnumpy(), 1 / np.sqrt(2.0 + EPS), rtol=1e-6)
