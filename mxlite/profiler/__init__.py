"""The profiler: ``mx.profiler`` of MXNet 1.9.1, fed by the engine's profiling hook.

Design note
-----------
One process-wide profiler (``state.py``) keeps every record. Records come from two sources:

* the engine, which calls the profiler's sink once for every function it executes, with the
  function's name, context, thread and start/end times (``time.perf_counter_ns``);
* the Python objects :class:`Task`, :class:`Frame`, :class:`Event`, :class:`Counter` and
  :class:`Marker` (``objects.py``), which take their times from the same clock.

Recording is on while the state is ``'run'`` and the profiler is not paused. Only then is the
sink installed on the engine, so a stopped profiler costs the engine nothing. Records go to a
``deque`` (its ``append`` is atomic, so the engine's workers never take the profiler's lock).
:func:`dump` and :func:`dumps` move the pending records into the trace of the file being written
(``trace.py``) and, with ``aggregate_stats=True``, into per-category statistics keyed by the
record's name (``stats.py``);
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
import os
import warnings
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..base import MXNetError, ParamError, env_bool
from .objects import Counter as Counter
from .objects import Domain as Domain
from .objects import Event as Event
from .objects import Frame as Frame
from .objects import Marker as Marker
from .objects import Task as Task
from .state import CONFIG_KEYS as _CONFIG_KEYS
from .state import PROFILER as _profiler
from .state import Config as _Config
from .state import check_process as _check_process
from .state import parse_value as _parse_value

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

_STATES = ("stop", "run")
_FORMATS = ("table", "json")
_SORT_BY = ("total", "avg", "min", "max", "count")


def set_kvstore_handle(handle: Any) -> None:
    """Set the kvstore whose servers ``profile_process='server'`` commands go to."""
    global profiler_kvstore_handle
    profiler_kvstore_handle = handle


def _to_server(func: str, command: str, body: str) -> None:
    """Send a profiler command to the kvstore servers (profile_process='server')."""
    send = getattr(profiler_kvstore_handle, "set_server_profiler_command", None)
    if send is None:
        raise MXNetError(
            f"{func}: profile_process='server' needs a distributed kvstore; create one with "
            f"mx.kv.create('dist_...') first, or use profile_process='worker'."
        )
    send(command, body)


def _here_or_server(
    func: str, profile_process: str, body: str, here: Callable[[], None], command: str = ""
) -> None:
    """Run ``here()`` for profile_process='worker', or send the servers ``command`` (default:
    ``func``) with ``body`` for 'server'."""
    if _check_process(func, profile_process) == "server":
        _to_server(func, command or func, body)
    else:
        here()


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
    body = str(_STATES.index(state))
    _here_or_server("set_state", profile_process, body, lambda: _profiler.set_state(state))


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
    _here_or_server(
        "dump", profile_process, str(int(finished)), lambda: _profiler.dump(bool(finished))
    )


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
    _here_or_server("pause", profile_process, "1", lambda: _profiler.set_paused(True))


def resume(profile_process: str = "worker") -> None:
    """Resume paused profiling.

    Parameters
    ----------
    profile_process : string, optional
        Whether to profile kvstore `server` or `worker`. Default is `worker`.
    """
    _here_or_server("resume", profile_process, "0", lambda: _profiler.set_paused(False), "pause")


atexit.register(_profiler.dump_at_exit)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_profiler.after_fork_in_child)
if env_bool("MXNET_PROFILER_AUTOSTART", False):
    set_state("run")
