"""NaiveEngine: the contract, and what is particular to running every function at push."""

from __future__ import annotations

import threading

from mxlite import engine
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
