"""``Var.version``: the count of completed functions that mutate a var, on every engine kind,
inline or queued, alone or in a bulk segment, and through NDArray writes."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite import cpu
from mxlite.engine import create

KINDS = ["NaiveEngine", "ThreadedEngine", "ThreadedEnginePerDevice"]


@pytest.fixture(params=KINDS)
def any_eng(request):
    e = create(request.param)
    yield e
    e.shutdown()


def test_writes_count_and_reads_do_not(any_eng) -> None:
    a, b = any_eng.new_var(), any_eng.new_var()
    assert a.version == 0
    for inline in (True, False):
        any_eng.push_sync(lambda rctx: None, cpu(), [], [a], inline=inline)
        any_eng.push_sync(lambda rctx: None, cpu(), [a], [b], inline=inline)
    any_eng.push_async(lambda rctx, done: done(), cpu(), [], [a])
    opr = any_eng.new_operator(lambda rctx, done: done(), [b], [a])
    any_eng.push(opr, cpu())
    any_eng.wait_for_all()
    assert (a.version, b.version) == (4, 2)


def test_a_reader_sees_the_version_of_what_it_reads(any_eng) -> None:
    a = any_eng.new_var()
    seen = []
    for _ in range(3):
        any_eng.push_sync(lambda rctx: None, cpu(), [], [a])
        any_eng.push_sync(lambda rctx: seen.append(a.version), cpu(), [a], [])
    any_eng.wait_for_all()
    assert seen == [1, 2, 3]


def test_each_function_of_a_bulk_segment_counts(any_eng) -> None:
    a = any_eng.new_var()
    seen = []
    any_eng.set_bulk_size(8)
    any_eng.push_sync(lambda rctx: seen.append(a.version), cpu(), [a], [])
    any_eng.push_sync(lambda rctx: None, cpu(), [], [a])
    any_eng.push_sync(lambda rctx: seen.append(a.version), cpu(), [a], [])
    any_eng.set_bulk_size(0)
    any_eng.wait_for_all()
    assert seen[1] > seen[0]


def test_ndarray_writes_bump_the_version() -> None:
    w = mx.nd.ones((4, 4))
    w.wait_to_read()
    var = w._chunk.var
    steps = [
        lambda: w.__setitem__(slice(None), 2.0),
        lambda: mx.nd.array(np.zeros((4, 4))).copyto(w),
        lambda: mx.nd.elemwise_add(w, w, out=w),
    ]
    for step in steps:
        before = var.version
        step()
        w.wait_to_read()
        assert var.version > before
    before = var.version
    (w + 1).wait_to_read()
    assert var.version == before
