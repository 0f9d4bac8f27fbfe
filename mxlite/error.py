"""``mx.error``: MXNet's error classes.

A failure inside an engine function is raised at the next wait as MXNetError; when it is an
IndexError, KeyError, ValueError, TypeError, AttributeError or NotImplementedError it is raised
as a class that is both that builtin and MXNetError (MXNet raised the builtin itself), so code
catching either keeps working.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import MXNetError
from .engine.failure import error_class

__all__ = ["MXNetError", "InternalError", "register"]


class InternalError(MXNetError):
    """An internal error: a bug in mxlite rather than in the caller's input."""


def register(func_name: str | type, cls: type | None = None) -> Callable | type:
    """Register an error class under ``func_name`` (MXNet's decorator form also works). Kept
    for API compatibility: mxlite raises Python exceptions directly."""
    if isinstance(func_name, type):
        return func_name

    def deco(c: type) -> type:
        return c

    return deco if cls is None else cls


IndexError = error_class(IndexError())  # noqa: A001  (shadows the builtin, as MXNet's does)
ValueError = error_class(ValueError())  # noqa: A001
TypeError = error_class(TypeError())  # noqa: A001
AttributeError = error_class(AttributeError())  # noqa: A001
NotImplementedError = error_class(NotImplementedError())  # noqa: A001
