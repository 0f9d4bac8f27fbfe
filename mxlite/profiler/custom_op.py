"""Profiling of custom operators: the time of their Python code, and the operators it pushes.

As in MXNet 1.9.1, while a custom operator's ``forward`` (or ``backward``) runs, the thread that
runs it is tagged with the operator's type (``op_type``, or ``_backward_<op_type>``):

* :func:`custom_op_scope` records the whole Python call as ``<op_type>::pure_python`` in the
  ``Custom Operator`` category (only while imperative operators are profiled, as in MXNet);
* :func:`display_name` (``naming.py``), called by whoever pushes an engine function, turns
  the function's name into ``<op_type>::<name>`` on a tagged thread, so the profiler files the
  operators the custom operator launches under ``Custom Operator`` as well (any name with
  ``::`` goes there).

Where they are used: ``operator/custom.py`` runs the user's ``forward``/``backward`` inside
``custom_op_scope(op_type)`` / ``custom_op_scope('_backward_' + op_type)``, and the profiler
installs :func:`display_name` on the engine with its sink (``Engine.set_profile_sink``), so
functions pushed while the sink is installed are named by it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from .naming import TAGGED as _tagged
from .naming import display_name as display_name
from .state import _CUSTOM_CATEGORY, PROFILER

__all__ = ["custom_op_scope", "display_name"]


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
