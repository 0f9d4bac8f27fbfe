"""mx.np.linalg, mx.np.random shapes/dtypes and mx.np's NumPy fallbacks against real MXNet
1.9.1 (tools/golden/cases/numpy_linalg.py): values, dtypes, shapes, return types, gradients."""

from __future__ import annotations

import numpy as onp
import pytest

import mxlite as mx
from mxlite import np
from tests.golden_file import load
from tests.numpy.numpy_linalg_cases import GRADS, context, flat, gradient

G = load("numpy/golden/numpy_linalg_cases.npz")
TABLES: dict[str, dict[str, str]] = {"linalg": {}, "fallback": {}, "random": {}}
for _name, _case in G.cases.items():
    if "expr" in _case:
        TABLES[_case.get("table", "random")][_case["expr"]] = _name


def _check(expr: str, name: str) -> None:
    want = G.cases[name]
    if "error" in want:
        with pytest.raises(Exception):  # noqa: B017, PT011  (MXNet refuses it too)
            flat(eval(expr, context(mx)))[0].asnumpy()
        return
    with mx.np_shape(True):
        res = eval(expr, context(mx))
    if want["kind"] == "ndarray":
        assert isinstance(res, np.ndarray), expr
    elif want["kind"] in ("int", "float", "bool"):  # NumPy 2 gives NumPy scalars for them
        assert isinstance(res, (int, float, bool, onp.generic)), expr
    else:
        assert type(res).__name__ == want["kind"], expr
    got = flat(res)
    assert len(got) == len(want["items"]), expr
    for j, (a, item) in enumerate(zip(got, want["items"])):
        value = G[f"{name}/item{j}"]
        if "dtype" in item:
            assert isinstance(a, np.ndarray), expr
            assert (str(a.dtype), list(a.shape)) == (item["dtype"], item["shape"]), expr
            a = a.asnumpy()
        else:
            assert not isinstance(a, mx.nd.NDArray), expr
        onp.testing.assert_allclose(onp.asarray(a), value, rtol=1e-4, atol=1e-5, err_msg=expr)


@pytest.mark.parametrize("expr", sorted(TABLES["linalg"]))
def test_linalg_as_mxnet(expr: str) -> None:
    _check(expr, TABLES["linalg"][expr])


@pytest.mark.parametrize("expr", sorted(TABLES["fallback"]))
def test_fallback_as_mxnet(expr: str) -> None:
    _check(expr, TABLES["fallback"][expr])


@pytest.mark.parametrize("k", range(len(GRADS)))
def test_linalg_gradient_as_mxnet(k: int) -> None:
    if "failed" in G.cases[f"g{k}"]:
        pytest.skip("MXNet 1.9.1 fails on this gradient")
    x, y = gradient(mx, k)
    onp.testing.assert_allclose(x.grad.asnumpy(), G[f"g{k}/gx"], rtol=1e-4, atol=1e-6)
    if y is not None:
        onp.testing.assert_allclose(y.grad.asnumpy(), G[f"g{k}/gy"], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("expr", sorted(TABLES["random"]))
def test_random_shape_and_dtype_as_mxnet(expr: str) -> None:
    want = G.cases[TABLES["random"][expr]]
    res = eval(expr, context(mx))
    assert isinstance(res, np.ndarray)
    assert (str(res.dtype), list(res.shape)) == (want["dtype"], want["shape"])


def test_golden_covers_every_public_name() -> None:
    assert len(np.linalg.__all__) == 20
    exprs = " ".join(TABLES["linalg"])
    assert all(f"np.linalg.{n}(" in exprs for n in np.linalg.__all__)
    rnd = " ".join(TABLES["random"])
    assert all(f"np.random.{n}(" in rnd for n in np.random.__all__
               if n not in ("seed", "shuffle"))  # fmt: skip
