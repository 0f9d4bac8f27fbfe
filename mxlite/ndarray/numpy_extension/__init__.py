"""``mx.nd.npx``: the functions of ``mx.npx`` (the same objects, found on first use, since
``mxlite.numpy_extension`` sits above this package)."""

from __future__ import annotations

import importlib
from typing import Any


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    npx = importlib.import_module("mxlite.numpy_extension")
    try:
        return getattr(npx, name)
    except AttributeError:
        raise AttributeError(
            f"module 'mxlite.ndarray.numpy_extension' has no attribute {name!r}"
        ) from None
