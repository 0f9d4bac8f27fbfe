"""Sparse arrays under autograd: gradient storage types and the rows MXNet 1.9.1 stores."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx

STYPES = ["default", "csr", "row_sparse"]


@pytest.mark.parametrize("array_stype", STYPES)
@pytest.mark.parametrize("grad_stype", [None, *STYPES])
def test_attach_grad_stype_defaults_to_the_arrays(array_stype, grad_stype):
    x = mx.nd.zeros((2, 3), stype=array_stype)
    x.attach_grad(stype=grad_stype)
    assert x.grad.stype == (grad_stype or array_stype)
    y = x.detach()
    assert y.stype == array_stype
    assert y._ag is None


def test_detach_of_a_sparse_array_shares_its_values():
    x = mx.nd.array([[0, 1], [2, 0]]).tostype("csr")
    np.testing.assert_array_equal(x.detach().asnumpy(), x.asnumpy())
