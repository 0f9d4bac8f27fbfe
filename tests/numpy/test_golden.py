"""mx.np expressions against real MXNet 1.9.1 (tools/make_golden_numpy.py): values, dtypes,
shapes and printing at the edges (zero-dim, zero-size, broadcasting, int/bool dtypes), and
gradients of zero-dim heads."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as onp
import pytest

import mxlite as mx
from mxlite import autograd, np, npx

GOLDEN = Path(__file__).parent / "golden"
META = json.loads((GOLDEN / "numpy_cases.json").read_text())
DATA = onp.load(GOLDEN / "numpy_cases.npz")


def _env() -> dict:
    env = {"np": np, "npx": npx, "onp": onp}
    exec(META["context"], env)
    return env


@pytest.mark.parametrize("expr", sorted(META["cases"]))
def test_value_dtype_shape_and_repr_as_mxnet(expr: str) -> None:
    want = META["cases"][expr]
    with mx.np_shape(True):
        res = eval(expr, _env())
    assert isinstance(res, np.ndarray)
    assert str(res.dtype) == want["dtype"], expr
    assert list(res.shape) == want["shape"], expr
    onp.testing.assert_allclose(res.asnumpy(), DATA[want["key"]], rtol=1e-5, atol=1e-6)
    if onp.array_equal(res.asnumpy(), DATA[want["key"]]):  # else the last digits differ
        assert repr(res).replace(" ", "") == want["repr"].replace(" ", ""), expr


@pytest.mark.parametrize("k", range(len(META["grads"])))
def test_gradient_of_a_zero_dim_head_as_mxnet(k: int) -> None:
    expr, value = META["grads"][k]
    x = np.array(value)
    x.attach_grad()
    with autograd.record():
        y = eval(expr, {"np": np, "npx": npx, "x": x})
    assert y.shape == ()
    y.backward()
    assert isinstance(x.grad, np.ndarray)
    onp.testing.assert_allclose(y.asnumpy(), DATA[f"y{k}"], rtol=1e-5)
    want = DATA[f"g{k}"]
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
