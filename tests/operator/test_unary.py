"""Tests for mxlite.operator.tensor.elemwise_unary (and special.py): forward and backward
against golden values from MXNet 1.9.1, finite differences, req='add', in-place, dtype rules,
errors, the public mx.nd functions and the SciPy-free fallbacks."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, ParamError
from mxlite.operator import registry
from mxlite.operator.req import OpReq
from mxlite.operator.tensor import special

from . import opcheck

MISC_OPS = {
    "clip",
    "where",
    "add_n",
    "ElementWiseSum",
    "zeros_like",
    "ones_like",
    "_zeros",
    "_ones",
    "_full",
    "_arange",
    "_eye",
    "_linspace",
}
GOLD = opcheck.golden("unary")
CASES = GOLD.cases
UNARY_CASES = sorted(k for k, c in CASES.items() if c["op"] not in MISC_OPS)

# Every operator (and alias) this module registers.
SIMPLE = (
    "abs sign round rint ceil floor trunc fix square sqrt rsqrt cbrt rcbrt exp expm1 log "
    "log10 log2 log1p sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh "
    "arctanh degrees radians reciprocal negative relu sigmoid softsign erf erfinv gamma "
    "gammaln logical_not"
).split()
ALIASES = {"_copy": ["identity"], "BlockGrad": ["stop_gradient"], "Cast": ["cast"]}
SMOOTH = {
    "abs",
    "square",
    "sqrt",
    "rsqrt",
    "cbrt",
    "rcbrt",
    "exp",
    "expm1",
    "log",
    "log10",
    "log2",
    "log1p",
    "sin",
    "cos",
    "tan",
    "arcsin",
    "arccos",
    "arctan",
    "sinh",
    "cosh",
    "tanh",
    "arcsinh",
    "arccosh",
    "arctanh",
    "degrees",
    "radians",
    "reciprocal",
    "negative",
    "relu",
    "sigmoid",
    "softsign",
    "erf",
    "erfinv",
    "gamma",
    "gammaln",
}
ZERO_GRAD = {"sign", "round", "rint", "ceil", "floor", "trunc", "fix", "logical_not"}

TOL = {"float16": (2e-3, 2e-3), "float32": (2e-5, 1e-6), "float64": (1e-9, 1e-12)}
GRAD_TOL = {"float16": (1e-2, 1e-2), "float32": (1e-4, 1e-5), "float64": (1e-8, 1e-10)}
# MXNet's digamma (cephes psi) is good to about 1e-7 even in float64; ours is more accurate
LOOSE_GRAD_OPS = {"gamma", "gammaln"}
LOOSE_GRAD_TOL = {"float16": (1e-2, 1e-2), "float32": (1e-4, 1e-5), "float64": (1e-6, 1e-8)}


def _close(got: np.ndarray, want: np.ndarray, tol: dict) -> None:
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    if want.dtype.kind in "iub":
        np.testing.assert_array_equal(got, want)
        return
    rtol, atol = tol[want.dtype.name]
    np.testing.assert_allclose(
        got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True
    )


def _inputs(case: str) -> list[np.ndarray]:
    return GOLD.inputs(case)


@pytest.mark.parametrize("case", UNARY_CASES)
def test_forward_matches_mxnet(case: str) -> None:
    c = CASES[case]
    out = opcheck.forward(c["op"], _inputs(case), **c["params"])[0]
    _close(out, GOLD[f"{case}/out0"], TOL)


@pytest.mark.parametrize("case", [k for k in UNARY_CASES if CASES[k]["grad"]])
def test_backward_matches_mxnet(case: str) -> None:
    c = CASES[case]
    xs = _inputs(case)
    grads = opcheck.backward(c["op"], xs, [GOLD[f"{case}/head0"]], **c["params"])
    tol = LOOSE_GRAD_TOL if c["op"] in LOOSE_GRAD_OPS else GRAD_TOL
    for i, g in enumerate(grads):
        _close(g, GOLD[f"{case}/grad{i}"], tol)


def _sample(name: str, shape: tuple = (2, 3), seed: int = 0) -> np.ndarray:
    t = registry.get(name).test
    return np.random.default_rng(seed).uniform(t.low, t.high, size=shape)


@pytest.mark.parametrize("name", sorted(SMOOTH | ZERO_GRAD | {"hard_sigmoid", "smooth_l1"}))
def test_backward_matches_finite_differences(name: str) -> None:
    params = dict(registry.get(name).test.params)
    x = _sample(name)
    head = np.random.default_rng(1).uniform(-1, 1, size=x.shape)
    got = opcheck.backward(name, [x], [head], **params)[0]
    want = opcheck.numeric_grad(name, [x], [head], **params)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    if name in ZERO_GRAD:
        assert not got.any()


@pytest.mark.parametrize("name", SIMPLE + ["hard_sigmoid", "smooth_l1", "_copy", "BlockGrad"])
def test_req_add_accumulates(name: str) -> None:
    params = dict(registry.get(name).test.params)
    x = _sample(name).astype(np.float32)
    head = np.full(x.shape, 0.5, np.float32)
    init = np.arange(x.size, dtype=np.float32).reshape(x.shape)
    plain = opcheck.backward(name, [x], [head], **params)[0]
    added = opcheck.backward(name, [x], [head], req=OpReq.ADD, grad_init=[init], **params)[0]
    np.testing.assert_allclose(added, init + plain, rtol=1e-6)
    out = opcheck.forward(name, [x], **params)[0]
    acc = opcheck.forward(name, [x], req=OpReq.ADD, out_init=[init], **params)[0]
    np.testing.assert_allclose(acc, init + out, rtol=1e-6)


@pytest.mark.parametrize("name", SIMPLE + ["_copy", "BlockGrad"])
def test_forward_in_place_gives_same_answer(name: str) -> None:
    prop = opcheck.prop_of(name)
    x = _sample(name).astype(np.float32)
    want = opcheck.forward(name, [x])[0]
    buf = x.copy()
    inplace = prop.forward_inplace_option([0], [1]) == [(0, 1)]
    if inplace:
        prop.create_operator(mx.cpu()).forward(
            opcheck.OpContext(False, None, []), [buf], [OpReq.INPLACE], [buf], []
        )
        np.testing.assert_allclose(buf, want, rtol=1e-6)
    # forward may overwrite x exactly when the gradient does not read x
    reads_input = 10 in prop.declare_backward_dependency([0], [10], [20])
    assert inplace != reads_input


def test_declared_dependencies_and_inplace_options() -> None:
    def deps(name: str, **p: object) -> list[int]:
        return opcheck.prop_of(name, **p).declare_backward_dependency([0], [1], [2])

    assert deps("sqrt") == [0, 2] and deps("exp") == [0, 2] and deps("relu") == [0, 2]
    assert deps("log") == [0, 1] and deps("abs") == [0, 1] and deps("erf") == [0, 1]
    assert deps("negative") == [0] and deps("BlockGrad") == [0] and deps("round") == [0]
    sl1 = opcheck.prop_of("smooth_l1", scalar=1.0)
    assert sl1.declare_backward_dependency([0], [1], [2]) == [0, 1]
    assert sl1.forward_inplace_option([1], [2]) == []
    assert sl1.backward_inplace_option([0], [1], [2], [3]) == [(0, 3)]
    assert opcheck.prop_of("Cast", dtype="int32").forward_inplace_option([1], [2]) == []


@pytest.mark.parametrize("dtype", ["int32", "int8", "uint8", "int64"])
def test_integer_inputs_keep_dtype_and_wrap_like_c(dtype: str) -> None:
    x = np.array([0, 1, 2, 5], dtype)
    assert opcheck.forward("sqrt", [x])[0].dtype == np.dtype(dtype)
    exp5 = opcheck.forward("exp", [x])[0]
    want = {"int32": 148, "int64": 148, "int8": -108, "uint8": 148}[dtype]
    assert exp5[-1] == want and exp5[0] == 1
    nan_val = opcheck.forward("log", [x])[0][0]  # log(0) = -inf -> most negative int
    assert nan_val == {"int32": -(2**31), "int64": -(2**63), "int8": 0, "uint8": 0}[dtype]


def test_rounding_and_nan_rules() -> None:
    x = np.array([-2.5, -0.5, 0.5, 1.5, 2.5, np.nan], np.float32)
    np.testing.assert_array_equal(opcheck.forward("round", [x])[0][:5], [-3, -1, 1, 2, 3])
    np.testing.assert_array_equal(opcheck.forward("rint", [x])[0][:5], [-3, -1, 0, 1, 2])
    assert opcheck.forward("sign", [x])[0][-1] == 0
    assert np.isnan(opcheck.forward("relu", [x])[0][-1])
    g = opcheck.backward("relu", [np.array([-1, 0, 2], np.float32)])[0]
    np.testing.assert_array_equal(g, [0, 0, 1])
    g = opcheck.backward("abs", [np.array([-1, 0, 2], np.float32)])[0]
    np.testing.assert_array_equal(g, [-1, 0, 1])


def test_errors_name_the_operator_and_argument() -> None:
    x = np.ones((2,), np.float32)
    with pytest.raises(ParamError, match="hard_sigmoid.*alpha"):
        opcheck.forward("hard_sigmoid", [x], alpha="steep")
    with pytest.raises(ParamError, match="Cast.*dtype"):
        opcheck.forward("Cast", [x])
    with pytest.raises(ParamError, match="Cast.*dtype"):
        opcheck.forward("Cast", [x], dtype="float8")
    assert opcheck.forward("Cast", [x], dtype="bfloat16")[0].dtype.name == "bfloat16"
    with pytest.raises(ParamError, match="smooth_l1.*scalar"):
        opcheck.forward("smooth_l1", [x], scalar="wide")
    # an operator without parameters ignores keywords, as MXNet's do (test_cosine_loss passes
    # axis= to broadcast_maximum)
    np.testing.assert_allclose(opcheck.forward("sqrt", [x], sigma=1.0)[0], np.sqrt(x), rtol=1e-6)
    with pytest.raises(DTypeError, match="sqrt.*'data'.*bool"):
        opcheck.forward("sqrt", [x.astype(bool)])
    with pytest.raises(DTypeError, match="hard_sigmoid.*'data'.*int32"):
        opcheck.forward("hard_sigmoid", [x.astype(np.int32)])
    out = opcheck.forward("BlockGrad", [x.astype(bool)])[0]  # pass-through ops take bool
    assert out.dtype == np.bool_ and out.all()


def _nd_function(name: str):
    return getattr(mx.nd._internal if name.startswith("_") else mx.nd, name)


@pytest.mark.parametrize(
    "name",
    SIMPLE
    + ["hard_sigmoid", "smooth_l1", "_copy", "BlockGrad", "Cast"]
    + [a for v in ALIASES.values() for a in v],
)
def test_public_function(name: str) -> None:
    params = {
        "Cast": {"dtype": "float64"},
        "cast": {"dtype": "float64"},
        "smooth_l1": {"scalar": 0.7},
    }.get(name, {})
    op = next((k for k, v in ALIASES.items() if name in v), name)
    x = _sample(op).astype(np.float32)
    got = _nd_function(name)(mx.nd.array(x), **params).asnumpy()
    want = opcheck.forward(op, [x], **params)[0]
    np.testing.assert_array_equal(got, want)
    assert registry.get(name) is registry.get(op)


def test_ndarray_methods_and_aliases_registered() -> None:
    x = mx.nd.array([[0.25, 4.0]])
    np.testing.assert_allclose(x.sqrt().asnumpy(), [[0.5, 2.0]])
    np.testing.assert_allclose(x.reciprocal().asnumpy(), [[4.0, 0.25]])
    assert registry.get("identity").op_name == "_copy"
    assert registry.get("stop_gradient").op_name == "BlockGrad"
    assert registry.get("cast").op_name == "Cast"


# ---- special functions: the SciPy path and the NumPy-only fallbacks -------------------------


@pytest.fixture(params=["scipy", "fallback"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "scipy":
        pytest.importorskip("scipy.special")
    else:
        monkeypatch.setattr(special, "_SCIPY", None)
    return request.param


def _ref(fn, x: np.ndarray) -> np.ndarray:
    out = []
    for v in x.tolist():
        try:
            out.append(fn(v))
        except (ValueError, OverflowError):
            out.append(math.nan)
    return np.array(out)


def test_special_functions_are_accurate(backend: str) -> None:
    x = np.concatenate([np.linspace(-6, 6, 241), [0.0, 1e-9, 2.999, 3.0, 3.001]])
    np.testing.assert_allclose(special.erf(np, x), _ref(math.erf, x), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(special.erfc(np, x), _ref(math.erfc, x), rtol=1e-9)
    y = np.concatenate([np.linspace(-0.999, 0.999, 201), [0.5, 1 - 1e-10, -1e-8]])
    np.testing.assert_allclose(_ref(math.erf, special.erfinv(np, y)), y, rtol=1e-11)
    assert special.erfinv(np, np.array([1.0]))[0] == np.inf
    assert np.isnan(special.erfinv(np, np.array([1.5, np.nan]))).all()
    g = np.concatenate([np.linspace(-9.75, 30.25, 161), [0.5, 1.0, 2.0, 1e-6, 170.5]])
    g = g[(g > 0) | (g != np.floor(g))]  # math raises at the poles; they are checked below
    np.testing.assert_allclose(special.gamma(np, g), _ref(math.gamma, g), rtol=1e-11)
    np.testing.assert_allclose(special.gammaln(np, g), _ref(math.lgamma, g), rtol=1e-11, atol=1e-13)
    # digamma: the derivative of lgamma, and its value at 1 (-Euler's constant)
    h, gd = 1e-5, g[np.abs(g) > 0.1]
    d = (_ref(math.lgamma, gd + h) - _ref(math.lgamma, gd - h)) / (2 * h)
    np.testing.assert_allclose(special.digamma(np, gd), d, rtol=1e-6, atol=1e-6)
    assert abs(special.digamma(np, np.array([1e-6]))[0] + 1e6 + 0.5772) < 1e-3
    assert abs(special.digamma(np, np.array([1.0]))[0] + 0.5772156649015329) < 1e-13


def test_special_poles_follow_c(backend: str) -> None:
    x = np.array([0.0, -0.0, -1.0, -2.0, np.inf])
    gm = special.gamma(np, x)
    assert gm[0] == np.inf and gm[1] == -np.inf and np.isnan(gm[2:4]).all() and gm[4] == np.inf
    assert (special.gammaln(np, x[:4]) == np.inf).all()
    # C lgamma is +inf at both infinities (SciPy's gammaln gives -inf at -inf)
    lg = special.gammaln(np, np.array([np.inf, -np.inf, np.nan, -2.5]))
    assert (lg[:2] == np.inf).all() and np.isnan(lg[2]) and abs(lg[3] - math.lgamma(-2.5)) < 1e-13
    assert special.gammaln(np, np.float64(-np.inf)) == np.inf
    # MXNet's digamma is +inf at the poles (gammaln's gradient there), unlike C and SciPy
    assert (special.digamma(np, np.array([0.0, -3.0])) == np.inf).all()


@pytest.mark.parametrize(
    "case", [k for k in UNARY_CASES if CASES[k]["op"] in ("erf", "erfinv", "gamma", "gammaln")]
)
def test_fallback_matches_mxnet(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(special, "_SCIPY", None)
    test_forward_matches_mxnet(case)
    if CASES[case]["grad"]:
        test_backward_matches_mxnet(case)


def test_gamma_gradients_at_the_poles_match_mxnet() -> None:
    # MXNet 1.9.1: d gamma/dx = [inf, nan, nan] and d gammaln/dx = [inf, inf, inf] at 0, -1, -2
    for fn, want in ((mx.nd.gamma, [np.inf, np.nan, np.nan]), (mx.nd.gammaln, [np.inf] * 3)):
        x = mx.nd.array([0.0, -1.0, -2.0])
        x.attach_grad()
        with mx.autograd.record():
            y = fn(x)
        y.backward()
        np.testing.assert_array_equal(x.grad.asnumpy(), np.array(want, np.float32))


def test_erf_of_float32_is_within_three_ulps_without_scipy(monkeypatch) -> None:
    # float32 erf is computed in float32 (special.erf32), the same with or without SciPy
    monkeypatch.setattr(special, "_SCIPY", None)
    rng = np.random.RandomState(0)
    x = np.concatenate([np.linspace(-5, 5, 200_001), rng.normal(size=50_000) * 2])
    x = np.concatenate([x, [0.0, 1e-30, 1e-40, 1.0, 4.0, 30.0, 1e30]]).astype(np.float32)
    x = np.concatenate([x, -x])
    got = special.erf(np, x)
    assert got.dtype == np.float32
    want = _ref(math.erf, x.astype(np.float64))
    ulps = np.abs(got - want) / np.spacing(np.abs(want).astype(np.float32))
    assert ulps.max() < 3, (ulps.max(), x[ulps.argmax()])
    assert np.signbit(special.erf(np, np.array([-0.0], np.float32)))[0]
    edge = special.erf(np, np.array([np.inf, -np.inf, np.nan], np.float32))
    assert edge[0] == 1 and edge[1] == -1 and np.isnan(edge[2])


def test_gelu_float32_blocks_over_threads_match_float64(monkeypatch) -> None:
    from mxlite.operator import parallel

    monkeypatch.setattr(parallel, "num_threads", lambda: 3)
    monkeypatch.setattr(special, "_ERF32_BLOCK", 1000)  # several blocks per thread
    x = (np.random.RandomState(1).normal(size=(70, 500)) * 3).astype(np.float32)
    y = mx.nd.LeakyReLU(mx.nd.array(x), act_type="gelu").asnumpy()
    x64 = x.astype(np.float64)
    want = 0.5 * x64 * (1 + _ref(math.erf, x64.ravel() / math.sqrt(2.0)).reshape(x.shape))
    np.testing.assert_allclose(y, want, rtol=3e-7, atol=1e-7)
    np.testing.assert_array_equal(special.gelu32(x), y)
    # the negative tail, where 1 + erf(z) cancels: erfc(|z|) keeps the relative precision
    tail = np.linspace(-5.6, -2, 601).astype(np.float32)  # |z| up to 4, the fitted range
    exact = 0.5 * tail.astype(np.float64) * _ref(math.erfc, -tail.astype(np.float64) / 2**0.5)
    np.testing.assert_allclose(special.gelu32(tail), exact, rtol=3e-6, atol=0)
    far = special.gelu32(np.linspace(-30, -5.7, 300).astype(np.float32))
    assert np.all(far <= 0) and np.all(far > -4e-8)  # MXNet's float32 erf gives 0 here
    edge = special.gelu32(np.array([np.inf, -np.inf, np.nan, -0.0], np.float32))
    assert edge[0] == np.inf and np.isnan(edge[1:3]).all() and np.signbit(edge[3])


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_gelu_gradient_blocks_match_float64(monkeypatch, dtype) -> None:
    from mxlite.operator import parallel

    monkeypatch.setattr(parallel, "num_threads", lambda: 3)
    monkeypatch.setattr(special, "_ERF32_BLOCK", 999)
    rs = np.random.RandomState(2)
    x = (rs.normal(size=(40, 600)) * 3).astype(dtype)
    head = rs.normal(size=x.shape).astype(dtype)
    a = mx.nd.array(x, dtype=dtype)
    a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.LeakyReLU(a, act_type="gelu")
    y.backward(mx.nd.array(head, dtype=dtype))
    x64, h64 = x.astype(np.float64).ravel(), head.astype(np.float64).ravel()
    erf = _ref(math.erf, x64 / 2**0.5)
    slope = x64 * np.exp(-x64 * x64 / 2) * 2 / math.sqrt(2 * math.pi)
    want = (h64 * 0.5 * (1 + erf + slope)).reshape(x.shape)
    assert a.grad.dtype == dtype
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(a.grad.asnumpy().astype(np.float64), want, **tol)
