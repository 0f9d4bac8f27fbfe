"""mxlite.test_utils' sparse helpers (MXNet 1.9.1's generators) and sparse symbolic checks."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
import mxlite.test_utils as tu

pytest.importorskip("scipy")


def _doubling_rows(csr, last: int) -> None:
    indices, indptr = csr.indices.asnumpy(), csr.indptr.asnumpy()
    for row in range(1, last + 1):
        now = indices[indptr[row] - 1] + 1
        nxt = indices[indptr[row + 1] - 1] + 1
        assert nxt == 2 * now


def test_powerlaw_csr_doubles_each_row():
    csr, _ = tu.rand_sparse_ndarray((32, 10000), "csr", density=0.01, distribution="powerlaw")
    assert len(csr.data) == 3200
    _doubling_rows(csr, 9)
    small, _ = tu.rand_sparse_ndarray((5, 5), "csr", density=0.5, distribution="powerlaw")
    _doubling_rows(small, 1)
    with pytest.raises(ValueError):
        tu.rand_sparse_ndarray((10, 2), "csr", density=0.1, distribution="powerlaw")


def test_create_sparse_array_zd_stores_given_rows():
    arr = tu.create_sparse_array_zd((6, 3), "row_sparse", density=0.5, rsp_indices=[4, 1])
    assert arr.indices.asnumpy().tolist() == [1, 4]
    csr = tu.create_sparse_array((4, 5), "csr", density=0.5, shuffle_csr_indices=False)
    csr.check_format()


def test_symbolic_checks_with_sparse_arrays():
    lhs = mx.sym.var("lhs", stype="row_sparse")
    rhs = mx.sym.var("rhs", stype="row_sparse")
    a = mx.nd.array(np.eye(4, 3, dtype="float32")).tostype("row_sparse")
    b = (mx.nd.ones((4, 3)) * 2).tostype("row_sparse")
    out = tu.check_symbolic_forward(mx.sym.elemwise_add(lhs, rhs), {"lhs": a, "rhs": b},
                                    [np.eye(4, 3) + 2])  # fmt: skip
    assert out[0].stype == "row_sparse"
    grads = tu.check_symbolic_backward(
        mx.sym.elemwise_mul(lhs, rhs), {"lhs": a, "rhs": b}, [np.ones((4, 3))],
        [np.full((4, 3), 2.0), np.eye(4, 3)], grad_stypes={"lhs": "row_sparse"},
    )  # fmt: skip
    assert grads["lhs"].stype == "row_sparse" and grads["rhs"].stype == "default"
    tu.check_numeric_gradient(mx.sym.sqrt(lhs) * 1.0, [(b + 1).tostype("row_sparse")],
                              grad_stype_dict={"lhs": "row_sparse"})  # fmt: skip


def test_compare_optimizer_with_sparse_gradient():
    opt1 = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, lazy_update=False)
    opt2 = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, lazy_update=False)
    tu.compare_optimizer(opt1, opt2, (5, 3), np.float32, g_stype="row_sparse")
