"""The engine contract: one suite that every engine kind must pass.

A test module binds it to a kind by subclassing :class:`EngineContract` and setting ``kind``.
The engines under test are private (``engine.create``), so the process-wide one is untouched.

Nothing here sleeps to synchronise. Every wait that a bug could turn into a hang goes through
:func:`call_with_timeout`, so a broken engine fails the test instead of stalling the run.
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mxlite import engine
from mxlite.base import MXNetError
from mxlite.context import cpu

# Generous: only a broken engine ever reaches it, and the 2-core CI box may be busy.
TIMEOUT = 30.0


def call_with_timeout(fn: Callable[..., Any], *args: Any, timeout: float = TIMEOUT) -> Any:
    """Call ``fn(*args)`` on a helper thread; fail the test if it does not return in time."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as exc:
            box["exc"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        pytest.fail(f"{getattr(fn, '__name__', fn)} did not return within {timeout} s: a hang")
    if "exc" in box:
        raise box["exc"]
    return box.get("value")


# ---- random programs ------------------------------------------------------------------------

MODES = ("sync", "async_inline", "async_helper")


@dataclass(frozen=True)
class Op:
    thread: int
    const: frozenset[int]
    mutate: frozenset[int]
    mode: str
    dup: bool  # pass the vars twice, to exercise de-duplication


@dataclass
class Program:
    nvars: int
    nthreads: int
    ops: list[Op]


@st.composite
def programs(draw: Any) -> Program:
    nvars = draw(st.integers(2, 12))
    nthreads = draw(st.integers(1, 3))
    nops = draw(st.integers(20, 200))
    var = st.integers(0, nvars - 1)
    op = st.builds(
        Op,
        st.integers(0, nthreads - 1),
        st.frozensets(var, max_size=4),
        st.frozensets(var, max_size=3),
        st.sampled_from(MODES),
        st.booleans(),
    )
    return Program(nvars, nthreads, draw(st.lists(op, min_size=nops, max_size=nops)))


def _snapshot(vals: list[list[int]], vars_: frozenset[int]) -> tuple:
    return tuple((v, len(vals[v]), vals[v][-1] if vals[v] else -1) for v in sorted(vars_))


@dataclass
class Trace:
    """What a run of a program observed; filled by the engine functions."""

    vals: list[list[int]]
    order: list[int] = field(default_factory=list)  # global push order of op ids
    start: dict[int, int] = field(default_factory=dict)
    end: dict[int, int] = field(default_factory=dict)
    seen: dict[int, tuple] = field(default_factory=dict)
    errors: list[BaseException] = field(default_factory=list)
    # _lock makes the event clock a total order; taken by engine functions and the helper.
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _clock: Any = field(default_factory=itertools.count)

    def tick(self, table: dict[int, int], fid: int) -> None:
        with self._lock:
            table[fid] = next(self._clock)


def run_program(eng: engine.Engine, prog: Program) -> Trace:
    """Push ``prog`` from its threads (pushes ordered by a lock) and wait for all of it."""
    ctx = cpu()
    evars = [eng.new_var() for _ in range(prog.nvars)]
    trace = Trace(vals=[[] for _ in range(prog.nvars)])
    helper_q: queue.SimpleQueue = queue.SimpleQueue()

    def helper() -> None:
        while True:
            job = helper_q.get()
            if job is None:
                return
            job()

    def make(fid: int, op: Op) -> Callable[..., Any]:
        touched = op.const | op.mutate

        def write() -> None:
            for m in op.mutate:
                trace.vals[m].append(fid)
            trace.tick(trace.end, fid)

        def sync_fn(rctx: engine.RunContext) -> None:
            trace.tick(trace.start, fid)
            trace.seen[fid] = _snapshot(trace.vals, touched)
            write()

        def async_fn(rctx: engine.RunContext, on_complete: Callable[..., None]) -> None:
            trace.tick(trace.start, fid)
            trace.seen[fid] = _snapshot(trace.vals, touched)
            if op.mode == "async_inline":
                write()
                on_complete()
            else:  # the writes happen on the helper, so the vars must stay held until then
                helper_q.put(lambda: (write(), on_complete()))

        return sync_fn if op.mode == "sync" else async_fn

    push_lock = threading.Lock()  # makes one global push order, recorded in trace.order
    barrier = threading.Barrier(prog.nthreads, timeout=TIMEOUT)

    def pusher(tid: int) -> None:
        try:
            barrier.wait()
            for fid, op in enumerate(prog.ops):
                if op.thread != tid:
                    continue
                const = [evars[v] for v in sorted(op.const)]
                mutate = [evars[v] for v in sorted(op.mutate)]
                if op.dup:
                    const, mutate = const + const, mutate + mutate
                fn = make(fid, op)
                with push_lock:
                    trace.order.append(fid)
                    if op.mode == "sync":
                        eng.push_sync(fn, ctx, const, mutate, name=f"op{fid}")
                    else:
                        eng.push_async(fn, ctx, const, mutate, name=f"op{fid}")
        except BaseException as exc:
            trace.errors.append(exc)

    ht = threading.Thread(target=helper, daemon=True)
    ht.start()
    threads = [
        threading.Thread(target=pusher, args=(t,), daemon=True) for t in range(prog.nthreads)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
        assert not t.is_alive(), "a pushing thread hung"
    call_with_timeout(eng.wait_for_all)
    helper_q.put(None)
    ht.join(TIMEOUT)
    assert not trace.errors, trace.errors
    return trace


def check_program(prog: Program, trace: Trace) -> None:
    """(a) conflicting functions never overlap and run in push order; (b) sequential results."""
    assert sorted(trace.order) == list(range(len(prog.ops)))
    assert len(trace.start) == len(trace.end) == len(prog.ops)
    # (a) per var, in push order: a writer starts after the last writer and every reader since
    # it ended; a reader starts after the last writer ended (transitivity covers the rest).
    for v in range(prog.nvars):
        last_writer: int | None = None
        readers: list[int] = []
        for fid in trace.order:
            op = prog.ops[fid]
            if v in op.mutate:
                for prev in [*readers, last_writer]:
                    if prev is not None:
                        assert trace.end[prev] < trace.start[fid], (v, prev, fid)
                last_writer, readers = fid, []
            elif v in op.const:
                if last_writer is not None:
                    assert trace.end[last_writer] < trace.start[fid], (v, last_writer, fid)
                readers.append(fid)
    # (b) replay in push order
    vals: list[list[int]] = [[] for _ in range(prog.nvars)]
    for fid in trace.order:
        op = prog.ops[fid]
        assert trace.seen[fid] == _snapshot(vals, op.const | op.mutate), fid
        for m in op.mutate:
            vals[m].append(fid)
    assert trace.vals == vals


# ---- the contract ---------------------------------------------------------------------------


class Boom(Exception):
    pass


class EngineContract:
    """Tests every engine kind must pass. Subclasses set ``kind``."""

    kind: str = ""
    runs_at_push = False  # NaiveEngine: a push runs the function before it returns

    @pytest.fixture
    def eng(self) -> Any:
        e = engine.create(self.kind)
        yield e
        call_with_timeout(e.shutdown)

    def test_kind(self, eng: engine.Engine) -> None:
        assert eng.kind == self.kind

    def test_random_programs_match_sequential(self) -> None:
        kind = self.kind  # the property is built per kind: hypothesis wants no shared `self`

        @given(prog=programs())
        @settings(
            max_examples=50,
            deadline=None,
            derandomize=True,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        def check(prog: Program) -> None:
            eng = engine.create(kind)
            try:
                trace = run_program(eng, prog)
            finally:
                call_with_timeout(eng.shutdown)
            check_program(prog, trace)

        check()

    def test_programs_inside_bulk_are_sequential(self, eng: engine.Engine) -> None:
        assert eng.set_bulk_size(16) == 0
        ops = [
            Op(i % 2, frozenset({i % 3}), frozenset({(i + 1) % 3}), MODES[i % 3], False)
            for i in range(60)
        ]
        prog = Program(3, 2, ops)
        check_program(prog, run_program(eng, prog))
        assert eng.set_bulk_size(0) == 16

    def test_set_bulk_size_rejects_negative(self, eng: engine.Engine) -> None:
        with pytest.raises(MXNetError, match="set_bulk_size.*size"):
            eng.set_bulk_size(-1)

    def test_wait_for_var_waits_for_writers(self, eng: engine.Engine) -> None:
        a = eng.new_var()
        done: list[int] = []
        for i in range(20):
            eng.push_sync(lambda rctx, i=i: done.append(i), cpu(), [], [a])
        call_with_timeout(eng.wait_for_var, a)
        assert done == list(range(20))

    def test_wait_for_var_of_unused_var_returns(self, eng: engine.Engine) -> None:
        call_with_timeout(eng.wait_for_var, eng.new_var())
        call_with_timeout(eng.wait_for_all)

    def test_run_context(self, eng: engine.Engine) -> None:
        got: list[Any] = []
        a = eng.new_var()
        eng.push_sync(lambda rctx: got.append((rctx.ctx, rctx.stream)), cpu(1), [], [a])
        call_with_timeout(eng.wait_for_var, a)
        assert got == [(cpu(1), None)]

    def test_push_from_inside_a_function(self, eng: engine.Engine) -> None:
        a, b = eng.new_var(), eng.new_var()
        out: list[str] = []

        def outer(rctx: engine.RunContext) -> None:
            out.append("outer")
            eng.push_sync(lambda r: out.append("inner"), cpu(), [a], [b])

        eng.push_sync(outer, cpu(), [], [a])
        call_with_timeout(eng.wait_for_var, a)
        call_with_timeout(eng.wait_for_var, b)
        assert out == ["outer", "inner"]

    # ---- operators and deletion ----

    def test_new_operator_pushed_many_times(self, eng: engine.Engine) -> None:
        a, b = eng.new_var(), eng.new_var()
        out: list[int] = []
        eng.push_sync(lambda rctx: out.append(-1), cpu(), [], [a])

        def fn(rctx: engine.RunContext, on_complete: Callable[..., None]) -> None:
            out.append(len(out))
            on_complete()

        opr = eng.new_operator(fn, [a], [b], name="counter")
        for _ in range(100):
            eng.push(opr, cpu())
        call_with_timeout(eng.wait_for_var, b)
        assert out == [-1, *range(1, 101)]
        eng.delete_operator(opr)
        with pytest.raises(MXNetError, match="push.*deleted"):
            eng.push(opr, cpu())

    def test_push_delete_runs_after_all_users(self, eng: engine.Engine) -> None:
        a = eng.new_var()
        gate, deleted = threading.Event(), threading.Event()
        log: list[str] = []
        if self.runs_at_push:
            gate.set()

        def user(rctx: engine.RunContext) -> None:
            log.append("user" if gate.wait(TIMEOUT) else "user timed out")

        eng.push_sync(user, cpu(), [a], [])
        eng.push_sync(lambda rctx: log.append("writer"), cpu(), [], [a])
        eng.push_delete(lambda rctx: (log.append("delete"), deleted.set()), cpu(), a)
        if not self.runs_at_push:
            assert not deleted.is_set()
            gate.set()
        call_with_timeout(eng.wait_for_all)
        assert log == ["user", "writer", "delete"]
        with pytest.raises(MXNetError, match="push_sync.*mutate_vars.*deleted"):
            eng.push_sync(lambda rctx: None, cpu(), [], [a])
        with pytest.raises(MXNetError, match="push_async.*const_vars.*deleted"):
            eng.push_async(lambda rctx, on_complete: on_complete(), cpu(), [a], [])
        with pytest.raises(MXNetError, match="push_delete.*already deleted"):
            eng.push_delete(lambda rctx: None, cpu(), a)

    def test_push_of_operator_on_deleted_var_raises(self, eng: engine.Engine) -> None:
        a = eng.new_var()
        opr = eng.new_operator(lambda rctx, on_complete: on_complete(), [a], [])
        eng.push_delete(lambda rctx: None, cpu(), a)
        with pytest.raises(MXNetError, match="push.*deleted"):
            eng.push(opr, cpu())
        call_with_timeout(eng.wait_for_all)

    # ---- failures ----

    def test_failure_raised_at_wait_for_var(self, eng: engine.Engine) -> None:
        a, b = eng.new_var(), eng.new_var()
        err = Boom("bad value")

        def boom(rctx: engine.RunContext) -> None:
            raise err

        eng.push_sync(boom, cpu(), [a], [b], name="boom_op")
        call_with_timeout(eng.wait_for_var, a)  # only read: carries no failure
        with pytest.raises(MXNetError, match="boom_op.*bad value") as info:
            call_with_timeout(eng.wait_for_var, b)
        assert info.value.__cause__ is err
        call_with_timeout(eng.wait_for_var, b)  # reported once
        call_with_timeout(eng.wait_for_all)

    def test_failure_skips_dependents(self, eng: engine.Engine) -> None:
        a, b, c, d = (eng.new_var() for _ in range(4))
        effects: list[str] = []

        def boom(rctx: engine.RunContext) -> None:
            raise Boom("first")

        eng.push_sync(boom, cpu(), [], [a], name="boom_op")
        eng.push_sync(lambda rctx: effects.append("reader"), cpu(), [a], [b], name="reader")
        eng.push_sync(lambda rctx: effects.append("writer"), cpu(), [], [a, c], name="writer")
        eng.push_async(
            lambda rctx, on_complete: (effects.append("async"), on_complete()), cpu(), [b], []
        )
        eng.push_sync(lambda rctx: effects.append("free"), cpu(), [], [d], name="free")
        with pytest.raises(MXNetError, match="boom_op") as info:
            call_with_timeout(eng.wait_for_var, b)  # b carries the failure through 'reader'
        assert isinstance(info.value.__cause__, Boom)
        call_with_timeout(eng.wait_for_var, c)  # the failure is reported once
        call_with_timeout(eng.wait_for_var, d)
        assert effects == ["free"]

    def test_wait_for_all_raises_once_then_engine_works(self, eng: engine.Engine) -> None:
        a = eng.new_var()

        def boom(rctx: engine.RunContext) -> None:
            raise Boom("in wait_for_all")

        eng.push_sync(boom, cpu(), [], [a], name="boom_all")
        with pytest.raises(MXNetError, match="boom_all") as info:
            call_with_timeout(eng.wait_for_all)
        assert isinstance(info.value.__cause__, Boom)
        call_with_timeout(eng.wait_for_all)
        call_with_timeout(eng.wait_for_var, a)
        out: list[int] = []
        for i in range(10):
            eng.push_sync(lambda rctx, i=i: out.append(i), cpu(), [a], [])
            eng.push_sync(lambda rctx, i=i: out.append(-i), cpu(), [], [a])
        call_with_timeout(eng.wait_for_all)
        assert sorted(out) == sorted([*range(10), *(-i for i in range(10))])

    def test_failure_of_function_without_vars(self, eng: engine.Engine) -> None:
        def boom(rctx: engine.RunContext) -> None:
            raise Boom("nowhere to go")

        eng.push_sync(boom, cpu(), name="lonely")
        with pytest.raises(MXNetError, match="lonely"):
            call_with_timeout(eng.wait_for_all)
        call_with_timeout(eng.wait_for_all)

    def test_on_complete_with_exception_from_another_thread(self, eng: engine.Engine) -> None:
        a = eng.new_var()
        err = KeyError("remote")

        def fn(rctx: engine.RunContext, on_complete: Callable[..., None]) -> None:
            threading.Thread(target=on_complete, args=(err,), daemon=True).start()

        eng.push_async(fn, cpu(), [], [a], name="remote_op")
        with pytest.raises(MXNetError, match="remote_op") as info:
            call_with_timeout(eng.wait_for_var, a)
        assert info.value.__cause__ is err

    def test_on_complete_twice_raises(self, eng: engine.Engine) -> None:
        a = eng.new_var()
        second: list[BaseException] = []

        def fn(rctx: engine.RunContext, on_complete: Callable[..., None]) -> None:
            on_complete()
            try:
                on_complete()
            except MXNetError as exc:
                second.append(exc)

        eng.push_async(fn, cpu(), [], [a], name="twice")
        call_with_timeout(eng.wait_for_all)
        assert len(second) == 1
        assert "twice" in str(second[0])

    @pytest.mark.parametrize("which", ["wait_for_var", "wait_for_all"])
    def test_wait_inside_a_function_raises(self, eng: engine.Engine, which: str) -> None:
        a, b = eng.new_var(), eng.new_var()

        def waiter(rctx: engine.RunContext) -> None:
            if which == "wait_for_var":
                eng.wait_for_var(a)
            else:
                eng.wait_for_all()

        eng.push_sync(waiter, cpu(), [], [b], name="waiter")
        with pytest.raises(MXNetError, match="waiter") as info:
            call_with_timeout(eng.wait_for_var, b)
        assert isinstance(info.value.__cause__, MXNetError)
        assert f"{which} was called from inside an engine function" in str(info.value.__cause__)

    # ---- bad arguments ----

    def test_bad_arguments(self, eng: engine.Engine) -> None:
        a = eng.new_var()
        noop = lambda rctx: None  # noqa: E731
        with pytest.raises(MXNetError, match="push_sync.*'const_vars'.*'a var'"):
            eng.push_sync(noop, cpu(), ["a var"], [])
        with pytest.raises(MXNetError, match="push_sync.*'mutate_vars'"):
            eng.push_sync(noop, cpu(), [a], [None])
        with pytest.raises(MXNetError, match="push_async.*'const_vars'"):
            eng.push_async(noop, cpu(), [1], [])
        with pytest.raises(MXNetError, match="new_operator.*'mutate_vars'"):
            eng.new_operator(noop, [], [object()])
        with pytest.raises(MXNetError, match="push.*'opr'.*new_operator"):
            eng.push(noop, cpu())
        with pytest.raises(MXNetError, match="delete_operator.*'opr'"):
            eng.delete_operator("opr")
        with pytest.raises(MXNetError, match="push_delete.*'var'"):
            eng.push_delete(noop, cpu(), "var")
        with pytest.raises(MXNetError, match="wait_for_var.*'var'"):
            eng.wait_for_var(42)
        call_with_timeout(eng.wait_for_all)  # nothing half-pushed is left behind

    # ---- profiling ----

    def test_profile_sink_sees_every_executed_function(self, eng: engine.Engine) -> None:
        records: list[tuple] = []
        lock = threading.Lock()

        def sink(*rec: Any) -> None:
            with lock:
                records.append(rec)

        eng.set_profile_sink(sink)
        a = eng.new_var()
        eng.push_sync(lambda rctx: None, cpu(), [], [a], name="p_sync")
        eng.push_async(lambda rctx, on_complete: on_complete(), cpu(), [a], [], name="p_async")

        def remote(rctx: engine.RunContext, on_complete: Callable[..., None]) -> None:
            threading.Thread(target=on_complete, daemon=True).start()

        eng.push_async(remote, cpu(), [], [a], name="p_remote")
        call_with_timeout(eng.wait_for_all)
        eng.set_profile_sink(None)
        eng.push_sync(lambda rctx: None, cpu(), [], [a], name="p_unseen")
        call_with_timeout(eng.wait_for_all)
        names = sorted(r[0] for r in records)
        assert names == ["p_async", "p_remote", "p_sync"]
        for name, ctx, tid, start_ns, end_ns in records:
            assert ctx == cpu(), name
            assert isinstance(tid, int)
            assert 0 < start_ns <= end_ns, name
