"""The operator sweep: every registered operator that declares ``test = OpTest(...)`` runs here,
in every dtype it declares, on the inputs its declaration describes (``OpTest.inputs``):

- forward against MXNet 1.9.1's outputs on the same inputs (tools/golden/cases/sweep.py);
  the golden file records why instead where MXNet could not run the case, its outputs are
  random, or the declaration says ``matches_mxnet=False``;
- the gradient against central finite differences in float64 (declarations with ``grad``);
- ``req='add'`` accumulating into what the output and gradient buffers held (declarations
  with ``accumulates``).
"""

from __future__ import annotations

import numpy as np
import pytest

from mxlite.operator import registry
from mxlite.operator.req import OpReq

from . import opcheck

DECLARED = {c.op_name: c.test for c in set(registry.all_ops().values()) if c.test is not None}
CASES = [(name, dt) for name, t in sorted(DECLARED.items()) for dt in t.dtypes]
GRAD = sorted(name for name, t in DECLARED.items() if t.grad)
GOLD = opcheck.golden("sweep")


def _inputs(name: str, dtype: str) -> list[np.ndarray]:
    t = DECLARED[name]
    return t.inputs(opcheck.prop_of(name, **t.params), dtype)


def _close(got: np.ndarray, want: np.ndarray, t: registry.OpTest, what: str) -> None:
    assert got.shape == want.shape, f"{what}: shape {got.shape}, MXNet {want.shape}"
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(
            got.astype(np.float64), want, rtol=t.rtol, atol=t.atol, equal_nan=True, err_msg=what
        )
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def test_golden_file_covers_every_declaration() -> None:
    assert sorted(GOLD.cases) == sorted(f"{name}-{dt}" for name, dt in CASES)


@pytest.mark.parametrize("name, dtype", CASES)
def test_forward_matches_mxnet(name: str, dtype: str) -> None:
    t, key = DECLARED[name], f"{name}-{dtype}"
    xs = _inputs(name, dtype)
    case = GOLD.cases[key]
    if "skipped" in case:
        pytest.skip(f"MXNet 1.9.1: {case['skipped']}")
    outs = opcheck.forward(name, xs, **t.params)
    for j, want in enumerate(GOLD.outputs(key)):
        _close(outs[j], want, t, f"{key} output {j}")


@pytest.mark.parametrize("name", GRAD)
def test_gradient_matches_finite_differences(name: str) -> None:
    t = DECLARED[name]
    xs = _inputs(name, "float64")
    outs = opcheck.forward(name, xs, is_train=True, **t.params)
    rng = np.random.default_rng(1)
    heads = [rng.uniform(-1, 1, o.shape) for o in outs]
    got = opcheck.backward(name, xs, heads, **t.params)
    want = opcheck.numeric_grad(name, xs, heads, **t.params)
    for i, (g, w) in enumerate(zip(got, want)):
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=t.rtol, atol=t.atol, err_msg=f"input {i}")


@pytest.mark.parametrize("name, dtype", CASES)
def test_req_add_accumulates(name: str, dtype: str) -> None:
    t = DECLARED[name]
    if not t.accumulates:
        pytest.skip("declared accumulates=False: writes its outputs whatever the request")
    xs = _inputs(name, dtype)
    nvis = opcheck.prop_of(name, **t.params).num_visible_outputs()
    outs = opcheck.forward(name, xs, **t.params)
    init = [np.ones_like(o) for o in outs]
    added = opcheck.forward(name, xs, req=OpReq.ADD, out_init=init, **t.params)
    for o, a, i in zip(outs[:nvis], added, init):
        np.testing.assert_allclose(a, i + o, rtol=1e-6, atol=1e-6)
    if t.grad and dtype.startswith("float"):
        heads = [np.full(o.shape, 0.5, o.dtype) for o in outs]
        plain = opcheck.backward(name, xs, heads, **t.params)
        ginit = [np.full(g.shape, 2, g.dtype) for g in plain]
        got = opcheck.backward(name, xs, heads, req=OpReq.ADD, grad_init=ginit, **t.params)
        for p, g, i in zip(plain, got, ginit):
            np.testing.assert_allclose(g, i + p, rtol=1e-5, atol=1e-5)
