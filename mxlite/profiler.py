"""The profiler: ``mx.profiler`` of MXNet 1.9.1, fed by the engine's profiling hook.

Design note
-----------
One process-wide :class:`_Profiler` keeps every record. Records come from two sources:

* the engine, which calls the profiler's sink once for every function it executes, with the
  function's name, context, thread and start/end times (``time.perf_counter_ns``);
* the Python objects :class:`Task`, :class:`Frame`, :class:`Event`, :class:`Counter` and
  :class:`Marker`, which take their times from the same clock.

Recording is on while the state is ``'run'`` and the profiler is not paused. Only then is the
sink installed on the engine, so a stopped profiler costs the engine nothing. Records go to a
``deque`` (its ``append`` is atomic, so the engine's workers never take the profiler's lock).
:func:`dump` and :func:`dumps` move the pending records into the trace of the file being written
and, with ``aggregate_stats=True``, into per-category statistics keyed by the record's name;
an engine function counts under category ``'operator'`` (``'Custom Operator'`` when its name
has ``'::'``), as in MXNet.

As in MXNet, :func:`dump` fails until ``set_state('run')`` has been called; with
``continuous_dump=False`` each dump writes the records since the last one and ends the output
(run again to dump again); with ``continuous_dump=True`` (MXNet's default) every dump, and a
timer every ``dump_period`` seconds, rewrites the file with everything since it was started,
until ``dump(finished=True)``. Unlike MXNet, each write is a complete Chrome trace, written to a
temporary file and renamed, so the file is valid JSON at every moment; and :func:`dumps` never
writes the file.

Example::

    profiler.set_config(filename='trace.json', aggregate_stats=True, continuous_dump=False)
    profiler.set_state('run')
    ...                                    # work pushed to the engine is recorded
    profiler.set_state('stop')
    print(profiler.dumps())                # table of count/total/min/max/avg per name
    profiler.dump()                        # chrome://tracing or https://ui.perfetto.dev
"""

from __future__ import annotations

import atexit
import json
import os
import struct
import tempfile
import threading
import time
import warnings
from collections import deque
from dataclasses import dataclass, fields, replace
from typing import Any, NamedTuple

from . import engine as _engine
from .base import MXNetError, ParamError, env_bool, env_int
from .context import Context

__all__ = [
    "set_config",
    "profiler_set_config",
    "set_state",
    "profiler_set_state",
    "dump",
    "dump_profile",
    "dumps",
    "pause",
    "resume",
    "set_kvstore_handle",
    "Domain",
    "Task",
    "Frame",
    "Event",
    "Counter",
    "Marker",
]

# The kvstore that profiles its servers when profile_process='server' (set by kvstore.create).
profiler_kvstore_handle: Any = None

_PROCESSES = ("worker", "server")
_STATES = ("stop", "run")
_FORMATS = ("table", "json")
_SORT_BY = ("total", "avg", "min", "max", "count")
# marker scope -> chrome's "s" of an instant event; chrome has no task or marker scope
_MARKER_SCOPES = {"global": "g", "process": "p", "thread": "t", "task": "p", "marker": "p"}
# operators MXNet uses only to synchronise and leaves out of profiles
_UNPROFILED_OPS = frozenset({"CustomOperatorWait", "Custom", "_backward_Custom"})
_CUSTOM_CATEGORY = "Custom Operator"
# MXNet gives each device its pid: cpu i -> i, gpu i -> ncpu + i, then pinned, then shared,
# with room for 32 gpus; categories of the Python objects get the pids after those.
_NCPU = os.cpu_count() or 64
_MAX_GPUS = 32


def set_kvstore_handle(handle: Any) -> None:
    """Set the kvstore whose servers ``profile_process='server'`` commands go to."""
    global profiler_kvstore_handle
    profiler_kvstore_handle = handle


@dataclass(frozen=True)
class _Config:
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


_CONFIG_KEYS = tuple(f.name for f in fields(_Config))
_TRUE = ("1", "true")
_FALSE = ("0", "false")


def _parse_value(func: str, key: str, value: Any) -> Any:
    """Parse one keyword of set_config from a Python value or MXNet's string form."""
    kind = type(getattr(_Config(), key))
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
        return _check_process(func, value)
    if not isinstance(value, (str, os.PathLike)) or not os.fspath(value):
        raise ParamError(f"{func}: argument {key!r} must be a non-empty path, got {value!r}.")
    return os.fspath(value)


def _check_process(func: str, value: Any) -> str:
    if value not in _PROCESSES:
        raise ParamError(
            f"{func}: argument 'profile_process' must be 'worker' or 'server', got {value!r}."
        )
    return value


def _to_server(func: str, command: str, body: str) -> None:
    """Send a profiler command to the kvstore servers (profile_process='server')."""
    send = getattr(profiler_kvstore_handle, "set_server_profiler_command", None)
    if send is None:
        raise MXNetError(
            f"{func}: profile_process='server' needs a distributed kvstore; create one with "
            f"mx.kv.create('dist_...') first, or use profile_process='worker'."
        )
    send(command, body)


class _Record(NamedTuple):
    """One thing recorded. ``end_ns == start_ns`` for counters and markers."""

    kind: str  # "op", "task", "frame", "event", "counter" or "marker"
    name: str
    cat: str
    ctx: Context | None  # the device of an engine function; None for the Python objects
    tid: int
    start_ns: int
    end_ns: int
    value: Any = None  # a counter's value; a marker's chrome scope


@dataclass
class _Stat:
    """Aggregate of one name, in MXNet's raw units: microseconds, or a counter's values."""

    kind: str  # "duration", "counter" or "other" (markers: listed, never shown)
    count: int = 0
    total: float = 0.0  # summed durations; a counter's last value
    min: float = float("inf")
    max: float = 0.0

    def add(self, rec: _Record) -> None:
        if self.kind == "other":
            return
        value = rec.value if self.kind == "counter" else (rec.end_ns - rec.start_ns) / 1000.0
        self.count += 1
        self.total = value if self.kind == "counter" else self.total + value
        self.min = min(self.min, value)
        self.max = max(self.max, value)

    @property
    def avg(self) -> float:
        if self.kind == "counter":
            return (self.max - self.min) // 2  # what MXNet shows for a counter
        return self.total / self.count if self.count else 0.0

    def key(self, sort_by: str) -> float:
        if self.kind == "other":
            return 0.0
        return {"total": self.total, "avg": self.avg, "min": self.min, "max": self.max}.get(
            sort_by, self.count
        )


_STAT_KIND = {"counter": "counter", "marker": "other"}


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


class _Profiler:
    """The process-wide profiler behind the module functions; see the module note."""

    def __init__(self) -> None:
        # _lock guards every field below but _pending and _active; the API functions, the dump
        # timer and the exit hook hold it, never the engine's workers.
        self._lock = threading.Lock()
        mode = env_int("MXNET_PROFILER_MODE", 1 | 4 | 8, minimum=0)  # symbolic, api, memory
        self._config = _Config(
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
        self._pending: deque[_Record] = deque()
        # trace events as (pid, tid, json): those in the file being written (continuous_dump),
        # and those flushed since its last write
        self._written: list[tuple[int, int, str]] = []
        self._unwritten: list[tuple[int, int, str]] = []
        self._labels: dict[tuple[int, int], str] = {}  # names of (pid, -1) and of (pid, tid)
        self._category_pids: dict[str, int] = {}
        self._stats: dict[str, dict[str, _Stat]] | None = None
        self._timer: _DumpTimer | None = None

    # -- recording ------------------------------------------------------------------------

    def on_engine_function(
        self, name: str, ctx: Context, thread_id: int, start_ns: int, end_ns: int
    ) -> None:
        """The engine's profile sink; runs on the engine's worker threads."""
        if self._active and name not in _UNPROFILED_OPS:
            cat = _CUSTOM_CATEGORY if "::" in name else "operator"
            self._pending.append(_Record("op", name, cat, ctx, thread_id, start_ns, end_ns))

    def record(
        self, kind: str, name: str, cat: str, start_ns: int, end_ns: int, value: Any = None
    ) -> None:
        """Record a Python object's interval, or its instant when ``start_ns == end_ns``."""
        if self._active:
            tid = threading.get_ident()
            self._pending.append(_Record(kind, name, cat, None, tid, start_ns, end_ns, value))

    def _update_sink(self) -> None:
        """Install the sink on the engine exactly while engine functions are to be recorded."""
        self._active = self._state == "run" and not self._paused
        on = self._active and self._config.records_operators
        _engine.get().set_profile_sink(self.on_engine_function if on else None)

    # -- control --------------------------------------------------------------------------

    def configure(self, config: _Config) -> None:
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
        named = {(pid, -1) for pid, _, _ in events} | {(pid, tid) for pid, tid, _ in events}
        lines = [_metadata(pid, tid, self._labels[pid, tid]) for pid, tid in sorted(named)]
        lines += [text for _, _, text in events]
        body = ",\n".join(lines)
        text = f'{{\n    "traceEvents": [\n{body}\n    ],\n    "displayTimeUnit": "ms"\n}}\n'
        _write_atomically(self._config.filename, text)
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
                label = _device_name(rec.ctx) if rec.ctx is not None else rec.cat
                self._labels[pid, -1] = label
            if (pid, rec.tid) not in self._labels:
                if thread_names is None:
                    thread_names = {t.ident: t.name for t in threading.enumerate() if t.ident}
                self._labels[pid, rec.tid] = thread_names.get(rec.tid, f"thread {rec.tid}")
            self._unwritten.extend((pid, rec.tid, json.dumps(ev)) for ev in _trace_events(rec, pid))
            if self._stats is not None:
                by_name = self._stats.setdefault(rec.cat, {})
                stat = by_name.get(rec.name)
                if stat is None:
                    stat = by_name[rec.name] = _Stat(_STAT_KIND.get(rec.kind, "duration"))
                stat.add(rec)

    def _pid(self, rec: _Record) -> int:
        if rec.ctx is not None:
            base = {
                "gpu": _NCPU,
                "cpu_pinned": _NCPU + _MAX_GPUS,
                "cpu_shared": _NCPU + _MAX_GPUS + 1,
            }
            pinned = rec.ctx.device_type in ("cpu_pinned", "cpu_shared")
            return base.get(rec.ctx.device_type, 0) + (0 if pinned else rec.ctx.device_id)
        pid = self._category_pids.get(rec.cat)
        if pid is None:
            pid = self._category_pids[rec.cat] = _NCPU + _MAX_GPUS + 2 + len(self._category_pids)
        return pid

    def dumps(self, reset: bool, fmt: str, sort_by: str, ascending: bool) -> str:
        with self._lock:
            self._flush_locked()
            if self._stats is None:
                return ""
            out = _stats_table if fmt == "table" else _stats_json
            text = out(self._stats, sort_by, ascending)
            if reset:
                self._stats.clear()
            return text


def _device_name(ctx: Context) -> str:
    kind = ctx.device_type
    if kind in ("cpu_pinned", "cpu_shared"):
        return kind.replace("_", " ") + "/"
    return f"{kind}/{ctx.device_id}"


def _metadata(pid: int, tid: int, label: str) -> str:
    """The event naming process ``pid`` (``tid == -1``) or its thread ``tid``."""
    if tid == -1:
        return json.dumps({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": label}})
    event = {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": label}}
    return json.dumps(event)


def _trace_events(rec: _Record, pid: int) -> list[dict[str, Any]]:
    """The chrome trace events of one record (timestamps in microseconds)."""
    base = {"name": rec.name, "cat": rec.cat, "pid": pid, "tid": rec.tid}
    ts, end = rec.start_ns / 1000.0, rec.end_ns / 1000.0
    if rec.kind in ("op", "frame"):
        return [{**base, "ph": "X", "ts": ts, "dur": (rec.end_ns - rec.start_ns) / 1000.0}]
    if rec.kind == "event":
        return [{**base, "ph": "B", "ts": ts}, {**base, "ph": "E", "ts": end}]
    if rec.kind == "task":  # async: tasks of one thread may overlap
        return [
            {**base, "ph": "b", "ts": ts, "id": rec.tid},
            {**base, "ph": "e", "ts": end, "id": rec.tid},
        ]
    if rec.kind == "counter":
        return [{**base, "ph": "C", "ts": ts, "args": {rec.name: rec.value}}]
    return [{**base, "ph": "i", "ts": ts, "s": rec.value}]


def _write_atomically(filename: str, text: str) -> None:
    folder = os.path.dirname(os.path.abspath(filename))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=os.path.basename(filename) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, filename)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise


def _f32(x: float) -> float:
    """x as the C float MXNet prints its statistics through."""
    return struct.unpack("f", struct.pack("f", x))[0]


def _sorted_stats(stats: dict[str, _Stat], sort_by: str, ascending: bool) -> list[str]:
    """Names in MXNet's order: by the key, ties by name descending, then shown stats only."""
    sign = -1.0 if ascending else 1.0
    order = sorted(stats, key=lambda n: (sign * stats[n].key(sort_by), n), reverse=True)
    return [n for n in order if stats[n].kind != "other"]


def _stats_table(stats: dict[str, dict[str, _Stat]], sort_by: str, ascending: bool) -> str:
    lines = ["", "Profile Statistics:", "\tNote the difference in units for different entries."]
    heads = ("Time (ms)", "Min Time (ms)", "Max Time (ms)", "Avg Time (ms)")
    rules = ("---------", "-------------", "-------------", "-------------")
    for cat in sorted(stats):
        lines += [cat, "================="]
        lines.append(f"{'Name':<25}{'Total Count':>16} " + " ".join(f"{h:>16}" for h in heads))
        lines.append(f"{'----':<25}{'-----------':>16} " + " ".join(f"{r:>16}" for r in rules))
        for name in _sorted_stats(stats[cat], sort_by, ascending):
            s = stats[cat][name]
            values = " ".join(f"{_f32(v / 1000):>16.4f}" for v in (s.total, s.min, s.max, s.avg))
            lines.append(f"{name:<25}{s.count:>16} {values}")
        lines.append("")
    return "\n".join(lines) + "\n"


def _stats_json(stats: dict[str, dict[str, _Stat]], sort_by: str, ascending: bool) -> str:
    parts = []
    for cat in sorted(stats):
        rows = []
        for name in _sorted_stats(stats[cat], sort_by, ascending):
            s = stats[cat][name]
            values = ",\n".join(
                f'                "{key}": {_f32(v / 1000):.4g}'
                for key, v in (("Total", s.total), ("Min", s.min), ("Max", s.max), ("Avg", s.avg))
            )
            rows.append(
                f"            {json.dumps(name)}: {{\n"
                f'                "Count": {s.count},\n{values}\n            }}\n'
            )
        parts.append(
            f"        {json.dumps(cat)}: {{\n" + "            ,\n".join(rows) + "        }\n"
        )
    return (
        '{\n    "Time": {\n' + "        ,\n".join(parts) + "    }\n    ,\n"
        '    "Memory": {\n    }\n,\n'
        '    "Unit": {\n        "Time": "ms",\n        "Memory": "kB"\n    }\n}\n'
    )


_profiler = _Profiler()


# -- module API, as mx.profiler of MXNet 1.9.1 ----------------------------------------------
# Every `profile_process` argument takes 'worker' (this process, the default) or 'server' (the
# servers of the distributed kvstore given to set_kvstore_handle).


def set_config(**kwargs: Any) -> None:
    """Set up the configuration of the profiler (only accepts keyword arguments).

    Each call starts from the defaults below, as in MXNet, and removes ``filename``.

    Parameters
    ----------
    filename : string, optional
        Output file for profile data. Default is 'profile.json'.
    profile_all : boolean, optional
        All profile types enabled. Default is False.
    profile_symbolic, profile_imperative : boolean, optional
        Whether to profile symbolic / imperative operators (engine functions are recorded when
        any of these or `profile_all` is set). Default is True.
    profile_memory, profile_api : boolean, optional
        Whether to profile memory usage / the API. Default is True.
    continuous_dump : boolean, optional
        Whether to periodically dump profiling data to file. Default is True.
    dump_period : float, optional
        Seconds between profile data dumps. Default is 1.0.
    aggregate_stats : boolean, optional
        Whether to maintain aggregate stats in memory for :func:`dumps`. Default is False.
    profile_process : string, optional
        Whether to profile kvstore `server` or `worker`. Default is `worker`.

    Examples
    --------
    >>> import os, tempfile
    >>> from mxlite import profiler
    >>> path = os.path.join(tempfile.mkdtemp(), 'profile.json')
    >>> profiler.set_config(profile_all=True, filename=path, continuous_dump=False)
    >>> profiler.set_state('run')
    >>> profiler.set_state('stop')
    >>> profiler.dump()
    >>> os.path.exists(path)
    True
    """
    for key in kwargs:
        if key not in _CONFIG_KEYS:
            raise ParamError(
                f"set_config: unknown argument {key!r}; expected one of {', '.join(_CONFIG_KEYS)}."
            )
    config = replace(_Config(), **{k: _parse_value("set_config", k, v) for k, v in kwargs.items()})
    if config.profile_process == "server":
        body = ",".join(f"{k}:{v}" for k, v in kwargs.items() if k != "profile_process")
        _to_server("set_config", "set_config", body)
    else:
        _profiler.configure(config)


def profiler_set_config(mode: str = "symbolic", filename: str = "profile.json") -> None:
    """Set up the configuration of the profiler (Deprecated: use :func:`set_config`).

    Parameters
    ----------
    mode : string, optional
        What to profile: 'symbolic' or 'all'. Default is `symbolic`.
    filename : string, optional
        The name of output trace file. Default is 'profile.json'.
    """
    warnings.warn(
        "profiler.profiler_set_config() is deprecated. Please use profiler.set_config() instead",
        stacklevel=2,
    )
    key = f"profile_{mode}" if isinstance(mode, str) else None
    if key not in _CONFIG_KEYS:
        raise ParamError(
            f"profiler_set_config: argument 'mode' must be 'symbolic' or 'all', got {mode!r}."
        )
    set_config(**{key: True, "filename": filename})


def set_state(state: str = "stop", profile_process: str = "worker") -> None:
    """Set up the profiler state to 'run' or 'stop'.

    Parameters
    ----------
    state : string, optional
        Indicates whether to run the profiler, can be 'stop' or 'run'. Default is `stop`.
    profile_process : string, optional
        Whether to profile kvstore `server` or `worker`. Default is `worker`.
    """
    if state not in _STATES:
        raise ParamError(f"set_state: argument 'state' must be 'stop' or 'run', got {state!r}.")
    if _check_process("set_state", profile_process) == "server":
        _to_server("set_state", "set_state", str(_STATES.index(state)))
    else:
        _profiler.set_state(state)


def profiler_set_state(state: str = "stop") -> None:
    """Set up the profiler state to 'run' or 'stop' (Deprecated: use :func:`set_state`).

    Parameters
    ----------
    state : string, optional
        Indicates whether to run the profiler, can be 'stop' or 'run'. Default is `stop`.
    """
    warnings.warn(
        "profiler.profiler_set_state() is deprecated. Please use profiler.set_state() instead",
        stacklevel=2,
    )
    set_state(state)


def dump(finished: bool = True, profile_process: str = "worker") -> None:
    """Write the profile to the configured file as a Chrome trace (chrome://tracing, Perfetto).

    Use this to save the profile in advance in case your program cannot exit normally.

    Parameters
    ----------
    finished : boolean, optional
        Indicates whether to stop statistic output (dumping) after this dump. Default is True.
    profile_process : string, optional
        Whether to profile kvstore `server` or `worker`. Default is `worker`.
    """
    if finished not in (False, True):
        raise ParamError(f"dump: argument 'finished' must be False or True, got {finished!r}.")
    if _check_process("dump", profile_process) == "server":
        _to_server("dump", "dump", str(int(finished)))
    else:
        _profiler.dump(bool(finished))


def dump_profile() -> None:
    """Dump the profile and stop the profiler (Deprecated: use :func:`dump`)."""
    warnings.warn(
        "profiler.dump_profile() is deprecated. Please use profiler.dump() instead", stacklevel=2
    )
    dump(True)


def dumps(
    reset: bool = False, format: str = "table", sort_by: str = "total", ascending: bool = False
) -> str:
    """Return a printable string of aggregate profile stats (empty unless aggregate_stats).

    Parameters
    ----------
    reset : boolean, optional
        Indicates whether to clean aggregate statistical data collected up to this point.
    format : string, optional
        Whether to return the aggregate stats in 'table' or 'json' format. Default is 'table'.
    sort_by : string, optional
        Can take 'total', 'avg', 'min', 'max', or 'count', by which stat to sort the entries
        in each category. Default is 'total'.
    ascending : boolean, optional
        Whether to sort ascendingly. Default is False.

    Returns
    -------
    str
        Per category (such as 'operator'), for each name: the count, and the total, min, max
        and average time in ms.
    """
    if format not in _FORMATS:
        raise ParamError(f"dumps: argument 'format' must be 'table' or 'json', got {format!r}.")
    if sort_by not in _SORT_BY:
        raise ParamError(
            f"dumps: argument 'sort_by' must be one of {', '.join(_SORT_BY)}, got {sort_by!r}."
        )
    for arg, value in (("ascending", ascending), ("reset", reset)):
        if value not in (False, True):
            raise ParamError(f"dumps: argument {arg!r} must be False or True, got {value!r}.")
    return _profiler.dumps(bool(reset), format, sort_by, bool(ascending))


def pause(profile_process: str = "worker") -> None:
    """Pause profiling: nothing is recorded until :func:`resume`.

    Parameters
    ----------
    profile_process : string, optional
        Whether to profile kvstore `server` or `worker`. Default is `worker`.
    """
    if _check_process("pause", profile_process) == "server":
        _to_server("pause", "pause", "1")
    else:
        _profiler.set_paused(True)


def resume(profile_process: str = "worker") -> None:
    """Resume paused profiling.

    Parameters
    ----------
    profile_process : string, optional
        Whether to profile kvstore `server` or `worker`. Default is `worker`.
    """
    if _check_process("resume", profile_process) == "server":
        _to_server("resume", "pause", "0")
    else:
        _profiler.set_paused(False)


# -- profiling objects ----------------------------------------------------------------------


def _check_name(func: str, name: Any) -> str:
    if not isinstance(name, str) or not name:
        raise ParamError(f"{func}: argument 'name' must be a non-empty string, got {name!r}.")
    return name


def _check_domain(func: str, domain: Any) -> Domain:
    if not isinstance(domain, Domain):
        raise ParamError(
            f"{func}: argument 'domain' must be a profiler.Domain, got {type(domain).__name__}."
        )
    return domain


class Domain:
    """Profiling domain: groups tasks, frames, counters and markers into categories.

    Parameters
    ----------
    name : string
        Name of the domain
    """

    def __init__(self, name: str) -> None:
        self.name = _check_name("Domain", name)

    def __str__(self) -> str:
        return self.name

    def new_task(self, name: str) -> Task:
        """Create a new :class:`Task` named `name`, owned by this domain."""
        return Task(self, name)

    def new_frame(self, name: str) -> Frame:
        """Create a new :class:`Frame` named `name`, owned by this domain."""
        return Frame(self, name)

    def new_counter(self, name: str, value: int | None = None) -> Counter:
        """Create a new :class:`Counter` named `name` (initial `value`), owned by this domain."""
        return Counter(self, name, value)

    def new_marker(self, name: str) -> Marker:
        """Create a new :class:`Marker` named `name`, owned by this domain."""
        return Marker(self, name)


class _Duration:
    """A named interval: ``start()`` then ``stop()`` records it (when the profiler runs)."""

    _kind = ""

    def __init__(self, name: str, category: str) -> None:
        self.name = name
        self._category = category
        self._start_ns: int | None = None

    def start(self) -> None:
        """Start timing scope for this object."""
        self._start_ns = time.perf_counter_ns()

    def stop(self) -> None:
        """Stop timing scope for this object, and record it."""
        end = time.perf_counter_ns()
        if self._start_ns is None:
            raise MXNetError(
                f"{type(self).__name__}.stop: {self.name!r} was never started; call start() first."
            )
        _profiler.record(self._kind, self.name, self._category, self._start_ns, end)

    def __str__(self) -> str:
        return self.name


class Task(_Duration):
    """Profiling Task: a logical unit of work performed by a particular thread; tasks can nest.

    Aggregated under the domain's name; an async ('b'/'e') slice in the trace.

    Parameters
    ----------
    domain : Domain object
        Domain to which this object belongs
    name : string
        Name of the task
    """

    _kind = "task"

    def __init__(self, domain: Domain, name: str) -> None:
        domain = _check_domain("Task", domain)
        super().__init__(_check_name("Task", name), domain.name)


class Frame(_Duration):
    """Profiling Frame: the time between frame begin and end points, such as one iteration.

    Aggregated under '<domain>,frame'; a complete ('X') slice in the trace.

    Parameters
    ----------
    domain : Domain object
        Domain to which this object belongs
    name : string
        Name of the frame
    """

    _kind = "frame"

    def __init__(self, domain: Domain, name: str) -> None:
        domain = _check_domain("Frame", domain)
        super().__init__(_check_name("Frame", name), domain.name + ",frame")


class Event(_Duration):
    """Profiling Event: how long a demarcated region of code takes on the calling thread.

    Aggregated under 'event'; a 'B'/'E' pair in the trace.

    Parameters
    ----------
    name : string
        Name of the event
    """

    _kind = "event"

    def __init__(self, name: str) -> None:
        super().__init__(_check_name("Event", name), "event")


class Counter:
    """Profiling Counter: tracks a value as it changes over time ('C' events in the trace).

    Parameters
    ----------
    domain : Domain object
        Domain to which this object belongs
    name : string
        Name of the counter
    value : integer, optional
        Initial value of the counter
    """

    def __init__(self, domain: Domain, name: str, value: int | None = None) -> None:
        self._domain = _check_domain("Counter", domain)
        self.name = _check_name("Counter", name)
        self._value = 0
        # _lock guards _value, so that threads sharing a counter lose no update and its samples
        # are recorded in the order of the values they carry.
        self._lock = threading.Lock()
        if value is not None:
            self.set_value(value)

    def _change(self, func: str, arg: str, value: Any, sign: int) -> None:
        try:
            amount = int(value)
        except (TypeError, ValueError):
            raise ParamError(
                f"{func}: argument {arg!r} must be an integer, got {value!r}."
            ) from None
        with self._lock:
            self._value = amount if sign == 0 else self._value + sign * amount
            now = time.perf_counter_ns()
            _profiler.record("counter", self.name, self._domain.name, now, now, self._value)

    def set_value(self, value: int) -> None:
        """Set counter value to the int `value`."""
        self._change("Counter.set_value", "value", value, 0)

    def increment(self, delta: int = 1) -> None:
        """Add the int `delta` (default 1) to the counter."""
        self._change("Counter.increment", "delta", delta, 1)

    def decrement(self, delta: int = 1) -> None:
        """Subtract the int `delta` (default 1) from the counter."""
        self._change("Counter.decrement", "delta", delta, -1)

    def __iadd__(self, delta: int) -> Counter:
        self.increment(delta)
        return self

    def __isub__(self, delta: int) -> Counter:
        self.decrement(delta)
        return self

    def __str__(self) -> str:
        return self.name


class Marker:
    """Set marker for an instant in time ('i' events in the trace).

    Parameters
    ----------
    domain : Domain object
        Domain to which this object belongs
    name : string
        Name of the marker
    """

    def __init__(self, domain: Domain, name: str) -> None:
        self.domain = _check_domain("Marker", domain)
        self.name = _check_name("Marker", name)

    def mark(self, scope: str = "process") -> None:
        """Record the marker at this instant.

        Parameters
        ----------
        scope : string, optional
            What the marker refers to: 'global', 'process', 'thread', 'task' or 'marker'.
            Default is `process`.
        """
        chrome_scope = _MARKER_SCOPES.get(scope) if isinstance(scope, str) else None
        if chrome_scope is None:
            raise ParamError(
                f"Marker.mark: argument 'scope' must be one of {', '.join(_MARKER_SCOPES)}, "
                f"got {scope!r}."
            )
        now = time.perf_counter_ns()
        _profiler.record(
            "marker", self.name, self.domain.name + ",instant_marker", now, now, chrome_scope
        )


atexit.register(_profiler.dump_at_exit)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_profiler.after_fork_in_child)
if env_bool("MXNET_PROFILER_AUTOSTART", False):
    set_state("run")
