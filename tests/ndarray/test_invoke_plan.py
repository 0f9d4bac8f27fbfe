"""Imperative calls along a plan (ndarray/invoke.py): once a property has run on inputs of some
shapes and dtypes, later calls skip inference and checks, and must still do what the first
call did for whatever differs from call to call (context, inline limit, recording)."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from mxlite.engine import INLINE_BYTES, inline_up_to
from mxlite.engine.base import Engine


@pytest.fixture
def inline_flags(monkeypatch):
    """The ``inline`` flag of every fresh-output operator push."""
    flags: list[bool] = []
    push = Engine.push_sync_trusted

    def spy(self, fn, ctx, const_vars, mutate_vars, name, inline=False):
        flags.append(inline)
        return push(self, fn, ctx, const_vars, mutate_vars, name, inline)

    monkeypatch.setattr(Engine, "push_sync_trusted", spy)
    return flags


def _plans(op_name: str) -> int:
    from mxlite.operator import registry

    return len(registry.get(op_name).get_prop({})._plans)


def test_repeated_call_runs_along_a_plan_with_the_same_result():
    a = mx.nd.array(np.arange(6.0).reshape(2, 3))
    b = mx.nd.array(np.ones((2, 3)))
    first = mx.nd.elemwise_add(a, b)
    assert _plans("elemwise_add") >= 1
    again = mx.nd.elemwise_add(a, b)
    np.testing.assert_array_equal(again.asnumpy(), first.asnumpy())
    assert again.shape == (2, 3) and again.dtype == np.float32


def test_plan_follows_the_inline_limit_of_the_calling_thread(inline_flags):
    a = mx.nd.ones((4, 4))
    mx.nd.elemwise_mul(a, a)
    mx.nd.elemwise_mul(a, a)  # along the plan
    with inline_up_to(0):
        out = mx.nd.elemwise_mul(a, a)
    assert inline_flags == [True, True, False]
    np.testing.assert_array_equal(out.asnumpy(), np.ones((4, 4)))


def test_plan_sends_large_arrays_to_the_workers(inline_flags):
    n = INLINE_BYTES // 4 + 1  # one float32 more than the limit
    big = mx.nd.ones((n,))
    mx.nd.elemwise_sub(big, big)
    out = mx.nd.elemwise_sub(big, big)
    assert inline_flags == [False, False]
    assert float(out.sum().asscalar()) == 0.0


def test_plan_keeps_each_context_and_still_checks_mixed_ones():
    a0 = mx.nd.ones((2, 2), ctx=mx.cpu(0))
    a1 = mx.nd.ones((2, 2), ctx=mx.cpu(1))
    assert mx.nd.elemwise_div(a0, a0).context == mx.cpu(0)
    assert mx.nd.elemwise_div(a1, a1).context == mx.cpu(1)
    assert mx.nd.elemwise_div(a0, a0).context == mx.cpu(0)
    with pytest.raises(MXNetError, match="one context"):
        mx.nd.elemwise_div(a0, a1)


def test_plan_under_autograd_records_the_call():
    w = mx.nd.array([1.0, 2.0, 3.0])
    w.attach_grad()
    for _ in range(2):  # the second call runs along the plan
        with mx.autograd.record():
            y = mx.nd.elemwise_mul(w, w)
        y.backward()
        np.testing.assert_array_equal(w.grad.asnumpy(), [2.0, 4.0, 6.0])


def test_a_gather_from_a_large_array_runs_on_the_caller(inline_flags):
    """take and Embedding read only the rows they return: a table over the inline limit keeps
    neither off the caller's thread (first call and along the plan); other large inputs do."""
    rows = INLINE_BYTES // 16 + 1  # a (rows, 4) float32 table just over the limit
    table = mx.nd.array(np.arange(rows * 4, dtype=np.float32).reshape(rows, 4))
    idx = mx.nd.array([0, rows - 1, 3])
    for _ in range(2):
        got = mx.nd.take(table, idx)
    emb = mx.nd.Embedding(idx, table, input_dim=rows, output_dim=4)
    mx.nd.elemwise_add(table, table)
    assert inline_flags == [True, True, True, False]
    want = table.asnumpy()[[0, rows - 1, 3]]
    np.testing.assert_array_equal(got.asnumpy(), want)
    np.testing.assert_array_equal(emb.asnumpy(), want)
