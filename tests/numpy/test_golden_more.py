"""The mx.np/mx.npx functions of numpy/functions_more.py and their companions against real
MXNet 1.9.1 (tools/make_golden_numpy_more.py): values, dtypes and shapes at the edges (zero-dim,
zero-size, int/bool dtypes), and gradients of zero-dim heads."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as onp
import pytest

import mxlite as mx
from mxlite import autograd, np, npx

GOLDEN = Path(__file__).parent / "golden"
META = json.loads((GOLDEN / "numpy_more_cases.json").read_text())
DATA = onp.load(GOLDEN / "numpy_more_cases.npz")
# MXNet 1.9.1 computes these in float32 and casts (its float64 windows differ in the 8th digit)
_LOOSE = ("np.hamming(6, dtype='float64')",)


def _env() -> dict:
    env = {"np": np, "npx": npx, "onp": onp}
    exec(META["context"], env)
    return env


@pytest.mark.parametrize("expr", sorted(META["cases"]))
def test_value_dtype_and_shape_as_mxnet(expr: str) -> None:
    want = META["cases"][expr]
    with mx.np_shape(True):
        res = eval(expr, _env())
    assert isinstance(res, (list, tuple)) == want["many"], expr
    parts = list(res) if want["many"] else [res]
    assert len(parts) == len(want["parts"]), expr
    rtol = 1e-6 if expr in _LOOSE else 1e-5
    for got, part in zip(parts, want["parts"]):
        assert isinstance(got, np.ndarray), expr
        assert str(got.dtype) == part["dtype"], expr
        assert list(got.shape) == part["shape"], expr
        onp.testing.assert_allclose(got.asnumpy(), DATA[part["key"]], rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("k", range(len(META["grads"])))
def test_gradient_of_a_zero_dim_head_as_mxnet(k: int) -> None:
    expr, value = META["grads"][k]
    x = np.array(value)
    x.attach_grad()
    with autograd.record():
        y = eval(expr, {"np": np, "npx": npx, "x": x})
    assert y.shape == ()
    y.backward()
    onp.testing.assert_allclose(y.asnumpy(), DATA[f"y{k}"], rtol=1e-5)
    onp.testing.assert_allclose(x.grad.asnumpy(), DATA[f"g{k}"], rtol=1e-5, atol=1e-6)
