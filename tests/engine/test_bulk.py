"""Bulk execution (engine/segment.py): fewer engine functions, same results, flushed before waits
and deletes, failures named after the function that raised."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest

import mxlite as mx


def test_bulk_runs_fewer_engine_functions_with_sequential_results(eng):
    executed = []
    eng.set_profile_sink(lambda name, ctx, tid, t0, t1: executed.append(name))
    eng.set_bulk_size(8)
    vs = [eng.new_var() for _ in range(4)]
    data, ref = [0] * 4, [0] * 4
    for i in range(32):
        a, b = i % 4, (i * 3 + 1) % 4

        def f(rctx, a=a, b=b, i=i):
            data[b] = data[a] + i

        eng.push_sync(f, mx.cpu(), [vs[a]], [vs[b]])
        ref[b] = ref[a] + i
    eng.wait_for_all()
    assert data == ref
    assert executed == ["bulk[8]"] * 4  # 32 functions, 4 engine functions


def test_wait_flushes_a_partial_segment(eng):
    eng.set_bulk_size(100)
    v = eng.new_var()
    out = []
    eng.push_sync(lambda rctx: out.append(1), mx.cpu(), [], [v])
    eng.wait_for_var(v)  # would hang if the segment were not pushed
    assert out == [1]


def test_push_delete_waits_for_a_collected_user(eng):
    eng.set_bulk_size(100)
    v = eng.new_var()
    order = []
    eng.push_sync(lambda rctx: order.append("use"), mx.cpu(), [v], [])
    eng.push_delete(lambda rctx: order.append("delete"), mx.cpu(), v)
    eng.wait_for_all()
    assert order == ["use", "delete"]


def test_async_and_prioritised_pushes_end_the_segment(eng):
    eng.set_bulk_size(100)
    v = eng.new_var()
    seen = []
    eng.push_sync(lambda rctx: seen.append("sync"), mx.cpu(), [], [v])
    eng.push_async(lambda rctx, done: (seen.append("async"), done()), mx.cpu(), [], [v])
    eng.push_sync(lambda rctx: seen.append("prio"), mx.cpu(), [], [v], priority=1)
    eng.wait_for_all()
    assert seen == ["sync", "async", "prio"]


def test_failure_names_the_function_and_poisons_the_segment(eng):
    eng.set_bulk_size(4)
    a, b = eng.new_var(), eng.new_var()
    eng.push_sync(lambda rctx: 1 / 0, mx.cpu(), [], [a], name="boom")
    eng.push_sync(lambda rctx: None, mx.cpu(), [], [b], name="fine")
    with pytest.raises(mx.MXNetError, match="'boom'.*ZeroDivisionError"):
        eng.wait_for_var(b)
    eng.wait_for_all()


def test_pushes_from_several_threads_keep_each_threads_order(eng):
    eng.set_bulk_size(5)
    v = eng.new_var()
    got = []
    lock = threading.Lock()  # gives the pushes one global order, recorded in `want`
    want = []

    def pusher(tag):
        for i in range(50):
            with lock:
                want.append((tag, i))
                eng.push_sync(lambda rctx, t=tag, i=i: got.append((t, i)), mx.cpu(), [], [v])

    threads = [threading.Thread(target=pusher, args=(t,)) for t in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    eng.wait_for_all()
    assert got == want


def test_ndarray_program_inside_bulk_scope():
    x = mx.nd.ones((3,))
    with mx.engine.bulk(16):
        for _ in range(10):
            x = x * 2 + 1
    assert x.asnumpy().tolist() == [2.0**11 - 1] * 3


class _Payload:
    """Stands for the arrays a collected function closes over."""


def test_a_run_segment_frees_its_functions_without_the_cycle_collector(eng):
    # a segment's runner referring back to its own operator made a cycle: every bulked
    # function, and the arrays it closed over, lived until the cycle collector ran (a process
    # grew by a full gradient per backward in MXNet's test_slice_pooling2d)
    eng.set_bulk_size(8)
    v = eng.new_var()
    refs = []
    gc.disable()
    try:
        for _ in range(4):
            payload = _Payload()
            refs.append(weakref.ref(payload))
            eng.push_sync(lambda rctx, p=payload: p, mx.cpu(), [], [v])
        del payload
        eng.shutdown()  # runs the segment and joins the workers, whose frames hold no block then
        assert [r() for r in refs] == [None] * 4
    finally:
        gc.enable()
