"""Reductions (mxlite/operator/tensor/reduce.py) against real MXNet 1.9.1 golden values,
finite differences, gradient accumulation, bad input, and the public mx.nd functions."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import ParamError, ShapeError
from mxlite.operator import registry
from mxlite.operator.req import OpReq

from . import opcheck

REDUCE_OPS = {
    "sum",
    "mean",
    "prod",
    "nansum",
    "nanprod",
    "max",
    "min",
    "norm",
    "argmax",
    "argmin",
    "argmax_channel",
    "moments",
}


# ---- golden helpers (also used by test_ordering.py) -----------------------------------------


def load_cases(ops: set[str]) -> list[tuple[int, str, dict, bool, dict[str, np.ndarray]]]:
    """The golden cases of ``ops``: (index, op, params, differentiable, arrays)."""
    g = opcheck.golden("reduce")
    out = []
    for name, case in sorted(g.cases.items(), key=lambda item: int(item[0])):
        if case["op"] in ops:
            arrays = {k.split("/", 1)[1]: v for k, v in g.items() if k.startswith(f"{name}/")}
            out.append((int(name), case["op"], case["params"], case["grad"], arrays))
    return out


def series(arrays: dict[str, np.ndarray], prefix: str) -> list[np.ndarray]:
    out, j = [], 0
    while f"{prefix}{j}" in arrays:
        out.append(arrays[f"{prefix}{j}"])
        j += 1
    return out


def tol(dtype: Any) -> dict[str, float]:
    dt = np.dtype(dtype)
    if dt == np.float16:
        return {"rtol": 1e-2, "atol": 1e-2}
    if dt == np.float32:
        return {"rtol": 1e-5, "atol": 1e-5}
    return {"rtol": 1e-10, "atol": 1e-12}


def assert_same(got: np.ndarray, want: np.ndarray, what: str) -> None:
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, equal_nan=True, err_msg=what, **tol(want.dtype))
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def heads_for(
    name: str, inputs: list[np.ndarray], visible: list[np.ndarray], params: dict
) -> list[np.ndarray]:
    """Head gradients for every output: the given visible ones, zeros for hidden outputs."""
    outs = opcheck.forward(name, inputs, **params)
    return [visible[j] if j < len(visible) else np.zeros_like(o) for j, o in enumerate(outs)]


def with_num_args(op: str, params: dict, inputs: list) -> dict:
    """Add the input count of a variadic operator, as MXNet's front end does."""
    key = registry.get(op).key_var_num_args
    return {**params, key: len(inputs)} if key and key not in params else params


def check_golden_forward(op: str, params: dict, arrays: dict) -> None:
    inputs, want = series(arrays, "in"), series(arrays, "out")
    params = with_num_args(op, params, inputs)
    got = opcheck.forward(op, inputs, **params)
    for j, w in enumerate(want):
        assert_same(got[j], w, f"{op}{params} output {j}")


def check_golden_backward(op: str, params: dict, arrays: dict) -> None:
    inputs, heads, want = series(arrays, "in"), series(arrays, "head"), series(arrays, "grad")
    got = opcheck.backward(op, inputs, heads_for(op, inputs, heads, params), **params)
    for j, w in enumerate(want):
        assert_same(got[j], w, f"{op}{params} gradient {j}")


def check_add(op: str, inputs: list[np.ndarray], params: dict, seed: int = 0) -> None:
    """req=ADD adds the gradient to what the gradient array held."""
    rng = np.random.default_rng(seed)
    outs = opcheck.forward(op, inputs, **params)
    heads = [rng.normal(size=o.shape).astype(o.dtype) for o in outs]
    init = [rng.normal(size=a.shape).astype(a.dtype) for a in inputs]
    plain = opcheck.backward(op, inputs, heads, **params)
    added = opcheck.backward(op, inputs, heads, req=OpReq.ADD, grad_init=init, **params)
    for p, a, i in zip(plain, added, init):
        np.testing.assert_allclose(a, i + p, rtol=1e-6, atol=1e-6, equal_nan=True)


def check_numeric(op: str, inputs: list[np.ndarray], params: dict, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    outs = opcheck.forward(op, inputs, **params)
    heads = [rng.normal(size=o.shape) for o in outs]
    analytic = opcheck.backward(op, inputs, heads, **params)
    numeric = opcheck.numeric_grad(op, inputs, heads, **params)
    for a, n in zip(analytic, numeric):
        np.testing.assert_allclose(a, n, rtol=1e-6, atol=1e-7)


# ---- golden ---------------------------------------------------------------------------------

CASES = load_cases(REDUCE_OPS)
needs_golden = pytest.mark.skipif(not CASES, reason="golden file reduce.npz is absent")
IDS = [f"{i}-{op}" for i, op, *_ in CASES]


@needs_golden
def test_golden_covers_every_op() -> None:
    assert {op for _, op, *_ in CASES} == REDUCE_OPS


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_forward_matches_mxnet(case) -> None:
    _, op, params, _, arrays = case
    check_golden_forward(op, params, arrays)


@pytest.mark.parametrize(
    "case", [c for c in CASES if c[3]], ids=[i for i, c in zip(IDS, CASES) if c[3]]
)
def test_backward_matches_mxnet(case) -> None:
    _, op, params, _, arrays = case
    check_golden_backward(op, params, arrays)


# ---- finite differences and accumulation ----------------------------------------------------

rng0 = np.random.default_rng(7)
X = rng0.uniform(0.5, 1.5, size=(2, 3, 4))
XS = rng0.permutation(24).reshape(2, 3, 4) * 0.1 - 1.0  # distinct values: max/min smooth
XN = X.copy()
XN.reshape(-1)[::5] = np.nan

NUMERIC = [
    ("sum", X, {"axis": (0, 2)}),
    ("sum", X, {"axis": 1, "exclude": True, "keepdims": True}),
    ("mean", X, {"axis": -1}),
    ("mean", X, {}),
    ("prod", X, {"axis": 1}),
    ("nanprod", X, {"axis": (1, 2), "keepdims": True}),
    ("nansum", X, {"axis": 0}),
    ("max", XS, {"axis": 2}),
    ("min", XS, {"axis": (0, 1)}),
    ("norm", XS, {}),
    ("norm", XS, {"ord": 1, "axis": 1}),
    ("norm", X, {"axis": (0, 2), "keepdims": True}),
    ("moments", X, {"axes": (0, 2)}),
    ("moments", X, {"axes": 1, "keepdims": True}),
]


@pytest.mark.parametrize("op,x,params", NUMERIC, ids=[f"{c[0]}-{c[2]}" for c in NUMERIC])
def test_backward_matches_finite_differences(op: str, x: np.ndarray, params: dict) -> None:
    check_numeric(op, [x], params)


ADD = NUMERIC + [
    ("nansum", XN, {"axis": 1}),
    ("argmax", XS, {"axis": 1}),
    ("argmin", XS.astype(np.float32), {}),
]


@pytest.mark.parametrize("op,x,params", ADD, ids=[f"{c[0]}-{c[2]}" for c in ADD])
def test_req_add_accumulates(op: str, x: np.ndarray, params: dict) -> None:
    check_add(op, [x], params)


def test_max_gradient_goes_to_every_tie() -> None:
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], np.float32)
    (g,) = opcheck.backward("max", [x], [np.array([2.0, 5.0], np.float32)], axis=1)
    np.testing.assert_array_equal(g, [[0, 2, 2], [5, 5, 0]])


def test_nansum_gradient_skips_nan() -> None:
    (g,) = opcheck.backward("nansum", [XN], [np.ones((2, 4))], axis=1)
    np.testing.assert_array_equal(g, ~np.isnan(XN))


def test_argmax_has_zero_gradient_and_reads_nothing() -> None:
    (g,) = opcheck.backward("argmax", [XS], [np.ones((2, 4))], axis=1)
    assert not g.any()
    assert opcheck.prop_of("argmax", axis=1).declare_backward_dependency([0], [1], [2]) == []


def test_backward_dependencies() -> None:
    dep = lambda name, **p: opcheck.prop_of(name, **p).declare_backward_dependency(  # noqa: E731
        [10, 11], [20], [30, 31]
    )
    assert dep("sum") == [10, 11]
    assert dep("mean") == [10, 11]
    assert dep("max") == [10, 11, 20, 30, 31]
    assert dep("nansum") == [10, 11, 20]
    assert dep("norm", ord=1) == [10, 11, 20]
    assert dep("moments", axes=(0,)) == [10, 11, 20, 30]


# ---- shapes, dtypes and MXNet's edge cases --------------------------------------------------


SHAPES = [  # (params, output shape, the axes NumPy reduces)
    ({}, (1,), (0, 1, 2)),
    ({"axis": ()}, (1,), (0, 1, 2)),
    ({"axis": (), "keepdims": True}, (1, 1, 1), (0, 1, 2)),
    ({"axis": -1}, (2, 3), (2,)),
    ({"axis": (0, -1)}, (3,), (0, 2)),
    ({"axis": (0, 1, 2)}, (1,), (0, 1, 2)),
    ({"axis": (0, 2), "exclude": True}, (2, 4), (1,)),
    ({"axis": 1, "exclude": True}, (3,), (0, 2)),
    ({"axis": 1, "exclude": True, "keepdims": True}, (1, 3, 1), (0, 2)),
    ({"axis": (0, 1, 2), "exclude": True}, (2, 3, 4), ()),
    ({"axis": (), "exclude": True}, (1,), (0, 1, 2)),
    ({"axis": "(0, 2)", "keepdims": "True"}, (1, 3, 1), (0, 2)),
]


@pytest.mark.parametrize("params,shape,red", SHAPES, ids=[str(s[0]) for s in SHAPES])
def test_reduce_shapes(params: dict, shape: tuple, red: tuple) -> None:
    (y,) = opcheck.forward("sum", [X], **params)
    assert y.shape == shape
    np.testing.assert_allclose(y.reshape(-1), X.sum(axis=red).reshape(-1))


def test_integer_mean_truncates_toward_zero() -> None:
    x = np.array([[-7, 0, 0], [7, 1, 0]], np.int32)
    (y,) = opcheck.forward("mean", [x], axis=1)
    np.testing.assert_array_equal(y, [-2, 2])
    assert y.dtype == np.int32


def test_norm_out_dtype_casts() -> None:
    (y,) = opcheck.forward("norm", [X.astype(np.float32)], out_dtype="float64")
    assert y.dtype == np.float64 and np.isclose(y[0], np.sqrt((X**2).sum()), rtol=1e-6)
    (g,) = opcheck.backward("norm", [X.astype(np.float32)], [np.ones(1)], out_dtype="float64")
    assert g.dtype == np.float32 and np.allclose(g, X / np.sqrt((X**2).sum()), rtol=1e-5)


def test_argmax_dtype_follows_input() -> None:
    for dt in ("float16", "float32", "float64", "int32"):
        (y,) = opcheck.forward("argmax", [XS.astype(dt)], axis=0)
        assert y.dtype == np.dtype(dt)


def test_moments_outputs() -> None:
    prop = opcheck.prop_of("moments", axes=(1,))
    assert prop.list_outputs() == ["output0", "output1"]
    m, v = opcheck.forward("moments", [X], axes=(1,))
    np.testing.assert_allclose(m, X.mean(axis=1))
    np.testing.assert_allclose(v, X.var(axis=1))


# ---- bad input ------------------------------------------------------------------------------

BAD = [
    ("sum", X, {"axis": 3}, ShapeError, "sum.*'axis'"),
    ("mean", X, {"axis": -4}, ShapeError, "mean.*'axis'"),
    ("prod", X, {"axis": (0, 0)}, ShapeError, "prod.*'axis'.*duplicates"),
    ("sum", X, {"kepdims": True}, ParamError, "sum.*'kepdims'"),
    ("nansum", X, {"exclude": "maybe"}, ParamError, "nansum.*'exclude'"),
    ("nanprod", X, {"axis": "x"}, ParamError, "nanprod.*'axis'"),
    ("max", np.zeros((0, 3)), {"axis": 1}, ShapeError, "max"),
    ("min", X, {"axis": 5}, ShapeError, "min.*'axis'"),
    ("norm", X, {"ord": 3}, ParamError, "norm.*'ord'"),
    ("norm", X, {"out_dtype": "uint8"}, ParamError, "norm.*'out_dtype'"),
    ("norm", X, {"axis": (0, 3)}, ShapeError, "norm.*'axis'"),
    ("argmax", X, {"axis": 3}, ShapeError, "argmax.*'axis'"),
    ("argmin", X, {"axis": (0, 1)}, ParamError, "argmin.*'axis'"),
    ("argmax_channel", np.ones(4), {}, ShapeError, "argmax_channel.*'data'"),
    ("moments", X, {}, ParamError, "moments.*'axes'"),
    ("moments", X, {"axes": ()}, ParamError, "moments.*'axes'"),
    ("moments", X, {"axes": (4,)}, ShapeError, "moments.*'axis'"),
]


@pytest.mark.parametrize("op,x,params,exc,match", BAD, ids=[f"{b[0]}-{b[2]}" for b in BAD])
def test_bad_input_raises(op: str, x: np.ndarray, params: dict, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        opcheck.forward(op, [x], **params)


def test_bad_input_through_mx_nd_raises_at_the_call() -> None:
    with pytest.raises(ShapeError, match="sum.*'axis'"):
        mx.nd.sum(mx.nd.ones((2, 3)), axis=2)


# ---- the public functions -------------------------------------------------------------------

PUBLIC = [
    ("sum", {"axis": 1}, lambda x: x.sum(axis=1)),
    ("sum_axis", {"axis": 1}, lambda x: x.sum(axis=1)),
    ("mean", {"axis": (0, 2)}, lambda x: x.mean(axis=(0, 2))),
    ("prod", {"axis": 0}, lambda x: x.prod(axis=0)),
    ("nansum", {}, lambda x: np.array([x.sum()])),
    ("nanprod", {"axis": 2, "keepdims": True}, lambda x: x.prod(axis=2, keepdims=True)),
    ("max", {"axis": 1}, lambda x: x.max(axis=1)),
    ("max_axis", {"axis": 1}, lambda x: x.max(axis=1)),
    ("min", {"axis": -1}, lambda x: x.min(axis=-1)),
    ("min_axis", {"axis": -1}, lambda x: x.min(axis=-1)),
    ("norm", {}, lambda x: np.array([np.sqrt((x**2).sum())])),
    ("argmax", {"axis": 1}, lambda x: x.argmax(axis=1).astype(np.float32)),
    ("argmin", {"axis": 0}, lambda x: x.argmin(axis=0).astype(np.float32)),
    ("argmax_channel", {}, lambda x: x.argmax(axis=1).astype(np.float32)),
]


@pytest.mark.parametrize("name,params,ref", PUBLIC, ids=[p[0] for p in PUBLIC])
def test_public_function(name: str, params: dict, ref: Any) -> None:
    x = XS.astype(np.float32)
    y = getattr(mx.nd, name)(mx.nd.array(x), **params).asnumpy()
    np.testing.assert_allclose(y, ref(x), rtol=1e-5)


def test_public_moments_and_methods() -> None:
    x = mx.nd.array(XS)
    mean, var = mx.nd.moments(x, axes=(0, 1))
    np.testing.assert_allclose(mean.asnumpy(), XS.mean(axis=(0, 1)), rtol=1e-5)
    np.testing.assert_allclose(var.asnumpy(), XS.var(axis=(0, 1)), rtol=1e-5)
    np.testing.assert_allclose(x.sum(axis=2).asnumpy(), XS.sum(axis=2), rtol=1e-5)
    np.testing.assert_allclose(x.max().asnumpy(), [XS.max()], rtol=1e-6)
    assert x.argmax(axis=0).shape == (3, 4)


def test_autograd_through_public_function() -> None:
    x = mx.nd.array(XS)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.max(x, axis=1)
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), XS == XS.max(axis=1, keepdims=True))
