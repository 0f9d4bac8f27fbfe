"""NaiveEngine: runs every function at push, on the pushing thread. For debugging.

It keeps the engine's contract (failures are stored on vars and raised at the next wait) so
that a program behaves the same under every engine kind, only without concurrency.
``MXNET_ENGINE_TYPE=NaiveEngine`` is the first thing to try when an asynchronous bug hides.
An async function may call ``on_complete`` from another thread; the push then waits for it.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from ..base import MXNetError
from .base import Engine
from .failure import _Failure
from .objects import Var, _Block, _tls


class NaiveEngine(Engine):
    """Execute each pushed function immediately, in the caller's thread."""

    kind = "NaiveEngine"

    def _push_block(self, blk: _Block) -> None:
        if self._stopped:
            raise MXNetError("NaiveEngine: the engine was shut down; no more pushes.")
        done = None
        if blk.opr.is_async:
            done = threading.Lock()  # released by on_complete; cheaper than an Event
            done.acquire()
            blk.engine = _CompletionRelay(self, done)
        outer = getattr(_tls, "in_engine", False)
        _tls.in_engine = True
        try:
            result = self._execute(blk)
        finally:
            _tls.in_engine = outer
        if result is False:  # async: its on_complete finishes it, here or on another thread
            done.acquire()
        else:
            self._finish(blk, result)

    def _finish(self, blk: _Block, failure: _Failure | None) -> None:
        if blk.done:
            raise MXNetError(f"on_complete of {blk.opr!r} was called twice.")
        blk.done = True
        for v in blk.opr.mutate_vars:
            v.version += 1
        if failure is not None:
            with self._lock:
                self._record_failure(failure)
                for v in blk.opr.mutate_vars:
                    if v.takes_failures and (v.failure is None or v.failure.cleared):
                        v.failure = failure

    def _run_if_free(self, *args: Any) -> bool:
        return False  # _push_block runs every function at once already

    def _wait_var(self, var: Var) -> None:
        return None  # every push has finished before it returned

    def _wait_all(self) -> None:
        return None

    def _dispatch(self, blk: _Block) -> None:
        raise AssertionError("NaiveEngine queues nothing")


class _CompletionRelay:
    """Stands in for the engine on an async block: finishes it and wakes the pushing thread."""

    __slots__ = ("_engine", "_done")

    def __init__(self, engine: NaiveEngine, done: threading.Lock) -> None:
        self._engine = engine
        self._done = done

    def _on_async_complete(self, blk: _Block, exc: BaseException | None) -> None:
        if blk.done:  # the pushing thread was released by the first call
            raise MXNetError(f"on_complete of {blk.opr!r} was called twice.")
        sink = self._engine._profile_sink
        if sink is not None:
            sink(blk.opr.name, blk.ctx, threading.get_ident(), blk.start_ns, time.perf_counter_ns())
        try:
            self._engine._finish(blk, None if exc is None else _Failure(blk.opr.name, blk.ctx, exc))
        finally:
            self._done.release()
