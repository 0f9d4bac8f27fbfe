"""The records the profiler keeps, and how they are written as a Chrome trace.

A :class:`Record` is one thing recorded: an engine function or one of the Python objects of
``objects.py``. Each becomes one or two Chrome trace events (``trace_events``), placed under a
process id: the device for an engine function, as MXNet numbers them (``device_pid``), or one id
per category for the Python objects (from ``FIRST_CATEGORY_PID`` on). ``write_trace`` writes a
whole trace, naming every process and thread it uses, to a temporary file that it renames over
the target, so the file is valid JSON at every moment.
"""

from __future__ import annotations

import json
import os
from typing import Any, NamedTuple

from ..context import Context
from ..fileio import atomic_write

# MXNet gives each device its pid: cpu i -> i, gpu i -> ncpu + i, then pinned, then shared,
# with room for 32 gpus; categories of the Python objects get the pids after those.
_NCPU = os.cpu_count() or 64
_MAX_GPUS = 32
FIRST_CATEGORY_PID = _NCPU + _MAX_GPUS + 2


class Record(NamedTuple):
    """One thing recorded. ``end_ns == start_ns`` for counters and markers."""

    kind: str  # "op", "task", "frame", "event", "counter" or "marker"
    name: str
    cat: str
    ctx: Context | None  # the device of an engine function; None for the Python objects
    tid: int
    start_ns: int
    end_ns: int
    value: Any = None  # a counter's value; a marker's chrome scope


def device_pid(ctx: Context) -> int:
    """The trace's process id for the engine functions run on ``ctx``."""
    base = {
        "gpu": _NCPU,
        "cpu_pinned": _NCPU + _MAX_GPUS,
        "cpu_shared": _NCPU + _MAX_GPUS + 1,
    }
    pinned = ctx.device_type in ("cpu_pinned", "cpu_shared")
    return base.get(ctx.device_type, 0) + (0 if pinned else ctx.device_id)


def device_name(ctx: Context) -> str:
    """The trace's process name for the engine functions run on ``ctx``."""
    kind = ctx.device_type
    if kind in ("cpu_pinned", "cpu_shared"):
        return kind.replace("_", " ") + "/"
    return f"{kind}/{ctx.device_id}"


def trace_events(rec: Record, pid: int) -> list[dict[str, Any]]:
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


def write_trace(
    filename: str, events: list[tuple[int, int, str]], labels: dict[tuple[int, int], str]
) -> None:
    """Write ``events`` ((pid, tid, json) each) as a Chrome trace file.

    ``labels`` names each process, as ``(pid, -1)``, and each thread, as ``(pid, tid)``; every
    process and thread of ``events`` must have its name there.
    """
    named = {(pid, -1) for pid, _, _ in events} | {(pid, tid) for pid, tid, _ in events}
    lines = [_metadata(pid, tid, labels[pid, tid]) for pid, tid in sorted(named)]
    lines += [text for _, _, text in events]
    body = ",\n".join(lines)
    text = f'{{\n    "traceEvents": [\n{body}\n    ],\n    "displayTimeUnit": "ms"\n}}\n'
    _write_atomically(filename, text)


def _metadata(pid: int, tid: int, label: str) -> str:
    """The event naming process ``pid`` (``tid == -1``) or its thread ``tid``."""
    if tid == -1:
        return json.dumps({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": label}})
    event = {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": label}}
    return json.dumps(event)


def _write_atomically(filename: str, text: str) -> None:
    with atomic_write(filename, "w", "profiler.dump") as f:
        f.write(text)
