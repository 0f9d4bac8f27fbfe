"""Ordering and related operators (mxlite/operator/tensor/ordering.py): sort, argsort, topk,
cumsum, _histogram and khatri_rao against real MXNet 1.9.1 golden values, finite differences,
gradient accumulation, bad input and the public mx.nd functions."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, ParamError, ShapeError

from . import opcheck
from .test_reduce import (
    check_add,
    check_golden_backward,
    check_golden_forward,
    check_numeric,
    load_cases,
)

ORDER_OPS = {"sort", "argsort", "topk", "cumsum", "_histogram", "khatri_rao"}

CASES = load_cases(ORDER_OPS)
IDS = [f"{i}-{op}" for i, op, *_ in CASES]
GRAD_CASES = [c for c in CASES if c[3]]
GRAD_IDS = [f"{i}-{op}" for i, op, *_ in GRAD_CASES]


@pytest.mark.skipif(not CASES, reason="golden file reduce.npz is absent")
def test_golden_covers_every_op() -> None:
    assert {op for _, op, *_ in CASES} == ORDER_OPS


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_forward_matches_mxnet(case) -> None:
    _, op, params, _, arrays = case
    check_golden_forward(op, params, arrays)


@pytest.mark.parametrize("case", GRAD_CASES, ids=GRAD_IDS)
def test_backward_matches_mxnet(case) -> None:
    _, op, params, _, arrays = case
    check_golden_backward(op, params, arrays)


# ---- finite differences and accumulation ----------------------------------------------------

_rng = np.random.default_rng(3)
XD = _rng.permutation(30).reshape(2, 3, 5) * 0.1 - 1.5  # distinct: sorting is smooth
XT = np.array([[1.0, 3.0, 1.0, 2.0, 3.0], [0.0, 0.0, 0.0, -1.0, 2.0]])  # ties

NUMERIC = [
    ("sort", [XD], {}),
    ("sort", [XD], {"axis": 1, "is_ascend": False}),
    ("sort", [XD], {"axis": None}),
    ("topk", [XD], {"k": 2, "ret_typ": "value"}),
    ("topk", [XD], {"k": 2, "axis": 0, "ret_typ": "both"}),
    ("topk", [XD], {"k": 4, "axis": None, "ret_typ": "value", "is_ascend": True}),
    ("cumsum", [XD], {}),
    ("cumsum", [XD], {"axis": 1}),
    ("cumsum", [XD], {"axis": -1}),
]


@pytest.mark.parametrize("op,inputs,params", NUMERIC, ids=[f"{c[0]}-{c[2]}" for c in NUMERIC])
def test_backward_matches_finite_differences(op: str, inputs: list, params: dict) -> None:
    check_numeric(op, inputs, params)


ADD = NUMERIC + [
    ("argsort", [XD], {}),
    ("topk", [XD], {"k": 2, "ret_typ": "indices"}),
    ("topk", [XD], {"k": 2, "ret_typ": "mask"}),
    ("cumsum", [XD.astype(np.float32)], {"axis": 0, "dtype": "float64"}),
]


@pytest.mark.parametrize("op,inputs,params", ADD, ids=[f"{c[0]}-{c[2]}" for c in ADD])
def test_req_add_accumulates(op: str, inputs: list, params: dict) -> None:
    check_add(op, inputs, params)


# ---- semantics --------------------------------------------------------------------------------


def test_ties_keep_their_order_both_ways() -> None:
    (up,) = opcheck.forward("argsort", [XT])
    (down,) = opcheck.forward("argsort", [XT], is_ascend=False)
    np.testing.assert_array_equal(up, [[0, 2, 3, 1, 4], [3, 0, 1, 2, 4]])
    np.testing.assert_array_equal(down, [[1, 4, 3, 0, 2], [4, 0, 1, 2, 3]])


def test_sort_has_a_hidden_index_output() -> None:
    prop = opcheck.prop_of("sort")
    assert prop.num_outputs() == 2 and prop.num_visible_outputs() == 1
    vals, idx = opcheck.forward("sort", [XT], is_ascend=False)
    assert idx.dtype == np.int32
    np.testing.assert_array_equal(np.take_along_axis(XT, idx.astype(np.int64), -1), vals)
    assert prop.declare_backward_dependency([10], [20], [30, 31]) == [10, 31]


def test_topk_outputs_and_dtypes() -> None:
    p = lambda **kw: opcheck.prop_of("topk", **kw)  # noqa: E731
    assert p(ret_typ="indices").num_outputs() == 1
    assert p(ret_typ="mask").num_outputs() == 1
    assert (p(ret_typ="value").num_outputs(), p(ret_typ="value").num_visible_outputs()) == (2, 1)
    assert (p(ret_typ="both").num_outputs(), p(ret_typ="both").num_visible_outputs()) == (2, 2)
    x = XD.astype(np.float32)
    assert [o.dtype for o in opcheck.forward("topk", [x], ret_typ="both", dtype="int64")] == [
        np.float32,
        np.int64,
    ]
    assert [o.dtype for o in opcheck.forward("topk", [x], ret_typ="value")] == [
        np.float32,
        np.int32,
    ]
    (m,) = opcheck.forward("topk", [x], k=2, ret_typ="mask")
    assert m.dtype == np.float32 and m.shape == x.shape and (m.sum(axis=-1) == 2).all()
    (g,) = opcheck.backward("topk", [x], [np.ones_like(m)], k=2, ret_typ="mask")
    assert not g.any()


def test_topk_k_below_one_sorts_everything() -> None:
    (v, _) = opcheck.forward("topk", [XD], k=0, ret_typ="value")
    np.testing.assert_array_equal(v, -np.sort(-XD, axis=-1))


def test_cumsum_dtypes() -> None:
    (y,) = opcheck.forward("cumsum", [XT > 1], axis=1)
    assert y.dtype == np.int64
    (y,) = opcheck.forward("cumsum", [XT.astype(np.int8)], axis=1, dtype="int32")
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y, np.cumsum(XT.astype(np.int8), axis=1))
    assert opcheck.prop_of("cumsum").list_arguments() == ["a"]


def test_histogram_arguments_and_edges() -> None:
    assert opcheck.prop_of("_histogram", bin_cnt=3, range=(0, 1)).list_arguments() == ["data"]
    assert opcheck.prop_of("_histogram").list_arguments() == ["data", "bins"]
    x = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 9.0], np.float32)
    counts, edges = opcheck.forward("_histogram", [x], bin_cnt=4, range=(0.0, 2.0))
    assert counts.dtype == np.int64
    np.testing.assert_array_equal(counts, [1, 1, 1, 2])  # the last bin includes its right edge
    np.testing.assert_array_equal(edges, [0, 0.5, 1, 1.5, 2])
    bins = np.array([0.0, 1.0, 2.0], np.float32)
    counts, edges = opcheck.forward("_histogram", [x, bins])
    np.testing.assert_array_equal(counts, [2, 3])
    np.testing.assert_array_equal(edges, bins)


def test_khatri_rao_matches_column_kronecker() -> None:
    a, b, c = (np.random.default_rng(i).normal(size=(n, 3)) for i, n in enumerate((2, 3, 2)))
    (y,) = opcheck.forward("khatri_rao", [a, b, c], num_args=3)
    want = np.stack([np.kron(np.kron(a[:, k], b[:, k]), c[:, k]) for k in range(3)], axis=1)
    np.testing.assert_allclose(y, want)
    assert opcheck.prop_of("khatri_rao", num_args=3).list_arguments() == ["arg0", "arg1", "arg2"]


def test_no_gradient_for_histogram_and_khatri_rao() -> None:
    with pytest.raises(mx.base.MXNetError):
        opcheck.backward("khatri_rao", [XD[0], XD[1]], num_args=2)
    with pytest.raises(mx.base.MXNetError):
        opcheck.backward("_histogram", [XD], bin_cnt=2, range=(0, 1))


# ---- bad input ------------------------------------------------------------------------------

F16 = XD.astype(np.float16)
BAD = [
    ("sort", [F16], {}, DTypeError, "sort.*'data'.*float16"),
    ("argsort", [F16], {}, DTypeError, "argsort.*'data'.*float16"),
    ("sort", [XD], {"axis": 3}, ShapeError, "sort.*'axis'"),
    ("sort", [XD], {"is_ascend": "up"}, ParamError, "sort.*'is_ascend'"),
    ("argsort", [XD], {"dtype": "int8"}, ParamError, "argsort.*'dtype'"),
    ("topk", [XD], {"k": 6}, ShapeError, "topk.*'k'"),
    ("topk", [XD], {"ret_typ": "values"}, ParamError, "topk.*'ret_typ'"),
    ("topk", [XD], {"axis": -4}, ShapeError, "topk.*'axis'"),
    ("cumsum", [XD], {"axis": 3}, ShapeError, "cumsum.*'axis'"),
    ("cumsum", [XD], {"dtype": "uint8"}, ParamError, "cumsum.*'dtype'"),
    ("_histogram", [XD], {"bin_cnt": 3}, ParamError, "_histogram.*'bin_cnt'.*'range'"),
    ("_histogram", [XD], {"bin_cnt": 3, "range": (1, 0)}, ParamError, "_histogram.*'range'"),
    ("_histogram", [XD], {"bin_cnt": 3, "range": (0, 1, 2)}, ParamError, "_histogram.*'range'"),
    ("_histogram", [XD, np.ones((2, 2))], {}, ShapeError, "_histogram.*'bins'"),
    ("_histogram", [XD, np.ones(3, np.float32)], {}, DTypeError, "_histogram.*'bins'"),
    ("khatri_rao", [XD[0], np.ones((2, 4))], {"num_args": 2}, ShapeError, "khatri_rao.*'arg1'"),
    ("khatri_rao", [XD[0].astype(np.int32)] * 2, {"num_args": 2}, DTypeError, "khatri_rao"),
    ("khatri_rao", [XD[0]], {"num_args": 0}, ParamError, "khatri_rao.*'num_args'"),
]


@pytest.mark.parametrize("op,inputs,params,exc,match", BAD, ids=[f"{b[0]}-{b[2]}" for b in BAD])
def test_bad_input_raises(op: str, inputs: list, params: dict, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        opcheck.forward(op, inputs, **params)


# ---- the public functions -------------------------------------------------------------------

X32 = XD.astype(np.float32)
PUBLIC = [
    (mx.nd, "sort", {}, lambda x: np.sort(x, axis=-1)),
    (mx.nd._internal, "_npi_sort", {"axis": 0}, lambda x: np.sort(x, axis=0)),
    (mx.nd, "argsort", {}, lambda x: np.argsort(x, axis=-1).astype(np.float32)),
    (
        mx.nd._internal,
        "_npi_argsort",
        {"axis": None},
        lambda x: np.argsort(x, axis=None).astype(np.float32),
    ),
    (mx.nd, "topk", {"k": 2}, lambda x: np.argsort(-x, axis=-1)[..., :2].astype(np.float32)),
    (
        mx.nd._internal,
        "_npx_topk",
        {"k": 1, "ret_typ": "value"},
        lambda x: x.max(axis=-1, keepdims=True),
    ),
    (mx.nd, "cumsum", {"axis": 1}, lambda x: np.cumsum(x, axis=1)),
    (mx.nd._internal, "_np_cumsum", {}, lambda x: np.cumsum(x)),
]


@pytest.mark.parametrize("mod,name,params,ref", PUBLIC, ids=[p[1] for p in PUBLIC])
def test_public_function(mod, name: str, params: dict, ref) -> None:
    y = getattr(mod, name)(mx.nd.array(X32), **params).asnumpy()
    np.testing.assert_allclose(y, ref(X32), rtol=1e-6)


def test_public_multi_output_functions() -> None:
    x = mx.nd.array(X32)
    vals, idx = mx.nd.topk(x, k=2, axis=1, ret_typ="both")
    np.testing.assert_array_equal(vals.asnumpy(), -np.sort(-X32, axis=1)[:, :2])
    assert idx.dtype == np.float32
    for name in ("_histogram", "_npi_histogram"):
        counts, edges = getattr(mx.nd._internal, name)(x, bin_cnt=3, range=(-1.5, 1.5))
        np.testing.assert_array_equal(counts.asnumpy(), np.histogram(X32, 3, (-1.5, 1.5))[0])
        assert edges.shape == (4,)
    counts, _ = mx.nd._internal._histogram(x, mx.nd.array([-2.0, 0.0, 2.0]))
    np.testing.assert_array_equal(counts.asnumpy(), [15, 15])
    y = mx.nd.khatri_rao(mx.nd.array([[1, -1], [2, -3]]), mx.nd.array([[1, 4], [2, 5], [3, 6]]))
    np.testing.assert_array_equal(
        y.asnumpy(), [[1, -4], [2, -5], [3, -6], [2, -12], [4, -15], [6, -18]]
    )
    assert x.sort(axis=0).shape == X32.shape and x.topk(k=3).shape == (2, 3, 3)


def test_autograd_through_sort() -> None:
    x = mx.nd.array(X32)
    x.attach_grad()
    head = np.arange(X32.size, dtype=np.float32).reshape(X32.shape)
    with mx.autograd.record():
        y = mx.nd.sort(x, is_ascend=False)
    y.backward(mx.nd.array(head))
    order = np.argsort(-X32, axis=-1)
    want = np.zeros_like(X32)
    np.put_along_axis(want, order, head, axis=-1)
    np.testing.assert_array_equal(x.grad.asnumpy(), want)


@pytest.mark.parametrize("k", [1, 3, 8, 9, 25])
@pytest.mark.parametrize("ascend", [False, True])
@pytest.mark.parametrize(
    "values", ["ties", "ints", "normal", "infs", "nan"], ids=lambda v: f"values={v}"
)
def test_topk_few_of_many_keeps_the_stable_order(k, ascend, values) -> None:
    # k much smaller than the axis: arg-extrema or a partition in place of the sort; the
    # result is still the stable sort's (equal values in index order), along any axis
    rs = np.random.RandomState(k)
    shape = (3, 210, 4)
    if values == "ties":
        x = rs.randint(-2, 3, size=shape).astype(np.float32)
    elif values == "ints":
        x = rs.randint(-5, 6, size=shape).astype(np.int32)
    else:
        x = rs.normal(size=shape).astype(np.float32)
    if values == "infs":
        x[rs.uniform(size=shape) < 0.4] = -np.inf
        x[rs.uniform(size=shape) < 0.1] = np.inf
    if values == "nan":
        x[0, 5, 1] = np.nan
    v = np.moveaxis(x, 1, -1)
    n = v.shape[-1]
    if ascend:
        want = np.argsort(v, axis=-1, kind="stable")[..., :k]
    else:
        want = ((n - 1) - np.argsort(v[..., ::-1], axis=-1, kind="stable")[..., ::-1])[..., :k]
    want = np.moveaxis(want, -1, 1)
    a = mx.nd.array(x, dtype=x.dtype)
    got = mx.nd.topk(a, axis=1, k=k, is_ascend=ascend, ret_typ="indices", dtype="int64")
    np.testing.assert_array_equal(got.asnumpy(), want)
    vals = mx.nd.topk(a, axis=1, k=k, is_ascend=ascend, ret_typ="value").asnumpy()
    np.testing.assert_array_equal(vals, np.take_along_axis(x, want, axis=1))
    mask = mx.nd.topk(a, axis=1, k=k, is_ascend=ascend, ret_typ="mask").asnumpy()
    assert (mask.sum(axis=1) == k).all()
