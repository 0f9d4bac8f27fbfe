"""dot and batch_dot against MXNet 1.9.1 (golden file), finite differences, requests, errors
and the public functions."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, MXNetError, ShapeError
from mxlite.operator import registry
from mxlite.operator.req import OpReq

from . import opcheck

GOLD = opcheck.golden("linalg")
CASES = [{"id": k, **c} for k, c in GOLD.cases.items() if c["op"] in ("dot", "batch_dot")]
IDS = [c["id"] for c in CASES]


def tol(dtype: str) -> dict:
    return {"rtol": 1e-5, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-12}


def arrays(case: dict, kind: str) -> list[np.ndarray]:
    return GOLD.series(case["id"], kind)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_forward_matches_mxnet(case):
    (got,) = opcheck.forward(case["op"], arrays(case, "in"), **case["params"])
    (want,) = arrays(case, "out")
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, **tol(case["dtypes"][0]))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_backward_matches_mxnet(case):
    grads = opcheck.backward(case["op"], arrays(case, "in"), arrays(case, "head"), **case["params"])
    for got, want in zip(grads, arrays(case, "grad"), strict=True):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, **tol(case["dtypes"][0]))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_backward_matches_finite_differences(case):
    xs = [x.astype(np.float64) for x in arrays(case, "in")]
    heads = [h.astype(np.float64) for h in arrays(case, "head")]
    got = opcheck.backward(case["op"], xs, heads, **case["params"])
    num = opcheck.numeric_grad(case["op"], xs, heads, **case["params"])
    for g, n in zip(got, num, strict=True):
        np.testing.assert_allclose(g, n, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_req_add_accumulates(case):
    xs, heads = arrays(case, "in"), arrays(case, "head")
    rng = np.random.default_rng(5)
    init = [rng.standard_normal(x.shape).astype(x.dtype) for x in xs]
    plain = opcheck.backward(case["op"], xs, heads, **case["params"])
    added = opcheck.backward(case["op"], xs, heads, req=OpReq.ADD, grad_init=init, **case["params"])
    for a, p, i in zip(added, plain, init, strict=True):
        np.testing.assert_allclose(a, i + p, **tol(case["dtypes"][0]))
    out_init = [np.full(o.shape, 2, o.dtype) for o in arrays(case, "out")]
    (fwd_add,) = opcheck.forward(case["op"], xs, req=OpReq.ADD, out_init=out_init, **case["params"])
    np.testing.assert_allclose(fwd_add, arrays(case, "out")[0] + 2, **tol(case["dtypes"][0]))


def test_forward_on_non_contiguous_output_buffer_is_still_written():
    a, b = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)
    prop = registry.get("dot").get_prop({})
    out = np.zeros((4, 2), np.float32).T  # a transposed view: not C-contiguous
    prop.create_operator(mx.cpu()).forward(None, [a, b], [OpReq.WRITE], [out], [])
    assert (out == 3).all()


@pytest.mark.parametrize("op", ["dot", "batch_dot"])
def test_public_function(op):
    case = next(c for c in CASES if c["op"] == op)
    ins = [mx.nd.array(x, dtype=x.dtype) for x in arrays(case, "in")]
    got = getattr(mx.nd, op)(*ins, **case["params"]).asnumpy()
    np.testing.assert_allclose(got, arrays(case, "out")[0], **tol(case["dtypes"][0]))
    named = getattr(mx.nd, op)(lhs=ins[0], rhs=ins[1], **case["params"]).asnumpy()
    np.testing.assert_allclose(named, got)


def test_forward_stype_is_accepted():
    x = mx.nd.ones((2, 3))
    y = mx.nd.dot(x, x, transpose_b=True, forward_stype="default").asnumpy()
    assert (y == 3).all()
    with pytest.raises(MXNetError, match="dot.*'forward_stype'"):
        mx.nd.dot(x, x, transpose_b=True, forward_stype="dense")


def test_argument_names_and_dependencies():
    for op in ("dot", "batch_dot"):
        prop = registry.get(op).get_prop({})
        assert prop.list_arguments() == ["lhs", "rhs"]
        assert prop.declare_backward_dependency([1], [2, 3], [4]) == [1, 2, 3]


BAD = [
    ("dot", [(3,), (3,)], {"transpose_a": True}, ShapeError, "dot.*transpose vectors"),
    ("dot", [(2, 3, 4), (3, 2, 2)], {}, ShapeError, "dot.*'rhs'.*4.*3"),
    ("dot", [(3, 4), (3, 5)], {"transpose_b": True}, ShapeError, "dot.*'rhs'"),
    ("dot", [(3,), (4,)], {}, ShapeError, "dot.*'rhs'"),
    ("batch_dot", [(2, 3), (3, 2)], {}, ShapeError, "batch_dot.*'lhs' and 'rhs'.*N >= 3"),
    ("batch_dot", [(2, 3, 4), (2, 2, 4, 5)], {}, ShapeError, "batch_dot.*N >= 3"),
    ("batch_dot", [(2, 3, 4), (3, 4, 5)], {}, ShapeError, "batch_dot.*'rhs'.*batch"),
    ("batch_dot", [(2, 3, 4), (2, 3, 5)], {}, ShapeError, "batch_dot.*'rhs'.*contract"),
]


@pytest.mark.parametrize("op,shapes,params,exc,match", BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_shapes_raise(op, shapes, params, exc, match):
    with pytest.raises(exc, match=match):
        opcheck.forward(op, [np.ones(s, np.float32) for s in shapes], **params)


@pytest.mark.parametrize("op", ["dot", "batch_dot"])
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8"])
def test_integer_inputs_are_rejected(op, dtype):
    with pytest.raises(DTypeError, match=f"{op}.*'lhs'.*{dtype}"):
        getattr(mx.nd, op)(mx.nd.ones((2, 2, 2), dtype=dtype), mx.nd.ones((2, 2, 2), dtype=dtype))


@pytest.mark.parametrize("op", ["dot", "batch_dot"])
def test_float16_needs_gpu_as_in_mxnet(op):
    x = np.ones((2, 2, 2), np.float16)
    with pytest.raises(DTypeError, match=f"{op}.*float16"):
        opcheck.forward(op, [x, x])


def test_mixed_dtypes_are_rejected():
    with pytest.raises(DTypeError, match="dot.*'rhs'"):
        opcheck.forward("dot", [np.ones((2, 2), np.float32), np.ones((2, 2), np.float64)])


def test_batch_dot_under_numpy_shapes_takes_a_0_as_empty_only_where_it_cannot_be_unknown() -> None:
    x, y = mx.sym.Variable("x"), mx.sym.Variable("y")
    z = mx.sym.batch_dot(x, y)
    with mx.np_shape(True):
        # infer_shape_partial's -1s (unknown) meet the operator as 0s: no output, as MXNet
        assert z.infer_shape_partial(x=(-1, 3, 4), y=(-1, -1, 5))[1] == [None]
        assert z.infer_shape_partial(x=(-1, 3, 4), y=(-1, 4, 5))[1] == [(-1, 3, 5)]
        # an imperative call knows every dim: a 0 is an empty axis (MXNet's test_npx_batch_dot)
        a = mx.nd.zeros((0, 3, 0))
        b = mx.nd.zeros((0, 0, 2))
        assert mx.nd.batch_dot(a, b).shape == (0, 3, 2)
        c = mx.nd.batch_dot(mx.nd.ones((2, 3, 0)), mx.nd.ones((2, 4, 0)), transpose_b=True)
        assert c.shape == (2, 3, 4) and not c.asnumpy().any()
