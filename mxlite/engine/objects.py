"""The engine's objects: :class:`Var`, :class:`Opr`, :class:`RunContext`, the block that is one
push of an operator, and the lock discipline every engine kind follows (``_acquire_slow``).
The engine itself is in base.py."""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ..base import MXNetError, env_int
from ..context import Context

if TYPE_CHECKING:
    from .base import Engine
    from .failure import _Failure

__all__ = [
    "Var",
    "Opr",
    "RunContext",
    "SyncFn",
    "AsyncFn",
    "ProfileSink",
    "INLINE_BYTES",
    "small_enough_inline",
    "inline_limit",
    "inline_up_to",
    "in_engine_function",
]

# Functions whose arrays all fit in this many bytes may run on the caller (module note);
# MXLITE_ENGINE_INLINE_BYTES=0 sends every function to the workers. 256 KiB: d2l's RNN
# language model (arrays of 35x32x32 floats) spent a third of its step handing its functions
# to the workers with 16 KiB (4.5 -> 3.2 ms a step); LeNet and the MLP were unchanged or faster.
INLINE_BYTES = env_int("MXLITE_ENGINE_INLINE_BYTES", 1 << 18, 0)


def small_enough_inline(ctx: Context, *groups: Sequence[Any]) -> bool:
    """Whether a function on ``ctx`` that uses the arrays in ``groups`` (None entries are
    skipped) may be pushed ``inline``: a CPU context and every array within INLINE_BYTES (or
    the limit of an enclosing :func:`inline_up_to` on this thread)."""
    if ctx.device_typeid == 2:
        return False
    limit = _tls.__dict__.get("inline_bytes", INLINE_BYTES)
    for group in groups:
        for d in group:
            if d is not None and d.nbytes > limit:
                return False
    return True


def inline_limit() -> int:
    """The largest array (bytes) a function made on this thread may use and run ``inline``."""
    # (this thread's dict: getattr on a thread-local raises inside when the name is missing,
    # the common case here, at seven times the cost)
    return _tls.__dict__.get("inline_bytes", INLINE_BYTES)


@contextlib.contextmanager
def inline_up_to(nbytes: int) -> Iterator[None]:
    """Within the block, functions made on this thread may run on it when their arrays are
    at most ``nbytes``, instead of :data:`INLINE_BYTES`: for code that reads each result as
    soon as it is pushed (a numeric gradient check), where a worker adds only a round trip."""
    prev = getattr(_tls, "inline_bytes", None)
    _tls.inline_bytes = nbytes
    try:
        yield
    finally:
        if prev is None:
            del _tls.inline_bytes
        else:
            _tls.inline_bytes = prev


SyncFn = Callable[["RunContext"], Any]
AsyncFn = Callable[["RunContext", Callable[..., None]], Any]
# sink(name, ctx, thread_id, start_ns, end_ns), called once per executed function
ProfileSink = Callable[[str, Context, int, int, int], None]

# Per-thread flags: `in_engine` marks engine worker threads (and, in the naive engine, the
# caller while it runs a function), where waiting would deadlock.
_tls = threading.local()


def in_engine_function() -> bool:
    """Whether the calling thread is running an engine function now."""
    return getattr(_tls, "in_engine", False)


class Var:
    """A dependency token. Cheap to create; see the module note for the fields."""

    __slots__ = (
        "queue",
        "num_readers",
        "writing",
        "failure",
        "deleted",
        "deleter",
        "takes_failures",
        "name",
        "version",
        "__weakref__",
    )

    def __init__(self, name: str | None = None) -> None:
        self.queue: deque[tuple[_Block, bool]] = deque()
        self.num_readers = 0
        self.writing = False
        self.failure: _Failure | None = None
        self.deleted = False
        self.deleter: tuple[SyncFn, Context] | None = None  # push_delete's fn, run when idle
        # False for vars that guard a shared resource (an RNG, temp space): a failed function
        # must not poison every later user of the resource.
        self.takes_failures = True
        self.name = name
        # writes completed so far: a function holding read access sees the version of the
        # contents it reads (caches of values derived from an array key on it)
        self.version = 0

    def __repr__(self) -> str:
        state = "deleted" if self.deleted else ("failed" if self.failure else "ok")
        return f"<Var {self.name or hex(id(self))} {state}>"


class RunContext:
    """What a function learns at run time: its ``ctx`` and the device ``stream`` (None on CPU)."""

    __slots__ = ("ctx", "stream")

    def __init__(self, ctx: Context, stream: Any = None) -> None:
        self.ctx = ctx
        self.stream = stream

    def __repr__(self) -> str:
        return f"RunContext(ctx={self.ctx}, stream={self.stream!r})"


class Opr:
    """A function with its vars, created once by ``new_operator`` and pushed many times."""

    __slots__ = (
        "fn",
        "const_vars",
        "mutate_vars",
        "_name",
        "is_async",
        "deleted",
        "no_skip",
        "inline",
        "__weakref__",
    )

    def __init__(
        self,
        fn: Callable[..., Any],
        const_vars: tuple[Var, ...],
        mutate_vars: tuple[Var, ...],
        name: str | None,
        is_async: bool,
        no_skip: bool = False,
        inline: bool = False,
    ) -> None:
        self.fn = fn
        self.const_vars = const_vars
        self.mutate_vars = mutate_vars
        self._name = name
        self.is_async = is_async
        self.deleted = False
        self.no_skip = no_skip  # waits and deletes run even when their vars carry a failure
        self.inline = inline  # may run on the pushing thread when its vars are free

    @property
    def name(self) -> str:
        if self._name is None:
            self._name = getattr(self.fn, "__qualname__", None) or repr(self.fn)
        return self._name

    def __repr__(self) -> str:
        return f"<Opr {self.name}>"


class _Block:
    """One push of an :class:`Opr`: the vars it still waits on and where it runs.

    Async functions get the block itself as ``on_complete``.
    """

    __slots__ = ("opr", "ctx", "priority", "wait", "engine", "done", "start_ns")

    def __init__(self, engine: Engine, opr: Opr, ctx: Context, priority: int) -> None:
        self.engine = engine
        self.opr = opr
        self.ctx = ctx
        self.priority = priority
        self.wait = 0
        self.done = False
        self.start_ns = 0

    def __call__(self, exc: BaseException | None = None) -> None:
        self.engine._on_async_complete(self, exc)

    def __lt__(self, other: _Block) -> bool:  # ties in priority queues
        return id(self) < id(other)


def _acquire_slow(lock: Any) -> None:
    # Never block on the engine lock while holding the GIL: a thread that blocks gets the lock
    # while it still waits for the GIL, the holder of the GIL then blocks on the lock, and the
    # two threads fall into lock-step, a few futex calls per function (a lock convoy). Yielding
    # the GIL until the lock is free lets the holder finish its short critical section first.
    while not lock.acquire(False):
        time.sleep(0)


class _Locked:
    """``with _Locked(lock):`` takes the engine lock the way _acquire_slow explains (never
    blocking on it while holding the GIL). For the rarer paths; hot paths inline it."""

    __slots__ = ("lock",)

    def __init__(self, lock: Any) -> None:
        self.lock = lock

    def __enter__(self) -> None:
        if not self.lock.acquire(False):
            _acquire_slow(self.lock)

    def __exit__(self, *exc: Any) -> None:
        self.lock.release()


def _check_vars(where: str, vars_: Sequence[Var], arg: str) -> None:
    for v in vars_:
        if type(v) is not Var:
            raise MXNetError(f"{where}: argument '{arg}' must hold engine Vars, got {v!r}.")
        if v.deleted:
            raise MXNetError(
                f"{where}: {v!r} in '{arg}' was deleted by push_delete; no function may use it."
            )


def _normalize(const_vars: Sequence[Var], mutate_vars: Sequence[Var]) -> tuple[tuple, tuple]:
    """Drop duplicate mutate vars and const vars that are also mutated (they would deadlock)."""
    mutate = tuple(mutate_vars)
    if len(mutate) > 1 and len(set(mutate)) != len(mutate):
        mutate = tuple(dict.fromkeys(mutate))
    const = tuple(const_vars)
    if mutate and const:
        for v in const:
            if v in mutate:
                const = tuple(c for c in const if c not in mutate)
                break
    return const, mutate
