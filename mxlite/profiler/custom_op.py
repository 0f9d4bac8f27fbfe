"""Profiling of custom operators: the time of their Python code, and the operators it pushes.

As in MXNet 1.9.1, while a custom operator's ``forward`` (or ``backward``) runs, the thread that
runs it is tagged with the operator's type (``op_type``, or ``_backward_<op_type>``):

* :func:`custom_op_scope` records the whole Python call as ``<op_type>::pure_python`` in the
  ``Custom Operator`` category (only while imperative operators are profiled, as in MXNet);
* :func:`display_name`, called by whoever pushes an engine function, turns the function's name
  into ``<op_type>::<name>`` on a tagged thread, so the profiler files the operators the custom
  operator launches under ``Custom Operator`` as well (any name with ``::`` goes there).

Where they are used: ``operator/custom.py`` runs the user's ``forward``/``backward`` inside
``custom_op_scope(op_type)`` / ``custom_op_scope('_backward_' + op_type)``, and the profiler
installs :func:`display_name` on the engine with its sink (``Engine.set_profile_sink``), so
functions pushed while the sink is installed are named by it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from .state import _CUSTOM_CATEGORY, PROFILER

__all__ = ["custom_op_scope", "display_name"]

_tagged = threading.local()  # .op_type: the custom operator this thread runs, if any


def display_name(name: str) -> str:
    """The name an engine function pushed now should be profiled under.

    Parameters
    ----------
    name : str
        The function's own name (the operator's name, such as ``'_zeros'``).

    Returns
    -------
    str
        ``'<op_type>::<name>'`` while this thread runs a custom operator's Python code,
        ``name`` otherwise.
    """
    op_type = getattr(_tagged, "op_type", None)
    if op_type is None or name.startswith(f"{op_type}::"):  # named already
        return name
    return f"{op_type}::{name}"


@contextmanager
def custom_op_scope(op_type: str) -> Iterator[None]:
    """Tag this thread with ``op_type`` and time the block as ``<op_type>::pure_python``.

    Parameters
    ----------
    op_type : str
        The custom operator's registered name; ``'_backward_' + op_type`` for its backward.
    """
    outer = getattr(_tagged, "op_type", None)
    _tagged.op_type = op_type
    start = time.perf_counter_ns()
    try:
        yield
    finally:
        end = time.perf_counter_ns()
        _tagged.op_type = outer
        if PROFILER.profiles_imperative():
            PROFILER.record("task", f"{op_type}::pure_python", _CUSTOM_CATEGORY, start, end)
