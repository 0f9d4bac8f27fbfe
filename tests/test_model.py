"""mx.model's KVStore helpers (MXNet 1.9.1's _create_kvstore and friends)."""

from __future__ import annotations

import pytest

import mxlite as mx
from mxlite.model import (
    _create_kvstore,
    _create_sparse_kvstore,
    _initialize_kvstore,
    _update_params,
    _update_params_on_kvstore,
)

PARAMS = {"w": mx.nd.ones((2, 2))}


def test_create_kvstore_picks_the_store_and_the_update(monkeypatch):
    assert _create_kvstore(None, 2, PARAMS) == (None, False)
    assert _create_kvstore("local", 1, PARAMS) == (None, False)
    kv, on_store = _create_kvstore("device", 2, PARAMS)
    assert kv.type == "device" and on_store
    mine = mx.kv.create("local")
    assert _create_kvstore(mine, 1, PARAMS) == (mine, True)
    big = {"w": mx.nd.zeros((1024 * 1024 * 16 + 1,))}
    assert _create_kvstore("local", 2, big)[1] is False
    assert _create_kvstore("device", 2, big)[1] is True
    monkeypatch.setenv("MXNET_UPDATE_ON_KVSTORE", "0")
    assert _create_kvstore("device", 2, PARAMS)[1] is False


def test_a_store_without_optimizer_support_never_updates():
    kv, on_store = _create_kvstore(mx.kv.create("teststore"), 2, PARAMS)
    assert kv.type == "teststore" and not on_store
    with pytest.raises(mx.MXNetError, match="requires optimizer support"):
        _create_sparse_kvstore(kv)
    assert _create_sparse_kvstore("local")[1] is True


def test_create_kvstore_errors():
    with pytest.raises(TypeError, match="'kvstore' must be a KVStore, str or None, got int"):
        _create_kvstore(3, 2, PARAMS)
    with pytest.raises(TypeError, match="Cannot create"):
        _create_sparse_kvstore(3)


def test_one_update_on_the_store_or_one_per_device():
    devs = [mx.cpu(0), mx.cpu(1)]
    weights = [[mx.nd.zeros((2,), d) for d in devs]]
    grads = [[mx.nd.ones((2,), d) for d in devs]]
    kv = mx.kv.create("local")
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=1.0))
    _initialize_kvstore(kv, weights, {"w": mx.nd.ones((2,))}, ["w"], True)
    assert all((w.asnumpy() == 1).all() for w in weights[0])
    _update_params_on_kvstore(weights, grads, kv, ["w"])
    assert all((w.asnumpy() == -1).all() for w in weights[0])  # 1 - (1 + 1)

    kv = mx.kv.create("local")
    _initialize_kvstore(kv, weights, {"w": mx.nd.ones((2,))}, ["w"], False)
    seen = []

    def updater(idx, g, w):
        seen.append(idx)
        for gi, wi in zip(g, w):
            wi -= gi

    _update_params(weights, grads, updater, 2, kvstore=kv, param_names=["w"])
    assert seen == [[0], [1]]
    assert all((w.asnumpy() == -3).all() for w in weights[0])  # -1 - (1 + 1)


def test_checkpoint_docs_share_their_parts() -> None:
    """The parts MXNet repeats in the checkpoint functions' docs are written once (model.py's
    _DOC_PARTS) and filled in, mx.rnn's included."""
    model, rnn = mx.model, mx.rnn
    funcs = [model.save_checkpoint, model.load_checkpoint, model.load_params,
             rnn.save_rnn_checkpoint, rnn.load_rnn_checkpoint, rnn.do_rnn_checkpoint]  # fmt: skip
    for fn in funcs:
        doc = fn.__doc__ or ""
        assert "{" not in doc and "prefix : str" in doc, fn.__name__
    for fn in funcs[:5]:
        assert "aux_params : dict of str to NDArray" in fn.__doc__, fn.__name__
    for fn in funcs[3:]:
        assert "cells : mxnet.rnn.RNNCell or list of RNNCells" in fn.__doc__, fn.__name__
