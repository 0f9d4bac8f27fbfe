"""Every gluon.nn layer against MXNet 1.9.1: outputs and gradients from the same parameters,
imperative and hybridized (golden files from tools/golden/cases/gluon.py)."""

from pathlib import Path

import numpy as np
import pytest

import mxlite as mx
from mxlite import autograd
from mxlite.gluon import nn
from tests.gluon import mlp_cases
from tests.golden_file import load

GOLDEN = Path(__file__).parents[1] / "golden"
_G = load("gluon/golden/gluon.npz")
CASES = [c for k, c in _G.cases.items() if k.startswith("layer")]
DATA = {f"{k[5:]}": v for k, v in _G.items() if k.startswith("layer")}


def _run(k: int, hybridize: bool) -> tuple:
    case = CASES[k]
    x = mx.nd.array(DATA[f"{k}/x"])
    params, _, y, _ = mlp_cases.layer_step(
        mx, case["ctor"], x, lambda name, p: DATA[f"{k}/param/{name}"],
        lambda shape: DATA[f"{k}/head"], hybridize,
    )  # fmt: skip
    assert sorted(params) == case["params"]
    return x, y, params, case["ctor"].startswith("nn.Embedding")


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("k", range(len(CASES)), ids=[c["ctor"] for c in CASES])
def test_layer_matches_mxnet(k, hybridize):
    x, y, params, embedding = _run(k, hybridize)
    tol = {"rtol": 1e-4, "atol": 1e-5}
    np.testing.assert_allclose(y.asnumpy(), DATA[f"{k}/y"], **tol)
    if not embedding:
        np.testing.assert_allclose(x.grad.asnumpy(), DATA[f"{k}/dx"], **tol)
    for name, p in params.items():
        if p.grad_req != "null":
            np.testing.assert_allclose(p.grad().asnumpy(), DATA[f"{k}/grad/{name}"], **tol)
        else:  # BatchNorm's running statistics after one training step
            np.testing.assert_allclose(p.data().asnumpy(), DATA[f"{k}/after/{name}"], **tol)


def test_layer_reprs_and_shapes():
    assert repr(nn.Dense(5, in_units=3)) == "Dense(3 -> 5, linear)"
    assert repr(nn.Conv2D(4, 3, padding=1, in_channels=2)).startswith(
        "Conv2D(2 -> 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1)"
    )
    assert nn.Conv2DTranspose(4, 3, in_channels=2).weight.shape == (2, 4, 3, 3)
    assert "pool_type=max" in repr(nn.MaxPool2D())
    with pytest.raises(AssertionError, match="layout"):
        nn.Conv1D(2, 3, layout="NWC")
    with pytest.raises(AssertionError, match="kernel_size"):
        nn.Conv2D(2, (3, 3, 3))


def test_sequential_slicing_and_concatenate():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(4), nn.Dense(3), nn.Dense(2))
    assert len(net) == 3 and isinstance(net[1], nn.Dense)
    assert len(net[1:]) == 2
    cat = nn.HybridConcatenate(axis=1)
    cat.add(nn.Dense(2), nn.Identity())
    cat.initialize()
    x = mx.nd.ones((2, 3))
    assert cat(x).shape == (2, 5)
    cat.hybridize()
    assert cat(x).shape == (2, 5)
    plain = nn.Concatenate(axis=1)
    plain.add(nn.Lambda(lambda v: v * 2), nn.Identity())
    np.testing.assert_array_equal(
        plain(x).asnumpy(), np.concatenate([2 * x.asnumpy(), x.asnumpy()], 1)
    )


def test_sync_batchnorm_is_batchnorm_on_one_device():
    layer = nn.SyncBatchNorm(in_channels=3)
    layer.initialize()
    x = mx.nd.random.uniform(shape=(4, 3, 2, 2))
    ref = nn.BatchNorm(in_channels=3)
    ref.initialize()
    with autograd.record():
        a, b = layer(x), ref(x)
    np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)
