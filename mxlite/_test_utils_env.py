"""Environment helpers of ``mx.test_utils``: ``use_np``, ``getenv`` and ``setenv``.

MXNet's ``use_np`` turns on both NumPy shape semantics and NumPy array semantics (``mx.np``
arrays). mxlite has no ``mx.np`` front end, so here it turns on the shape semantics only; code
that needs ``mx.np`` arrays fails at the call that uses them, not at decoration.

``getenv``/``setenv`` read and write the process environment that every ``MXNET_*`` setting is
read from (MXNet reads and writes the C runtime's copy, which is the same table).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from .base import ParamError
from .util import use_np_shape


def use_np(func: Callable) -> Callable:
    """Run a function, or every method of a class, with NumPy semantics on.

    Parameters
    ----------
    func : callable or type
        The function or class to decorate.

    Returns
    -------
    callable or type
        The decorated function, or the class with its methods decorated.
    """
    if not callable(func):
        raise ParamError(f"use_np: func must be a function or a class, got {type(func).__name__}")
    return use_np_shape(func)


def getenv(name: str) -> str | None:
    """Return the value of environment variable ``name``, or None when it is not set.

    Parameters
    ----------
    name : str
        Name of the environment variable.
    """
    if not isinstance(name, str):
        raise ParamError(f"getenv: name must be a str, got {type(name).__name__}")
    return os.environ.get(name)


def setenv(name: str, value: str | None) -> None:
    """Set environment variable ``name`` to ``value``; None removes it.

    Parameters
    ----------
    name : str
        Name of the environment variable.
    value : str or None
        The new value, or None to unset the variable.
    """
    if not isinstance(name, str):
        raise ParamError(f"setenv: name must be a str, got {type(name).__name__}")
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = str(value)
