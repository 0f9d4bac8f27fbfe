"""Every gluon.loss against MXNet 1.9.1: values and input gradients (golden files from
tools/golden/cases/gluon.py), imperative and hybridized."""

from pathlib import Path

import numpy as np
import pytest

import mxlite as mx
from mxlite import gluon
from tests.gluon import mlp_cases
from tests.golden_file import load

GOLDEN = Path(__file__).parent / "golden"
_G = load("gluon/golden/gluon.npz")
CASES = [c for k, c in _G.cases.items() if k.startswith("loss")]
DATA = {k[4:]: v for k, v in _G.items() if k.startswith("loss")}


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("k", range(len(CASES)), ids=[c["ctor"] for c in CASES])
def test_loss_matches_mxnet(k, hybridize):
    arrays = [mx.nd.array(DATA[f"{k}/in{i}"]) for i in range(CASES[k]["n"])]
    wrt = [i for i in range(len(arrays)) if f"{k}/grad{i}" in DATA]
    value = mlp_cases.loss_step(mx, CASES[k]["ctor"], arrays, wrt, hybridize)
    np.testing.assert_allclose(value.asnumpy(), DATA[f"{k}/loss"], rtol=1e-4, atol=1e-5)
    for i in wrt:
        np.testing.assert_allclose(
            arrays[i].grad.asnumpy(), DATA[f"{k}/grad{i}"], rtol=1e-4, atol=1e-5
        )


def test_loss_weight_must_be_a_number():
    loss = gluon.loss.L1Loss(weight="heavy")
    with pytest.raises(AssertionError, match="weight must be a number"):
        loss(mx.nd.ones((2, 2)), mx.nd.ones((2, 2)))
    with pytest.raises(ValueError, match="label_format"):
        gluon.loss.LogisticLoss(label_format="other")


def test_sdml_loss_prefers_matching_rows():
    x = mx.nd.array(np.eye(4, dtype="float32"))
    near = gluon.loss.SDMLLoss()(x, x).asnumpy()
    far = gluon.loss.SDMLLoss()(x, x[::-1]).asnumpy()
    assert near.shape == (4,) and (near < far).all()
