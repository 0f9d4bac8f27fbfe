"""Tests for mxlite.operator.tensor.misc: clip, where, add_n, zeros_like/ones_like and the
creation operators, against golden values from MXNet 1.9.1 and by their rules."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, MXNetError, ParamError, ShapeError
from mxlite.operator.req import OpReq

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
MISC_CASES = sorted(k for k, c in CASES.items() if c["op"] in MISC_OPS)
TOL = {"float16": (2e-3, 2e-3), "float32": (2e-6, 1e-7), "float64": (1e-12, 1e-14)}


def _close(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    if want.dtype.kind in "iub":
        np.testing.assert_array_equal(got, want)
    else:
        rtol, atol = TOL[want.dtype.name]
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def _inputs(case: str) -> list[np.ndarray]:
    return GOLD.inputs(case)


def _params(case: str) -> dict:
    p = dict(CASES[case]["params"])
    if "shape" in p:
        p["shape"] = tuple(p["shape"])  # JSON made it a list
    if CASES[case]["op"] in ("add_n", "ElementWiseSum"):
        p["num_args"] = CASES[case]["n_in"]  # mx.nd fills it in from the inputs
    return p


def test_golden_covers_every_misc_operator() -> None:
    assert {CASES[k]["op"] for k in MISC_CASES} == MISC_OPS


@pytest.mark.parametrize("case", MISC_CASES)
def test_forward_matches_mxnet(case: str) -> None:
    out = opcheck.forward(CASES[case]["op"], _inputs(case), **_params(case))[0]
    _close(out, GOLD[f"{case}/out0"])


@pytest.mark.parametrize("case", [k for k in MISC_CASES if CASES[k]["grad"]])
def test_backward_matches_mxnet(case: str) -> None:
    grads = opcheck.backward(
        CASES[case]["op"], _inputs(case), [GOLD[f"{case}/head0"]], **_params(case)
    )
    for i, g in enumerate(grads):
        _close(g, GOLD[f"{case}/grad{i}"])


def _rand(*shape: int, seed: int = 0, low: float = -1.0, high: float = 1.0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(low, high, size=shape)


GRAD_CASES = {
    "clip": ([_rand(2, 3)], {"a_min": -0.45, "a_max": 0.55}),
    "where": ([np.array([[1.0, 0, -2], [0, 3, 0]]), _rand(2, 3, seed=1), _rand(2, 3, seed=2)], {}),
    "where-rows": ([np.array([0.0, 5.0]), _rand(2, 3, seed=1), _rand(2, 3, seed=2)], {}),
    "add_n": ([_rand(2, 3, seed=i) for i in range(4)], {"num_args": 4}),
    "zeros_like": ([_rand(2, 3)], {}),
    "ones_like": ([_rand(2, 3)], {}),
}


@pytest.mark.parametrize("key", sorted(GRAD_CASES))
def test_backward_matches_finite_differences(key: str) -> None:
    name = key.split("-")[0]
    inputs, params = GRAD_CASES[key]
    head = _rand(2, 3, seed=7)
    got = opcheck.backward(name, inputs, [head], **params)
    want = opcheck.numeric_grad(name, inputs, [head], **params)
    for i, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-8, err_msg=f"input {i}")


@pytest.mark.parametrize("key", sorted(GRAD_CASES))
def test_req_add_accumulates(key: str) -> None:
    name = key.split("-")[0]
    inputs, params = GRAD_CASES[key]
    head = _rand(2, 3, seed=7)
    init = [np.full(a.shape, 3.0) for a in inputs]
    plain = opcheck.backward(name, inputs, [head], **params)
    added = opcheck.backward(name, inputs, [head], req=OpReq.ADD, grad_init=init, **params)
    for a, p, i in zip(added, plain, init):
        np.testing.assert_allclose(a, i + p)
    out = opcheck.forward(name, inputs, **params)[0]
    acc = opcheck.forward(name, inputs, req=OpReq.ADD, out_init=[np.ones_like(out)], **params)
    np.testing.assert_allclose(acc[0], out + 1)


def test_add_n_in_place_and_dependencies() -> None:
    prop = opcheck.prop_of("add_n", num_args=3)
    assert prop.list_arguments() == ["arg0", "arg1", "arg2"]
    assert prop.declare_backward_dependency([0], [1, 2, 3], [4]) == [0]
    assert prop.forward_inplace_option([1, 2, 3], [4]) == [(1, 4)]
    xs = [_rand(4, seed=i) for i in range(3)]
    want = xs[0] + xs[1] + xs[2]
    buf = [x.copy() for x in xs]
    for target in (0, 2):  # the output may be any input for out=...
        buf = [x.copy() for x in xs]
        prop.create_operator(mx.cpu()).forward(
            opcheck.OpContext(False, None, []), buf, [OpReq.INPLACE], [buf[target]], []
        )
        np.testing.assert_allclose(buf[target], want)
    assert opcheck.prop_of("where").declare_backward_dependency([0], [1, 2, 3], [4]) == [0, 1]
    assert opcheck.prop_of("clip", a_min=0, a_max=1).declare_backward_dependency([0], [1], [2]) == [
        0,
        1,
    ]


def test_shape_inference_fills_unknowns() -> None:
    zeros = opcheck.prop_of("_zeros", shape=(2, 0))
    assert zeros.infer_shape([], [(2, 5)])[1] == [(2, 5)]
    assert opcheck.prop_of("_zeros").infer_shape([], [None]) is None
    assert opcheck.prop_of("_zeros").infer_shape([], [(4,)])[1] == [(4,)]
    where = opcheck.prop_of("where")
    ins, outs, _ = where.infer_shape([(2, 3), None, (2, 3)])
    assert ins == [(2, 3), (2, 3), (2, 3)] and outs == [(2, 3)]
    ins, outs, _ = where.infer_shape([(2,), (2, 0), None], [(0, 4)])
    assert ins[1] == (2, 4) and outs == [(2, 4)]
    ar = opcheck.prop_of("_arange", start=0, infer_range=True)
    assert ar.infer_shape([], [None]) is None and ar.infer_shape([], [(6,)])[1] == [(6,)]
    assert opcheck.prop_of("_arange", start=3).attrs() == {"start": "3"}


def test_creation_rules() -> None:
    out = opcheck.forward("_arange", [], start=0, stop=6, infer_range=True)
    assert out[0].tolist() == [0, 1, 2, 3, 4, 5]
    assert opcheck.forward("_full", [], shape=(2,), value=0.5, dtype="bool")[0].all()
    assert opcheck.forward("_zeros", [], shape=(2,), dtype="bool")[0].dtype == np.bool_
    assert opcheck.forward("_linspace", [], start=0, stop=1, num=0)[0].shape == (0,)
    assert opcheck.forward("_eye", [], N=0)[0].shape == (0, 0)
    assert opcheck.forward("clip", [np.arange(-3, 4, dtype=np.int8)], a_min=-1.5, a_max=2.5)[
        0
    ].tolist() == [-1, -1, -1, 0, 1, 2, 2]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_clip_keeps_nan_and_signed_zero_and_crossed_bounds(dtype) -> None:
    """MXNet's clip is ``x > a_max ? a_max : (x < a_min ? a_min : x)``: NaN and -0.0 pass
    through, and with a_min > a_max values below a_min become a_min."""
    x = np.array([np.nan, -0.0, 0.0, -1, 7, 6, 3, np.inf, -np.inf], dtype)
    y = opcheck.forward("clip", [x], a_min=0, a_max=6)[0]
    np.testing.assert_array_equal(y, [np.nan, 0, 0, 0, 6, 6, 3, 6, 0])
    assert np.signbit(y[1]) and not np.signbit(y[2]) and y.dtype == dtype
    crossed = opcheck.forward("clip", [np.array([1, 3, 6], dtype)], a_min=5, a_max=2)[0]
    assert crossed.tolist() == [5, 2, 2]


def test_errors_name_the_operator_and_argument() -> None:
    x = np.ones((2, 3), np.float32)
    with pytest.raises(ParamError, match="clip.*a_max"):
        opcheck.forward("clip", [x], a_min=0)
    with pytest.raises(ShapeError, match="where.*'y'"):
        opcheck.forward("where", [x, x, np.ones((3, 2), np.float32)])
    with pytest.raises(ShapeError, match="where.*'condition'"):
        opcheck.forward("where", [np.ones(3, np.float32), x, x])
    with pytest.raises(DTypeError, match="where.*'y'.*float64"):
        opcheck.forward("where", [x, x, x.astype(np.float64)])
    with pytest.raises(ShapeError, match="add_n.*arg1"):
        opcheck.forward("add_n", [x, np.ones((3,), np.float32)], num_args=2)
    with pytest.raises(DTypeError, match="add_n.*arg1"):
        opcheck.forward("add_n", [x, x.astype(np.float64)], num_args=2)
    with pytest.raises(ParamError, match="add_n.*num_args"):
        opcheck.forward("add_n", [x], num_args=0)
    with pytest.raises(MXNetError, match="add_n.*num_args"):
        opcheck.forward("add_n", [x, x], num_args=3)
    with pytest.raises(ParamError, match="_arange.*step"):
        opcheck.forward("_arange", [], start=0, stop=3, step=0)
    with pytest.raises(ParamError, match="_arange.*repeat"):
        opcheck.forward("_arange", [], start=0, stop=3, repeat=0)
    with pytest.raises(ParamError, match="_arange.*invalid range"):
        opcheck.forward("_arange", [], start=1, stop=0)
    with pytest.raises(ParamError, match="_arange.*dtype"):
        opcheck.forward("_arange", [], start=3, dtype="bool")
    with pytest.raises(ShapeError, match="_zeros.*shape"):
        opcheck.forward("_zeros", [])
    with pytest.raises(ShapeError, match="_ones.*shape"):
        opcheck.forward("_ones", [], shape=(2, 0))
    # bfloat16 is a dtype like the others (ml_dtypes' NumPy dtype)
    assert opcheck.forward("_zeros", [], shape=(2,), dtype="bfloat16")[0].dtype.name == "bfloat16"
    with pytest.raises(ParamError, match="_full.*value"):
        opcheck.forward("_full", [], shape=(2,))
    with pytest.raises(ParamError, match="_eye.*'N'"):
        opcheck.forward("_eye", [], N=-1)
    with pytest.raises(ParamError, match="_linspace.*num"):
        opcheck.forward("_linspace", [], start=0, stop=1, num=-1)


def test_public_functions_and_aliases() -> None:
    a = mx.nd.array([[1.0, -2.0], [3.0, 0.5]])
    b = mx.nd.array([[2.0, 2.0], [2.0, 2.0]])
    np.testing.assert_allclose(mx.nd.clip(a, a_min=0.0, a_max=2.0).asnumpy(), [[1, 0], [2, 0.5]])
    np.testing.assert_allclose(mx.nd.where(mx.nd.array([1, 0]), a, b).asnumpy(), [[1, -2], [2, 2]])
    np.testing.assert_allclose(mx.nd.add_n(a, b, a).asnumpy(), (2 * a + b).asnumpy())
    np.testing.assert_allclose(mx.nd.ElementWiseSum(a, b).asnumpy(), (a + b).asnumpy())
    assert mx.nd.zeros_like(a).asnumpy().sum() == 0 and mx.nd.ones_like(a).asnumpy().sum() == 4
    assert a.zeros_like().shape == (2, 2) and a.ones_like().asnumpy().all()
    internal = mx.nd._internal
    assert internal._zeros(shape=(2, 3)).shape == (2, 3)
    assert internal._ones(shape=(2,), dtype="int32").asnumpy().tolist() == [1, 1]
    assert internal._full(shape=(2,), value=2.7, dtype="int32").asnumpy().tolist() == [2, 2]
    assert internal._arange(start=3).asnumpy().tolist() == [0, 1, 2]
    assert internal._eye(N=2, k=1).asnumpy().tolist() == [[0, 1], [0, 0]]
    assert internal._linspace(start=0, stop=1, num=3).asnumpy().tolist() == [0, 0.5, 1]
    assert internal._zeros(shape=(1,), ctx=mx.cpu()).context == mx.cpu()
