"""``mx.util``: MXNet's switch for NumPy shape semantics (``set_np_shape``, ``np_shape``).

With NumPy shape semantics on, arrays may be 0-d and have zero-size dimensions, and ``nd.save``
writes MXNet's numpy-shape (V3) records; ``nd.load`` then accepts only those, and without the
semantics only the legacy records, as MXNet 1.9.1 does.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator
from typing import Any

__all__ = [
    "is_np_shape",
    "set_np_shape",
    "np_shape",
    "use_np_shape",
    "is_np_array",
    "getenv",
    "setenv",
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


def is_np_array() -> bool:
    """Whether MXNet's NumPy array semantics (``mx.np``) are on: never in mxlite, which has
    the classic ``mx.nd`` arrays only (code written for both asks this)."""
    return False


def use_np_shape(func: Callable) -> Callable:
    """Decorate a function (or every method of a class) to run with NumPy shape semantics."""
    if isinstance(func, type):
        for name, attr in list(vars(func).items()):
            if callable(attr) and not name.startswith("__"):
                setattr(func, name, use_np_shape(attr))
        return func

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with np_shape(True):
            return func(*args, **kwargs)

    return wrapper


from ._test_utils_env import getenv as getenv  # noqa: E402  (one definition, shared)
from ._test_utils_env import setenv as setenv  # noqa: E402
