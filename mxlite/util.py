"""``mx.util``: MXNet's switch for NumPy shape semantics (``set_np_shape``, ``np_shape``,
``use_np``) and its environment helpers (``getenv``, ``setenv``).

With NumPy shape semantics on, arrays may be 0-d and have zero-size dimensions, and ``nd.save``
writes MXNet's numpy-shape (V3) records; ``nd.load`` then accepts only those, and without the
semantics only the legacy records, as MXNet 1.9.1 does.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

from .base import ParamError, absent_names

__all__ = [
    "is_np_shape",
    "set_np_shape",
    "np_shape",
    "use_np_shape",
    "is_np_array",
    "np_array",
    "set_np_array",
    "use_np_array",
    "set_np",
    "reset_np",
    "use_np",
    "getenv",
    "setenv",
    "set_module",
    "np_ufunc_legal_option",
    "wrap_np_unary_func",
    "wrap_np_binary_func",
]

_state = threading.local()  # the flag is per thread, as in MXNet


def is_np_shape() -> bool:
    """Whether NumPy shape semantics are on in this thread."""
    return getattr(_state, "np_shape", False)


def set_np_shape(active: bool) -> bool:
    """Turn NumPy shape semantics on or off in this thread; return the previous setting."""
    prev = is_np_shape()
    _state.np_shape = bool(active)
    return prev


@contextlib.contextmanager
def np_shape(active: bool = True) -> Iterator[None]:
    """Scope with NumPy shape semantics set to ``active`` (``with mx.np_shape(True):``)."""
    prev = set_np_shape(active)
    try:
        yield
    finally:
        set_np_shape(prev)


class _NumpyArrayScope:
    """The per-thread scope of MXNet's NumPy-array semantics (``mx.np`` arrays in Gluon), as
    MXNet 1.9.1 keeps it; made by :func:`np_array`, not directly."""

    _current = threading.local()

    def __init__(self, is_np_array: bool) -> None:
        self._old_scope: _NumpyArrayScope | None = None
        self._is_np_array = is_np_array

    def __enter__(self) -> _NumpyArrayScope:
        current = _NumpyArrayScope._current
        if not hasattr(current, "value"):
            current.value = _NumpyArrayScope(False)
        self._old_scope = current.value
        current.value = self
        return self

    def __exit__(self, *exc: Any) -> None:
        _NumpyArrayScope._current.value = self._old_scope


def np_array(active: bool = True) -> _NumpyArrayScope:
    """A ``with`` scope turning MXNet's NumPy-array semantics (``mx.np`` arrays) on or off in
    this thread.

    Parameters
    ----------
    active : bool
        Indicates whether to activate NumPy-array semantics.
    """
    return _NumpyArrayScope(bool(active))


def is_np_array() -> bool:
    """Whether MXNet's NumPy-array semantics (``mx.np`` arrays) are on in this thread."""
    current = _NumpyArrayScope._current
    return bool(current.value._is_np_array) if hasattr(current, "value") else False


def set_np_array(active: bool) -> bool:
    """Turn NumPy-array semantics on or off in this thread; return the previous setting."""
    prev = is_np_array()
    _NumpyArrayScope._current.value = _NumpyArrayScope(bool(active))
    return prev


def set_np(shape: bool = True, array: bool = True) -> None:
    """Turn NumPy shape and array semantics on (``npx.set_np()``) in this thread.

    Parameters
    ----------
    shape : bool
        Zero-dim and zero-size shapes are valid shapes (NumPy's shape semantics).
    array : bool
        Gluon and the front ends make ``mx.np`` arrays instead of ``mx.nd`` ones.
    """
    if not shape and array:
        raise ParamError(
            "set_np: NumPy array semantics (array=True) need NumPy shape semantics (shape=True)."
        )
    set_np_shape(shape)
    set_np_array(array)


def reset_np() -> None:
    """Turn NumPy shape and array semantics off in this thread (``npx.reset_np()``)."""
    set_np(shape=False, array=False)


def _run_within(scope: Callable[[bool], Any], func: Callable) -> Callable:
    """``func`` run inside ``with scope(True)`` (the semantics switch of :func:`np_shape` or
    :func:`np_array`)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with scope(True):
            return func(*args, **kwargs)

    return wrapper


def use_np_shape(func: Callable) -> Callable:
    """Decorate a function (or every method of a class) to run with NumPy shape semantics."""
    if isinstance(func, type):
        for name, attr in list(vars(func).items()):
            if callable(attr) and not name.startswith("__"):
                setattr(func, name, use_np_shape(attr))
        return func

    return _run_within(np_shape, func)


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
    return use_np_shape(use_np_array(func))


def use_np_array(func: Callable) -> Callable:
    """Decorate a function (or every method and property of a class, inherited ones and
    ``__call__`` included, as MXNet does) to run with NumPy array semantics."""
    if isinstance(func, type):
        members = inspect.getmembers(
            func, lambda f: inspect.isfunction(f) or inspect.ismethod(f) or isinstance(f, property)
        )
        for name, attr in members:
            if isinstance(attr, property):
                getter = use_np_array(attr.fget) if attr.fget is not None else None
                setattr(func, name, property(getter, attr.fset, attr.fdel, attr.__doc__))
            elif not isinstance(inspect.getattr_static(func, name), (staticmethod, classmethod)):
                setattr(func, name, use_np_array(attr))
        return func

    return _run_within(np_array, func)


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


def set_module(module: str | None) -> Callable[[Any], Any]:
    """Decorator that sets ``__module__`` of a function or class to ``module`` (if not None)."""

    def decorator(func: Any) -> Any:
        if module is not None:
            func.__module__ = module
        return func

    return decorator


# NumPy's ufunc keywords; mx.np's element-wise functions accept each at its default only
_np_ufunc_default_kwargs = {"where": True, "casting": "same_kind", "order": "K", "dtype": None,
                            "subok": True}  # fmt: skip
_UFUNC_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")
_UFUNC_DTYPES = ("int8", "uint8", "int32", "int64", "float16", "float32", "float64")


def np_ufunc_legal_option(key: str, value: Any) -> bool:
    """Whether ``value`` is one NumPy accepts for the ufunc keyword ``key``: then mx.np says
    it is not implemented; otherwise, that it is not understood."""
    if key == "where":
        return True
    if key == "casting":
        return isinstance(value, str) and value in _UFUNC_CASTINGS
    if key == "order":
        return isinstance(value, str)
    if key == "subok":
        return isinstance(value, bool)
    if key == "dtype":
        if isinstance(value, str):
            return value in _UFUNC_DTYPES
        # a scalar type (np.int8) or a dtype object
        return (getattr(value, "__name__", None) or getattr(value, "name", None)) in _UFUNC_DTYPES
    return False


def _check_ufunc_kwargs(name: str, kwargs: dict[str, Any]) -> None:
    for key, value in kwargs.items():
        if key not in _np_ufunc_default_kwargs:
            raise TypeError(f"{name}: {key!r} is an invalid keyword argument.")
        default = _np_ufunc_default_kwargs[key]
        if value is default or (isinstance(value, (str, int)) and value == default):
            continue
        if np_ufunc_legal_option(key, value):
            raise NotImplementedError(f"{name}: {key}={value!r} is not implemented in MXNet's "
                                      f"mx.np; leave it at {default!r}.")  # fmt: skip
        raise TypeError(f"{name}: {key}={value!r} is not understood (NumPy's default is "
                        f"{default!r}).")  # fmt: skip


def wrap_np_unary_func(func: Callable) -> Callable:
    """``func(x, out=None)`` taking NumPy's ufunc keywords as well: each at its default is
    ignored; another value NumPy accepts raises NotImplementedError, anything else TypeError."""

    @functools.wraps(func)
    def wrapper(x: Any, out: Any = None, **kwargs: Any) -> Any:
        if kwargs:
            _check_ufunc_kwargs(func.__name__, kwargs)
        return func(x, out=out)

    return wrapper


def wrap_np_binary_func(func: Callable) -> Callable:
    """``func(x1, x2, out=None)`` taking NumPy's ufunc keywords as :func:`wrap_np_unary_func`."""

    @functools.wraps(func)
    def wrapper(x1: Any, x2: Any, out: Any = None, **kwargs: Any) -> Any:
        if kwargs:
            _check_ufunc_kwargs(func.__name__, kwargs)
        return func(x1, x2, out=out)

    return wrapper


# MXNet's GPU queries here live in mxlite.context (above this module: read on first use)
__getattr__ = absent_names(
    "mxnet.util",
    {},
    moved=("get_gpu_count", "get_gpu_memory", "get_cuda_compute_capability"),
    home="mxlite.context",
)
