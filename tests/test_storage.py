"""Tests of mxlite.storage: the pool contract for every pool type, the process-wide pools,
and the rule that reuse waits for the engine (free_after)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import mxlite as mx
from mxlite import engine, storage
from mxlite.base import MXNetError

from .engine.contract import call_with_timeout

GiB = 1 << 30


def ptr(handle: storage.Handle) -> int:
    return handle.buffer.ctypes.data


def make_pool(pool_type: str, total: int = 64 * GiB, reserve: int = 5, **kw) -> storage.Pool:
    # A fixed meminfo: plenty of memory, so only the tests that shrink it see the reserve.
    return storage.Pool(mx.cpu(), pool_type, reserve=reserve, meminfo=lambda: (total, total), **kw)


@pytest.fixture
def fresh_pools():
    """Let a test change MXNET_* settings: pools are made again before and after it."""
    storage._reset()
    yield
    storage._reset()


# ---- the contract, for each pool type ---------------------------------------------------------


@pytest.mark.parametrize("pool_type", storage.POOL_TYPES)
class TestPoolContract:
    def test_buffer_is_exact_uint8_and_aligned(self, pool_type):
        pool = make_pool(pool_type)
        for n in (1, 3, 63, 64, 65, 1000, 4096, 4097, 100_003):
            h = pool.alloc(n, mx.cpu())
            assert h.buffer.dtype == np.uint8 and h.buffer.shape == (n,)
            assert h.nbytes == n and h.ctx == mx.cpu()
            assert ptr(h) % storage.ALIGNMENT == 0
            h.buffer[:] = 7  # writable over its whole length
            pool.free(h)

    def test_zero_bytes(self, pool_type):
        pool = make_pool(pool_type)
        h = pool.alloc(0, mx.cpu())
        assert h.buffer.shape == (0,) and h.nbytes == 0
        pool.free(h)
        with pytest.raises(MXNetError, match="double free"):
            pool.free(h)

    def test_double_free_raises(self, pool_type):
        pool = make_pool(pool_type)
        h = pool.alloc(100, mx.cpu())
        pool.free(h)
        with pytest.raises(MXNetError, match="storage.free.*double free"):
            pool.free(h)
        assert pool.stats().num_pooled <= 1  # the block went back once

    def test_reuse_follows_the_pool_type(self, pool_type):
        pool = make_pool(pool_type)
        h = pool.alloc(1000, mx.cpu())
        p = ptr(h)
        pool.free(h)
        h2 = pool.alloc(1000, mx.cpu())
        if pool_type == "Unpooled":
            assert pool.stats().misses == 2 and pool.stats().released == 1
        else:
            assert ptr(h2) == p and pool.stats().misses == 1
        pool.free(h2)

    def test_live_buffers_never_overlap(self, pool_type):
        pool = make_pool(pool_type)
        handles = [pool.alloc(n, mx.cpu()) for n in (10, 5000, 10, 9000, 4096, 10)]
        spans = sorted((ptr(h), ptr(h) + h.nbytes) for h in handles)
        assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))
        for h in handles:
            pool.free(h)

    def test_stats_and_release_all(self, pool_type):
        pool = make_pool(pool_type)
        size = pool.size_class(1000)
        a, b = pool.alloc(1000, mx.cpu()), pool.alloc(1000, mx.cpu())
        st = pool.stats()
        assert (st.in_use, st.pooled, st.num_in_use, st.num_pooled) == (2 * size, 0, 2, 0)
        assert st.peak == 2 * size and st.misses == 2
        pool.free(a)
        st = pool.stats()
        pooled = 0 if pool_type == "Unpooled" else size
        assert (st.in_use, st.pooled, st.peak) == (size, pooled, 2 * size)
        pool.free(b)
        pool.release_all()
        st = pool.stats()
        assert (st.in_use, st.pooled, st.num_pooled, st.released) == (0, 0, 0, 2)

    def test_bad_nbytes(self, pool_type):
        pool = make_pool(pool_type)
        pool.free(pool.alloc(4096, mx.cpu()))  # a float equal to a known size is still refused
        for bad in (-1, 1.5, 4096.0, "8", None, [8], True):
            with pytest.raises(MXNetError, match="storage.alloc.*'nbytes'"):
                pool.alloc(bad, mx.cpu())
        h = pool.alloc(np.int64(12), mx.cpu())  # NumPy integers are sizes too
        assert h.buffer.shape == (12,) and type(h.nbytes) is int
        pool.free(h)

    def test_free_from_many_threads(self, pool_type):
        pool = make_pool(pool_type)
        nthreads, rounds = 4, 200
        start = threading.Barrier(nthreads)
        errors: list[str] = []

        def work(tid: int) -> None:
            start.wait()
            for i in range(rounds):
                h = pool.alloc(100 + (i % 3) * 5000, mx.cpu())
                h.buffer[:] = tid
                other = pool.alloc(100, mx.cpu())
                other.buffer[:] = 255
                pool.free(other)
                if not (h.buffer == tid).all():  # someone else got this block meanwhile
                    errors.append(f"thread {tid} round {i}")
                pool.free(h)

        threads = [threading.Thread(target=work, args=(t,)) for t in range(nthreads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        st = pool.stats()
        assert st.in_use == 0 and st.num_in_use == 0

    def test_racing_double_free_succeeds_once(self, pool_type):
        pool = make_pool(pool_type)
        for _ in range(50):
            h = pool.alloc(300, mx.cpu())
            gate = threading.Barrier(2)
            outcome: list[str] = []

            def racer(h=h, gate=gate, outcome=outcome) -> None:
                gate.wait()
                try:
                    pool.free(h)
                    outcome.append("freed")
                except MXNetError:
                    outcome.append("refused")

            ts = [threading.Thread(target=racer) for _ in range(2)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            assert sorted(outcome) == ["freed", "refused"]
        assert pool.stats().num_in_use == 0


# ---- size classes and the reserve -------------------------------------------------------------


def test_naive_rounds_to_pages_and_large_multiples():
    pool = make_pool("Naive")
    assert [pool.size_class(n) for n in (1, 4096, 4097)] == [4096, 4096, 8192]
    assert pool.size_class(3 * (1 << 20)) == 4 * (1 << 20)  # above 2 MiB: multiples of 2 MiB
    a = pool.alloc(1000, mx.cpu())
    p = ptr(a)
    pool.free(a)
    b = pool.alloc(3000, mx.cpu())  # same 4096 class: same block
    assert ptr(b) == p
    c = pool.alloc(5000, mx.cpu())  # another class: a new block
    assert pool.stats().misses == 2
    pool.free(b), pool.free(c)


def test_round_uses_powers_of_two_then_linear_steps():
    pool = make_pool("Round")
    assert [pool.size_class(n) for n in (1, 4097, 5000, 1 << 20)] == [4096, 8192, 8192, 1 << 20]
    assert pool.size_class((1 << 24) + 1) == 2 << 24  # past the cutoff: multiples of 2**24
    assert pool.size_class(5 << 24) == 5 << 24
    a = pool.alloc(5000, mx.cpu())
    p = ptr(a)
    pool.free(a)
    b = pool.alloc(8000, mx.cpu())  # same power-of-two class
    assert ptr(b) == p
    pool.free(b)


def test_unpooled_keeps_exact_sizes():
    pool = make_pool("Unpooled")
    assert pool.size_class(1001) == 1001
    h = pool.alloc(1001, mx.cpu())
    pool.free(h)
    assert pool.stats().pooled == 0 and pool.stats().released == 1


def test_blocks_above_max_idle_block_are_released_when_freed():
    pool = make_pool("Naive", max_idle_block=8192)
    kept, dropped = pool.alloc(8192, mx.cpu()), pool.alloc(8193, mx.cpu())
    pool.free(kept)
    pool.free(dropped)
    st = pool.stats()
    assert st.pooled == 8192 and st.num_pooled == 1 and st.released == 1 and st.in_use == 0


def test_cpu_pool_gives_large_blocks_back(fresh_pools):
    # an idle block serves only its own size class: a large one kept beside the NumPy arrays
    # allocated next raised the peak of MXNet's test_slice_pooling2d above MXNet's
    small = storage.alloc(storage.CPU_MAX_IDLE_BLOCK, mx.cpu())
    large = storage.alloc(storage.CPU_MAX_IDLE_BLOCK + 1, mx.cpu())
    storage.free(small)
    storage.free(large)
    st = storage.stats(mx.cpu())
    assert st.pooled == storage.CPU_MAX_IDLE_BLOCK and st.released == 1


def test_reserve_bounds_what_the_pool_keeps():
    # 100 pages of memory, half reserved: the pool may hold at most 50 pages.
    pool = make_pool("Naive", total=100 * 4096, reserve=50)
    handles = [pool.alloc(4096, mx.cpu()) for _ in range(60)]
    for h in handles:
        pool.free(h)
    st = pool.stats()
    assert st.pooled == 50 * 4096 and st.released == 10 and st.in_use == 0


def test_miss_releases_idle_blocks_when_memory_runs_short():
    mem = {"avail": 64 * GiB}
    pool = storage.Pool(mx.cpu(), "Naive", reserve=5, meminfo=lambda: (mem["avail"], 64 * GiB))
    pool.free(pool.alloc(4096, mx.cpu()))
    assert pool.stats().pooled == 4096
    mem["avail"] = 64 * GiB * 5 // 100  # the system is down to its reserve
    small = pool.alloc(8192, mx.cpu())  # a small miss trusts the pool's own estimate
    assert pool.stats().pooled == 4096
    big = pool.alloc(4 << 20, mx.cpu())  # a big miss asks the system: release idle first
    assert pool.stats().pooled == 0 and pool.stats().released == 1
    pool.free(small), pool.free(big)


def test_bad_pool_arguments():
    with pytest.raises(MXNetError, match="pool_type"):
        storage.Pool(mx.cpu(), "Fancy")
    with pytest.raises(MXNetError, match="page_size.*power of 2"):
        storage.Pool(mx.cpu(), "Round", page_size=3000)
    with pytest.raises(MXNetError, match="round_linear_cutoff"):
        storage.Pool(mx.cpu(), "Round", round_linear_cutoff=10)
    with pytest.raises(MXNetError, match="reserve"):
        storage.Pool(mx.cpu(), "Naive", reserve=101)


# ---- the process-wide pools -------------------------------------------------------------------


def test_settings_choose_the_pool(monkeypatch, fresh_pools):
    monkeypatch.setenv("MXNET_CPU_MEM_POOL_TYPE", "Round")
    storage._reset()
    h = storage.alloc(5000, mx.cpu())
    assert storage.stats(mx.cpu()).in_use == 8192
    storage.free(h)
    monkeypatch.setenv("MXNET_CPU_MEM_POOL_TYPE", "Bogus")
    storage._reset()
    with pytest.raises(MXNetError, match="MXNET_CPU_MEM_POOL_TYPE.*'Bogus'"):
        storage.alloc(10, mx.cpu())
    monkeypatch.setenv("MXNET_CPU_MEM_POOL_TYPE", "Round")
    monkeypatch.setenv("MXNET_CPU_MEM_POOL_PAGE_SIZE", "1000")
    storage._reset()
    with pytest.raises(MXNetError, match="MXNET_CPU_MEM_POOL_PAGE_SIZE"):
        storage.alloc(10, mx.cpu())


def test_use_naive_storage_managers_disables_pooling(monkeypatch, fresh_pools):
    monkeypatch.setenv("MXNET_USE_NAIVE_STORAGE_MANAGERS", "1")
    storage.free(storage.alloc(100, mx.cpu()))
    assert storage.stats(mx.cpu()).pooled == 0


def test_cpu_contexts_share_one_pool(fresh_pools):
    h = storage.alloc(100, mx.cpu(1))
    assert h.ctx == mx.cpu(1)
    assert storage.stats(mx.cpu(0)).in_use == 4096
    storage.free(h)
    assert storage.stats(mx.cpu(3)).pooled == 4096
    mx.cpu().empty_cache()  # Context.empty_cache calls release_all(ctx)
    assert storage.stats(mx.cpu()).pooled == 0


def test_stats_of_an_unused_device_are_zero():
    assert storage.stats(mx.gpu(7)) == storage.StorageStats()
    storage.release_all(mx.gpu(7))  # nothing to do, and no error


def test_module_functions_check_their_arguments():
    with pytest.raises(MXNetError, match="storage.alloc.*'ctx'"):
        storage.alloc(10, "cpu")
    with pytest.raises(MXNetError, match="storage.free.*'handle'"):
        storage.free(object())
    with pytest.raises(MXNetError, match="storage.stats.*'ctx'"):
        storage.stats(None)
    with pytest.raises(MXNetError, match="storage.release_all.*'ctx'"):
        storage.release_all("gpu")


def test_gpu_needs_cupy():
    pytest.importorskip("numpy")
    try:
        import cupy  # noqa: F401
    except ImportError:
        with pytest.raises(MXNetError, match="CuPy"):
            storage.alloc(10, mx.gpu(0))
    else:
        pytest.skip("CuPy is installed; see test_gpu_pool")


@pytest.mark.gpu
def test_gpu_pool():
    cupy = pytest.importorskip("cupy")
    if mx.context.num_gpus() == 0:
        pytest.skip("no GPU")
    h = storage.alloc(1000, mx.gpu(0))
    assert isinstance(h.buffer, cupy.ndarray) and h.buffer.shape == (1000,)
    assert h.buffer.data.ptr % storage.ALIGNMENT == 0
    p = h.buffer.data.ptr
    storage.free(h)
    h2 = storage.alloc(1000, mx.gpu(0))
    assert h2.buffer.data.ptr == p
    storage.free(h2)
    storage.release_all(mx.gpu(0))
    assert storage.stats(mx.gpu(0)).pooled == 0


# ---- free_after: reuse waits for the engine ---------------------------------------------------

ENGINE_KINDS = ["NaiveEngine", "ThreadedEngine", "ThreadedEnginePerDevice"]


@pytest.fixture(params=ENGINE_KINDS)
def eng(request, monkeypatch):
    """A private engine of each kind, standing in for the process-wide one."""
    e = engine.create(request.param)
    monkeypatch.setattr(engine, "get", lambda: e)
    yield e
    e.shutdown()


def test_reuse_never_hands_out_a_buffer_a_pending_function_reads(eng):
    pool = make_pool("Naive")
    h = pool.alloc(1000, mx.cpu())
    h.buffer[:] = 3
    p = ptr(h)
    var = eng.new_var()
    started, release = threading.Event(), threading.Event()
    seen: list[int] = []
    blocking = eng.kind != "NaiveEngine"  # the naive engine runs the function inline

    def reader(rctx, buf=h.buffer):
        started.set()
        if blocking:
            release.wait(30)
        seen.append(int(buf.sum()))

    eng.push_sync(reader, mx.cpu(), [var], [])
    storage.free_after(h, var)
    if blocking:
        assert started.wait(30)
        others = [pool.alloc(1000, mx.cpu()) for _ in range(3)]
        assert p not in [ptr(o) for o in others]  # still in use by `reader`
        assert pool.stats().in_use == 4 * 4096
        for o in others:
            o.buffer[:] = 9  # would corrupt what `reader` sums if it were the same memory
        release.set()
    call_with_timeout(eng.wait_for_all)
    assert seen == [3 * 1000]
    again = pool.alloc(1000, mx.cpu())
    assert ptr(again) == p  # now it comes back
    pool.free(again)


def test_free_after_runs_even_after_a_failure(eng):
    pool = make_pool("Naive")
    h = pool.alloc(64, mx.cpu())
    var = eng.new_var()

    def boom(rctx):
        raise ValueError("boom")

    eng.push_sync(boom, mx.cpu(), [], [var])
    storage.free_after(h, var)
    with pytest.raises(MXNetError):
        call_with_timeout(eng.wait_for_all)
    assert pool.stats().in_use == 0 and pool.stats().num_pooled == 1


def test_free_after_marks_the_handle_freed_at_once(eng):
    pool = make_pool("Naive")
    h = pool.alloc(64, mx.cpu())
    storage.free_after(h, eng.new_var())
    with pytest.raises(MXNetError, match="double free"):
        storage.free(h)
    with pytest.raises(MXNetError, match="free_after.*double free"):
        storage.free_after(h, eng.new_var())
    call_with_timeout(eng.wait_for_all)


def test_free_after_on_a_dead_var_leaves_the_handle_live(eng):
    pool = make_pool("Naive")
    h = pool.alloc(64, mx.cpu())
    var = eng.new_var()
    eng.push_delete(lambda rctx: None, mx.cpu(), var)
    with pytest.raises(MXNetError, match="already deleted"):
        storage.free_after(h, var)
    storage.free(h)  # still ours to free
    call_with_timeout(eng.wait_for_all)


def test_pooled_cpu_pool_keeps_freed_heap(monkeypatch):
    """A pooled CPU pool asks glibc to keep freed blocks in its heap (once)."""
    import ctypes
    import sys

    from mxlite import storage

    if not sys.platform.startswith("linux"):
        pytest.skip("mallopt is glibc's")
    calls = []

    class FakeLibc:
        def mallopt(self, param, value):
            calls.append((param, value))
            return 1

    monkeypatch.setattr(storage, "_heap_kept", False)
    monkeypatch.setattr(ctypes, "CDLL", lambda name: FakeLibc())
    storage._keep_freed_heap()
    storage._keep_freed_heap()
    assert calls == [(-3, 1 << 30), (-1, (1 << 31) - 1)]
