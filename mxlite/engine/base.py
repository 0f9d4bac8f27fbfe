"""The engine interface, and the dependency tracking shared by every engine kind.

Design note
-----------
The engine executes functions following their dependencies, declared as *vars*: tokens that
stand for whatever a function reads (``const_vars``) or writes (``mutate_vars``). The one rule:

    Two functions that share a var that either of them mutates run in push order;
    functions that only read a var may run together.

State kept per :class:`Var` (all guarded by the engine's one lock, ``Engine._lock``):

* ``num_readers``: functions now granted read access (running, or ready to run);
* ``writing``: a function now holds write access;
* ``queue``: functions still waiting on this var, in push order, each with its access kind.

A pushed function (a :class:`_Block`) counts the vars it still waits on. Each var grants access
in push order: a read is granted when no write is granted or queued before it; a write when
nothing else holds the var. When a function completes, each of its vars grants the next waiters
at the head of its queue; a function whose count reaches zero is ready and goes to a worker.

Invariant: when no write is granted, the head of ``queue`` (if any) is a write, so a newly
pushed read may be granted at once exactly when ``queue`` is empty and no write is granted.

Failures: an exception inside a function is stored on the vars it mutates (and in a list of
the engine's failures). Functions that later touch a failed var are skipped and pass the same
failure on. Waiting on a failed var, or for everything, raises :class:`MXNetError` chained to
the original exception and clears that failure, so the engine stays usable.

Small functions run on the caller. An operator marked ``inline`` (NDArray operators, executor
steps and gradient functions whose arrays are all at most :data:`INLINE_BYTES`, on a CPU) runs
at push, on the pushing thread, when none of its vars is busy; otherwise it is queued like any
other. Order and failures are the same as on a worker (the function is granted its vars,
executed and completed through the same code); only the thread differs. On tiny arrays NumPy
holds the GIL, so a worker cannot run such a function alongside the caller anyway, and the
hand-off to it costs more than the function (about 10 us against 1-3 us).

Organisation: this file is the :class:`Engine` class alone, one concern: the public interface
(push, new_operator, wait, bulking, profiling hooks), then the shared machinery (granting vars,
completing functions, failures). The objects it schedules (``Var``, ``Opr``, blocks) are in
``objects.py``, failure records in ``failure.py``, bulk segments in ``segment.py``, and the
worker pools in ``threaded.py`` / ``threaded_per_device.py``.

Example::

    eng = mx.engine.get()
    a, b = eng.new_var(), eng.new_var()
    eng.push_sync(lambda rctx: fill(x), cpu(), [], [a])        # writes a
    eng.push_sync(lambda rctx: copy(x, y), cpu(), [a], [b])   # runs after the write of a
    eng.wait_for_var(b)
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from ..base import MXNetError
from ..context import Context
from .failure import _Failure
from .objects import (
    AsyncFn,
    Opr,
    ProfileSink,
    RunContext,
    SyncFn,
    Var,
    _acquire_slow,
    _Block,
    _check_vars,
    _Locked,
    _normalize,
    _tls,
    in_engine_function,
)
from .segment import Segment

__all__ = ["Engine"]


class Engine:
    """The engine interface (MXNet's ``Engine``), with the dependency tracking of the module note.

    Subclasses decide how a ready block runs, through ``_dispatch``.
    """

    kind = "Engine"

    def __init__(self) -> None:
        # _lock guards every Var's fields, _pending, _failures and _live_failures. Functions
        # never run while it is held. Any thread that pushes, completes or waits takes it.
        self._lock = threading.Lock()
        self._pending = 0  # pushed blocks not yet completed
        self._idle: threading.Event | None = None  # set when _pending drops to 0
        self._failures: list[_Failure] = []
        self._live_failures = 0  # failures recorded and not yet raised; 0 skips the checks
        self._rctx: dict[Context, RunContext] = {}
        self._last_rctx = RunContext(None)  # type: ignore[arg-type]  # _run_if_free's cache
        self._profile_sink: ProfileSink | None = None
        self._profile_namer: Callable[[str], str] | None = None  # see set_profile_sink
        # push_delete may be called by a garbage-collector finalizer while this thread holds
        # _lock; such deletes wait here and are pushed at the next engine call.
        self._deferred_deletes: deque[tuple[SyncFn, Context, Var]] = deque()
        self._bulk_size = 0
        self._segment: Any = None  # functions collected for bulk execution (segment.py)
        self._stopped = False

    # ---- the public interface -------------------------------------------------------------

    def new_var(self, name: str | None = None) -> Var:
        """Return a new dependency token."""
        return Var(name)

    def push_sync(
        self,
        fn: SyncFn,
        ctx: Context,
        const_vars: Sequence[Var] = (),
        mutate_vars: Sequence[Var] = (),
        priority: int = 0,
        name: str | None = None,
        *,
        inline: bool = False,
    ) -> None:
        """Push ``fn(rctx)``; it is done when it returns. Returns at once (with ``inline``, a
        small function may have run already: see the module note)."""
        _check_vars("push_sync", const_vars, "const_vars")
        _check_vars("push_sync", mutate_vars, "mutate_vars")
        const, mutate = _normalize(const_vars, mutate_vars)
        if self._profile_namer is not None:
            name = self._profiled_name(fn, name)
        if inline and priority == 0 and self._run_if_free(fn, ctx, const, mutate, name):
            return
        opr = Opr(fn, const, mutate, name, False, False, inline)
        self._push_block(_Block(self, opr, ctx, priority))

    def push_sync_trusted(
        self,
        fn: SyncFn,
        ctx: Context,
        const_vars: list,
        mutate_vars: list,
        name: str,
        inline: bool = False,
    ) -> None:
        """``push_sync`` for callers that guarantee the vars are live Vars and that no var is
        both read and written (NDArray operators writing fresh outputs). Saves the checks."""
        if self._profile_namer is not None:
            name = self._profiled_name(fn, name)
        if inline and self._run_if_free(fn, ctx, const_vars, mutate_vars, name):
            return
        opr = Opr(fn, const_vars, mutate_vars, name, False, False, inline)
        self._push_block(_Block(self, opr, ctx, 0))

    def push_async(
        self,
        fn: AsyncFn,
        ctx: Context,
        const_vars: Sequence[Var] = (),
        mutate_vars: Sequence[Var] = (),
        priority: int = 0,
        name: str | None = None,
    ) -> None:
        """Push ``fn(rctx, on_complete)``; it is done when ``on_complete()`` is called.

        ``on_complete`` may be called from any thread; ``on_complete(exc)`` reports a failure.
        """
        _check_vars("push_async", const_vars, "const_vars")
        _check_vars("push_async", mutate_vars, "mutate_vars")
        const, mutate = _normalize(const_vars, mutate_vars)
        if self._profile_namer is not None:
            name = self._profiled_name(fn, name)
        self._push_block(_Block(self, Opr(fn, const, mutate, name, True), ctx, priority))

    def new_operator(
        self,
        fn: AsyncFn,
        const_vars: Sequence[Var] = (),
        mutate_vars: Sequence[Var] = (),
        name: str | None = None,
        *,
        inline: bool = False,
    ) -> Opr:
        """Create an operator, an async ``fn(rctx, on_complete)`` with its vars, to push often
        (``inline``: see the module note)."""
        _check_vars("new_operator", const_vars, "const_vars")
        _check_vars("new_operator", mutate_vars, "mutate_vars")
        const, mutate = _normalize(const_vars, mutate_vars)
        return Opr(fn, const, mutate, name, True, False, inline)

    def push(self, opr: Opr, ctx: Context, priority: int = 0) -> None:
        """Push an operator made by :meth:`new_operator`. Returns at once."""
        if type(opr) is not Opr:
            raise MXNetError(f"push: argument 'opr' must come from new_operator, got {opr!r}.")
        if opr.deleted:
            raise MXNetError(f"push: {opr!r} was deleted by delete_operator.")
        for v in opr.mutate_vars:
            if v.deleted:
                _check_vars("push", opr.mutate_vars, "opr.mutate_vars")
        for v in opr.const_vars:
            if v.deleted:
                _check_vars("push", opr.const_vars, "opr.const_vars")
        if (
            opr.inline
            and not opr.is_async
            and priority == 0
            and self._run_if_free(opr.fn, ctx, opr.const_vars, opr.mutate_vars, opr)
        ):
            return
        self._push_block(_Block(self, opr, ctx, priority))

    def delete_operator(self, opr: Opr) -> None:
        """Retire an operator; pushes already made still run, new pushes of it raise."""
        if type(opr) is not Opr:
            raise MXNetError(f"delete_operator: argument 'opr' must be an Opr, got {opr!r}.")
        opr.deleted = True

    def push_delete(self, fn: SyncFn, ctx: Context, var: Var) -> None:
        """Run ``fn(rctx)`` after every function pushed so far that uses ``var``; then ``var``
        is dead and pushing a function that uses it raises."""
        if type(var) is not Var:
            raise MXNetError(f"push_delete: argument 'var' must be an engine Var, got {var!r}.")
        if var.deleted:
            raise MXNetError(f"push_delete: {var!r} was already deleted.")
        var.deleted = True
        if self._lock_held_here():
            self._deferred_deletes.append((fn, ctx, var))
            return
        self._delete_when_idle(fn, ctx, var)

    def wait_for_var(self, var: Var) -> None:
        """Block until every function pushed so far that mutates ``var`` is done.

        Raises the failure of a function that wrote ``var``, as :class:`MXNetError`.
        """
        if in_engine_function():
            raise MXNetError(
                "wait_for_var was called from inside an engine function; that would deadlock. "
                "Declare the var in const_vars instead."
            )
        if type(var) is not Var:
            raise MXNetError(f"wait_for_var: argument 'var' must be an engine Var, got {var!r}.")
        self._flush_deferred()
        self._wait_var(var)
        with _Locked(self._lock):
            failure = var.failure
            var.failure = None
            if failure is None or failure.cleared:
                return
            failure.cleared = True
            self._live_failures -= 1
        failure.raise_error()

    def wait_for_all(self) -> None:
        """Block until every pushed function is done; raise the first unreported failure."""
        if in_engine_function():
            raise MXNetError(
                "wait_for_all was called from inside an engine function; that would deadlock."
            )
        self._flush_deferred()
        self._wait_all()
        with _Locked(self._lock):
            _tls.holds_engine_lock = self
            live = [f for f in self._failures if not f.cleared]
            self._failures.clear()
            self._live_failures = 0
            for f in live:
                f.cleared = True
            _tls.holds_engine_lock = None
        if live:
            live[0].raise_error()

    def set_bulk_size(self, size: int) -> int:
        """Set how many consecutive functions may be run as one; return the previous size."""
        if not isinstance(size, int) or size < 0:
            raise MXNetError(f"set_bulk_size: argument 'size' must be an int >= 0, got {size!r}.")
        self._flush_segment()
        old, self._bulk_size = self._bulk_size, size
        return old

    def set_profile_sink(
        self, sink: ProfileSink | None, namer: Callable[[str], str] | None = None
    ) -> None:
        """Call ``sink(name, ctx, thread_id, start_ns, end_ns)`` for every executed function.
        With ``namer``, a function pushed while the sink is installed is named ``namer(name)``
        (the profiler files the operators a custom operator launches under its type)."""
        self._profile_sink = sink
        self._profile_namer = namer if sink is not None else None

    def _profiled_name(self, fn: Callable[..., Any], name: str | None) -> str:
        """The name a function pushed now is profiled under (``set_profile_sink``'s namer;
        unnamed functions go by their qualified name, as :attr:`Opr.name` does)."""
        return self._profile_namer(name or getattr(fn, "__qualname__", None) or repr(fn))  # type: ignore[misc]

    def shutdown(self) -> None:
        """Run what is pending, then stop the workers. The engine is unusable afterwards."""
        self._quiesce()
        self._stopped = True

    # ---- shared machinery -------------------------------------------------------------------

    def run_context(self, ctx: Context) -> RunContext:
        rctx = self._rctx.get(ctx)
        if rctx is None:
            rctx = self._rctx.setdefault(ctx, RunContext(ctx, self._stream_for(ctx)))
        return rctx

    def _stream_for(self, ctx: Context) -> Any:
        return None  # GPU streams come with the GPU engine pools

    def _lock_held_here(self) -> bool:
        # A plain Lock does not know its owner; we record it while the tracking code holds it.
        return getattr(_tls, "holds_engine_lock", None) is self

    def _push_block(self, blk: _Block) -> None:
        opr = blk.opr
        if opr.inline:  # runs on the caller if its vars are free: nothing to gain from bulking
            if self._segment is not None:
                self._flush_segment()
            self._enqueue(blk)
            return
        if self._bulk_size > 1 and not opr.is_async and not opr.no_skip and blk.priority == 0:
            self._bulk(blk)
            return
        if self._segment is not None:
            self._flush_segment()
        self._enqueue(blk)

    def _bulk(self, blk: _Block) -> None:
        ready = []
        with _Locked(self._lock):
            _tls.holds_engine_lock = self  # allocations below may run GC finalizers
            try:
                seg = self._segment
                if seg is not None and seg.ctx != blk.ctx:
                    ready.append(seg)
                    seg = None
                if seg is None:
                    seg = self._segment = Segment(blk.ctx)
                seg.add(blk.opr)
                if len(seg) >= self._bulk_size:
                    ready.append(seg)
                    self._segment = None
            finally:
                _tls.holds_engine_lock = None
        for s in ready:
            self._enqueue(_Block(self, s.to_opr(), s.ctx, 0))

    def _flush_segment(self) -> None:
        """Push the functions collected for bulk execution, if any."""
        if self._segment is None:  # the common case: nothing collected, no lock taken
            return
        with _Locked(self._lock):
            seg, self._segment = self._segment, None
        if seg is not None:
            self._enqueue(_Block(self, seg.to_opr(), seg.ctx, 0))

    def _enqueue(self, blk: _Block) -> None:
        if self._stopped:
            raise MXNetError(f"{self.kind}: the engine was shut down; no more pushes.")
        opr = blk.opr
        wait = 0
        lock = self._lock
        if not lock.acquire(False):
            _acquire_slow(lock)
        try:
            _tls.holds_engine_lock = self
            self._pending += 1
            for v in opr.const_vars:
                if v.writing or v.queue:
                    v.queue.append((blk, False))
                    wait += 1
                else:
                    v.num_readers += 1
            for v in opr.mutate_vars:
                if v.writing or v.num_readers or v.queue:
                    v.queue.append((blk, True))
                    wait += 1
                else:
                    v.writing = True
            blk.wait = wait
        finally:
            _tls.holds_engine_lock = None
            lock.release()
        if wait == 0:
            if opr.inline:
                self._run_on_caller(blk)
            else:
                self._dispatch(blk)
        if self._deferred_deletes:
            self._flush_deferred()

    def _run_if_free(
        self, fn: SyncFn, ctx: Context, const: Sequence[Var], mutate: Sequence[Var], name: Any
    ) -> bool:  # name: a str, or the Opr whose name to report
        """The common case of an inline push, without the bookkeeping of a block: if nothing
        needs it (no bulk segment open, no unreported failure, no profiler) and every var is
        free, take the vars, run ``fn`` here and release them. Returns False, having done
        nothing, when the general path must be taken."""
        if self._segment is not None or self._live_failures or self._profile_sink is not None:
            return False
        lock = self._lock
        if not lock.acquire(False):
            _acquire_slow(lock)
        try:  # nothing below allocates, so no finalizer can run while the lock is held
            if self._stopped:
                return False
            for v in const:
                if v.writing or v.queue:
                    return False
            for v in mutate:
                if v.writing or v.num_readers or v.queue:
                    return False
            for v in const:
                v.num_readers += 1
            for v in mutate:
                v.writing = True
            self._pending += 1
        finally:
            lock.release()
        rctx = self._last_rctx
        if rctx.ctx is not ctx:
            rctx = self._last_rctx = self.run_context(ctx)
        tls = _tls
        outer = getattr(tls, "in_engine", False)
        tls.in_engine = True  # a wait from inside the function must raise, as on a worker
        try:
            fn(rctx)
        except BaseException as exc:
            # an operator's name is read after the run: a bulk segment names the step that
            # raised, as it does on a worker (so every engine kind reports the same name)
            if isinstance(name, Opr):
                name = name.name
            failure: _Failure | None = _Failure(name or "inline", ctx, exc)
        else:
            failure = None
        finally:
            tls.in_engine = outer
        if failure is None:
            if not lock.acquire(False):
                _acquire_slow(lock)
            try:
                # others may have queued behind the function meanwhile: then the general
                # completion below hands the vars on
                quiet = True
                for v in const:
                    if v.queue or v.deleter is not None:
                        quiet = False
                        break
                for v in mutate:
                    if v.queue or v.deleter is not None:
                        quiet = False
                        break
                if quiet:
                    for v in const:
                        v.num_readers -= 1
                    for v in mutate:
                        v.writing = False
                    self._one_done()
            finally:
                lock.release()
            if quiet:
                if self._deferred_deletes:
                    self._flush_deferred()
                return True
        blk = _Block(self, Opr(fn, tuple(const), tuple(mutate), name, False), ctx, 0)
        self._complete(blk, failure, None)
        if self._deferred_deletes:
            self._flush_deferred()
        return True

    def _one_done(self) -> None:
        """Count a pushed function as done; wake wait_for_all when none is left. Lock held."""
        self._pending -= 1
        if self._pending == 0 and self._idle is not None:
            self._idle.set()
            self._idle = None

    def _run_on_caller(self, blk: _Block) -> None:
        """Run a ready ``inline`` block on this thread, as a worker would."""
        outer = getattr(_tls, "in_engine", False)
        _tls.in_engine = True  # a wait from inside the function must raise, as on a worker
        try:
            result = self._execute(blk)
        finally:
            _tls.in_engine = outer
        if result is not False:  # an async function completes through its on_complete
            self._complete(blk, result, None)

    def _delete_when_idle(self, fn: SyncFn, ctx: Context, var: Var) -> None:
        # No function may be pushed on a deleted var, so once it is idle it stays idle: the
        # deleter runs now if nothing uses the var, else from the completion that frees it.
        # This costs no engine function per deleted array.
        self._flush_segment()  # a collected function may still use the var
        lock = self._lock
        if not lock.acquire(False):
            _acquire_slow(lock)
        try:
            idle = not (var.writing or var.num_readers or var.queue)
            if not idle:
                var.deleter = (fn, ctx)
        finally:
            lock.release()
        if idle:
            self._run_deleter(fn, ctx)

    def _run_deleter(self, fn: SyncFn, ctx: Context) -> None:
        try:
            fn(self.run_context(ctx))
        except BaseException as exc:
            with _Locked(self._lock):
                self._record_failure(_Failure(getattr(fn, "__qualname__", "delete"), ctx, exc))

    def _flush_deferred(self) -> None:
        while self._deferred_deletes:
            try:
                fn, ctx, var = self._deferred_deletes.popleft()
            except IndexError:
                return
            self._delete_when_idle(fn, ctx, var)

    def _dispatch(self, blk: _Block) -> None:
        raise NotImplementedError

    def _record_failure(self, failure: _Failure) -> None:
        """Keep ``failure`` for wait_for_all, once. Call with the lock held."""
        if not failure.recorded:
            failure.recorded = True
            self._failures.append(failure)
            self._live_failures += 1

    def _find_failure(self, opr: Opr) -> _Failure | None:
        for v in opr.const_vars:
            f = v.failure
            if f is not None and not f.cleared:
                return f
        for v in opr.mutate_vars:
            f = v.failure
            if f is not None and not f.cleared:
                return f
        return None

    def _execute(self, blk: _Block) -> _Failure | None | bool:
        """Run ``blk``'s function. Returns its failure (or None) if it is done, False if it is
        an async function still running."""
        opr = blk.opr
        if self._live_failures and not opr.no_skip:
            failure = self._find_failure(opr)
            if failure is not None:
                return failure  # skipped: the failure passes on to what it mutates
        rctx = self._rctx.get(blk.ctx) or self.run_context(blk.ctx)
        sink = self._profile_sink
        if sink is not None:
            blk.start_ns = time.perf_counter_ns()
        if opr.is_async:
            try:
                opr.fn(rctx, blk)
            except BaseException as exc:
                failure = _Failure(opr.name, blk.ctx, exc)
                if not blk.done:
                    return failure
                with _Locked(self._lock):  # raised after on_complete: no var to carry it
                    self._record_failure(failure)
            return False
        try:
            opr.fn(rctx)
        except BaseException as exc:
            failure: _Failure | None = _Failure(opr.name, blk.ctx, exc)
        else:
            failure = None
        if sink is not None:
            sink(opr.name, blk.ctx, threading.get_ident(), blk.start_ns, time.perf_counter_ns())
        return failure

    def _on_async_complete(self, blk: _Block, exc: BaseException | None) -> None:
        if blk.done:
            raise MXNetError(f"on_complete of {blk.opr!r} was called twice.")
        failure = None if exc is None else _Failure(blk.opr.name, blk.ctx, exc)
        sink = self._profile_sink
        if sink is not None:
            sink(blk.opr.name, blk.ctx, threading.get_ident(), blk.start_ns, time.perf_counter_ns())
        self._complete(blk, failure, None)

    def _complete(self, blk: _Block, failure: _Failure | None, inline_pool: Any) -> _Block | None:
        """Release ``blk``'s vars and dispatch what became ready. One ready block that would run
        in ``inline_pool`` is returned instead, for the calling worker to run next."""
        blk.done = True
        opr = blk.opr
        ready: list[_Block] | None = None
        deleters: list[tuple] | None = None
        lock = self._lock
        if not lock.acquire(False):
            _acquire_slow(lock)
        try:
            _tls.holds_engine_lock = self
            if failure is not None:
                self._record_failure(failure)
                for v in opr.mutate_vars:
                    if v.takes_failures and (v.failure is None or v.failure.cleared):
                        v.failure = failure
            for v in opr.const_vars:
                v.num_readers -= 1
                if v.num_readers == 0 and v.queue:
                    nxt = v.queue.popleft()[0]  # the head is a write (module invariant)
                    v.writing = True
                    nxt.wait -= 1
                    if nxt.wait == 0:
                        if ready is None:
                            ready = [nxt]
                        else:
                            ready.append(nxt)
                elif v.deleter is not None and v.num_readers == 0:
                    deleters = [v.deleter] if deleters is None else [*deleters, v.deleter]
                    v.deleter = None
            for v in opr.mutate_vars:
                v.writing = False
                q = v.queue
                while q:
                    nxt, is_write = q[0]
                    if is_write:
                        if v.num_readers:
                            break
                        v.writing = True
                    else:
                        v.num_readers += 1
                    q.popleft()
                    nxt.wait -= 1
                    if nxt.wait == 0:
                        if ready is None:
                            ready = [nxt]
                        else:
                            ready.append(nxt)
                    if is_write:
                        break
                if v.deleter is not None and not (v.writing or v.num_readers or q):
                    deleters = [v.deleter] if deleters is None else [*deleters, v.deleter]
                    v.deleter = None
            if deleters is None:  # else it stays pending until its deleters have run
                self._one_done()
        finally:
            _tls.holds_engine_lock = None
            lock.release()
        if deleters is not None:
            for fn, ctx in deleters:
                self._run_deleter(fn, ctx)
            with _Locked(self._lock):
                self._one_done()
        if ready is None:
            return None
        inline = None
        for nxt in ready:
            if inline is None and inline_pool is not None and self._pool_of(nxt) is inline_pool:
                inline = nxt
            else:
                self._dispatch(nxt)
        return inline

    def _pool_of(self, blk: _Block) -> Any:
        return None

    def _wait_var(self, var: Var) -> None:
        self._flush_segment()
        with _Locked(self._lock):
            if not var.writing and not var.queue:
                return
        done = threading.Event()
        opr = Opr(lambda rctx: done.set(), (var,), (), "wait_for_var", False, no_skip=True)
        self._push_block(_Block(self, opr, _WAIT_CTX, 0))
        done.wait()

    def _wait_all(self) -> None:
        self._flush_segment()
        with _Locked(self._lock):
            if not self._pending:
                return
            if self._idle is None:
                self._idle = threading.Event()
            idle = self._idle
        idle.wait()

    def _quiesce(self) -> None:
        """Wait for everything pending, without raising failures (shutdown, fork)."""
        if not in_engine_function():
            self._flush_deferred()
            self._wait_all()


_WAIT_CTX = Context("cpu", 0)
