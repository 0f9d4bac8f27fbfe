"""Small functions marked ``inline`` run on the pushing thread when their vars are free, and
otherwise wait their turn on a worker; either way order and failures follow the engine's rules."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from mxlite.engine import INLINE_BYTES, small_enough_inline


def test_ready_inline_function_runs_on_the_caller_before_push_returns(eng):
    v = eng.new_var()
    ran = []
    eng.push_sync(lambda rctx: ran.append(threading.get_ident()), mx.cpu(), [], [v], inline=True)
    assert ran == [threading.get_ident()]
    eng.wait_for_all()


def test_inline_function_waits_for_a_busy_var_and_then_runs_on_a_worker(eng):
    v = eng.new_var()
    gate = threading.Event()
    order = []
    eng.push_sync(lambda rctx: (gate.wait(), order.append("writer")), mx.cpu(), [], [v])
    eng.push_sync(
        lambda rctx: order.append(("reader", threading.get_ident())),
        mx.cpu(),
        [v],
        [],
        inline=True,
    )
    assert order == []  # queued behind the blocked writer, not run at push
    gate.set()
    eng.wait_for_all()
    assert order[0] == "writer"
    assert order[1][0] == "reader" and order[1][1] != threading.get_ident()


def test_failure_of_an_inline_function_surfaces_at_the_wait_not_the_push(eng):
    v = eng.new_var()

    def boom(rctx):
        raise ValueError("inline boom")

    eng.push_sync(boom, mx.cpu(), [], [v], inline=True)  # does not raise here
    with pytest.raises(MXNetError, match="inline boom"):
        eng.wait_for_var(v)
    eng.push_sync(lambda rctx: None, mx.cpu(), [], [v], inline=True)
    eng.wait_for_var(v)  # the engine stays usable


def test_waiting_inside_an_inline_function_raises_as_on_a_worker(eng):
    v, w = eng.new_var(), eng.new_var()
    eng.push_sync(lambda rctx: eng.wait_for_var(w), mx.cpu(), [], [v], inline=True)
    with pytest.raises(MXNetError, match="inside an engine function"):
        eng.wait_for_var(v)


def test_inline_function_ends_a_bulk_segment_first(eng):
    v = eng.new_var()
    seen = []
    eng.set_bulk_size(8)
    eng.push_sync(lambda rctx: seen.append("bulked"), mx.cpu(), [], [v])
    eng.push_sync(lambda rctx: seen.append("inline"), mx.cpu(), [v], [], inline=True)
    eng.wait_for_all()
    assert seen == ["bulked", "inline"]


def test_small_enough_inline_checks_every_array_and_the_device():
    small, big = np.zeros(4, np.float32), np.zeros(INLINE_BYTES // 4 + 1, np.float32)
    assert small_enough_inline(mx.cpu(), [small], [None])
    assert not small_enough_inline(mx.cpu(), [small], [big])
    assert not small_enough_inline(mx.gpu(0), [small])


def test_ndarray_chain_gives_the_same_values_inline_and_on_workers():
    a = mx.nd.arange(10)
    big = mx.nd.ones((INLINE_BYTES // 4 + 8,))  # goes to a worker; its users queue behind it
    c = a
    for i in range(50):
        c = c * 1.01 + i
    d = (big * 2).sum() + c[0]
    ref = np.arange(10, dtype=np.float32)
    for i in range(50):
        ref = ref * np.float32(1.01) + np.float32(i)
    np.testing.assert_allclose(c.asnumpy(), ref, rtol=1e-5)
    np.testing.assert_allclose(d.asnumpy(), 2 * big.size + ref[0], rtol=1e-5)


def test_function_queued_behind_a_running_inline_function_runs_after_it(eng):
    v = eng.new_var()
    order = []

    def first(rctx):
        # another thread pushes a write while this function holds the var: it must queue
        t = threading.Thread(
            target=lambda: eng.push_sync(lambda r: order.append("second"), mx.cpu(), [], [v])
        )
        t.start()
        t.join()
        order.append("first")

    eng.push_sync(first, mx.cpu(), [], [v], inline=True)
    eng.wait_for_all()
    assert order == ["first", "second"]


def test_inline_functions_are_profiled_like_the_others(eng):
    seen = []
    eng.set_profile_sink(lambda name, ctx, tid, t0, t1: seen.append((name, tid)))
    v = eng.new_var()
    eng.push_sync(lambda rctx: None, mx.cpu(), [], [v], name="small", inline=True)
    eng.wait_for_all()
    assert seen == [("small", threading.get_ident())]


def test_inline_up_to_raises_the_limit_on_this_thread_only():
    from mxlite.engine import inline_up_to

    big = np.zeros(INLINE_BYTES // 4 + 1, np.float32)
    seen = []
    with inline_up_to(big.nbytes):
        assert small_enough_inline(mx.cpu(), [big])
        t = threading.Thread(target=lambda: seen.append(small_enough_inline(mx.cpu(), [big])))
        t.start()
        t.join()
        with inline_up_to(0):
            assert not small_enough_inline(mx.cpu(), [np.zeros(1)])
        assert small_enough_inline(mx.cpu(), [big])
        assert not small_enough_inline(mx.gpu(0), [big])
    assert seen == [False]
    assert not small_enough_inline(mx.cpu(), [big])


def test_inline_functions_get_the_run_context_of_their_own_context(eng):
    # the caller's cache of the last run context: equal Context objects share one, different
    # ones never get each other's
    seen = []
    ctxs = [mx.cpu(0), mx.cpu(1), mx.Context("cpu", 0), mx.cpu(1), mx.cpu(0)]
    for ctx in ctxs:
        eng.push_sync(lambda rctx: seen.append(rctx.ctx), ctx, [], [eng.new_var()], inline=True)
    eng.wait_for_all()
    assert seen == ctxs
