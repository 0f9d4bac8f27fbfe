"""The dependency tracking shared by every engine kind: granting vars in push order, running
small functions on the caller, completing functions, bulk segments, deletes and failures (the
rules are in the design note of ``engine/base.py``).

:class:`Tracker` holds the engine's state and this machinery; :class:`~.base.Engine` adds the
public interface on top of it, and the engine kinds decide through ``_dispatch`` how a ready
block runs.
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
    Opr,
    ProfileSink,
    RunContext,
    SyncFn,
    Var,
    _acquire_slow,
    _Block,
    _Locked,
    _tls,
    in_engine_function,
)
from .segment import Segment

__all__ = ["Tracker"]


class Tracker:
    """The engine's state (see ``__init__``) and the dependency tracking that works on it."""

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
        # _run_if_free's cache: the last context object it saw and its run context (whose
        # ctx may be another, equal object: programs make many equal Contexts, and a dict
        # lookup of one costs two Python calls, __hash__ and __eq__); one tuple, so that
        # threads pushing at once never pair one's context with another's run context
        self._last_rctx: tuple[Context | None, RunContext | None] = (None, None)
        self._profile_sink: ProfileSink | None = None
        self._profile_namer: Callable[[str], str] | None = None  # see set_profile_sink
        # push_delete may be called by a garbage-collector finalizer while this thread holds
        # _lock; such deletes wait here and are pushed at the next engine call.
        self._deferred_deletes: deque[tuple[SyncFn, Context, Var]] = deque()
        self._bulk_size = 0
        self._segment: Any = None  # functions collected for bulk execution (segment.py)
        self._stopped = False

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
        last_ctx, rctx = self._last_rctx
        if last_ctx is not ctx:
            rctx = self.run_context(ctx)
            self._last_rctx = (ctx, rctx)
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
                        v.version += 1
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
                v.version += 1
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
