"""mx.np expressions against real MXNet 1.9.1 (tools/golden/cases/numpy_exprs.py): values, dtypes,
shapes and printing at the edges (zero-dim, zero-size, broadcasting, int/bool dtypes), and
gradients of zero-dim heads."""

from __future__ import annotations

from pathlib import Path

import numpy as onp
import pytest

import mxlite as mx
from mxlite import np, npx
from tests.golden_file import load
from tests.numpy.numpy_cases import GRADS, context, gradient

GOLDEN = Path(__file__).parent / "golden"
G = load("numpy/golden/numpy_cases.npz")
EXPRS = {case["expr"]: name for name, case in G.cases.items() if name.startswith("c")}


@pytest.mark.parametrize("expr", sorted(EXPRS))
def test_value_dtype_shape_and_repr_as_mxnet(expr: str) -> None:
    name = EXPRS[expr]
    want, value = G.cases[name], G[f"{name}/value"]
    with mx.np_shape(True):
        res = eval(expr, context(mx))
    assert isinstance(res, np.ndarray)
    assert str(res.dtype) == want["dtype"], expr
    assert list(res.shape) == want["shape"], expr
    onp.testing.assert_allclose(res.asnumpy(), value, rtol=1e-5, atol=1e-6)
    if onp.array_equal(res.asnumpy(), value):  # else the last digits differ
        assert repr(res).replace(" ", "") == want["repr"].replace(" ", ""), expr


@pytest.mark.parametrize("k", range(len(GRADS)))
def test_gradient_of_a_zero_dim_head_as_mxnet(k: int) -> None:
    expr, value = GRADS[k]
    y, x = gradient(mx, k)
    assert y.shape == ()
    assert isinstance(x.grad, np.ndarray)
    onp.testing.assert_allclose(y.asnumpy(), G[f"g{k}/y"], rtol=1e-5)
    want = G[f"g{k}/grad"]
    if expr == "x.std()":  # MXNet 1.9.1 gives std a zero gradient (MakeZeroGradNodes); not here
        v = onp.array(value)
        want = (v - v.mean()) / (v.size * v.std())
    onp.testing.assert_allclose(x.grad.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_npx_load_reads_a_file_mxnet_wrote() -> None:
    got = npx.load(str(GOLDEN / "mxnet_npx_save.params"))
    assert got["s"].shape == () and float(got["s"]) == 3.0
    assert got["z"].shape == (0, 2)
    assert got["i"].dtype == onp.int64
    assert isinstance(got["a"], np.ndarray)


def test_a_pickle_mxnet_wrote_loads_through_the_restricted_unpickler() -> None:
    from mxlite.fileio import restricted_loads

    x = restricted_loads((GOLDEN / "mxnet_np_array.pickle").read_bytes(), "test")
    assert type(x) is np.ndarray and x.tolist() == [1.0, 2.0]
