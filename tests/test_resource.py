"""Tests of mxlite.resource and mx.random.seed: generators, temp space, seeding, ordering."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import mxlite as mx
from mxlite import engine, resource, storage
from mxlite import random as mxrandom
from mxlite.base import DTypeError, MXNetError, ParamError, ShapeError
from mxlite.resource import ResourceRequest

from .engine.contract import call_with_timeout

ENGINE_KINDS = ["NaiveEngine", "ThreadedEngine", "ThreadedEnginePerDevice"]


@pytest.fixture(params=ENGINE_KINDS)
def eng(request, monkeypatch):
    """A private engine of each kind standing in for the process-wide one, and fresh
    resources made on it."""
    e = engine.create(request.param)
    monkeypatch.setattr(engine, "get", lambda: e)
    resource._reset()
    yield e
    e.shutdown()
    resource._reset()


@pytest.fixture
def fresh():
    resource._reset()
    yield
    resource._reset()


def draw(eng, n=5, ctx=None):
    """Push a function that draws n numbers from ctx's generator; return them once run."""
    rnd = resource.request(ctx or mx.cpu(), ResourceRequest.RANDOM)
    out: list[np.ndarray] = []
    eng.push_sync(lambda rctx: out.append(rnd.get_random().random(n)), mx.cpu(), [], [rnd.var])
    call_with_timeout(eng.wait_for_all)
    return out[0]


# ---- requests ---------------------------------------------------------------------------------


def test_request_kinds_and_aliases(fresh):
    assert ResourceRequest.kRandom is ResourceRequest.RANDOM
    assert ResourceRequest.kTempSpace is ResourceRequest.TEMP_SPACE
    rnd = resource.request(mx.cpu(), ResourceRequest.kRandom)
    assert rnd.req is ResourceRequest.RANDOM
    assert resource.request(mx.cpu(2), 0) is rnd  # every CPU context shares the generator
    assert isinstance(rnd.get_random(), np.random.Generator)
    assert isinstance(rnd.get_random().bit_generator, np.random.PCG64)
    tmp = resource.request(mx.cpu(), ResourceRequest.TEMP_SPACE)
    assert tmp.req is ResourceRequest.TEMP_SPACE and tmp.var is not rnd.var


def test_bad_requests(fresh):
    with pytest.raises(ParamError, match="resource.request.*'req'"):
        resource.request(mx.cpu(), 7)
    with pytest.raises(MXNetError, match="resource.request.*'ctx'"):
        resource.request("cpu", ResourceRequest.RANDOM)
    rnd = resource.request(mx.cpu(), ResourceRequest.RANDOM)
    tmp = resource.request(mx.cpu(), ResourceRequest.TEMP_SPACE)
    with pytest.raises(MXNetError, match="get_space.*RANDOM"):
        rnd.get_space((2,))
    with pytest.raises(MXNetError, match="get_random.*TEMP_SPACE"):
        tmp.get_random()
    with pytest.raises(ShapeError, match="get_space.*'shape'"):
        tmp.get_space((2, -1))
    with pytest.raises(DTypeError, match="get_space.*'dtype'"):
        tmp.get_space((2,), dtype="no-such-type")


def test_temp_space_round_robin_over_the_copies(fresh):
    got = [resource.request(mx.cpu(), ResourceRequest.TEMP_SPACE) for _ in range(8)]
    assert len({id(r) for r in got}) == 4  # MXNET_CPU_TEMP_COPY defaults to 4
    assert len({id(r.var) for r in got}) == 4
    assert all(got[i] is got[i + 4] for i in range(4))


def test_temp_copy_setting(monkeypatch, fresh):
    monkeypatch.setenv("MXNET_CPU_TEMP_COPY", "2")
    resource._reset()
    got = {id(resource.request(mx.cpu(), ResourceRequest.TEMP_SPACE)) for _ in range(6)}
    assert len(got) == 2
    monkeypatch.setenv("MXNET_CPU_TEMP_COPY", "0")
    resource._reset()
    with pytest.raises(MXNetError, match="MXNET_CPU_TEMP_COPY"):
        resource.request(mx.cpu(), ResourceRequest.TEMP_SPACE)


# ---- temp space -------------------------------------------------------------------------------


def test_temp_space_grows_and_is_reused(fresh):
    tmp = resource.request(mx.cpu(), ResourceRequest.TEMP_SPACE)
    a = tmp.get_space((10,), "float32")
    assert a.shape == (10,) and a.dtype == np.float32
    assert a.ctypes.data % storage.ALIGNMENT == 0
    p = a.ctypes.data
    b = tmp.get_space((2, 3), np.float64)  # smaller: the same buffer
    assert b.shape == (2, 3) and b.dtype == np.float64 and b.ctypes.data == p
    in_use = storage.stats(mx.cpu()).in_use
    big = tmp.get_space((1000, 1000), "float32")  # larger: the buffer grows
    big[:] = 1.0  # all of it is writable
    assert storage.stats(mx.cpu()).in_use > in_use
    q = big.ctypes.data
    assert tmp.get_space(7, "int8").ctypes.data == q  # and stays grown
    assert tmp.get_space((0, 3)).shape == (0, 3)


# ---- seeding ----------------------------------------------------------------------------------


def test_seed_repeats_exactly(eng):
    mxrandom.seed(42)
    first = np.concatenate([draw(eng), draw(eng)])
    mxrandom.seed(42)
    again = np.concatenate([draw(eng), draw(eng)])
    np.testing.assert_array_equal(first, again)
    mxrandom.seed(43)
    assert not np.array_equal(draw(eng), first[:5])


def test_unseeded_generators_start_as_seed_0(eng):
    start = draw(eng)
    mxrandom.seed(0)
    np.testing.assert_array_equal(draw(eng), start)


def test_seed_with_ctx_is_a_different_stream_from_seed_all(eng):
    mxrandom.seed(7)
    all_stream = draw(eng)
    mxrandom.seed(7, ctx=mx.cpu())
    one_stream = draw(eng)
    assert not np.array_equal(all_stream, one_stream)
    mxrandom.seed(7, ctx=mx.cpu(1))  # same kind of device: the same stream
    np.testing.assert_array_equal(draw(eng), one_stream)


def test_seed_is_ordered_with_pending_draws(eng):
    # A draw pushed before a reseed sees the old stream, one pushed after sees the new one,
    # even when all three are still pending when the reseed is pushed.
    mxrandom.seed(1)
    expected_old = draw(eng)
    mxrandom.seed(2)
    expected_new = draw(eng)
    mxrandom.seed(1)
    rnd = resource.request(mx.cpu(), ResourceRequest.RANDOM)
    out: dict[str, np.ndarray] = {}
    release = threading.Event()
    if eng.kind != "NaiveEngine":  # the naive engine runs each push inline: nothing pends
        eng.push_sync(lambda r: release.wait(30), mx.cpu(), [], [rnd.var])

    def take(key):
        return lambda r: out.__setitem__(key, rnd.get_random().random(5))

    eng.push_sync(take("a"), mx.cpu(), [], [rnd.var])
    mxrandom.seed(2)
    eng.push_sync(take("b"), mx.cpu(), [], [rnd.var])
    assert eng.kind == "NaiveEngine" or not out  # all pending behind the blocker
    release.set()
    call_with_timeout(eng.wait_for_all)
    np.testing.assert_array_equal(out["a"], expected_old)
    np.testing.assert_array_equal(out["b"], expected_new)


def test_devices_get_different_streams():
    s = resource._seed_sequence
    states = {c: tuple(s(5, c, True).generate_state(4)) for c in (mx.cpu(), mx.gpu(0), mx.gpu(1))}
    assert len(set(states.values())) == 3
    # seeded one by one, devices of a kind share the stream
    assert s(5, mx.gpu(0), False).generate_state(4).tolist() == (
        s(5, mx.gpu(1), False).generate_state(4).tolist()
    )
    # seeds are 32-bit, as in MXNet's C API
    assert s(-1, mx.cpu(), True).generate_state(2).tolist() == (
        s(2**32 - 1, mx.cpu(), True).generate_state(2).tolist()
    )


def test_random_seed_checks_its_arguments():
    with pytest.raises(ParamError, match="seed.*'seed_state'"):
        mxrandom.seed(1.5)
    with pytest.raises(ParamError, match="seed.*'seed_state'"):
        mxrandom.seed("1")
    with pytest.raises(ParamError, match="seed.*'ctx'"):
        mxrandom.seed(1, ctx="gpu")


# ---- the resource var serialises its users ----------------------------------------------------


@pytest.mark.parametrize("kind", ["ThreadedEngine", "ThreadedEnginePerDevice"])
def test_resource_var_serialises_functions(kind, monkeypatch):
    e = engine.create(kind)
    monkeypatch.setattr(engine, "get", lambda: e)
    resource._reset()
    try:
        tmp = resource.request(mx.cpu(), ResourceRequest.TEMP_SPACE)
        lock = threading.Lock()  # guards active/most/order, written by the engine's workers
        state = {"active": 0, "most": 0}
        order: list[int] = []
        started, release = threading.Event(), threading.Event()

        def user(i: int):
            def fn(rctx):
                with lock:
                    state["active"] += 1
                    state["most"] = max(state["most"], state["active"])
                if i == 0:
                    started.set()
                    release.wait(30)  # the others must queue behind this one
                space = tmp.get_space((256,), "int64")
                space[:] = i
                total = int(space.sum())
                with lock:
                    order.append(i if total == 256 * i else -1)
                    state["active"] -= 1

            return fn

        e.push_sync(user(0), mx.cpu(), [], [tmp.var])
        assert started.wait(30)
        for i in range(1, 20):
            e.push_sync(user(i), mx.cpu(), [], [tmp.var])
        release.set()
        call_with_timeout(e.wait_for_all)
        assert order == list(range(20))  # push order, and nobody overwrote another's space
        assert state["most"] == 1
    finally:
        e.shutdown()
        resource._reset()
