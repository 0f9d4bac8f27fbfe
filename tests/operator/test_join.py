"""Joining and splitting operators (mxlite/operator/tensor/join.py): golden values from MXNet
1.9.1, finite differences, req='add', bad input and the public mx.nd functions."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, ParamError, ShapeError
from mxlite.operator import registry

from . import opcheck
from .test_shape import check_add, check_golden_case, check_numeric, golden_cases

JOIN_OPS = {"Concat", "concat", "stack", "SliceChannel", "split", "_split_v2"}


@pytest.mark.parametrize("i,case", golden_cases(JOIN_OPS))
def test_golden(i: int, case: dict) -> None:
    check_golden_case(i, case)


def _x(*shape: int) -> np.ndarray:
    return np.random.default_rng(sum(shape)).uniform(-1, 1, shape)


NUMERIC = [
    ("Concat", [_x(2, 1), _x(2, 3)], {"num_args": 2, "dim": -1}),
    ("stack", [_x(2, 2), _x(2, 2), _x(2, 2)], {"num_args": 3, "axis": 1}),
    ("SliceChannel", [_x(2, 4)], {"num_outputs": 2, "axis": 1}),
    ("SliceChannel", [_x(3, 2)], {"num_outputs": 3, "axis": 0, "squeeze_axis": True}),
    ("_split_v2", [_x(2, 5)], {"indices": (0, 2, 3), "axis": 1}),
    ("_split_v2", [_x(2, 5)], {"indices": (1, 3), "axis": -1}),
    ("_split_v2", [_x(5, 2)], {"indices": (), "sections": 3, "axis": 0}),
]


@pytest.mark.parametrize("op,inputs,params", NUMERIC, ids=lambda v: v if isinstance(v, str) else "")
def test_backward_matches_finite_differences(op: str, inputs: list, params: dict) -> None:
    check_numeric(op, inputs, list(range(len(inputs))), **params)
    check_add(op, inputs, list(range(len(inputs))), **params)


def test_split_v2_skips_the_head_before_the_first_index() -> None:
    x = np.arange(10.0).reshape(2, 5)
    a, b = opcheck.forward("_split_v2", [x], indices=(1, 3), axis=1)
    np.testing.assert_array_equal(a, x[:, 1:3])
    np.testing.assert_array_equal(b, x[:, 3:])


def test_integer_dtypes() -> None:
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = opcheck.forward("Concat", [a, a], num_args=2, dim=0)[0]
    assert out.dtype == np.int32 and out.shape == (4, 3)
    parts = opcheck.forward("SliceChannel", [a.astype(np.float16)], num_outputs=3)
    assert [p.shape for p in parts] == [(2, 1)] * 3 and parts[0].dtype == np.float16


BAD = [
    ("Concat", [(2, 3), (3, 3)], {"num_args": 2, "dim": 1}, ShapeError, r"Concat.*arg1"),
    ("Concat", [(2, 3), (2, 3)], {"num_args": 2, "dim": 2}, ShapeError, r"Concat.*dim"),
    ("Concat", [(2, 3)], {"num_args": 0}, ParamError, r"Concat.*num_args"),
    ("stack", [(2, 3), (3, 2)], {"num_args": 2}, ShapeError, r"stack.*arg1"),
    ("stack", [(2, 3), (2, 3)], {"num_args": 2, "axis": 3}, ShapeError, r"stack.*axis"),
    ("SliceChannel", [(2, 3)], {"num_outputs": 2}, ShapeError, r"SliceChannel.*num_outputs"),
    (
        "SliceChannel",
        [(2, 4)],
        {"num_outputs": 2, "squeeze_axis": True},
        ShapeError,
        r"SliceChannel.*squeeze_axis",
    ),
    ("SliceChannel", [(2, 4)], {"num_outputs": 2, "axis": 2}, ShapeError, r"SliceChannel.*axis"),
    ("_split_v2", [(2, 4)], {"indices": (0, 3, 2)}, ShapeError, r"_split_v2.*indices"),
    ("_split_v2", [(2, 4)], {"indices": (0, 5)}, ShapeError, r"_split_v2.*indices"),
    ("_split_v2", [(2, 4)], {}, ParamError, r"_split_v2.*indices"),
]


@pytest.mark.parametrize(
    "op,shapes,params,err,match", BAD, ids=lambda v: v if isinstance(v, str) else ""
)
def test_bad_input_raises(op: str, shapes: list, params: dict, err: type, match: str) -> None:
    with pytest.raises(err, match=match):
        opcheck.forward(op, [np.zeros(s, np.float32) for s in shapes], **params)


def test_concat_dtype_mismatch() -> None:
    with pytest.raises(DTypeError, match="Concat.*arg1"):
        opcheck.forward("Concat", [np.zeros((2, 2), np.float32), np.zeros((2, 2))], num_args=2)


def test_metadata() -> None:
    prop = registry.get("Concat").get_prop({"num_args": 3})
    assert prop.list_arguments() == ["arg0", "arg1", "arg2"]
    assert registry.get("stack").key_var_num_args == "num_args"
    split = registry.get("split").get_prop({"num_outputs": 3})
    assert split.list_outputs() == ["output0", "output1", "output2"]
    assert split.declare_backward_dependency([0, 1, 2], [3], [4, 5, 6]) == [0, 1, 2]
    assert registry.get("_split_v2").get_prop({"indices": (), "sections": 4}).num_outputs() == 4


@pytest.mark.parametrize("name", ["Concat", "concat"])
def test_public_concat(name: str) -> None:
    a, b = np.ones((2, 1), np.float32), np.zeros((2, 2), np.float32)
    got = getattr(mx.nd, name)(mx.nd.array(a), mx.nd.array(b), dim=1).asnumpy()
    np.testing.assert_array_equal(got, np.concatenate([a, b], axis=1))


def test_public_stack() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = mx.nd.stack(mx.nd.array(a), mx.nd.array(a + 1), axis=1).asnumpy()
    np.testing.assert_array_equal(got, np.stack([a, a + 1], axis=1))


@pytest.mark.parametrize("name", ["SliceChannel", "split"])
def test_public_split(name: str) -> None:
    a = np.arange(8, dtype=np.float32).reshape(2, 4)
    parts = getattr(mx.nd, name)(mx.nd.array(a), num_outputs=2, axis=1)
    assert len(parts) == 2
    np.testing.assert_array_equal(parts[1].asnumpy(), a[:, 2:])


def test_public_split_v2() -> None:
    a = np.arange(10, dtype=np.float32).reshape(5, 2)
    parts = mx.nd._internal._split_v2(mx.nd.array(a), indices=(0, 1), axis=0)
    assert [p.shape for p in parts] == [(1, 2), (4, 2)]


def test_concat_backward_with_an_input_that_needs_no_gradient() -> None:
    # the executor hands None for the gradient of an input bound without one
    a, b, c = (mx.sym.Variable(n) for n in "abc")
    out = mx.sym.Concat(a, b, c, dim=1)
    shapes = [(2, 1), (2, 3), (2, 2)]
    args = [mx.nd.ones(s) * (i + 1) for i, s in enumerate(shapes)]
    grads = {"a": mx.nd.zeros(shapes[0]), "c": mx.nd.zeros(shapes[2])}
    exe = out.bind(mx.cpu(), args=args, args_grad=grads)
    exe.forward(is_train=True)
    head = np.arange(12, dtype=np.float32).reshape(2, 6)
    exe.backward([mx.nd.array(head)])
    np.testing.assert_array_equal(grads["a"].asnumpy(), head[:, :1])
    np.testing.assert_array_equal(grads["c"].asnumpy(), head[:, 4:])
