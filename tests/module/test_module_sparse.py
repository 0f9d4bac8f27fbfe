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

pytest.importorskip("scipy")
_G = load("ndarray/golden/sparse/sparse.npz")


def _libsvm(path: Path) -> Path:
    lines = []
    for row, label in zip(_G["module/x"], _G["module/y"]):
        cols = np.flatnonzero(row)
        lines.append(" ".join([f"{label:g}"] + [f"{c}:{row[c]:g}" for c in cols]))
    path.write_text("\n".join(lines) + "\n")
    return path


def _module(path: Path, opt: str, kvstore: str | None = "local"):
    nf = _G["module/w0"].shape[0]
    data = mx.sym.var("data", stype="csr")
    weight = mx.sym.var("weight", shape=(nf, 2), stype="row_sparse")
    bias = mx.sym.var("bias", shape=(2,))
    pred = mx.sym.broadcast_add(mx.sym.sparse.dot(data, weight), bias)
    sym = mx.sym.SoftmaxOutput(pred, mx.sym.var("softmax_label"))
    it = mx.io.LibSVMIter(data_libsvm=str(path), data_shape=(nf,), batch_size=8)
    mod = mx.mod.Module(sym, data_names=["data"], label_names=["softmax_label"])
    mod.bind(data_shapes=it.provide_data, label_shapes=it.provide_label)
    w0 = mx.nd.array(_G["module/w0"]).tostype("row_sparse")
    mod.init_params(arg_params={"weight": w0, "bias": mx.nd.zeros(2)})
    kw = {"momentum": 0.9} if opt == "sgd" else {}
    optim = mx.optimizer.create(opt, learning_rate=0.1, rescale_grad=1 / 8, **kw)
    mod.init_optimizer(optimizer=optim, kvstore=mx.kvstore.create(kvstore) if kvstore else None)
    return mod, it


@pytest.mark.parametrize("opt", ["sgd", "adam", "adagrad"])
def test_linear_classification_loop_matches_mxnet(tmp_path, opt):
    mod, it = _module(_libsvm(tmp_path / "data.t"), opt)
    for _ in range(2):
        it.reset()
        for batch in it:
            mod.prepare(batch, sparse_row_id_fn=lambda b: {"weight": b.data[0].indices})
            mod.forward_backward(batch)
            mod.update()
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
