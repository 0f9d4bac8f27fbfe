"""ThreadedEngine: the contract, and what needs a shared pool of several workers."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from mxlite import engine
from mxlite.base import MXNetError
from mxlite.context import cpu

from .contract import TIMEOUT, EngineContract, call_with_timeout


class TestThreadedContract(EngineContract):
    kind = "ThreadedEngine"


@pytest.fixture
def eng(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("MXNET_CPU_WORKER_NTHREADS", raising=False)  # the default, 4 workers
    e = engine.create("ThreadedEngine")
    yield e
    call_with_timeout(e.shutdown)


def test_readers_of_one_var_overlap(eng: engine.Engine) -> None:
    a = eng.new_var()
    both = threading.Barrier(2, timeout=TIMEOUT)  # broken (a failure) unless both run at once
    eng.push_sync(lambda rctx: None, cpu(), [], [a])
    for i in range(2):
        eng.push_sync(lambda rctx: both.wait(), cpu(), [a], [], name=f"reader{i}")
    call_with_timeout(eng.wait_for_all)


def test_writer_waits_for_overlapping_readers(eng: engine.Engine) -> None:
    a = eng.new_var()
    both = threading.Barrier(2, timeout=TIMEOUT)
    log: list[str] = []
    for i in range(2):
        eng.push_sync(lambda rctx, i=i: (both.wait(), log.append(f"r{i}")), cpu(), [a], [])
    eng.push_sync(lambda rctx: log.append("w"), cpu(), [], [a])
    call_with_timeout(eng.wait_for_var, a)
    assert sorted(log[:2]) == ["r0", "r1"]
    assert log[2] == "w"


def test_wait_for_var_does_not_wait_for_readers(eng: engine.Engine) -> None:
    a = eng.new_var()
    gate = threading.Event()
    eng.push_sync(lambda rctx: gate.wait(2 * TIMEOUT), cpu(), [a], [])
    # only a reader is running: nothing to wait for (the reader outlives this timeout)
    call_with_timeout(eng.wait_for_var, a)
    assert not gate.is_set()
    gate.set()
    call_with_timeout(eng.wait_for_all)


def test_wait_for_var_waits_for_async_completion(eng: engine.Engine) -> None:
    a = eng.new_var()
    parked: list[Callable[..., None]] = []
    pushed = threading.Event()
    done: list[str] = []

    def fn(rctx: engine.RunContext, on_complete: Callable[..., None]) -> None:
        parked.append(on_complete)
        pushed.set()

    eng.push_async(fn, cpu(), [], [a])
    eng.push_sync(lambda rctx: done.append("next"), cpu(), [], [a])
    assert pushed.wait(TIMEOUT)
    assert done == []  # fn returned, but the var is held until on_complete

    def finish() -> None:
        done.append("first")
        parked[0]()

    threading.Thread(target=finish, daemon=True).start()
    call_with_timeout(eng.wait_for_var, a)
    assert done == ["first", "next"]


def test_async_exception_before_on_complete_is_the_failure(eng: engine.Engine) -> None:
    a = eng.new_var()

    def fn(rctx: engine.RunContext, on_complete: Callable[..., None]) -> None:
        raise KeyError("early")

    eng.push_async(fn, cpu(), [], [a], name="early_op")
    with pytest.raises(MXNetError, match="early_op"):
        call_with_timeout(eng.wait_for_var, a)


def test_push_after_shutdown_raises() -> None:
    e = engine.create("ThreadedEngine")
    a = e.new_var()
    e.push_sync(lambda rctx: None, cpu(), [], [a])
    call_with_timeout(e.shutdown)
    with pytest.raises(MXNetError, match="shut down"):
        e.push_sync(lambda rctx: None, cpu(), [], [a])


def test_worker_count_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MXNET_CPU_WORKER_NTHREADS", "3")
    e = engine.create("ThreadedEngine")
    try:
        three = threading.Barrier(3, timeout=TIMEOUT)  # needs 3 workers at once
        for _ in range(3):
            e.push_sync(lambda rctx: three.wait(), cpu())
        call_with_timeout(e.wait_for_all)
    finally:
        call_with_timeout(e.shutdown)


@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_bad_worker_count_names_the_variable(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("MXNET_CPU_WORKER_NTHREADS", value)
    with pytest.raises(MXNetError, match=f"MXNET_CPU_WORKER_NTHREADS.*'{value}'"):
        engine.create("ThreadedEngine")
