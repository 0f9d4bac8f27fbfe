"""MXNet's indexing-key helpers (mx.nd.indexing_key_expand_implicit_axes,
get_indexing_dispatch_code, get_oshape_of_gather_nd_op, check_boolean_array_dimension) and
the tables _GRAD_REQ_MAP, _STORAGE_TYPE_ID_TO_STR, against MXNet 1.9.1
(tools/golden/cases/indexing_keys.py)."""

from __future__ import annotations

from typing import Any

import pytest

import mxlite as mx
from mxlite.ndarray import ndarray as ndmod

from ..golden_file import load
from . import indexing_keys_cases as c

CASES = load("ndarray/golden/indexing_keys.npz").cases
SHAPE = tuple(c.SHAPE)


def _decode(k: Any) -> Any:
    return c.decode(mx, k)


@pytest.mark.parametrize("name", [k for k in CASES if k.startswith("expand/")])
def test_expand_implicit_axes_as_mxnet(name: str) -> None:
    case = CASES[name]
    if case["np"]:
        mx.npx.set_np()
    try:
        got = c.outcome(lambda: ndmod.indexing_key_expand_implicit_axes(_decode(case["key"]),
                                                                       SHAPE))  # fmt: skip
    finally:
        if case["np"]:
            mx.npx.reset_np()
    assert got == case["want"]


@pytest.mark.parametrize("name", [k for k in CASES if k.startswith("dispatch/")])
def test_dispatch_code_as_mxnet(name: str) -> None:
    case = CASES[name]
    assert c.outcome(mx.nd.get_indexing_dispatch_code, _decode(case["key"])) == case["want"]


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
