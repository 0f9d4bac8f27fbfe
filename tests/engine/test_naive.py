"""NaiveEngine: the contract, and what is particular to running every function at push."""

from __future__ import annotations

import threading

import pytest

from mxlite import engine
from mxlite.base import MXNetError
from mxlite.context import cpu

from .contract import EngineContract


class TestNaiveContract(EngineContract):
    kind = "NaiveEngine"
    runs_at_push = True


def test_push_runs_on_the_calling_thread() -> None:
    eng = engine.create("NaiveEngine")
    try:
        a = eng.new_var()
        seen: list[int] = []
        eng.push_sync(lambda rctx: seen.append(threading.get_ident()), cpu(), [], [a])
        assert seen == [threading.get_ident()]  # done before push_sync returned
    finally:
        eng.shutdown()


def test_async_push_waits_for_on_complete_from_another_thread() -> None:
    eng = engine.create("NaiveEngine")
    try:
        a = eng.new_var()
        finished = threading.Event()

        def fn(rctx: engine.RunContext, on_complete) -> None:
            def later() -> None:
                finished.set()
                on_complete()

            threading.Thread(target=later, daemon=True).start()

        eng.push_async(fn, cpu(), [], [a])
        assert finished.is_set()  # push_async returned only after on_complete
    finally:
        eng.shutdown()


def test_a_reader_of_a_failed_write_is_skipped_and_carries_the_failure() -> None:
    # As in the threaded engines: the reader does not run, and its output raises the first
    # failure, so switching to NaiveEngine to debug never changes what a program computes
    eng = engine.create("NaiveEngine")
    try:
        a, b = eng.new_var(), eng.new_var()
        err = ZeroDivisionError("first failure")
        ran: list[str] = []

        def writer(rctx: engine.RunContext) -> None:
            raise err

        eng.push_sync(writer, cpu(), [], [a], name="writer")
        eng.push_sync(lambda rctx: ran.append("reader"), cpu(), [a], [b], name="reader")
        assert ran == []
        with pytest.raises(MXNetError, match="'writer'.*first failure") as info:
            eng.wait_for_var(b)
        assert info.value.__cause__ is err
        eng.wait_for_all()  # reported once
    finally:
        eng.shutdown()


_NDARRAY_FAILURE = """
import mxlite as mx
from mxlite.operator import GradNeeds, simple_op

def _failing(xp, x, env, out):
    raise FloatingPointError("kernel exploded")

simple_op("_naive_failing_op", forward=_failing, gradient=lambda xp, g, env: g,
          grad_needs=GradNeeds.OUT_GRAD, doc="fails")
x = mx.nd.ones((3,))
later = mx.nd._internal._naive_failing_op(x) + 1
try:
    later.asnumpy()
    print("no error")
except mx.MXNetError as e:
    print(type(e.__cause__).__name__, e)
print((x + 1).asnumpy().tolist())
d = mx.sym.var("d")
exe = (mx.sym._internal._naive_failing_op(d, name="bad") * 2 + 1).bind(mx.cpu(), {"d": x})
exe.forward()
try:
    exe.outputs[0].asnumpy()
except mx.MXNetError as e:
    print(e)
"""


def test_ndarray_failure_under_naive_engine_is_the_threaded_one() -> None:
    # the same program under the default engine: tests/ndarray/test_ndarray.py
    # (test_kernel_error_surfaces_at_next_wait_and_process_goes_on)
    from .test_engine_module import run_python

    res = run_python(_NDARRAY_FAILURE, {"MXNET_ENGINE_TYPE": "NaiveEngine"})
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [
        "FloatingPointError engine function '_naive_failing_op' on cpu(0) failed: "
        "FloatingPointError: kernel exploded",
        "[2.0, 2.0, 2.0]",
        "engine function 'bad' on cpu(0) failed: FloatingPointError: kernel exploded",
    ]
