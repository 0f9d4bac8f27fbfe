"""Sparse operator forms against MXNet 1.9.1 (golden file from tools/golden/cases/sparse.py):
each operator's outputs and output storage types, and the lazy optimizer updates."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mxlite as mx
from tests.golden_file import load

pytest.importorskip("scipy")
_G = load("ndarray/golden/sparse/sparse.npz")
_CASES = [c for name, c in _G.cases.items() if name.startswith("op")]


def _nd(value: np.ndarray, stype: str) -> mx.nd.NDArray:
    arr = mx.nd.array(value)
    return arr if stype == "default" else arr.tostype(stype)


def _fn(name: str):
    for mod, prefix in ((mx.nd, ""), (mx.nd._internal, ""), (mx.nd.contrib, "_contrib_"),
                        (mx.nd.sparse, "_sparse_")):  # fmt: skip
        if name.startswith(prefix) and hasattr(mod, name[len(prefix) :]):
            return getattr(mod, name[len(prefix) :])
    raise KeyError(name)


def _ids(case: dict) -> str:
    return f"{case['op']}-{'-'.join(case['stypes'])}"


@pytest.mark.parametrize("i", range(len(_CASES)), ids=[_ids(c) for c in _CASES])
def test_operator_matches_mxnet(i: int):
    case = _CASES[i]
    ins = [_nd(_G[f"op{i}/in{j}"], st) for j, st in enumerate(case["stypes"])]
    params = {k: tuple(v) if isinstance(v, list) else v for k, v in case["params"].items()}
    if case.get("update"):
        rows = _G[f"op{i}/gidx"]
        g = mx.nd.sparse.row_sparse_array((_G[f"op{i}/in1"][rows], rows), shape=ins[0].shape)
        ins[1] = g
        res = _fn(case["op"])(*ins, out=ins[0], **params)
        np.testing.assert_allclose(res.asnumpy(), _G[f"op{i}/out0"], rtol=1e-5, atol=1e-6)
        for s, st in enumerate(ins[2:]):
            np.testing.assert_allclose(st.asnumpy(), _G[f"op{i}/state{s}"], rtol=1e-5, atol=1e-6)
        assert res.stype == case["out_stypes"][0]
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = _fn(case["op"])(*ins, **params)
    res = res if isinstance(res, list) else [res]
    if "error" in case:  # MXNet 1.9.1 refuses it; mxlite computes it on dense arrays
        dense = _fn(case["op"])(*[mx.nd.array(_G[f"op{i}/in{j}"]) for j in range(len(ins))],
                                **params)  # fmt: skip
        np.testing.assert_allclose(res[0].asnumpy(), dense.asnumpy(), rtol=1e-6)
        return
    for j, r in enumerate(res):
        assert r.stype == case["out_stypes"][j]
        want = _G[f"op{i}/out{j}"]
        np.testing.assert_allclose(r.asnumpy(), want, rtol=1e-5, atol=1e-6)
        if r.stype != "default":
            r.check_format()


def test_lazy_update_leaves_rows_without_gradient():
    w = mx.nd.ones((4, 2))
    mom = mx.nd.zeros((4, 2))
    g = mx.nd.sparse.row_sparse_array((np.ones((1, 2), "float32"), [2]), shape=(4, 2))
    mx.nd.sgd_mom_update(w, g, mom, out=w, lr=0.1, wd=0.1, momentum=0.9)
    want = np.ones((4, 2), "float32")
    want[2] = 1 - 0.1 * (1 + 0.1)
    np.testing.assert_allclose(w.asnumpy(), want, rtol=1e-6)
    assert np.count_nonzero(mom.asnumpy()[[0, 1, 3]]) == 0
    mx.nd.sgd_update(w, g, out=w, lr=0.1, wd=0.1, lazy_update=False)  # standard: every row
    assert np.all(w.asnumpy()[[0, 1, 3]] < 1)


def test_batchnorm_refuses_fix_gamma_with_sparse_input():
    r = mx.nd.ones((2, 3)).tostype("row_sparse")
    g = mx.nd.ones(3)
    with pytest.raises(mx.base.MXNetError, match="BatchNorm.*fix_gamma"):
        mx.nd.BatchNorm(r, g, g, g, g, fix_gamma=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = mx.nd.BatchNorm(r, g, g, g, g, fix_gamma=False, use_global_stats=True)
    np.testing.assert_allclose(out.asnumpy(), np.full((2, 3), 1.0), rtol=1e-3)
