"""Indexing operators (mxlite/operator/tensor/gather.py): golden values from MXNet 1.9.1, finite
differences, req='add', bad input and the public mx.nd functions."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, MXNetError, ParamError, ShapeError
from mxlite.operator import registry
from mxlite.operator.req import OpReq

from . import opcheck
from .test_shape import check_add, check_golden_case, check_numeric, golden_cases

GATHER_OPS = {
    "slice",
    "crop",
    "slice_axis",
    "slice_like",
    "take",
    "batch_take",
    "pick",
    "choose_element_0index",
    "one_hot",
    "gather_nd",
    "scatter_nd",
    "_ravel_multi_index",
    "ravel_multi_index",
    "_unravel_index",
    "unravel_index",
    "_slice_assign",
    "_slice_assign_scalar",
    "_crop_assign_scalar",
}


@pytest.mark.parametrize("i,case", golden_cases(GATHER_OPS))
def test_golden(i: int, case: dict) -> None:
    check_golden_case(i, case)


def _x(*shape: int) -> np.ndarray:
    return np.random.default_rng(sum(shape)).uniform(-1, 1, shape)


NUMERIC = [
    ("slice", [_x(4, 3)], {"begin": (3, None), "end": (0, None), "step": (-2, 2)}),
    ("slice_axis", [_x(3, 4)], {"axis": -1, "begin": 1, "end": None}),
    ("slice_like", [_x(3, 4), _x(2, 2)], {"axes": (1,)}),
    ("take", [_x(3, 2), np.array([0, 2, 0, 1.0])], {}),
    ("take", [_x(2, 3, 2), np.array([[4, -1], [1, 1]])], {"axis": 1, "mode": "wrap"}),
    ("pick", [_x(3, 4), np.array([0, 3, 9.0])], {}),
    ("pick", [_x(3, 4), np.array([[1, -2, 0, 2]])], {"axis": 0, "keepdims": True, "mode": "wrap"}),
    ("gather_nd", [_x(3, 2), np.array([[0, 0, 2], [1, 1, 0]])], {}),
    ("scatter_nd", [_x(2, 2), np.array([[0, 2]])], {"shape": (3, 2)}),
]


@pytest.mark.parametrize("op,inputs,params", NUMERIC, ids=lambda v: v if isinstance(v, str) else "")
def test_backward_matches_finite_differences(op: str, inputs: list, params: dict) -> None:
    check_numeric(op, inputs, [0], **params)
    check_add(op, inputs, [0], **params)


def test_repeated_indices_accumulate() -> None:
    x = np.arange(6.0).reshape(3, 2)
    g = opcheck.backward("take", [x, np.array([1, 1, 1])])[0]
    np.testing.assert_array_equal(g, [[0, 0], [3, 3], [0, 0]])
    g = opcheck.backward("gather_nd", [x, np.array([[2, 2], [0, 0]])])[0]
    np.testing.assert_array_equal(g, [[0, 0], [0, 0], [2, 0]])


def test_float_indices_truncate_and_clip() -> None:
    x = np.arange(4.0, dtype=np.float32)
    out = opcheck.forward("take", [x, np.array([0.9, 2.7, 7.0, -3.0], np.float32)])[0]
    np.testing.assert_array_equal(out, [0, 2, 3, 0])
    hot = opcheck.forward("one_hot", [np.array([1.8, -1, 9], np.float32)], depth=3)[0]
    np.testing.assert_array_equal(hot, [[0, 1, 0], [0, 0, 0], [0, 0, 0]])
    with pytest.raises(MXNetError, match="take.*indices"):
        opcheck.forward("take", [x, np.array([4.0])], mode="raise")


def test_assign_ops_write_the_block() -> None:
    x = np.zeros((3, 3), np.int32)
    out = opcheck.forward(
        "_slice_assign", [x, np.ones((3, 1), np.int32)], begin=(None, 1), end=(None, 2)
    )[0]
    np.testing.assert_array_equal(out, [[0, 1, 0]] * 3)
    out = opcheck.forward("_slice_assign_scalar", [x], scalar=2, begin=(-1,), end=(None,))[0]
    np.testing.assert_array_equal(out[2], [2, 2, 2])
    assert registry.get("_slice_assign").get_prop(
        {"begin": (0,), "end": (1,)}
    ).forward_inplace_option([0, 1], [2]) == [(0, 2)]


BAD = [
    ("slice", [(3, 4)], {"begin": (0, 0), "end": (1,)}, ShapeError, r"slice.*begin"),
    ("slice", [(3, 4)], {"begin": (0,), "end": (1,), "step": (0,)}, ShapeError, r"slice.*step"),
    ("slice", [(3, 4)], {"end": (1,)}, ParamError, r"slice.*begin"),
    ("slice_axis", [(3, 4)], {"axis": 1, "begin": 3, "end": 2}, ShapeError, r"slice_axis.*begin"),
    ("slice_axis", [(3, 4)], {"axis": 2, "begin": 0, "end": 1}, ShapeError, r"slice_axis.*axis"),
    ("slice_like", [(3, 4), (4, 4)], {}, ShapeError, r"slice_like.*shape_like"),
    ("take", [(3, 4), (2,)], {"axis": 2}, ShapeError, r"take.*axis"),
    ("take", [(3, 4), (2,)], {"mode": "nearest"}, ParamError, r"take.*mode"),
    ("pick", [(3, 4), (4,)], {}, ShapeError, r"pick.*index"),
    ("pick", [(3, 4), (3,)], {"axis": None}, ShapeError, r"pick.*axis"),
    ("gather_nd", [(3, 4), (3, 2)], {}, ShapeError, r"gather_nd.*indices"),
    ("scatter_nd", [(3,), (2, 3)], {"shape": (4, 5, 6)}, ShapeError, r"scatter_nd.*data"),
    (
        "_slice_assign",
        [(3, 4), (2, 2)],
        {"begin": (0,), "end": (1,)},
        ShapeError,
        r"_slice_assign.*rhs",
    ),
    ("_ravel_multi_index", [(3, 2)], {"shape": (4, 5)}, ShapeError, r"_ravel_multi_index.*data"),
    ("_unravel_index", [(3,)], {}, ShapeError, r"_unravel_index.*shape"),
    ("one_hot", [(3,)], {}, ParamError, r"one_hot.*depth"),
    ("one_hot", [(3,)], {"depth": 2, "dtype": "bool"}, ParamError, r"one_hot.*dtype"),
]


@pytest.mark.parametrize(
    "op,shapes,params,err,match", BAD, ids=lambda v: v if isinstance(v, str) else ""
)
def test_bad_input_raises(op: str, shapes: list, params: dict, err: type, match: str) -> None:
    with pytest.raises(err, match=match):
        opcheck.forward(op, [np.zeros(s, np.float32) for s in shapes], **params)


def test_batch_take_needs_int32_indices() -> None:
    with pytest.raises(DTypeError, match="batch_take.*indices"):
        opcheck.forward("batch_take", [np.zeros((2, 3)), np.zeros(2, np.float32)])


def test_one_hot_gradient_is_zero() -> None:
    # MXNet 1.9.1 gives one_hot MakeZeroGradNodes: a zero gradient that reads nothing
    idx = [np.array([0.0, 1.0])]
    init = [np.array([3.0, 4.0])]
    assert not opcheck.backward("one_hot", idx, grad_init=init, depth=2)[0].any()
    got = opcheck.backward("one_hot", idx, req=OpReq.ADD, grad_init=init, depth=2)[0]
    np.testing.assert_array_equal(got, init[0])
    assert (
        registry.get("one_hot").get_prop({"depth": 2}).declare_backward_dependency([0], [1], [2])
        == []
    )


def test_metadata() -> None:
    take = registry.get("take").get_prop({})
    assert take.list_arguments() == ["a", "indices"]
    assert take.declare_backward_dependency([0], [1, 2], [3]) == [0, 1, 2]
    assert registry.get("slice").get_prop({"begin": (0,), "end": (1,)}).declare_backward_dependency(
        [0], [1], [2]
    ) == [0]
    assert registry.get("choose_element_0index") is registry.get("pick")
    assert registry.get("crop") is registry.get("slice")


X = np.arange(12, dtype=np.float32).reshape(3, 4)
IDX = np.array([[0, 2], [1, 3]], np.float32)
PUBLIC = [
    ("slice", [X], {"begin": (1, None), "end": (3, None)}),
    ("crop", [X], {"begin": (0, 1), "end": (2, 3)}),
    ("slice_axis", [X], {"axis": 0, "begin": 1, "end": None}),
    ("slice_like", [X, X[:2]], {}),
    ("take", [X, IDX[0]], {"axis": 1}),
    ("batch_take", [X, np.array([0, 3, 1], np.int32)], {}),
    ("pick", [X, IDX[0, :1].repeat(3)], {}),
    ("choose_element_0index", [X, IDX[1, :1].repeat(3)], {}),
    ("one_hot", [IDX[0]], {"depth": 3}),
    ("gather_nd", [X, IDX], {}),
    ("scatter_nd", [IDX[0], IDX], {"shape": (3, 4)}),
    ("ravel_multi_index", [IDX], {"shape": (3, 4)}),
    ("unravel_index", [IDX[0]], {"shape": (3, 4)}),
]


@pytest.mark.parametrize(
    "name,inputs,params", PUBLIC, ids=lambda v: v if isinstance(v, str) else ""
)
def test_public_function(name: str, inputs: list, params: dict) -> None:
    got = getattr(mx.nd, name)(*[mx.nd.array(a, dtype=a.dtype) for a in inputs], **params)
    np.testing.assert_array_equal(got.asnumpy(), opcheck.forward(name, inputs, **params)[0])


@pytest.mark.parametrize(
    "name",
    [
        "_ravel_multi_index",
        "_unravel_index",
        "_slice_assign",
        "_crop_assign",
        "_slice_assign_scalar",
        "_crop_assign_scalar",
    ],
)
def test_internal_functions(name: str) -> None:
    fn = getattr(mx.nd._internal, name)
    if "ravel" in name:
        data = IDX if name == "_ravel_multi_index" else IDX[0]
        got = fn(mx.nd.array(data), shape=(3, 4)).asnumpy()
        np.testing.assert_array_equal(got, opcheck.forward(name, [data], shape=(3, 4))[0])
    elif "scalar" in name:
        got = fn(mx.nd.array(X), scalar=-1, begin=(1,), end=(2,)).asnumpy()
        assert (got[1] == -1).all() and (got[0] == X[0]).all()
    else:
        got = fn(mx.nd.array(X), mx.nd.array(X[:1]), begin=(2,), end=(3,)).asnumpy()
        np.testing.assert_array_equal(got[2], X[0])


def test_slice_like_backward_with_data_bound_without_gradient() -> None:
    # GluonCV's SSD anchors: a constant (grad_req null) sliced like a feature map that trains
    data, like = mx.sym.var("data"), mx.sym.var("like")
    out = mx.sym.slice_like(data, like * 2, axes=(1,)) * like
    args = {"data": mx.nd.ones((2, 4)), "like": mx.nd.full((2, 3), 3.0)}
    grads = {"like": mx.nd.zeros((2, 3))}
    exe = out.bind(mx.cpu(), args, args_grad=grads, grad_req={"data": "null", "like": "write"})
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((2, 3)))
    np.testing.assert_array_equal(grads["like"].asnumpy(), np.ones((2, 3)))


@pytest.mark.parametrize("index", [7, -3, 1])
def test_take_and_pick_clip_a_zero_dim_index(index: int) -> None:
    """mode='clip' with an index of no dimensions (mx.np's take of a scalar index)."""
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = mx.np.take(mx.np.array(a), mx.np.array(index, dtype="int64"), axis=0, mode="clip")
    np.testing.assert_array_equal(got.asnumpy(), np.take(a, index, axis=0, mode="clip"))
    got = mx.nd.take(mx.nd.array(a), mx.nd.array([index]), mode="clip")
    np.testing.assert_array_equal(got.asnumpy(), np.take(a, [index], axis=0, mode="clip"))
    picked = mx.nd.pick(mx.nd.array(a), mx.nd.array([index] * 3), axis=1, mode="clip")
    np.testing.assert_array_equal(picked.asnumpy(), a[:, min(max(index, 0), 3)])
