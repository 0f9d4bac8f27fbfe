"""Functions generated from the registry for the NumPy front ends: ``mx.npx.<name>`` for
every ``_npx_<name>`` operator, and ``mx.nd.np._internal.<op>`` for every ``_np*`` operator.

A generated function is ``mx.nd``'s (``operator.front_end.make_function`` with ``mx.nd``'s
``KIND``: arrays positionally or by name, then the operator's parameters) whose outputs become
``mx.np`` arrays.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from ..ndarray.register import KIND
from ..operator import registry
from ..operator.front_end import make_function
from .multiarray import as_np

__all__ = ["np_function", "populate"]

NP_PREFIXES = ("_np_", "_npi_", "_npx_")


def np_function(reg_name: str, func_name: str) -> Any:
    """The function running the operator ``reg_name`` with ``mx.np`` outputs."""
    base = make_function(KIND, registry.get(reg_name), reg_name, func_name)

    def fn(*args: Any, **kwargs: Any) -> Any:
        return as_np(base(*args, **kwargs))

    fn.__name__ = fn.__qualname__ = func_name
    fn.__doc__ = base.__doc__
    fn.__signature__ = base.__signature__  # type: ignore[attr-defined]
    return fn


def populate(module: ModuleType, prefixes: tuple[str, ...], strip: bool) -> None:
    """Put a function into ``module`` for every operator whose name starts with one of
    ``prefixes`` (named without the prefix when ``strip``), unless ``module`` already has one
    of that name (hand-written ones win)."""
    for reg_name in registry.all_ops():
        prefix = next((p for p in prefixes if reg_name.startswith(p)), None)
        if prefix is None:
            continue
        short = reg_name[len(prefix) :] if strip else reg_name
        if short and short not in module.__dict__:
            setattr(module, short, np_function(reg_name, short))
