"""The profiling objects of ``mx.profiler``: Domain, Task, Frame, Event, Counter and Marker.

Each takes its times from ``time.perf_counter_ns``, the clock the engine stamps its functions
with, and hands them to the profiler, which keeps them only while it is recording. A Task,
Frame or Event is an interval (``start()`` then ``stop()``); a Counter records each new value and
a Marker an instant.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from ..base import MXNetError, ParamError
from .state import PROFILER

# marker scope -> chrome's "s" of an instant event; chrome has no task or marker scope
_MARKER_SCOPES = {"global": "g", "process": "p", "thread": "t", "task": "p", "marker": "p"}


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
        PROFILER.record(self._kind, self.name, self._category, self._start_ns, end)

    def __str__(self) -> str:
        return self.name


class _InDomain(_Duration):
    """Task and Frame: an interval named in a domain, recorded under the domain's name and
    ``_suffix``."""

    _suffix = ""

    def __init__(self, domain: Domain, name: str) -> None:
        what = self._kind.capitalize()
        domain = _check_domain(what, domain)
        super().__init__(_check_name(what, name), domain.name + self._suffix)


# The Parameters section of Task and Frame, formatted with the kind
_IN_DOMAIN_DOC = """

    Parameters
    ----------
    domain : Domain object
        Domain to which this object belongs
    name : string
        Name of the {}
    """


class Task(_InDomain):
    """Profiling Task: a logical unit of work performed by a particular thread; tasks can nest.

    Aggregated under the domain's name; an async ('b'/'e') slice in the trace."""

    __doc__ = (__doc__ or "") + _IN_DOMAIN_DOC.format("task")
    _kind = "task"


class Frame(_InDomain):
    """Profiling Frame: the time between frame begin and end points, such as one iteration.

    Aggregated under '<domain>,frame'; a complete ('X') slice in the trace."""

    __doc__ = (__doc__ or "") + _IN_DOMAIN_DOC.format("frame")
    _kind = "frame"
    _suffix = ",frame"


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
            PROFILER.record("counter", self.name, self._domain.name, now, now, self._value)

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
        PROFILER.record(
            "marker", self.name, self.domain.name + ",instant_marker", now, now, chrome_scope
        )
