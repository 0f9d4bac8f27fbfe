"""``mx.sym.npx``: a symbol function for every ``_npx_<name>`` operator (as ``<name>``),
returning ``mx.sym.np._Symbol``s, as MXNet 1.9.1's ``mx.sym.npx`` has them."""

from __future__ import annotations

import sys
from typing import Any

from ...operator import registry
from ..numpy import np_symbol_call

__all__: list[str] = []


def _function(reg_name: str, func_name: str) -> Any:
    def fn(*args: Any, **kwargs: Any) -> Any:
        return np_symbol_call(reg_name, *args, **kwargs)

    fn.__name__ = fn.__qualname__ = func_name
    fn.__doc__ = registry.get(reg_name).__doc__
    return fn


def _populate() -> None:
    here = sys.modules[__name__]
    for reg_name in registry.all_ops():
        if reg_name.startswith("_npx_"):
            setattr(here, reg_name[len("_npx_") :], _function(reg_name, reg_name[len("_npx_") :]))


_populate()
