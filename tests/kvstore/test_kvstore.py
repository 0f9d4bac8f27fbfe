"""The native store on one machine ('local' and 'device'): every method and error, and the
files and values that MXNet 1.9.1 writes (golden/, from tools/golden/cases/kvstore.py)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError

from ..golden_file import load
from . import kvstore_cases

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")
SHAPE = (4, 4)
DEVS = [mx.cpu(i) for i in range(3)]


@pytest.fixture(params=["local", "device"])
def kv(request):
    return mx.kv.create(request.param)


def value_of(arr) -> float:
    a = arr.asnumpy()
    assert (a == a.flat[0]).all()
    return float(a.flat[0])


@pytest.mark.parametrize("key", [3, "a"])
def test_init_push_pull(kv, key):
    kv.init(key, mx.nd.ones(SHAPE) * 4)
    out = mx.nd.zeros(SHAPE)
    kv.pull(key, out=out)
    assert value_of(out) == 4
    kv.push(key, [mx.nd.ones(SHAPE, d) for d in DEVS])  # no updater: the sum replaces it
    outs = [mx.nd.empty(SHAPE, d) for d in DEVS]
    kv.pull(key, out=outs)
    assert [value_of(o) for o in outs] == [3, 3, 3]
    assert [o.context for o in outs] == DEVS


def test_lists_of_keys_and_repeated_values(kv):
    kv.init([5, 7], [mx.nd.zeros(SHAPE)] * 2)
    kv.push([5, 7, 5], [mx.nd.ones(SHAPE), [mx.nd.ones(SHAPE)] * 2, mx.nd.ones(SHAPE) * 3])
    outs = [[mx.nd.empty(SHAPE)] * 2, mx.nd.empty(SHAPE)]
    kv.pull([5, 7], out=outs)
    assert value_of(outs[0][0]) == 4 and value_of(outs[1]) == 2


def test_where_values_are_kept():
    local, device = mx.kv.create("local"), mx.kv.create("device")
    for kv in (local, device):
        kv.init(1, mx.nd.zeros(SHAPE, mx.cpu(2)))
    assert local._store[1].context == mx.cpu(0)
    assert device._store[1].context == mx.cpu(2)


def test_pushpull_in_place_and_to_out(kv):
    kv.broadcast("w", mx.nd.zeros(SHAPE), out=mx.nd.empty(SHAPE))
    vals = [mx.nd.ones(SHAPE, d) for d in DEVS]
    outs = [mx.nd.empty(SHAPE, d) for d in DEVS]
    kv.pushpull("w", vals, out=outs)
    assert [value_of(o) for o in outs] == [3, 3, 3]
    kv.pushpull("w", vals)
    assert [value_of(v) for v in vals] == [3, 3, 3]


def test_broadcast_single_and_lists(kv):
    out = [mx.nd.empty(SHAPE)] * 3
    kv.broadcast(6, mx.nd.ones(SHAPE) * 2, out)
    assert value_of(out[0]) == 2
    outs = [[mx.nd.empty(SHAPE)] * 2 for _ in range(2)]
    kv.broadcast([8, 9], [mx.nd.ones(SHAPE), mx.nd.ones(SHAPE) * 5], outs)
    assert [value_of(o[1]) for o in outs] == [1, 5]
    with pytest.raises(MXNetError, match="duplicate init of key 6"):
        kv.broadcast(6, mx.nd.ones(SHAPE), out)


def test_updater_gets_key_sum_and_stored(kv):
    seen = []

    def updater(key, recv, stored):
        seen.append((key, value_of(recv)))
        stored += recv

    kv.init("k", mx.nd.ones(SHAPE))
    kv._set_updater(updater)
    for _ in range(3):
        kv.push("k", [mx.nd.ones(SHAPE, d) for d in DEVS])
    out = mx.nd.empty(SHAPE)
    kv.pull("k", out=out)
    assert value_of(out) == 10 and seen == [("k", 3.0)] * 3
    kv.set_updater(lambda key, recv, stored: None)
    with pytest.raises(MXNetError, match="_set_updater.*callable"):
        kv._set_updater(3)


def test_int_keys_reach_the_updater_as_int(kv):
    keys = []
    kv._set_updater(lambda key, recv, stored: keys.append(key))
    kv.init(2, mx.nd.ones(SHAPE))
    kv.push(2, mx.nd.ones(SHAPE))
    assert keys == [2] and type(keys[0]) is int


def test_set_optimizer_updates_once_per_push(kv):
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5))
    kv.init("w", mx.nd.ones(SHAPE))
    kv.push("w", [mx.nd.ones(SHAPE) * 0.5 for _ in DEVS])
    out = mx.nd.empty(SHAPE)
    kv.pull("w", out=out)
    assert value_of(out) == pytest.approx(1 - 0.5 * 1.5)
    with pytest.raises(MXNetError, match="set_optimizer.*Optimizer"):
        kv.set_optimizer("sgd")


def test_states_files_load_both_ways_with_mxnet(tmp_path):
    golden = load("kvstore/golden/kvstore.npz")
    shape = kvstore_cases.SHAPE
    first = kvstore_cases.adam_store(mx, np.ones(shape), np.ones(shape) * 2)
    w0, w1 = kvstore_cases.push_adam(mx, first, range(3))
    np.testing.assert_allclose(w0, golden["adam/w0"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(w1, golden["adam/w1"], rtol=1e-6, atol=1e-6)
    mine = str(tmp_path / "mine.states")
    first.save_optimizer_states(mine)
    for fname in (os.path.join(GOLDEN, "kvstore_adam.states"), mine):
        more = kvstore_cases.adam_store(mx, golden["adam/w0"], golden["adam/w1"])
        more.load_optimizer_states(fname)
        m0, m1 = kvstore_cases.push_adam(mx, more, range(3, 6))
        np.testing.assert_allclose(m0, golden["adam/more_w0"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(m1, golden["adam/more_w1"], rtol=1e-5, atol=1e-6)
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]
    first.save_optimizer_states(mine, dump_optimizer=True)
    again = mx.kv.create("local")
    again.set_optimizer(mx.optimizer.SGD())
    again.load_optimizer_states(mine)
    assert isinstance(again._updater.optimizer, mx.optimizer.Adam)


def test_states_need_an_optimizer(kv, tmp_path):
    with pytest.raises(MXNetError, match="save_optimizer_states.*set_optimizer first"):
        kv.save_optimizer_states(str(tmp_path / "s"))
    with pytest.raises(MXNetError, match="load_optimizer_states.*set_optimizer first"):
        kv.load_optimizer_states(str(tmp_path / "s"))
    kv.set_optimizer(mx.optimizer.SGD())
    with pytest.raises(MXNetError, match="cannot read"):
        kv.load_optimizer_states(str(tmp_path / "missing"))
    kv._set_updater(lambda *a: None)
    with pytest.raises(MXNetError, match="no states"):
        kv.save_optimizer_states(str(tmp_path / "s"))


def test_compression_on_device_matches_mxnet():
    golden = load("kvstore/golden/kvstore.npz")
    for s, pulled in enumerate(kvstore_cases.compressed(mx)):
        np.testing.assert_array_equal(pulled, golden[f"compressed/{s}"])


def test_compression_is_refused_for_local():
    with pytest.raises(MXNetError, match="not supported for this type of kvstore"):
        mx.kv.create("local").set_gradient_compression({"type": "2bit"})


def test_errors_name_the_key(kv):
    kv.init(1, mx.nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match="duplicate init of key 1"):
        kv.init(1, mx.nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match="push: key 2 has not been inited"):
        kv.push(2, mx.nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match="pull: key 2 has not been inited"):
        kv.pull(2, out=mx.nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match="push: argument 'value' 0 for key 1 has shape \\(2,\\)"):
        kv.push(1, mx.nd.zeros((2,)))
    with pytest.raises(MXNetError, match="key 1 has dtype float64"):
        kv.push(1, mx.nd.zeros(SHAPE, dtype="float64"))
    with pytest.raises(MXNetError, match="pull: argument 'out' is required"):
        kv.pull(1)
    with pytest.raises(MXNetError, match="Mixed key types.*int keys, got str key 'a'"):
        kv.init("a", mx.nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match="Mixed key types"):
        kv.push(["a"], [mx.nd.zeros(SHAPE)])


def test_row_sparse_pull_is_a_clear_error(kv):
    kv.init(1, mx.nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match="Expected row_sparse storage type.*key 1"):
        kv.row_sparse_pull(1, out=mx.nd.zeros(SHAPE), row_ids=mx.nd.array([0]))
    with pytest.raises(MXNetError, match="'out' and 'row_ids' are required"):
        kv.row_sparse_pull(1, out=mx.nd.zeros(SHAPE))


def test_job_properties_on_one_machine(kv):
    assert (kv.rank, kv.num_workers, kv.num_dead_node(0)) == (0, 1, 0)
    assert kv.is_capable("optimizer") and kv.is_capable("OPTIMIZER")
    with pytest.raises(ValueError, match="Unknown capability"):
        kv.is_capable("magic")
    kv._barrier()
    kv.barrier()
    kv._send_command_to_servers(0, "")
    assert mx.kv.create("local_allreduce_cpu").type == "local_allreduce_cpu"


def test_push_and_pull_are_engine_operations():
    """A push reads its values through the engine: one queued behind a slow writer of the
    value waits for it, and the pull's output is complete once read."""
    import threading

    from mxlite.engine import get as engine

    if engine().kind == "NaiveEngine":
        pytest.skip("the NaiveEngine runs each push on the caller: nothing is queued")
    kv = mx.kv.create("local")
    kv.init(0, mx.nd.zeros(SHAPE))
    val = mx.nd.zeros(SHAPE)
    gate = threading.Event()
    data = val._data

    def slow_write(rctx):
        gate.wait()
        data[...] = 7

    engine().push_sync(slow_write, mx.cpu(), [], [val._chunk.var])
    kv.push(0, val)  # returns at once although the value is not written yet
    out = mx.nd.zeros(SHAPE)
    kv.pull(0, out=out)
    gate.set()
    assert value_of(out) == 7


def test_dist_without_mpi_names_the_extra(monkeypatch):
    import sys

    from mxlite.kvstore import dist

    monkeypatch.setitem(sys.modules, "mpi4py", None)
    monkeypatch.setattr(dist, "_comm", None)
    with pytest.raises(MXNetError, match=r"pip install mxlite\[dist\]"):
        mx.kv.create("dist_sync")


def test_a_sum_never_lands_in_an_array_pushed_before(kv):
    kv.init(0, mx.nd.zeros(SHAPE))
    single = mx.nd.ones(SHAPE)
    kv.push(0, single)  # one value: stored as it is, as MXNet does
    kv.push(0, [mx.nd.ones(SHAPE, d) * 2 for d in DEVS])
    out = mx.nd.empty(SHAPE)
    kv.pull(0, out=out)
    assert value_of(out) == 6 and value_of(single) == 1


def test_row_sparse_pushes_reach_the_updater_row_sparse():
    kv = mx.kv.create("local")
    kv.init("w", mx.nd.zeros((6, 2)))
    seen = []

    def updater(key, grad, stored):
        seen.append((grad.stype, grad.indices.asnumpy().tolist()))
        stored[:] += grad.tostype("default")

    kv._set_updater(updater)
    a = mx.nd.array([[0, 0], [1, 1], [0, 0], [0, 0], [0, 0], [0, 0]]).tostype("row_sparse")
    b = mx.nd.array([[0, 0], [0, 0], [0, 0], [2, 0], [0, 0], [0, 0]]).tostype("row_sparse")
    kv.push("w", [a, b])  # two devices' values: summed keeping the union of the rows
    kv.push("w", a)
    assert seen == [("row_sparse", [1, 3]), ("row_sparse", [1])]
    out = mx.nd.zeros((6, 2))
    kv.pull("w", out=out)
    np.testing.assert_array_equal(out.asnumpy()[[1, 3]], [[2, 2], [2, 0]])


def test_kvstore_server_module_path_is_mxnets() -> None:
    from mxlite.kvstore import kvstore_server

    assert kvstore_server.KVStoreServer is mx.kv.KVStoreServer


def test_push_and_pushpull_document_key_and_value_alike():
    text = (
        "key : str, int, or sequence of str or int\n            Keys.\n"
        "        value : NDArray, list of NDArray, or list of list of NDArray\n"
        "            Values corresponding to the keys.\n"
    )
    for method in (mx.kv.KVStore.push, mx.kv.KVStore.pushpull):
        assert text in method.__doc__
        assert "{" not in method.__doc__
    assert "The priority of the push operation." in mx.kv.KVStore.push.__doc__
    assert "Outputs corresponding to the keys." in mx.kv.KVStore.pushpull.__doc__
