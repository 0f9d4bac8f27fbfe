"""The names engine functions are profiled under while a custom operator's Python code runs:
``<op_type>::<name>`` on a thread tagged with the operator's type (``custom_op.py`` tags it),
the function's own name otherwise. Kept apart from ``custom_op.py`` because the profiler's
state installs :func:`display_name` on the engine and ``custom_op.py`` builds on that state.
"""

from __future__ import annotations

import threading

__all__ = ["TAGGED", "display_name"]

TAGGED = threading.local()  # .op_type: the custom operator this thread runs, if any


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
    op_type = getattr(TAGGED, "op_type", None)
    if op_type is None or name.startswith(f"{op_type}::"):  # named already
        return name
    return f"{op_type}::{name}"
