"""Shape operators (mxlite/operator/tensor/shape.py) against MXNet 1.9.1 golden values, finite
differences, req='add', bad input and the public mx.nd functions.

The golden helpers here also serve test_join.py and test_gather.py (one golden file, made by
tools/golden/cases/shape.py, covers the three modules).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError, ParamError, ShapeError
from mxlite.operator import registry
from mxlite.operator.req import OpReq
from mxlite.operator.tensor.array_op import reshape_shape

from . import opcheck

_GOLD = opcheck.golden("shape")
_CASES = sorted(
    ((int(k), c) for k, c in _GOLD.cases.items() if k.isdigit()), key=lambda item: item[0]
)
_RESHAPES = _GOLD.cases["reshape_inference"]["reshapes"]
_TOL = {"float16": (1e-2, 1e-2), "float32": (1e-5, 1e-6), "float64": (1e-12, 1e-12)}


def _params(case: dict) -> dict[str, Any]:
    params = {k: tuple(v) if isinstance(v, list) else v for k, v in case["params"].items()}
    cls = registry.get(case["op"])
    if cls.key_var_num_args and cls.key_var_num_args not in params:
        params[cls.key_var_num_args] = case["n_in"]
    return params


def golden_cases(ops: set[str]) -> list[Any]:
    """pytest params (index, case) for the golden cases of the given operator names."""
    return [pytest.param(i, c, id=f"{i}-{c['op']}") for i, c in _CASES if c["op"] in ops]


def check_golden_case(i: int, case: dict) -> None:
    """Forward and (where recorded) backward equal MXNet's, with dtypes and shapes."""
    g = _GOLD
    ins = [g[f"{i}/in{j}"] for j in range(case["n_in"])]
    params = _params(case)
    outs = opcheck.forward(case["op"], ins, **params)
    assert len(outs) == case["n_out"]
    for j, out in enumerate(outs):
        exp = g[f"{i}/out{j}"]
        assert out.shape == exp.shape and out.dtype == exp.dtype
        rtol, atol = _TOL.get(exp.dtype.name, (0, 0))
        np.testing.assert_allclose(out, exp, rtol=rtol, atol=atol)
    if case["grad_of"]:
        heads = [g[f"{i}/head{j}"] for j in range(case["n_out"])]
        grads = opcheck.backward(case["op"], ins, heads, **params)
        for j in case["grad_of"]:
            exp = g[f"{i}/grad{j}"]
            rtol, atol = _TOL[exp.dtype.name]
            np.testing.assert_allclose(grads[j], exp, rtol=rtol, atol=atol)


def check_numeric(op: str, inputs: list[np.ndarray], diff: list[int], **params: Any) -> None:
    """Backward equals central differences (float64) for the inputs in ``diff``."""
    rng = np.random.default_rng(3)
    outs = opcheck.forward(op, inputs, **params)
    heads = [rng.uniform(-1, 1, o.shape) for o in outs]
    grads = opcheck.backward(op, inputs, heads, **params)
    nums = opcheck.numeric_grad(op, inputs, heads, **params)
    for j in diff:
        np.testing.assert_allclose(grads[j], nums[j], rtol=1e-6, atol=1e-8)


def check_add(op: str, inputs: list[np.ndarray], diff: list[int], **params: Any) -> None:
    """req=ADD adds the gradient to what the gradient arrays held."""
    rng = np.random.default_rng(4)
    outs = opcheck.forward(op, inputs, **params)
    heads = [rng.uniform(-1, 1, o.shape) for o in outs]
    plain = opcheck.backward(op, inputs, heads, **params)
    init = [np.full(a.shape, 0.5, a.dtype) for a in inputs]
    added = opcheck.backward(op, inputs, heads, req=OpReq.ADD, grad_init=init, **params)
    for j in diff:
        np.testing.assert_allclose(added[j], init[j] + plain[j], rtol=1e-12)


SHAPE_OPS = {
    "Reshape",
    "reshape",
    "reshape_like",
    "Flatten",
    "flatten",
    "expand_dims",
    "squeeze",
    "transpose",
    "SwapAxis",
    "swapaxes",
    "reverse",
    "flip",
    "tile",
    "repeat",
    "Pad",
    "pad",
    "broadcast_to",
    "broadcast_like",
    "broadcast_axis",
    "broadcast_axes",
    "depth_to_space",
    "space_to_depth",
    "diag",
    "shape_array",
    "size_array",
}


@pytest.mark.parametrize("i,case", golden_cases(SHAPE_OPS))
def test_golden(i: int, case: dict) -> None:
    check_golden_case(i, case)


def test_golden_covers_every_operator() -> None:
    assert SHAPE_OPS <= {c["op"] for _, c in _CASES}


@pytest.mark.parametrize(
    "r", _RESHAPES, ids=lambda r: f"{r['src']}->{r['target']}{'r' if r['reverse'] else ''}"
)
def test_reshape_shape_golden(r: dict) -> None:
    src, target = tuple(r["src"]), tuple(r["target"])
    if r["result"] == "error":
        with pytest.raises(ShapeError, match=r"Reshape.*shape"):
            reshape_shape(src, target, r["reverse"])
    else:
        assert reshape_shape(src, target, r["reverse"]) == tuple(r["result"])


def _x(*shape: int) -> np.ndarray:
    return np.random.default_rng(sum(shape)).uniform(-1, 1, shape)


NUMERIC = [
    ("Reshape", [_x(2, 3, 2)], {"shape": (-1, 2)}),
    ("reshape_like", [_x(2, 3), _x(3, 2)], {}),
    ("Flatten", [_x(2, 2, 2)], {}),
    ("expand_dims", [_x(2, 3)], {"axis": 0}),
    ("squeeze", [_x(2, 1, 2)], {}),
    ("transpose", [_x(2, 3, 2)], {"axes": (2, 0, 1)}),
    ("SwapAxis", [_x(2, 3, 2)], {"dim1": 1, "dim2": 2}),
    ("reverse", [_x(2, 3)], {"axis": (0, 1)}),
    ("tile", [_x(2, 2)], {"reps": (2, 1, 3)}),
    ("repeat", [_x(2, 3)], {"repeats": 2, "axis": 0}),
    ("repeat", [_x(2, 2)], {"repeats": 3}),
    ("Pad", [_x(1, 1, 3, 3)], {"mode": "reflect", "pad_width": (0, 0, 0, 0, 2, 1, 1, 2)}),
    ("Pad", [_x(1, 1, 2, 2)], {"mode": "edge", "pad_width": (0, 0, 0, 0, 2, 1, 1, 3)}),
    ("Pad", [_x(1, 1, 2, 2)], {"mode": "constant", "pad_width": (0, 0, 0, 0, 1, 1, 1, 1)}),
    ("broadcast_to", [_x(2, 1)], {"shape": (2, 3)}),
    ("broadcast_like", [_x(1, 2), _x(3, 2)], {}),
    ("broadcast_axis", [_x(1, 2, 1)], {"axis": (0, 2), "size": (2, 2)}),
    ("depth_to_space", [_x(1, 4, 1, 2)], {"block_size": 2}),
    ("space_to_depth", [_x(1, 1, 2, 4)], {"block_size": 2}),
    ("diag", [_x(3, 3)], {"k": -1}),
    ("diag", [_x(2, 3, 3)], {"axis1": 1, "axis2": 2, "k": 1}),
    ("diag", [_x(3)], {"k": 2}),
]


@pytest.mark.parametrize("op,inputs,params", NUMERIC, ids=lambda v: v if isinstance(v, str) else "")
def test_backward_matches_finite_differences(op: str, inputs: list, params: dict) -> None:
    check_numeric(op, inputs, [0], **params)


@pytest.mark.parametrize(
    "op,inputs,params", NUMERIC[::3], ids=lambda v: v if isinstance(v, str) else ""
)
def test_req_add_accumulates(op: str, inputs: list, params: dict) -> None:
    check_add(op, inputs, [0], **params)


def test_integer_and_float16_forward() -> None:
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    assert opcheck.forward("transpose", [x])[0].dtype == np.int32
    np.testing.assert_array_equal(opcheck.forward("tile", [x], reps=(2,))[0], np.tile(x, 2))
    h = x.astype(np.float16)
    np.testing.assert_array_equal(opcheck.forward("reverse", [h], axis=(0,))[0], h[::-1])
    assert opcheck.forward("shape_array", [h])[0].dtype == np.int64


BAD = [
    ("Reshape", (2, 3), {"shape": (4, -1)}, ShapeError, r"Reshape.*\(2, 3\)"),
    ("Reshape", (2, 3), {"shap": (6,)}, ParamError, r"Reshape.*shap"),
    ("Reshape", (2, 3), {}, ShapeError, r"Reshape.*shape"),
    ("expand_dims", (2, 3), {"axis": 3}, ShapeError, r"expand_dims.*axis"),
    ("expand_dims", (2, 3), {}, ParamError, r"expand_dims.*axis"),
    ("squeeze", (2, 1), {"axis": (0,)}, ShapeError, r"squeeze.*axis"),
    ("transpose", (2, 3), {"axes": (0, 0)}, ShapeError, r"transpose.*axes"),
    ("SwapAxis", (2, 3), {"dim1": 2}, ShapeError, r"SwapAxis.*dim1"),
    ("reverse", (2, 3), {"axis": (2,)}, ShapeError, r"reverse.*axis"),
    ("tile", (2, 3), {"reps": (-1,)}, ShapeError, r"tile.*reps"),
    ("repeat", (2, 3), {"repeats": 2, "axis": 2}, ShapeError, r"repeat.*axis"),
    ("Pad", (2, 3), {"mode": "edge", "pad_width": (0, 0, 1, 1)}, ShapeError, r"Pad.*4-D"),
    (
        "Pad",
        (1, 1, 2, 2),
        {"mode": "edge", "pad_width": (1, 0, 0, 0, 1, 1, 1, 1)},
        ShapeError,
        r"Pad.*pad_width",
    ),
    (
        "Pad",
        (1, 1, 2, 2),
        {"mode": "reflect", "pad_width": (0, 0, 0, 0, 2, 0, 0, 0)},
        ShapeError,
        r"Pad.*pad_width",
    ),
    ("Pad", (1, 1, 2, 2), {"mode": "wrap", "pad_width": (0,) * 8}, ParamError, r"Pad.*mode"),
    ("broadcast_to", (2, 3), {"shape": (4, 3)}, ShapeError, r"broadcast_to.*\(2, 3\)"),
    ("broadcast_to", (2, 3), {"shape": (1, 2, 3)}, ShapeError, r"broadcast_to"),
    ("broadcast_axis", (2, 3), {"axis": (0,), "size": (4,)}, ShapeError, r"broadcast_axis.*axis"),
    ("depth_to_space", (1, 3, 2, 2), {"block_size": 2}, ShapeError, r"depth_to_space.*block"),
    ("space_to_depth", (1, 1, 3, 2), {"block_size": 2}, ShapeError, r"space_to_depth.*block"),
    ("depth_to_space", (4, 2, 2), {"block_size": 2}, ShapeError, r"depth_to_space.*4-D"),
    ("diag", (2, 3), {"k": 3}, ShapeError, r"diag.*'k'"),
    ("diag", (2, 3), {"axis1": 1, "axis2": 1}, ShapeError, r"diag.*axis1"),
]


@pytest.mark.parametrize(
    "op,shape,params,err,match", BAD, ids=lambda v: v if isinstance(v, str) else ""
)
def test_bad_input_raises(op: str, shape: tuple, params: dict, err: type, match: str) -> None:
    with pytest.raises(err, match=match):
        opcheck.forward(op, [np.zeros(shape, np.float32)], **params)


def test_reshape_like_ranges_and_errors() -> None:
    lhs, rhs = np.zeros((2, 3, 4)), np.zeros((5, 12))
    out = opcheck.forward("reshape_like", [lhs, rhs], lhs_begin=1, rhs_begin=1)[0]
    assert out.shape == (2, 12)
    with pytest.raises(ShapeError, match="reshape_like.*lhs_begin"):
        opcheck.forward("reshape_like", [lhs, rhs], lhs_begin=3)
    with pytest.raises(ShapeError, match="reshape_like.*size"):
        opcheck.forward("reshape_like", [lhs, np.zeros((5, 6))])


def test_metadata() -> None:
    assert registry.get("Reshape").get_prop({"shape": (2, -1)}).declare_backward_dependency(
        [0], [1], [2]
    ) == [0]
    prop = registry.get("reshape_like").get_prop({})
    assert prop.list_arguments() == ["lhs", "rhs"]
    assert prop.forward_inplace_option([1], [2]) == [(1, 2)]
    assert registry.get("flip") is registry.get("reverse")
    assert registry.get("pad") is registry.get("Pad")


PUBLIC = [
    ("Reshape", {"shape": (3, 2)}),
    ("reshape", {"shape": (-1,)}),
    ("reshape_like", None),
    ("Flatten", {}),
    ("flatten", {}),
    ("expand_dims", {"axis": 0}),
    ("squeeze", {}),
    ("transpose", {}),
    ("SwapAxis", {"dim1": 0, "dim2": 1}),
    ("swapaxes", {"dim2": 1}),
    ("flip", {"axis": 0}),
    ("reverse", {"axis": (1,)}),
    ("tile", {"reps": (2,)}),
    ("repeat", {"repeats": 2}),
    ("broadcast_to", {"shape": (2, 3)}),
    ("broadcast_like", None),
    ("diag", {}),
    ("shape_array", {}),
    ("size_array", {}),
]


@pytest.mark.parametrize("name,params", PUBLIC, ids=lambda v: v if isinstance(v, str) else "")
def test_public_function(name: str, params: dict | None) -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    if params is None:
        got = getattr(mx.nd, name)(mx.nd.array(x), mx.nd.array(x)).asnumpy()
        expect = opcheck.forward(name, [x, x])[0]
    else:
        got = getattr(mx.nd, name)(mx.nd.array(x), **params).asnumpy()
        expect = opcheck.forward(name, [x], **params)[0]
    np.testing.assert_array_equal(got, expect)


@pytest.mark.parametrize("name", ["broadcast_axis", "broadcast_axes"])
def test_public_broadcast_axis(name: str) -> None:
    x = np.arange(3, dtype=np.float32).reshape(1, 3)
    got = getattr(mx.nd, name)(mx.nd.array(x), axis=0, size=2).asnumpy()
    np.testing.assert_array_equal(got, np.stack([x[0], x[0]]))


def test_public_pad_and_blocks() -> None:
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 2, 2)
    for name in ("pad", "Pad"):
        got = getattr(mx.nd, name)(
            mx.nd.array(x), mode="constant", constant_value=-1, pad_width=(0, 0, 0, 0, 1, 0, 0, 1)
        ).asnumpy()
        assert got.shape == (1, 4, 3, 3) and got[0, 0, 0, 0] == -1
    d = mx.nd.depth_to_space(mx.nd.array(x), block_size=2)
    np.testing.assert_array_equal(mx.nd.space_to_depth(d, block_size=2).asnumpy(), x)


def test_public_error_is_raised_at_the_call() -> None:
    with pytest.raises(MXNetError, match="Reshape"):
        mx.nd.reshape(mx.nd.zeros((2, 3)), shape=(4, 2))
