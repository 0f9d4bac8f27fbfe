"""Module with sparse data and a row_sparse weight, as example/sparse/linear_classification
trains it (CSR LibSVMIter, local kvstore, prepare with sparse_row_id_fn), against MXNet 1.9.1
(golden file from tools/golden/cases/sparse.py)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import mxlite as mx
from tests.golden_file import load
from tests.sparse_training_cases import libsvm_text, sparse_module, train_module

pytest.importorskip("scipy")
_G = load("ndarray/golden/sparse/sparse.npz")


def _libsvm(path: Path) -> Path:
    path.write_text(libsvm_text(_G["module/x"], _G["module/y"]))
    return path


def _module(path: Path, opt: str, kvstore: str | None = "local"):
    return sparse_module(mx, str(path), _G["module/w0"], opt, kvstore)


@pytest.mark.parametrize("opt", ["sgd", "adam", "adagrad"])
def test_linear_classification_loop_matches_mxnet(tmp_path, opt):
    mod, it = _module(_libsvm(tmp_path / "data.t"), opt)
    train_module(mod, it)
    args, _ = mod.get_params()
    assert args["weight"].stype == "row_sparse"
    np.testing.assert_allclose(args["weight"].asnumpy(), _G[f"module_{opt}/weight"], atol=1e-6)
    np.testing.assert_allclose(args["bias"].asnumpy(), _G[f"module_{opt}/bias"], atol=1e-6)
    # features no example uses keep their initial weights (lazy updates)
    np.testing.assert_array_equal(args["weight"].asnumpy()[20:], _G["module/w0"][20:])


def test_prepare_without_kvstore_warns(tmp_path):
    mod, it = _module(_libsvm(tmp_path / "data.t"), "sgd", kvstore=None)
    batch = next(iter(it))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mod.prepare(batch, sparse_row_id_fn=lambda b: {"weight": b.data[0].indices})
    assert any("not updated in the KVStore" in str(w.message) for w in caught)


def test_prepare_needs_a_dict(tmp_path):
    mod, it = _module(_libsvm(tmp_path / "data.t"), "sgd")
    with pytest.raises(mx.base.MXNetError, match="sparse_row_id_fn must return a dict"):
        mod.prepare(next(iter(it)), sparse_row_id_fn=lambda b: b.data[0].indices)
