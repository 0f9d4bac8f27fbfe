"""mx.np.linalg, mx.np.random shapes/dtypes and mx.np's NumPy fallbacks against real MXNet
1.9.1 (tools/make_golden_numpy_linalg.py): values, dtypes, shapes, return types, gradients."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as onp
import pytest

import mxlite as mx
from mxlite import autograd, np, npx

GOLDEN = Path(__file__).parent / "golden"
META = json.loads((GOLDEN / "numpy_linalg_cases.json").read_text())
DATA = onp.load(GOLDEN / "numpy_linalg_cases.npz")


def _env() -> dict:
    env = {"np": np, "npx": npx, "onp": onp}
    exec(META["context"], env)
    return env


def _flat(res: object) -> list:
    if isinstance(res, (tuple, list)):
        return [a for r in res for a in _flat(r)]
    return [res]


def _check(expr: str, want: dict) -> None:
    if "error" in want:
        with pytest.raises(Exception):  # noqa: B017, PT011  (MXNet refuses it too)
            _flat(eval(expr, _env()))[0].asnumpy()
        return
    with mx.np_shape(True):
        res = eval(expr, _env())
    if want["kind"] == "ndarray":
        assert isinstance(res, np.ndarray), expr
    elif want["kind"] in ("int", "float", "bool"):  # NumPy 2 gives NumPy scalars for them
        assert isinstance(res, (int, float, bool, onp.generic)), expr
    else:
        assert type(res).__name__ == want["kind"], expr
    got = _flat(res)
    assert len(got) == len(want["items"]), expr
    for a, item in zip(got, want["items"]):
        value = DATA[item["key"]]
        if "dtype" in item:
            assert isinstance(a, np.ndarray), expr
            assert (str(a.dtype), list(a.shape)) == (item["dtype"], item["shape"]), expr
            a = a.asnumpy()
        else:
            assert not isinstance(a, mx.nd.NDArray), expr
        onp.testing.assert_allclose(onp.asarray(a), value, rtol=1e-4, atol=1e-5, err_msg=expr)


@pytest.mark.parametrize("expr", sorted(META["linalg"]))
def test_linalg_as_mxnet(expr: str) -> None:
    _check(expr, META["linalg"][expr])


@pytest.mark.parametrize("expr", sorted(META["fallback"]))
def test_fallback_as_mxnet(expr: str) -> None:
    _check(expr, META["fallback"][expr])


@pytest.mark.parametrize("k", range(len(META["grads"])))
def test_linalg_gradient_as_mxnet(k: int) -> None:
    expr, xname, yname = META["grads"][k]
    if f"gx{k}" not in DATA.files:
        pytest.skip("MXNet 1.9.1 fails on this gradient")
    env = _env()
    x = env[xname].astype("float64")
    y = env[yname].astype("float64") if yname else None
    x.attach_grad()
    if y is not None:
        y.attach_grad()
    with autograd.record():
        res = eval(expr, {"np": np, "x": x, "y": y})
        outs = list(res) if isinstance(res, (tuple, list)) else [res]
        head = None
        for o in outs:
            size = int(onp.prod(o.shape)) if o.shape else 1
            w = (np.arange(size, dtype="float64") * 0.1 + 1).reshape(o.shape)
            term = (o * w).sum()
            head = term if head is None else head + term
    head.backward()
    onp.testing.assert_allclose(x.grad.asnumpy(), DATA[f"gx{k}"], rtol=1e-4, atol=1e-6)
    if y is not None:
        onp.testing.assert_allclose(y.grad.asnumpy(), DATA[f"gy{k}"], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("expr", sorted(META["random"]))
def test_random_shape_and_dtype_as_mxnet(expr: str) -> None:
    want = META["random"][expr]
    res = eval(expr, _env())
    assert isinstance(res, np.ndarray)
    assert (str(res.dtype), list(res.shape)) == (want["dtype"], want["shape"])


def test_golden_covers_every_public_name() -> None:
    assert len(np.linalg.__all__) == 20
    exprs = " ".join(META["linalg"])
    assert all(f"np.linalg.{n}(" in exprs for n in np.linalg.__all__)
    rnd = " ".join(META["random"])
    assert all(f"np.random.{n}(" in rnd for n in np.random.__all__
               if n not in ("seed", "shuffle"))  # fmt: skip
