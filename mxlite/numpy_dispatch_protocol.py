"""``mx.numpy_dispatch_protocol``: the lists of NumPy functions and ufuncs that official NumPy
hands to ``mx.np`` when called on ``mx.np`` arrays (see :mod:`mxlite.numpy.dispatch`), and
MXNet's decorators for tests that need the protocols."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .numpy.dispatch import ARRAY_FUNCTIONS, ARRAY_UFUNCS

__all__ = ["with_array_function_protocol", "with_array_ufunc_protocol"]

_NUMPY_ARRAY_FUNCTION_LIST = list(ARRAY_FUNCTIONS)
_NUMPY_ARRAY_UFUNC_LIST = list(ARRAY_UFUNCS)


def _protocol_runner(func: Callable[..., Any], protocol: str) -> Callable[..., None]:
    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            func(*args, **kwargs)
        except Exception as e:  # MXNet reports any failure as a RuntimeError
            raise RuntimeError(
                f"Running function {func.__name__} with NumPy array {protocol} protocol failed"
                f" with exception {e}"
            ) from e

    return run


def with_array_function_protocol(func: Callable[..., Any]) -> Callable[..., None]:
    """Run ``func`` (a test using ``__array_function__``); a failure becomes a RuntimeError."""
    return _protocol_runner(func, "function")


def with_array_ufunc_protocol(func: Callable[..., Any]) -> Callable[..., None]:
    """Run ``func`` (a test using ``__array_ufunc__``); a failure becomes a RuntimeError."""
    return _protocol_runner(func, "ufunc")
