"""NDArray arithmetic operators on sparse operands (``rsp + rsp``, ``csr * csr``, with dense
arrays and scalars, reflected and in place) against MXNet 1.9.1: the storage type, the values
and the stored indices (tools/golden/cases/sparse_arith.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mxlite as mx
from tests.golden_file import load
from tests.ndarray.sparse_arith_cases import evaluate, nd_operands

G = load("ndarray/golden/sparse/sparse_arith.npz")
CASES = [(name, meta) for name, meta in G.cases.items() if "expr" in meta]


def _operands() -> dict:
    return nd_operands(mx, G.arrays("operands"))


# Where mxlite departs from MXNet 1.9.1 on purpose: broadcast_div of a CSR by a dense array of
# its shape, which MXNet refuses ("use elemwise_div"), gives the quotient as a CSR array (as
# broadcast_div of a CSR by a row does in both); and a CSR result stores each row's columns sorted (CSR's
# canonical form, SciPy's), where MXNet's CSR-CSR kernels leave them in the order of their
# first appearance, so stored columns are compared row by row as sets
COMPUTED_WHERE_MXNET_REFUSES = {"csr1 / dns45"}


def _csr_rows(indptr: list, indices: list) -> list:
    return [sorted(indices[a:b]) for a, b in zip(indptr, indptr[1:])]


@pytest.mark.parametrize("case", CASES, ids=[c["expr"] for _, c in CASES])
def test_arithmetic_on_sparse_operands_matches_mxnet(case) -> None:
    i, want = case
    g = G.arrays(i)
    arrays = _operands()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # storage fallbacks warn, in MXNet too
        if want["expr"] in COMPUTED_WHERE_MXNET_REFUSES:
            assert "error" in want  # MXNet's refusal, recorded by the golden family
            a, b = (arrays[n].asnumpy() for n in want["expr"].split(" / "))
            res = evaluate(want["expr"], arrays)
            assert res.stype == "csr"
            np.testing.assert_allclose(res.asnumpy(), a / b, rtol=1e-6)
            return
        if "error" in want:
            with pytest.raises(mx.base.MXNetError):
                evaluate(want["expr"], arrays).wait_to_read()
            return
        res = evaluate(want["expr"], arrays)
        assert res.stype == want["stype"]
        np.testing.assert_allclose(res.asnumpy(), g["value"], rtol=1e-6, atol=1e-6)
    if want["stype"] == "row_sparse":  # the stored rows, an all-zero one included
        assert res.indices.asnumpy().tolist() == g["indices"].tolist()
    elif want["stype"] == "csr":  # the stored entries (results of 0 dropped), row by row
        indptr = res.indptr.asnumpy().tolist()
        assert indptr == g["indptr"].tolist()
        got = _csr_rows(indptr, res.indices.asnumpy().tolist())
        assert got == _csr_rows(indptr, g["indices"].tolist())


def test_same_shape_sparse_arithmetic_takes_no_storage_fallback() -> None:
    # the defect: rsp + rsp, csr * csr went through broadcast_* and densified with a warning
    a = mx.nd.sparse.row_sparse_array((np.ones((2, 3)), [0, 4]), shape=(6, 3))
    b = mx.nd.sparse.row_sparse_array((np.ones((1, 3)), [2]), shape=(6, 3))
    c = mx.nd.array(np.eye(4)).tostype("csr")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for res, stype in ((a + b, "row_sparse"), (a - b, "row_sparse"), (a * b, "row_sparse"),
                           (c + c, "csr"), (c - c, "csr"), (c * c, "csr")):  # fmt: skip
            assert res.stype == stype
    assert (a + b).indices.asnumpy().tolist() == [0, 2, 4]


def test_sparse_module_functions_route_as_the_operators() -> None:
    a = mx.nd.sparse.row_sparse_array((np.ones((2, 3), np.float32), [0, 4]), shape=(6, 3))
    assert mx.nd.sparse.add(a, a).stype == "row_sparse"
    assert mx.nd.sparse.multiply(a, 2.0).stype == "row_sparse"
    assert mx.nd.sparse.subtract(a, mx.nd.ones((1, 3))).stype == "default"  # broadcast_sub
    assert mx.nd.sparse.divide(a, a).stype == "default"  # elemwise_div of rsp is dense
