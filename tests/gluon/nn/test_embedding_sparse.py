"""gluon.nn.Embedding(sparse_grad=True) with a Trainer against MXNet 1.9.1: row-sparse
gradients holding the rows looked up, and lazy updates of only those rows (golden file from
tools/golden/cases/sparse.py)."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from tests.golden_file import load

pytest.importorskip("scipy")
_G = load("ndarray/golden/sparse/sparse.npz")


@pytest.mark.parametrize("opt", ["sgd", "adam", "adagrad", "ftrl"])
def test_sparse_embedding_training_matches_mxnet(opt):
    net = mx.gluon.nn.Embedding(20, 3, sparse_grad=True)
    net.initialize(mx.init.Constant(0.5))
    trainer = mx.gluon.Trainer(net.collect_params(), opt, {"learning_rate": 0.1})
    for k in range(3):
        with mx.autograd.record():
            loss = (net(mx.nd.array(_G[f"gluon/idx{k}"])) ** 2).sum()
        loss.backward()
        if k == 0:
            grad = net.weight.grad()
            assert grad.stype == "row_sparse"
            np.testing.assert_array_equal(grad.indices.asnumpy(), _G[f"gluon_{opt}/rows"])
        trainer.step(4)
    np.testing.assert_allclose(net.weight.data().asnumpy(), _G[f"gluon_{opt}/weight"], atol=1e-6)
