"""mx.np operators against real MXNet 1.9.1 (tools/golden/cases/numpy_ops.py), imperatively and
in hybridized blocks: values, dtypes, shapes and gradients (integer and float16 dtypes,
zero-size and zero-dim inputs, the ``_Symbol`` methods), the exceptions MXNet raises for
arguments it refuses (NumPy's ufunc keywords, ``out`` dtypes, sampler domains), and the JSON of
symbols built from ``mx.sym.np``."""

from __future__ import annotations

import builtins
import json

import numpy as onp
import pytest

import mxlite as mx
from mxlite import np
from tests.golden_file import load
from tests.numpy import numpy_ops_cases as c

G = load("numpy/golden/numpy_ops_cases.npz")


@pytest.fixture(scope="module")
def env():
    with mx.util.np_array(True), mx.np_shape(True):
        yield c.context(mx)


def _tol(dtype: str) -> dict:
    return {"rtol": 2e-3, "atol": 1e-5} if dtype == "float16" else {"rtol": 1e-5, "atol": 1e-6}


@pytest.mark.parametrize("hybrid", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("k", range(len(c.VALUES)))
def test_value_dtype_and_shape_as_mxnet(env: dict, k: int, hybrid: bool) -> None:
    (expr, names), want = c.VALUES[k], G.cases[f"v{k}"]
    out, _ = env["run"](expr, list(names), hybrid)
    assert isinstance(out, np.ndarray), expr
    assert (str(out.dtype), list(out.shape)) == (want["dtype"], want["shape"]), expr
    ref = G[f"v{k}/out{int(hybrid)}"]
    onp.testing.assert_allclose(out.asnumpy(), ref, **_tol(want["dtype"]), err_msg=expr)


@pytest.mark.parametrize("hybrid", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("k", range(len(c.GRADS)))
def test_gradient_as_mxnet(env: dict, k: int, hybrid: bool) -> None:
    (expr, names, wrt), want = c.GRADS[k], G.cases[f"g{k}"]
    _, grads = env["run"](expr, list(names), hybrid, wrt)
    for n, g, dt in zip(wrt, grads, want["dtypes"]):
        assert str(g.dtype) == dt, expr
        ref = G[f"g{k}/grad{int(hybrid)}_{n}"]
        onp.testing.assert_allclose(g.asnumpy(), ref, **_tol(dt), err_msg=expr)


@pytest.mark.parametrize(("expr", "names"), c.SHAPES)
def test_random_draws_have_mxnets_shapes_and_dtypes(env: dict, expr: str, names: str) -> None:
    for hybrid, run in zip((False, True), G.cases["shapes"][expr]):
        out, _ = env["run"](expr, list(names), hybrid)
        assert {"dtype": str(out.dtype), "shape": list(out.shape)} == run, (expr, hybrid)


@pytest.mark.parametrize("expr", c.ERRORS)
def test_refused_arguments_raise_mxnets_exception(env: dict, expr: str) -> None:
    name = G.cases["errors"][expr]
    scope = {**env, **env["ARRAYS"]}
    if name == "no error":
        eval(expr, scope)
        return
    cls = mx.MXNetError if name == "MXNetError" else getattr(builtins, name)
    with pytest.raises(cls):
        eval(expr, scope)


@pytest.mark.parametrize("expr", c.OTHERS)
def test_other_results_as_mxnet(env: dict, expr: str) -> None:
    want = G.cases["others"][expr]
    res = eval(expr, {**env, **env["ARRAYS"]})
    assert (type(res).__name__, str(res)) == (want["type"], want["value"]), expr


@pytest.mark.parametrize("expr", c.SYMBOLS)
def test_symbol_graph_as_mxnet(env: dict, expr: str) -> None:
    """The same operators and edges (node names and the spelling of attributes may differ; a
    ``Custom`` node's attributes, its user's parameters, are compared as written)."""
    got = json.loads(eval(expr, dict(env)).tojson())["nodes"]
    want = G.cases["symbols"][expr]["nodes"]
    assert [(n["op"], n["inputs"]) for n in got] == [(n["op"], n["inputs"]) for n in want]
    for g, w in zip(got, want):
        if w["op"] == "Custom":
            assert g["attrs"] == w["attrs"], expr
