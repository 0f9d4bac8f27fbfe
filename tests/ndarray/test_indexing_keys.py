"""MXNet's indexing-key helpers (mx.nd.indexing_key_expand_implicit_axes,
get_indexing_dispatch_code, get_oshape_of_gather_nd_op, check_boolean_array_dimension) and
the tables _GRAD_REQ_MAP, _STORAGE_TYPE_ID_TO_STR, against MXNet 1.9.1
(tools/golden/cases/indexing_keys.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import mxlite as mx
from mxlite.ndarray import ndarray as ndmod

from ..golden_file import load

CASES = load("ndarray/golden/indexing_keys.npz").cases
SHAPE = (3, 4, 5)


def _decode(k: Any) -> Any:
    if isinstance(k, list):
        if k and k[0] == "slice":
            return slice(*k[1:])
        return tuple(_decode(i) for i in k)
    if k == "...":
        return Ellipsis
    if isinstance(k, dict):
        ((kind, v),) = k.items()
        return {
            "nd": lambda: mx.nd.array(v, dtype="int64"),
            "npint": lambda: mx.np.array(v, dtype="int64"),
            "npfloat": lambda: mx.np.array(v, dtype="float32"),
            "npbool": lambda: mx.np.array(v, dtype=np.bool_),
            "ndbool": lambda: mx.nd.array(v, dtype=np.bool_),
            "numpy": lambda: np.array(v),
            "range": lambda: range(v),
            "list": lambda: list(v),
        }[kind]()
    return k


def _encode(v: Any) -> Any:
    if isinstance(v, tuple):
        return [_encode(i) for i in v]
    if isinstance(v, slice):
        return ["slice", v.start, v.stop, v.step]
    if v is Ellipsis:
        return "..."
    if hasattr(v, "asnumpy"):
        return {"array": v.asnumpy().tolist(), "dtype": str(v.asnumpy().dtype)}
    return v


def _outcome(fn: Any, *args: Any) -> dict:
    try:
        return {"ok": _encode(fn(*args))}
    except Exception as e:
        return {"error": type(e).__name__}


@pytest.mark.parametrize("name", [k for k in CASES if k.startswith("expand/")])
def test_expand_implicit_axes_as_mxnet(name: str) -> None:
    case = CASES[name]
    if case["np"]:
        mx.npx.set_np()
    try:
        got = _outcome(lambda: ndmod.indexing_key_expand_implicit_axes(_decode(case["key"]),
                                                                       SHAPE))  # fmt: skip
    finally:
        if case["np"]:
            mx.npx.reset_np()
    assert got == case["want"]


@pytest.mark.parametrize("name", [k for k in CASES if k.startswith("dispatch/")])
def test_dispatch_code_as_mxnet(name: str) -> None:
    case = CASES[name]
    assert _outcome(mx.nd.get_indexing_dispatch_code, _decode(case["key"])) == case["want"]


@pytest.mark.parametrize("name", [k for k in CASES if k.startswith("gather/")])
def test_gather_nd_shape_as_mxnet_and_as_the_operator(name: str) -> None:
    case = CASES[name]
    got = mx.nd.get_oshape_of_gather_nd_op(tuple(case["dshape"]), tuple(case["ishape"]))
    assert list(got) == case["want"]["ok"]
    if case["ishape"][0] > len(case["dshape"]):
        return  # the helper does not check what the operator refuses
    data = mx.nd.zeros(case["dshape"])
    indices = mx.nd.zeros(case["ishape"], dtype="int32")
    assert mx.nd.gather_nd(data, indices).shape == got


def test_tables_are_mxnets() -> None:
    tables = CASES["tables"]
    assert ndmod._GRAD_REQ_MAP == tables["grad_req"]
    assert {str(k): v for k, v in ndmod._STORAGE_TYPE_ID_TO_STR.items()} == (
        tables["stype_id_to_str"])  # fmt: skip


def test_boolean_dimension_check_names_the_axis() -> None:
    ndmod.check_boolean_array_dimension((3, 4, 5), 1, (4, 5))
    with pytest.raises(IndexError, match="along axis 2; size is 5 but corresponding"):
        ndmod.check_boolean_array_dimension((3, 4, 5), 1, (4, 3))
    with pytest.raises(mx.MXNetError, match="must be a tuple"):
        mx.nd.get_indexing_dispatch_code([1])
