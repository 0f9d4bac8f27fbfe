"""``mx.sym.<op>`` functions, one per registry entry: the ``mx.sym`` :class:`FrontEnd` of
mxlite/operator/front_end.py (which places them as MXNet names them), whose calls compose a
node; and MXNet's fluent methods of Symbol.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from ..ndarray.register import SUBMODULES
from ..operator import front_end, registry
from ..operator.front_end import FrontEnd
from . import compose
from .symbol import Symbol

__all__ = ["KIND", "populate", "install_methods"]


def _build(cls: type, reg_name: str, func_name: str) -> Any:
    def fn(*args: Any, **kwargs: Any) -> Symbol:
        return Symbol(compose.create(reg_name, func_name, args, kwargs))

    return fn


KIND = FrontEnd(
    build=_build,
    keywords=("name", "attr", "out"),
    doc_tail=(
        "name : string, optional.",
        "    Name of the resulting symbol.",
        "attr : dict of str to str, optional.",
        "    Attributes of the resulting symbol.",
        "",
        "Returns",
        "-------",
        "Symbol",
        "    The result symbol.",
    ),
)


def populate(root: ModuleType) -> None:
    """Put an ``mx.sym`` function for every registered operator name into ``root``
    (``mx.sym``) and its submodules (those of ``mx.nd``)."""
    front_end.populate(root, {name: getattr(root, name) for name in SUBMODULES}, KIND)


def install_methods(root: ModuleType) -> None:
    """Add MXNet's fluent methods (``sym.reshape(...)``, ``sym.sum(...)``) to Symbol: those the
    operators declare (``OperatorProperty.fluent``), as NDArray has them."""
    for name in registry.fluent_methods():
        if registry.find(name) is None or name in Symbol.__dict__:
            continue
        setattr(Symbol, name, _fluent(root, name))
    if "astype" not in Symbol.__dict__:  # MXNet's Symbol.astype is its cast operator
        astype = _fluent(root, "cast")
        astype.__name__ = "astype"
        Symbol.astype = astype  # type: ignore[attr-defined]


def _fluent(root: ModuleType, name: str) -> Any:
    def method(self: Symbol, *args: Any, **kwargs: Any) -> Symbol:
        return getattr(root, name)(self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"Convenience fluent method for :py:func:`{name}`."
    return method
