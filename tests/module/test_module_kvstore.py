"""A Module on several devices updates through mx.kv as MXNet 1.9.1's Module does: gradients
summed over devices, one update per parameter keyed by its name, and optimizer states saved
in that layout (the .states files load both ways with one-device modules and with MXNet)."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx

X = (np.arange(8).reshape(4, 2) / 7.0).astype(np.float32)
DY = (np.arange(12).reshape(4, 3) / 11.0).astype(np.float32)


def fc_module(context: list, compression_params=None, **opt_kw) -> mx.mod.Module:
    sym = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    mod = mx.mod.Module(
        sym, ("data",), None, context=context, compression_params=compression_params
    )
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
TWO = [mx.cpu(0), mx.cpu(1)]


def assert_mxnet_values(mod: mx.mod.Module) -> None:
    # values from MXNet 1.9.1 (same module, Adam, two steps on cpu(0), cpu(1))
    arg = mod.get_params()[0]
    np.testing.assert_allclose(
        arg["fc_weight"].asnumpy(),
        [[0.800079, 1.8000528], [2.800045, 3.8000343], [4.800031, 5.800025]],
        rtol=1e-5,
    )
    np.testing.assert_allclose(arg["fc_bias"].asnumpy(), [0.7999988] * 3, rtol=1e-5)


def test_two_devices_update_once_per_parameter_by_name():
    mod = fc_module(TWO, **ADAM)
    assert isinstance(mod._kvstore, mx.kv.KVStore) and mod._kvstore.type == "local"
    assert mod._update_on_kvstore and mod._updater is None  # the store holds the updater
    step(mod)
    assert set(mod._kvstore._updater.states) == {"fc_weight", "fc_bias"}
    assert_mxnet_values(mod)


def test_a_kvstore_object_is_used_as_given():
    kv = mx.kv.create("device")
    mod = fc_module(TWO, kvstore=kv, **ADAM)
    assert mod._kvstore is kv and mod._update_on_kvstore
    step(mod)
    assert_mxnet_values(mod)


def test_save_load_states_of_a_store(tmp_path):
    mod = fc_module(TWO, **ADAM)
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
    one_file = str(tmp_path / "one.states")
    one.save_optimizer_states(one_file)
    again = fc_module(TWO, **ADAM)
    again.load_optimizer_states(one_file)
    assert set(again._kvstore._updater.states) == {"fc_weight", "fc_bias"}


def test_update_on_devices_when_switched_off(monkeypatch):
    monkeypatch.setenv("MXNET_UPDATE_ON_KVSTORE", "0")
    mod = fc_module(TWO, **ADAM)
    assert isinstance(mod._kvstore, mx.kv.KVStore) and not mod._update_on_kvstore
    step(mod)
    # MXNet's layout without a store update: index * num_device + device
    assert set(mod._updater.states) == {0, 1, 2, 3}
    monkeypatch.setenv("MXNET_UPDATE_ON_KVSTORE", "1")
    on_store = fc_module(TWO, **ADAM)
    assert on_store._update_on_kvstore
    step(on_store)
    for name in ("fc_weight", "fc_bias"):
        np.testing.assert_allclose(
            mod.get_params()[0][name].asnumpy(),
            on_store.get_params()[0][name].asnumpy(),
            rtol=1e-6,
        )


def test_compression_params_reach_the_store():
    mod = fc_module(TWO, {"type": "2bit", "threshold": 0.5}, kvstore="device", **ADAM)
    assert mod._kvstore._compression.threshold == 0.5
    step(mod, 1)
    with pytest.raises(mx.MXNetError, match="not supported for this type of kvstore"):
        fc_module(TWO, {"type": "2bit"}, kvstore="local", **ADAM)


def test_bad_kvstore_names_the_argument():
    with pytest.raises(mx.MXNetError, match="unknown KVStore type 'nope'"):
        fc_module(TWO, kvstore="nope", **ADAM)
    with pytest.raises(TypeError, match="'kvstore' must be a KVStore, str or None, got int"):
        fc_module(TWO, kvstore=3, **ADAM)
