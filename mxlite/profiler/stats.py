"""Aggregate statistics of the profiler, and the text :func:`mxlite.profiler.dumps` returns.

Statistics are kept per category, then per record name, in MXNet's raw units: microseconds for
durations, the values themselves for counters. Markers are listed but never shown. The table and
JSON forms print each number through a C float, as MXNet does, so they match its output.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass

from .trace import Record

_STAT_KIND = {"counter": "counter", "marker": "other"}


@dataclass
class Stat:
    """Aggregate of one name, in MXNet's raw units: microseconds, or a counter's values."""

    kind: str  # "duration", "counter" or "other" (markers: listed, never shown)
    count: int = 0
    total: float = 0.0  # summed durations; a counter's last value
    min: float = float("inf")
    max: float = 0.0

    def add(self, rec: Record) -> None:
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


# category -> record name -> its statistics
Stats = dict[str, dict[str, Stat]]


def add_record(stats: Stats, rec: Record) -> None:
    """Count ``rec`` under its category and name."""
    by_name = stats.setdefault(rec.cat, {})
    stat = by_name.get(rec.name)
    if stat is None:
        stat = by_name[rec.name] = Stat(_STAT_KIND.get(rec.kind, "duration"))
    stat.add(rec)


def format_stats(stats: Stats, fmt: str, sort_by: str, ascending: bool) -> str:
    """``stats`` as MXNet's ``dumps`` prints them: ``fmt`` is 'table' or 'json'."""
    out = _stats_table if fmt == "table" else _stats_json
    return out(stats, sort_by, ascending)


def _f32(x: float) -> float:
    """x as the C float MXNet prints its statistics through."""
    return struct.unpack("f", struct.pack("f", x))[0]


def _sorted_stats(stats: dict[str, Stat], sort_by: str, ascending: bool) -> list[str]:
    """Names in MXNet's order: by the key, ties by name descending, then shown stats only."""
    sign = -1.0 if ascending else 1.0
    order = sorted(stats, key=lambda n: (sign * stats[n].key(sort_by), n), reverse=True)
    return [n for n in order if stats[n].kind != "other"]


def _stats_table(stats: Stats, sort_by: str, ascending: bool) -> str:
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


def _stats_json(stats: Stats, sort_by: str, ascending: bool) -> str:
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
