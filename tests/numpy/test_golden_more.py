"""The mx.np/mx.npx functions of numpy/functions_more.py and their companions against real
MXNet 1.9.1 (tools/golden/cases/numpy_exprs.py): values, dtypes and shapes at the edges
(zero-dim, zero-size, int/bool dtypes), and gradients of zero-dim heads."""

from __future__ import annotations

import numpy as onp
import pytest

import mxlite as mx
from mxlite import np
from tests.golden_file import load
from tests.numpy.numpy_more_cases import GRADS, context, gradient, parts

G = load("numpy/golden/numpy_more_cases.npz")
EXPRS = {case["expr"]: name for name, case in G.cases.items() if name.startswith("c")}


@pytest.mark.parametrize("expr", sorted(EXPRS))
def test_value_dtype_and_shape_as_mxnet(expr: str) -> None:
    name = EXPRS[expr]
    want = G.cases[name]
    with mx.np_shape(True):
        res = eval(expr, context(mx))
    assert isinstance(res, (list, tuple)) == want["many"], expr
    got = parts(res)
    assert len(got) == len(want["dtypes"]), expr
    for j, a in enumerate(got):
        assert isinstance(a, np.ndarray), expr
        assert str(a.dtype) == want["dtypes"][j], expr
        assert list(a.shape) == want["shapes"][j], expr
        onp.testing.assert_allclose(a.asnumpy(), G[f"{name}/value{j}"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("k", range(len(GRADS)))
def test_gradient_of_a_zero_dim_head_as_mxnet(k: int) -> None:
    y, x = gradient(mx, k)
    assert y.shape == ()
    onp.testing.assert_allclose(y.asnumpy(), G[f"g{k}/y"], rtol=1e-5)
    onp.testing.assert_allclose(x.grad.asnumpy(), G[f"g{k}/grad"], rtol=1e-5, atol=1e-6)
