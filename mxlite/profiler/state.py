"""The profiler's state: its configuration, the records it keeps, and the engine's sink.

One process-wide :class:`Profiler` (``PROFILER``) keeps every record. The engine calls its sink,
:meth:`Profiler.on_engine_function`, once for every function it executes; the Python objects of
``objects.py`` call :meth:`Profiler.record`. The sink is installed on the engine only while
engine functions are to be recorded, so a stopped profiler costs the engine nothing. Records go
to a ``deque`` (its ``append`` is atomic, so the engine's workers never take the profiler's
lock); a dump moves them into the trace (``trace.py``) and the statistics (``stats.py``).
"""

from __future__ import annotations

import json
import os
import threading
import warnings
from collections import deque
from dataclasses import dataclass, fields
from typing import Any

from .. import engine as _engine
from ..base import MXNetError, ParamError, env_int
from ..context import Context
from .naming import display_name
from .stats import Stats, add_record, format_stats
from .trace import FIRST_CATEGORY_PID, Record, device_name, device_pid, trace_events, write_trace

_PROCESSES = ("worker", "server")
# operators MXNet uses only to synchronise and leaves out of profiles
_UNPROFILED_OPS = frozenset({"CustomOperatorWait", "Custom", "_backward_Custom"})
_CUSTOM_CATEGORY = "Custom Operator"


@dataclass(frozen=True)
class Config:
    """The settings of :func:`set_config`, with MXNet's defaults."""

    profile_all: bool = False
    profile_symbolic: bool = True
    profile_imperative: bool = True
    profile_memory: bool = True
    profile_api: bool = True
    filename: str = "profile.json"
    continuous_dump: bool = True
    dump_period: float = 1.0
    aggregate_stats: bool = False
    profile_process: str = "worker"

    @property
    def records_operators(self) -> bool:
        """Whether engine functions are recorded (symbolic and imperative ops both run there)."""
        return self.profile_all or self.profile_symbolic or self.profile_imperative


CONFIG_KEYS = tuple(f.name for f in fields(Config))
_TRUE = ("1", "true")
_FALSE = ("0", "false")


def parse_value(func: str, key: str, value: Any) -> Any:
    """Parse one keyword of set_config from a Python value or MXNet's string form."""
    kind = type(getattr(Config(), key))
    if kind is bool:
        if isinstance(value, (bool, int)) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
            return value.strip().lower() in _TRUE
        raise ParamError(f"{func}: argument {key!r} must be a boolean, got {value!r}.")
    if kind is float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ParamError(f"{func}: argument {key!r} must be a number, got {value!r}.") from None
        if not number > 0:
            raise ParamError(f"{func}: argument {key!r} must be > 0 seconds, got {value!r}.")
        return number
    if key == "profile_process":
        return check_process(func, value)
    if not isinstance(value, (str, os.PathLike)) or not os.fspath(value):
        raise ParamError(f"{func}: argument {key!r} must be a non-empty path, got {value!r}.")
    return os.fspath(value)


def check_process(func: str, value: Any) -> str:
    """``value`` if it is 'worker' or 'server'; ParamError naming ``func`` otherwise."""
    if value not in _PROCESSES:
        raise ParamError(
            f"{func}: argument 'profile_process' must be 'worker' or 'server', got {value!r}."
        )
    return value


class _DumpTimer(threading.Thread):
    """Calls ``callback`` every ``period`` seconds until cancelled (continuous_dump)."""

    def __init__(self, period: float, callback: Any) -> None:
        super().__init__(name="DumpProfileTimer", daemon=True)
        self._period = period
        self._callback = callback
        self._cancelled = threading.Event()

    def run(self) -> None:
        while not self._cancelled.wait(self._period):
            self._callback()

    def cancel(self) -> None:
        self._cancelled.set()


class Profiler:
    """The process-wide profiler behind the module functions; see the module note."""

    def __init__(self) -> None:
        # _lock guards every field below but _pending and _active; the API functions, the dump
        # timer and the exit hook hold it, never the engine's workers.
        self._lock = threading.Lock()
        mode = env_int("MXNET_PROFILER_MODE", 1 | 4 | 8, minimum=0)  # symbolic, api, memory
        self._config = Config(
            profile_symbolic=bool(mode & 1),
            profile_imperative=bool(mode & 2),
            profile_api=bool(mode & 4),
            profile_memory=bool(mode & 8),
            continuous_dump=False,
        )
        self._state = "stop"
        self._paused = False
        self._enable_output = False
        # Read without the lock by the engine's sink and the Python objects: state 'run' and not
        # paused. A stale read records or drops at most what races with set_state/pause.
        self._active = False
        self._pending: deque[Record] = deque()
        # trace events as (pid, tid, json): those in the file being written (continuous_dump),
        # and those flushed since its last write
        self._written: list[tuple[int, int, str]] = []
        self._unwritten: list[tuple[int, int, str]] = []
        self._labels: dict[tuple[int, int], str] = {}  # names of (pid, -1) and of (pid, tid)
        self._category_pids: dict[str, int] = {}
        self._stats: Stats | None = None
        self._timer: _DumpTimer | None = None

    # -- recording ------------------------------------------------------------------------

    def on_engine_function(
        self, name: str, ctx: Context, thread_id: int, start_ns: int, end_ns: int
    ) -> None:
        """The engine's profile sink; runs on the engine's worker threads."""
        if self._active and name not in _UNPROFILED_OPS:
            cat = _CUSTOM_CATEGORY if "::" in name else "operator"
            self._pending.append(Record("op", name, cat, ctx, thread_id, start_ns, end_ns))

    def record(
        self, kind: str, name: str, cat: str, start_ns: int, end_ns: int, value: Any = None
    ) -> None:
        """Record a Python object's interval, or its instant when ``start_ns == end_ns``."""
        if self._active:
            tid = threading.get_ident()
            self._pending.append(Record(kind, name, cat, None, tid, start_ns, end_ns, value))

    def profiles_imperative(self) -> bool:
        """Whether imperative operators are being recorded now (read without the lock)."""
        config = self._config
        return self._active and (config.profile_all or config.profile_imperative)

    def _update_sink(self) -> None:
        """Install the sink on the engine exactly while engine functions are to be recorded."""
        self._active = self._state == "run" and not self._paused
        on = self._active and self._config.records_operators
        # functions pushed from a custom operator's Python code are named after its type
        _engine.get().set_profile_sink(self.on_engine_function if on else None, display_name)

    # -- control --------------------------------------------------------------------------

    def configure(self, config: Config) -> None:
        with self._lock:
            self._config = config
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if config.continuous_dump:
                self._timer = _DumpTimer(config.dump_period, self.periodic_dump)
                self._timer.start()
            if not config.aggregate_stats:
                self._stats = None
            elif self._stats is None:
                self._stats = {}
            self._written = []  # a new configuration starts a new file; MXNet removes the old
            try:
                os.remove(config.filename)
            except (FileNotFoundError, IsADirectoryError, PermissionError):
                pass
            self._update_sink()

    def set_state(self, state: str) -> None:
        with self._lock:
            self._state = state
            self._paused = state != "run"
            if state == "run":
                self._enable_output = True
            self._update_sink()

    def set_paused(self, paused: bool) -> None:
        with self._lock:
            self._paused = paused
            self._update_sink()

    # -- output ---------------------------------------------------------------------------

    def dump(self, finished: bool) -> None:
        with self._lock:
            if not self._enable_output:
                raise MXNetError(
                    "dump: the profiler has not been run since its last output; call "
                    "set_config(...) and set_state('run') first."
                )
            if finished and self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._write_locked(finished)

    def periodic_dump(self) -> None:
        with self._lock:
            if self._enable_output and self._timer is not None:
                try:
                    self._write_locked(False)
                except OSError as exc:
                    warnings.warn(f"profiler: continuous dump failed: {exc}", stacklevel=1)

    def dump_at_exit(self) -> None:
        """Write what is left at interpreter exit, as MXNet's profiler does when destroyed."""
        if not self._enable_output:
            return
        try:
            _engine.get().wait_for_all()  # record what is still running
        except MXNetError:
            pass  # a failed function was the user's to see; the profile is still wanted
        with self._lock:
            if self._enable_output:
                try:
                    self._write_locked(True)
                except OSError:
                    pass  # nothing to report to at exit

    def after_fork_in_child(self) -> None:
        """The child has no dump timer, and _lock may have been held by another thread."""
        self._lock = threading.Lock()
        self._timer = None

    def _write_locked(self, finished: bool) -> None:
        self._flush_locked()
        events = self._written + self._unwritten
        write_trace(self._config.filename, events, self._labels)
        last = finished or not self._config.continuous_dump
        self._written = [] if last else events
        self._unwritten = []
        self._enable_output = not last

    def _flush_locked(self) -> None:
        """Move the pending records into the trace and the aggregate statistics."""
        records = []
        while self._pending:
            records.append(self._pending.popleft())
        if not records:
            return
        thread_names: dict[int, str] | None = None
        for rec in records:
            pid = self._pid(rec)
            if (pid, -1) not in self._labels:
                label = device_name(rec.ctx) if rec.ctx is not None else rec.cat
                self._labels[pid, -1] = label
            if (pid, rec.tid) not in self._labels:
                if thread_names is None:
                    thread_names = {t.ident: t.name for t in threading.enumerate() if t.ident}
                self._labels[pid, rec.tid] = thread_names.get(rec.tid, f"thread {rec.tid}")
            self._unwritten.extend((pid, rec.tid, json.dumps(ev)) for ev in trace_events(rec, pid))
            if self._stats is not None:
                add_record(self._stats, rec)

    def _pid(self, rec: Record) -> int:
        if rec.ctx is not None:
            return device_pid(rec.ctx)
        pid = self._category_pids.get(rec.cat)
        if pid is None:
            pid = self._category_pids[rec.cat] = FIRST_CATEGORY_PID + len(self._category_pids)
        return pid

    def dumps(self, reset: bool, fmt: str, sort_by: str, ascending: bool) -> str:
        with self._lock:
            self._flush_locked()
            if self._stats is None:
                return ""
            text = format_stats(self._stats, fmt, sort_by, ascending)
            if reset:
                self._stats.clear()
            return text


PROFILER = Profiler()
