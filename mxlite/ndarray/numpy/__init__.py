"""``mx.nd.np``: the functions of ``mx.np`` (the same objects, found on first use, since
``mxlite.numpy`` sits above this package) and ``_internal``, a function for every ``_np*``
operator of the registry, as MXNet 1.9.1's ``mx.nd.numpy`` has them."""

from __future__ import annotations

import importlib
from typing import Any


def __getattr__(name: str) -> Any:
    if name == "_internal":
        module = importlib.import_module(__name__ + "._internal")
        globals()["_internal"] = module
        return module
    if name.startswith("__"):
        raise AttributeError(name)
    numpy = importlib.import_module("mxlite.numpy")
    try:
        return getattr(numpy, name)
    except AttributeError:
        raise AttributeError(f"module 'mxlite.ndarray.numpy' has no attribute {name!r}") from None
