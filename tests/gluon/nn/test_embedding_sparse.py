"""gluon.nn.Embedding(sparse_grad=True) with a Trainer against MXNet 1.9.1: row-sparse
gradients holding the rows looked up, and lazy updates of only those rows (golden file from
tools/golden/cases/sparse.py)."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from tests import sparse_training_cases
from tests.golden_file import load

pytest.importorskip("scipy")
_G = load("ndarray/golden/sparse/sparse.npz")


@pytest.mark.parametrize("opt", ["sgd", "adam", "adagrad", "ftrl"])
def test_sparse_embedding_training_matches_mxnet(opt):
    batches = [_G[f"gluon/idx{k}"] for k in range(3)]
    stype, rows, weight = sparse_training_cases.embedding_training(mx, batches, opt)
    assert stype == "row_sparse"
    np.testing.assert_array_equal(rows, _G[f"gluon_{opt}/rows"])
    np.testing.assert_allclose(weight.asnumpy(), _G[f"gluon_{opt}/weight"], atol=1e-6)
