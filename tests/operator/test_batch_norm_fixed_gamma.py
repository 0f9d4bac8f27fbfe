"""BatchNorm with a fixed gamma (fix_gamma=True, Gluon's scale=False) against MXNet 1.9.1
(issue 32, item 1): the forward writes ones into gamma, so a training step of a SymbolBlock,
a Gluon block or a Module moves that gamma exactly as MXNet does (from 1).

The workloads are in ``bn_fixed_gamma_cases.py``; the golden file is written by
``tools/golden/cases/bn_fixed_gamma.py`` under real MXNet.
"""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from tests.golden_file import load
from tests.operator import bn_fixed_gamma_cases as cases

G = load("operator/golden/bn_fixed_gamma.npz")

# MXNet's graph executor gives an output nothing reads no write request (kNullOp), and its
# kernel writes ones into gamma only with the mean output's write: in a graph with no backward
# gamma keeps its value. mxlite's executor requests every output, so gamma reads 1 there.
INFERENCE_ONLY_GRAPH = pytest.mark.xfail(
    strict=True,
    reason="a difference left as it is: mxlite's executor writes outputs nothing reads, so an "
    "unfolded inference-only graph sets a fixed gamma (which its output never uses) to ones "
    "where MXNet leaves it",
)
# a bound inference graph whose BatchNorm follows a convolution folds it into the convolution
# (executor/fuse.py), so that BatchNorm never runs and gamma keeps its value, as in MXNet
MARKS = {"hybrid_inference": INFERENCE_ONLY_GRAPH}


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=MARKS.get(n, ())) for n in cases.CASES]
)  # fmt: skip
def test_equal_to_mxnet(name: str) -> None:
    got = cases.CASES[name](mx)
    want = G.arrays(name)
    assert sorted(got) == sorted(want)
    for key, b in want.items():
        a = got[key]
        if b.dtype.kind == "U":
            assert list(a) == list(b), f"{name}/{key}"
            continue
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=f"{name}/{key}")


def test_free_gamma_and_unwritten_mean_leave_gamma() -> None:
    x = mx.nd.ones((2, 3, 2, 2))
    gamma = mx.nd.array([0.5, 2.0, 3.0])
    stats = [mx.nd.zeros(3), mx.nd.zeros(3), mx.nd.ones(3)]
    mx.nd.BatchNorm(x, gamma, *stats, fix_gamma=False).wait_to_read()
    assert gamma.asnumpy().tolist() == [0.5, 2.0, 3.0]
