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
* ``version``: how many functions that mutate it have completed (each function of a bulk
  segment counts), so that a function holding the var reads the contents of one version and
  a cache of something derived from an array can key on ``(var, version)``.

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

Organisation: this file is the :class:`Engine` class, the public interface (push,
new_operator, wait, bulking, profiling hooks); the engine's state and the shared machinery
(granting vars, completing functions, failures) are its base class ``Tracker`` in
``tracking.py``. The objects it schedules (``Var``, ``Opr``, blocks) are in ``objects.py``,
failure records in ``failure.py``, bulk segments in ``segment.py``, and the worker pools in
``threaded.py`` / ``threaded_per_device.py``.

Example::

    eng = mx.engine.get()
    a, b = eng.new_var(), eng.new_var()
    eng.push_sync(lambda rctx: fill(x), cpu(), [], [a])        # writes a
    eng.push_sync(lambda rctx: copy(x, y), cpu(), [a], [b])   # runs after the write of a
    eng.wait_for_var(b)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..base import MXNetError
from ..context import Context
from .objects import (
    AsyncFn,
    Opr,
    ProfileSink,
    SyncFn,
    Var,
    _Block,
    _check_vars,
    _Locked,
    _normalize,
    _tls,
    in_engine_function,
)
from .tracking import Tracker

__all__ = ["Engine"]


class Engine(Tracker):
    """The engine interface (MXNet's ``Engine``), with the dependency tracking of the module note.

    Subclasses decide how a ready block runs, through ``_dispatch``.
    """

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
