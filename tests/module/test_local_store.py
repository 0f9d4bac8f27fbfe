"""A Module on several devices updates through its LocalStore as MXNet 1.9.1's Module does
through a local KVStore: gradients summed over devices, one update per parameter keyed by its
name, and optimizer states saved in that layout."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from mxlite.module._local_store import LocalStore, create_store

X = (np.arange(8).reshape(4, 2) / 7.0).astype(np.float32)
DY = (np.arange(12).reshape(4, 3) / 11.0).astype(np.float32)


def fc_module(context: list, **opt_kw) -> mx.mod.Module:
    sym = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    mod = mx.mod.Module(sym, ("data",), None, context=context)
    mod.bind(data_shapes=[("data", (4, 2))])
    mod.init_params(
        arg_params={
            "fc_weight": mx.nd.array([[1, 2], [3, 4], [5, 6]]),
            "fc_bias": mx.nd.array([1, 1, 1]),
        }
    )
    mod.init_optimizer(**opt_kw)
    return mod


def step(mod: mx.mod.Module, n: int = 2) -> None:
    for _ in range(n):
        mod.forward(mx.io.DataBatch([mx.nd.array(X)]), is_train=True)
        mod.backward([mx.nd.array(DY)])
        mod.update()


ADAM = {"optimizer": "adam", "optimizer_params": {"learning_rate": 0.1, "wd": 0.1}}


def test_two_devices_update_once_per_parameter_by_name():
    mod = fc_module([mx.cpu(0), mx.cpu(1)], **ADAM)
    assert isinstance(mod._kvstore, LocalStore) and mod._update_on_kvstore
    assert mod._updater is None  # as in MXNet: the store holds the updater
    step(mod)
    assert set(mod._kvstore._updater.states) == {"fc_weight", "fc_bias"}
    # values from MXNet 1.9.1 (same module, Adam, two steps on cpu(0), cpu(1))
    arg = mod.get_params()[0]
    np.testing.assert_allclose(
        arg["fc_weight"].asnumpy(),
        [[0.800079, 1.8000528], [2.800045, 3.8000343], [4.800031, 5.800025]],
        rtol=1e-5,
    )
    np.testing.assert_allclose(arg["fc_bias"].asnumpy(), [0.7999988] * 3, rtol=1e-5)


def test_save_load_states_of_a_store(tmp_path):
    mod = fc_module([mx.cpu(0), mx.cpu(1)], **ADAM)
    step(mod, 1)
    fname = str(tmp_path / "m.states")
    mod.save_optimizer_states(fname)
    one = fc_module([mx.cpu(0)], **ADAM)  # one device: no store, a plain updater
    assert one._kvstore is None and not one._update_on_kvstore
    one.load_optimizer_states(fname)
    assert set(one._updater.states) == {"fc_weight", "fc_bias"}
    for k, (m, v) in mod._kvstore._updater.states.items():
        np.testing.assert_array_equal(m.asnumpy(), one._updater.states[k][0].asnumpy())
        np.testing.assert_array_equal(v.asnumpy(), one._updater.states[k][1].asnumpy())
    again = fc_module([mx.cpu(0), mx.cpu(1)], **ADAM)
    again.load_optimizer_states(fname)
    assert set(again._kvstore._updater.states) == {"fc_weight", "fc_bias"}


def test_update_on_devices_when_switched_off(monkeypatch):
    monkeypatch.setenv("MXNET_UPDATE_ON_KVSTORE", "0")
    mod = fc_module([mx.cpu(0), mx.cpu(1)], **ADAM)
    assert isinstance(mod._kvstore, LocalStore) and not mod._update_on_kvstore
    step(mod)
    # MXNet's layout without a store update: index * num_device + device
    assert set(mod._updater.states) == {0, 1, 2, 3}
    monkeypatch.setenv("MXNET_UPDATE_ON_KVSTORE", "1")
    on_store = fc_module([mx.cpu(0), mx.cpu(1)], **ADAM)
    assert on_store._update_on_kvstore
    step(on_store)
    for name in ("fc_weight", "fc_bias"):
        np.testing.assert_allclose(
            mod.get_params()[0][name].asnumpy(),
            on_store.get_params()[0][name].asnumpy(),
            rtol=1e-6,
        )


def test_no_store_without_kvstore_or_for_one_device():
    assert create_store(None, 2, {}) == (None, False)
    assert create_store("local", 1, {}) == (None, False)
    store, on_store = create_store("device", 2, {})
    assert store.type == "device" and on_store


def test_local_store_skips_update_for_huge_parameters():
    big = {"w": mx.nd.zeros((4097, 4097))}  # more than 16M elements
    _, on_store = create_store("local", 2, big)
    assert not on_store
    _, on_store = create_store("device", 2, big)
    assert on_store


def test_bad_kvstore_names_the_argument():
    with pytest.raises(MXNetError, match="init_optimizer.*kvstore.*'nope'"):
        create_store("nope", 2, {})
    with pytest.raises(MXNetError, match="init_optimizer.*'dist_sync'"):
        create_store("dist_sync", 2, {})
    with pytest.raises(MXNetError, match="init_optimizer.*kvstore.*int"):
        create_store(3, 2, {})


def test_store_errors_name_the_method(tmp_path):
    store = LocalStore("local")
    with pytest.raises(MXNetError, match="pushpull.*'w'.*not been initialized"):
        store.pushpull("w", [mx.nd.ones((2,))])
    with pytest.raises(MXNetError, match="save_optimizer_states.*set_optimizer"):
        store.save_optimizer_states(str(tmp_path / "s.states"))
    assert not (tmp_path / "s.states").exists()


def test_store_without_optimizer_sums_into_the_gradients():
    store = LocalStore("local")
    store.init("w", mx.nd.zeros((2,)))
    grads = [mx.nd.array([1, 2], ctx=mx.cpu(0)), mx.nd.array([10, 20], ctx=mx.cpu(1))]
    store.pushpull("w", grads)
    for g in grads:
        np.testing.assert_array_equal(g.asnumpy(), [11, 22])
