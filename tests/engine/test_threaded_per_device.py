"""ThreadedEnginePerDevice: the contract, the priority pool, and the CPU worker count."""

from __future__ import annotations

import threading

import pytest

from mxlite import engine
from mxlite.base import MXNetError
from mxlite.context import cpu

from .contract import TIMEOUT, EngineContract, call_with_timeout


class TestThreadedPerDeviceContract(EngineContract):
    kind = "ThreadedEnginePerDevice"


@pytest.fixture
def eng(monkeypatch: pytest.MonkeyPatch):
    for name in ("MXNET_CPU_WORKER_NTHREADS", "MXNET_CPU_PRIORITY_NTHREADS"):
        monkeypatch.delenv(name, raising=False)  # the defaults: 1 CPU worker, 4 priority
    e = engine.create("ThreadedEnginePerDevice")
    yield e
    call_with_timeout(e.shutdown)


def test_priority_work_runs_beside_blocked_cpu_worker(eng: engine.Engine) -> None:
    a, b, c = eng.new_var(), eng.new_var(), eng.new_var()
    gate, prio_ran, blocked = threading.Event(), threading.Event(), threading.Event()
    tids: dict[str, int] = {}
    late: list[str] = []

    def blocker(rctx: engine.RunContext) -> None:
        tids["cpu"] = threading.get_ident()
        blocked.set()
        if not gate.wait(2 * TIMEOUT):  # outlives prio_ran.wait below
            raise TimeoutError("the priority function never ran")

    def prio(rctx: engine.RunContext) -> None:
        tids["prio"] = threading.get_ident()
        prio_ran.set()

    eng.push_sync(blocker, cpu(), [], [a])
    eng.push_sync(lambda rctx: late.append("cpu"), cpu(), [], [b])  # queues behind blocker
    eng.push_sync(prio, cpu(), [], [c], priority=1)
    assert prio_ran.wait(TIMEOUT)
    assert blocked.wait(TIMEOUT) and not gate.is_set()  # the CPU worker may start it late
    assert late == []  # the one CPU worker is still blocked
    gate.set()
    call_with_timeout(eng.wait_for_all)
    assert late == ["cpu"]
    assert tids["prio"] != tids["cpu"]


def test_priority_pool_runs_highest_priority_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MXNET_CPU_PRIORITY_NTHREADS", "1")
    e = engine.create("ThreadedEnginePerDevice")
    try:
        gate, started = threading.Event(), threading.Event()
        order: list[int] = []
        e.push_sync(lambda rctx: (started.set(), gate.wait(TIMEOUT)), cpu(), priority=1)
        assert started.wait(TIMEOUT)  # the one priority worker is busy; the rest queue
        for p in (1, 5, 3, 5):
            e.push_sync(lambda rctx, p=p: order.append(p), cpu(), [], [e.new_var()], priority=p)
        gate.set()
        call_with_timeout(e.wait_for_all)
        assert order == [5, 5, 3, 1]
    finally:
        call_with_timeout(e.shutdown)


def test_one_cpu_worker_by_default(eng: engine.Engine) -> None:
    tids: set[int] = set()
    for _ in range(20):
        eng.push_sync(lambda rctx: tids.add(threading.get_ident()), cpu())
    call_with_timeout(eng.wait_for_all)
    assert len(tids) == 1
    assert threading.get_ident() not in tids


def test_readers_overlap_with_two_cpu_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MXNET_CPU_WORKER_NTHREADS", "2")
    e = engine.create("ThreadedEnginePerDevice")
    try:
        a = e.new_var()
        both = threading.Barrier(2, timeout=TIMEOUT)  # broken (a failure) unless both overlap
        e.push_sync(lambda rctx: None, cpu(), [], [a])
        for i in range(2):
            e.push_sync(lambda rctx: both.wait(), cpu(), [a], [], name=f"reader{i}")
        call_with_timeout(e.wait_for_all)
    finally:
        call_with_timeout(e.shutdown)


def test_dependency_between_cpu_and_priority_pools(eng: engine.Engine) -> None:
    a = eng.new_var()
    out: list[int] = []
    for i in range(30):
        eng.push_sync(lambda rctx, i=i: out.append(i), cpu(), [], [a], priority=i % 2)
    call_with_timeout(eng.wait_for_var, a)
    assert out == list(range(30))


@pytest.mark.parametrize("name", ["MXNET_CPU_WORKER_NTHREADS", "MXNET_CPU_PRIORITY_NTHREADS"])
def test_zero_threads_names_the_variable(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv(name, "0")
    with pytest.raises(MXNetError, match=f"{name}.*'0'"):
        engine.create("ThreadedEnginePerDevice")
