"""The dependency engine: execute functions following their dependencies.

A general scheduler that imports nothing of mxlite but Context (and the errors and settings of
``base``). ``get()`` returns the process-wide engine, of the kind named by
``MXNET_ENGINE_TYPE``: ``ThreadedEnginePerDevice`` (default), ``ThreadedEngine`` or
``NaiveEngine``.

After ``os.fork()`` the child gets a fresh engine of the same kind (the parent first lets its
pending work finish, so no var is left mid-write); at interpreter exit the engine runs what is
pending and stops its workers.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
from collections.abc import Iterator

from ..base import MXNetError, env_str
from . import openmp
from .base import Engine
from .naive import NaiveEngine
from .objects import (
    INLINE_BYTES,
    AsyncFn,
    Opr,
    ProfileSink,
    RunContext,
    SyncFn,
    Var,
    in_engine_function,
    inline_limit,
    inline_up_to,
    small_enough_inline,
)
from .threaded import ThreadedEngine
from .threaded_per_device import ThreadedEnginePerDevice

__all__ = [
    "Var",
    "Opr",
    "RunContext",
    "Engine",
    "NaiveEngine",
    "ThreadedEngine",
    "ThreadedEnginePerDevice",
    "SyncFn",
    "AsyncFn",
    "ProfileSink",
    "get",
    "create",
    "bulk",
    "set_bulk_size",
    "in_engine_function",
    "INLINE_BYTES",
    "small_enough_inline",
    "inline_limit",
    "inline_up_to",
]

KINDS: dict[str, type[Engine]] = {
    "NaiveEngine": NaiveEngine,
    "ThreadedEngine": ThreadedEngine,
    "ThreadedEnginePooled": ThreadedEngine,  # MXNet's name for the shared-pool engine
    "ThreadedEnginePerDevice": ThreadedEnginePerDevice,
}

_engine: Engine | None = None
# _engine_lock guards the creation and replacement of the process-wide _engine.
_engine_lock = threading.Lock()


def create(kind: str) -> Engine:
    """Return a new engine of ``kind`` (one of NaiveEngine, ThreadedEngine,
    ThreadedEnginePerDevice). Most code wants the shared one from :func:`get`."""
    cls = KINDS.get(kind)
    if cls is None:
        raise MXNetError(
            f"engine.create: argument 'kind' must be one of {', '.join(KINDS)}, got {kind!r}."
        )
    return cls()


def get() -> Engine:
    """Return the process-wide engine, creating it from ``MXNET_ENGINE_TYPE`` on first use."""
    eng = _engine
    if eng is None:
        eng = _create_default()
    return eng


def _create_default() -> Engine:
    global _engine
    with _engine_lock:
        if _engine is None:
            kind = env_str("MXNET_ENGINE_TYPE", "ThreadedEnginePerDevice", tuple(KINDS))
            _engine = KINDS[kind]()
            openmp.apply_blas_setting()
        return _engine


def set_bulk_size(size: int) -> int:
    """Set the number of consecutive operations the engine may run as one; return the previous
    size (``mx.engine.set_bulk_size`` of MXNet)."""
    return get().set_bulk_size(size)


@contextlib.contextmanager
def bulk(size: int) -> Iterator[None]:
    """Run the operations of the block in bulks of ``size`` (``with mx.engine.bulk(16):``)."""
    old = set_bulk_size(size)
    try:
        yield
    finally:
        set_bulk_size(old)


def _before_fork() -> None:
    eng = _engine
    if eng is not None and not in_engine_function():
        eng._quiesce()


def _after_fork_in_child() -> None:
    global _engine, _engine_lock
    _engine_lock = threading.Lock()
    old, _engine = _engine, None
    if old is not None:
        # the parent's worker threads do not exist here; start the same kind afresh
        _engine = type(old)()
        _engine.set_bulk_size(old._bulk_size)
        _engine.set_profile_sink(old._profile_sink, old._profile_namer)


def _shutdown_at_exit() -> None:
    eng = _engine
    if eng is not None:
        eng.shutdown()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)
atexit.register(_shutdown_at_exit)
