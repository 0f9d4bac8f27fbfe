"""KVStoreBase's registry, create() and the TestStore (MXNet's test_kvstore_custom.py)."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from mxlite.kvstore.base import group_pairs


def test_mx_kv_and_mx_kvstore_are_the_package():
    assert mx.kv is mx.kvstore
    assert mx.kv.create is mx.kvstore.base.create


def test_register_and_create_a_user_store():
    @mx.kv.KVStoreBase.register
    class MyStoreForTest(mx.kv.KVStoreBase):
        pass

    try:
        assert type(mx.kv.create("mystorefortest")) is MyStoreForTest
        assert type(mx.kv.create("MyStoreForTest")) is MyStoreForTest
        assert mx.kv.KVStoreBase.kv_registry["mystorefortest"] is MyStoreForTest
        first = MyStoreForTest

        class MyStoreForTest(mx.kv.KVStoreBase):  # noqa: F811
            pass

        with pytest.warns(UserWarning, match="overriding"):
            mx.kv.KVStoreBase.register(MyStoreForTest)
        assert type(mx.kv.create("mystorefortest")) is not first
    finally:
        del mx.kv.KVStoreBase.kv_registry["mystorefortest"]


def test_register_needs_a_class():
    with pytest.raises(MXNetError, match="register: can only register a subclass of KVStoreBase"):
        mx.kv.KVStoreBase.register(3)


def test_base_methods_are_abstract():
    kv = mx.kv.KVStoreBase()
    for call in (
        lambda: kv.broadcast(0, None, None),
        lambda: kv.pushpull(0, None),
        lambda: kv.set_optimizer(None),
        lambda: kv.is_capable("optimizer"),
        lambda: kv.save_optimizer_states("f"),
        lambda: kv.load_optimizer_states("f"),
        lambda: kv.type,
        lambda: kv.rank,
        lambda: kv.num_workers,
    ):
        with pytest.raises(NotImplementedError):
            call()


def test_teststore():
    kv = mx.kv.create("teststore")
    assert (kv.type, kv.rank, kv.num_workers) == ("teststore", 0, 1)
    assert not type(kv).is_capable("optimizer")
    with pytest.raises(ValueError, match="Unknown capability"):
        kv.is_capable("sparse")
    out = [mx.nd.empty((2,)), mx.nd.empty((2,))]
    kv.pushpull("a", [mx.nd.ones((2,)), mx.nd.ones((2,), mx.cpu(1)) * 2], out=out)
    assert all((o.asnumpy() == 3).all() for o in out)
    kv.pushpull("a", out)
    assert all((o.asnumpy() == 6).all() for o in out)
    with pytest.raises(NotImplementedError):
        kv.set_optimizer(mx.optimizer.create("sgd"))


@pytest.mark.parametrize(
    "name, instead", [("nccl", "device"), ("horovod", "dist_sync"), ("NCCL", "device")]
)
def test_stores_of_other_builds_say_what_to_use(name, instead):
    with pytest.raises(MXNetError, match=f"{name.lower()}.*use '{instead}'"):
        mx.kv.create(name)


def test_create_errors():
    with pytest.raises(TypeError, match="name must be a string"):
        mx.kv.create(3)
    with pytest.raises(MXNetError, match="unknown KVStore type 'nope'"):
        mx.kv.create("nope")


def test_group_pairs_joins_repeated_keys_in_first_seen_order():
    a, b = mx.nd.ones((1,)), mx.nd.zeros((1,))
    pairs = group_pairs("f", [7, 5, 7], [a, [b, b], a])
    assert [k for k, _ in pairs] == [7, 5]
    assert [len(v) for _, v in pairs] == [2, 2]


@pytest.mark.parametrize(
    "key, value, match",
    [
        ([1, "a"], [np.ones(1)] * 2, "value"),
        ([1, "a"], [mx.nd.ones(1)] * 2, "inconsistent types of keys"),
        (1.5, mx.nd.ones(1), "keys must be int or str, got float"),
        (True, mx.nd.ones(1), "keys must be int or str, got bool"),
        ([1, 2], [mx.nd.ones(1)], "one entry per key \\(2 keys\\), got 1"),
        (1, [], "key 1 must be an NDArray"),
    ],
)
def test_group_pairs_errors(key, value, match):
    with pytest.raises(MXNetError, match=match):
        group_pairs("f", key, value)
