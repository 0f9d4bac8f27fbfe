"""Partial shape and dtype inference of single operators (0 = unknown dim, None = unknown
shape), as MXNet 1.9.1's test_infer_shape.py / test_symbol.py / test_operator.py expect, and the
few operator entries those tests need (_identity_with_attr_like_rhs, one_hot's zero gradient)."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import ShapeError
from mxlite.operator import registry

from . import opcheck

# op, params, in_shapes, out_shapes given, expected in_shapes, expected out_shapes
CASES = [
    # the default (element-wise) rule merges every input and output dim by dim
    ("Cast", {"dtype": "float16"}, [(1, 0, 0, 0)], None, [(1, 0, 0, 0)], [(1, 0, 0, 0)]),
    ("sin", {}, [(0, 3)], [(2, 0)], [(2, 3)], [(2, 3)]),
    ("_identity_with_attr_like_rhs", {}, [(0, 3), (4, 0)], None, [(4, 3), (4, 3)], [(4, 3)]),
    ("_identity_with_attr_like_rhs", {}, [None, None], [(4, 3)], [(4, 3), (4, 3)], [(4, 3)]),
    ("dot", {}, [(0, 3, 4), (4, 5)], None, [(0, 3, 4), (4, 5)], [(0, 3, 5)]),
    ("dot", {"transpose_b": True}, [(2, 0), (5, 0)], None, [(2, 0), (5, 0)], [(2, 5)]),
    ("batch_dot", {}, [(0, 3, 4), (0, 4, 5)], None, [(0, 3, 4), (0, 4, 5)], [(0, 3, 5)]),
    ("batch_dot", {}, [(2, 3, 4), (0, 4, 5)], None, [(2, 3, 4), (2, 4, 5)], [(2, 3, 5)]),
    ("Embedding", {"input_dim": 100, "output_dim": 10}, [(0, 5), None], None,
     [(0, 5), (100, 10)], [(0, 5, 10)]),
    ("transpose", {"axes": (0, 3, 2, 1)}, [(0, 3, 224, 224)], None,
     [(0, 3, 224, 224)], [(0, 224, 224, 3)]),
    ("transpose", {}, [None], [(2, 3)], [(3, 2)], [(2, 3)]),
    ("transpose", {}, [(3, 0)], [(0, 3)], [(3, 0)], [(0, 3)]),
    ("transpose", {}, [(3, 0)], [(2, 0)], [(3, 2)], [(2, 3)]),
    ("pick", {"axis": 1}, [(0, 3, 3), (0, 3)], None, [(0, 3, 3), (0, 3)], [(0, 3)]),
    ("pick", {"axis": 1, "keepdims": True}, [(0, 3), None], None, [(0, 3), None], [(0, 1)]),
    ("SliceChannel", {"num_outputs": 10, "axis": 1, "squeeze_axis": True}, [(0, 10)],
     [None, (5,)] + [None] * 8, [(5, 10)], [(5,)] * 10),
    ("SliceChannel", {"num_outputs": 3, "axis": 1}, [(0, 15, 0)], [None, (3, 5, 2), None],
     [(3, 15, 2)], [(3, 5, 2)] * 3),
    ("Concat", {"num_args": 2, "dim": 1}, [(0, 10), (0, 5)], [(2, 0)],
     [(2, 10), (2, 5)], [(2, 15)]),
    ("Concat", {"num_args": 2, "dim": 1}, [(2, 0), None], None, [(2, 0), (2, 0)], [(2, 0)]),
    ("Reshape", {"shape": (0, -1)}, [(0, 3, 5, 5)], None, [(0, 3, 5, 5)], [(0, 0)]),
    ("Reshape", {"shape": (0, -1)}, [(0, 3, 5, 5)], [(2, 75)], [(2, 3, 5, 5)], [(2, 75)]),
    ("Reshape", {"shape": (-3, -1)}, [(2, 0, 5, 6)], [(6, 30)], [(2, 3, 5, 6)], [(6, 30)]),
    ("Reshape", {"shape": (-4, 16, 4)}, [(0,)], None, [(64,)], [(16, 4)]),
    ("Reshape", {"shape": (0, -1), "reverse": True}, [(2, 3, 0, 5)], [(5, 30)],
     [(2, 3, 5, 5)], [(5, 30)]),
    ("slice", {"begin": (2, 3), "end": (None, 10), "step": (3, 3)}, [(0, 20)], None,
     [(0, 20)], [(0, 3)]),
    ("slice_axis", {"axis": 0, "begin": 0, "end": 5}, [(10, 0)], None, [(10, 0)], [(5, 0)]),
    ("slice_axis", {"axis": 1, "begin": 0, "end": 5}, [(10, 0)], None, [(10, 0)], [(10, 0)]),
    ("_ones", {"shape": (-1, 3)}, [], [(2, 0)], [], [(2, 3)]),
]  # fmt: skip


@pytest.mark.parametrize("op,params,ins,outs,want_in,want_out", CASES)
def test_partial_shapes(
    op: str, params: dict, ins: list, outs: list | None, want_in: list, want_out: list
) -> None:
    prop = opcheck.prop_of(op, **params)
    res = prop.infer_shape(list(ins), None if outs is None else list(outs))
    assert res is not None
    assert [None if s is None else tuple(s) for s in res[0]] == want_in
    assert [tuple(s) for s in res[1]] == want_out


@pytest.mark.parametrize(
    "op,params",
    [
        ("dot", {}),
        ("batch_dot", {}),
        ("transpose", {"axes": (1, 0, 2)}),
        ("pick", {"axis": 1}),
        ("Concat", {"num_args": 2}),
        ("SliceChannel", {"num_outputs": 2}),
    ],
)
def test_unknown_rank_gives_nothing(op: str, params: dict) -> None:
    prop = opcheck.prop_of(op, **params)
    n = len(prop.list_arguments())
    assert prop.infer_shape([None] * n, [None] * prop.num_outputs()) is None


def test_batch_dot_needs_its_contracted_dims() -> None:
    # MXNet infers nothing while lhs's last or rhs's second-to-last dim is unknown
    prop = opcheck.prop_of("batch_dot")
    assert prop.infer_shape([(0, 3, 4), (0, 0, 5)], [None]) is None


@pytest.mark.parametrize(
    "op,params,ins,outs,match",
    [
        ("sin", {}, [(2, 3)], [(3, 0)], r"sin.*output"),
        ("_identity_with_attr_like_rhs", {}, [(2, 3), (3, 2)], None, r"_identity_with.*rhs"),
        ("dot", {}, [(0, 3), (4, 5)], None, r"dot.*rhs"),
        ("batch_dot", {}, [(2, 3, 4), (3, 4, 5)], None, r"batch_dot.*rhs"),
        ("transpose", {}, [(2, 3)], [(2, 3, 1)], r"transpose.*output"),
        ("transpose", {}, [(2, 0)], [(0, 4)], r"transpose.*data"),
        ("pick", {"axis": 1}, [(0, 3), (0, 3)], None, r"pick.*index"),
        ("SliceChannel", {"num_outputs": 2}, [(0, 5)], None, r"SliceChannel.*num_outputs"),
        ("SliceChannel", {"num_outputs": 2}, [(0, 4)], [(3, 3), None], r"SliceChannel.*data"),
        ("Concat", {"num_args": 2}, [(2, 0), (3, 0)], None, r"Concat.*arg1"),
        ("Reshape", {"shape": (0, -1)}, [(0, 3)], [(2, 4)], r"Reshape.*output"),
    ],
)
def test_partial_conflicts_raise(
    op: str, params: dict, ins: list, outs: list | None, match: str
) -> None:
    prop = opcheck.prop_of(op, **params)
    with pytest.raises(ShapeError, match=match):
        prop.infer_shape(list(ins), outs)


# ---- dtype -----------------------------------------------------------------------------------


def test_cast_output_dtype_needs_no_input_dtype() -> None:
    prop = opcheck.prop_of("Cast", dtype="float32")
    ins, outs, _ = prop.infer_type([None], [None])
    assert ins == [None] and outs == [np.float32]
    data = mx.sym.Variable("data")
    fc = mx.sym.FullyConnected(mx.sym.Cast(data, dtype="float32"), num_hidden=4, name="fc")
    arg, out, aux = fc.infer_type_partial()
    assert arg == [None, np.float32, np.float32] and out == [np.float32] and aux == []


# ---- through symbols and executors ------------------------------------------------------------


def test_symbol_partial_weight_through_cast() -> None:
    data = mx.sym.Variable("data", shape=(1, 0, 0, 0))
    weight = mx.sym.cast(mx.sym.Variable("weight"), dtype="float16")
    conv = mx.sym.Convolution(
        mx.sym.cast(data, dtype="float16"), weight, num_filter=64, kernel=(7, 7), no_bias=True
    )
    arg, _, _ = conv.infer_shape_partial()
    assert dict(zip(conv.list_arguments(), arg))["weight"] == (64, 0, 7, 7)


def test_identity_with_attr_like_rhs_backward_infer() -> None:
    w = mx.sym.Variable("weight")
    wt = mx.sym.broadcast_add(w, mx.sym.Variable("wshift", shape=(1,)))
    wt = mx.sym._internal._identity_with_attr_like_rhs(wt, w)
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), weight=wt, num_hidden=11, no_bias=True)
    arg, _, _ = net.infer_shape(data=(7, 100))
    assert dict(zip(net.list_arguments(), arg))["weight"] == (11, 100)


def test_identity_with_attr_like_rhs_compute() -> None:
    assert registry.get("_identity_with_attr_like_rhs").get_prop({}).list_arguments() == [
        "lhs",
        "rhs",
    ]
    lhs, rhs = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    np.testing.assert_array_equal(
        opcheck.forward("_identity_with_attr_like_rhs", [lhs, rhs])[0], lhs
    )
    head = [np.array([5.0, 6.0])]
    init = [np.ones(2), np.ones(2)]
    g = opcheck.backward("_identity_with_attr_like_rhs", [lhs, rhs], head, grad_init=init)
    np.testing.assert_array_equal(g[0], head[0])
    np.testing.assert_array_equal(g[1], np.zeros(2))
    got = mx.nd._internal._identity_with_attr_like_rhs(mx.nd.array(lhs), mx.nd.array(rhs))
    np.testing.assert_array_equal(got.asnumpy(), lhs)
    with pytest.raises(ShapeError, match="_identity_with_attr_like_rhs"):
        mx.nd._internal._identity_with_attr_like_rhs(mx.nd.array(lhs), mx.nd.ones((3,)))


def test_one_hot_binds_with_gradients() -> None:
    x = mx.sym.Variable("x")
    y = mx.sym.one_hot(x, depth=3) * mx.sym.Variable("w")
    exe = y.simple_bind(mx.cpu(), x=(2,), w=(2, 3))
    exe.forward(is_train=True, x=mx.nd.array([0, 2]), w=mx.nd.ones((2, 3)))
    exe.backward(mx.nd.ones((2, 3)))
    assert not exe.grad_dict["x"].asnumpy().any()
    np.testing.assert_array_equal(exe.grad_dict["w"].asnumpy(), [[1, 0, 0], [0, 0, 1]])


@pytest.mark.parametrize("o1,o2", [((2, 3), (-1, -1)), ((2, -1), (3, -1))])
def test_transpose_infers_back_from_ones(o1: tuple, o2: tuple) -> None:
    b = mx.sym.ones(shape=o1) + mx.sym.transpose(mx.sym.ones(shape=o2))
    assert b.bind(mx.cpu(), args={}).forward()[0].shape == (2, 3)


def test_slice_like_without_shape_like_gradient() -> None:
    data = mx.sym.Variable("data")
    y = mx.sym.slice_like(data, mx.sym.zeros((3, 3)), axes=(0, -2))
    exe = y.simple_bind(mx.cpu(), data=(4, 5))
    exe.forward(is_train=True, data=mx.nd.ones((4, 5)))
    exe.backward(mx.nd.ones((3, 5)))
    assert exe.grad_dict["data"].asnumpy().sum() == 15


@pytest.mark.parametrize("dtype", ["float64", "float16"])
def test_partial_dtypes_as_mxnet(dtype: str) -> None:
    # MXNet 1.9.1: batch_take's indices are int32 whatever the data, and _slice_assign's lhs,
    # rhs and output share one dtype, known from any of them
    a, i, b = mx.sym.var("a"), mx.sym.var("i"), mx.sym.var("b")
    assert mx.sym.batch_take(a, i).infer_type(a=dtype)[0] == [np.dtype(dtype), np.int32]
    assign = mx.sym._internal._slice_assign(a, b, begin=(0,), end=(1,))
    assert assign.infer_type(b=dtype)[:2] == ([np.dtype(dtype)] * 2, [np.dtype(dtype)])
