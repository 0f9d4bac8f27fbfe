"""``mx.sym.np``: symbols of MXNet's NumPy interface. :class:`_Symbol` is a Symbol whose
arithmetic runs the ``_npi_*`` operators; ``_internal`` has a function for every ``_np*``
operator of the registry, and this module one for every ``_np_<name>`` (as ``<name>``) and a
few creation functions, each returning a ``_Symbol``."""

from __future__ import annotations

import sys
from typing import Any

import numpy as _onp

from ...operator import registry
from .. import compose
from ..symbol import Symbol
from . import _internal as _internal

__all__ = ["_Symbol", "as_np_symbol", "zeros", "ones"]

_NUMERIC = (int, float, bool, _onp.integer, _onp.floating, _onp.bool_)


def _binary(op: str, scalar_op: str, rscalar_op: str | None = None, reflected: bool = False):
    def method(self: _Symbol, other: Any) -> _Symbol:
        if isinstance(other, Symbol):
            args = (other, self) if reflected else (self, other)
            return _make(op, *args)
        if isinstance(other, _NUMERIC):
            name = (rscalar_op or scalar_op) if reflected else scalar_op
            is_int = isinstance(other, (int, _onp.integer))
            return _make(name, self, scalar=float(other), is_int=is_int)
        raise TypeError(f"{op}: operand of type {type(other).__name__} is not supported.")

    return method


def _make(op: str, *args: Any, **kwargs: Any) -> _Symbol:
    return _Symbol(compose.create(op, op, args, kwargs))


class _Symbol(Symbol):
    """A symbol with NumPy's operator semantics (``mx.sym.np._Symbol``)."""

    __slots__ = ()

    __add__ = _binary("_npi_add", "_npi_add_scalar")
    __radd__ = _binary("_npi_add", "_npi_add_scalar", reflected=True)
    __sub__ = _binary("_npi_subtract", "_npi_subtract_scalar", "_npi_rsubtract_scalar")
    __rsub__ = _binary(
        "_npi_subtract", "_npi_subtract_scalar", "_npi_rsubtract_scalar", reflected=True
    )
    __mul__ = _binary("_npi_multiply", "_npi_multiply_scalar")
    __rmul__ = _binary("_npi_multiply", "_npi_multiply_scalar", reflected=True)
    __truediv__ = _binary("_npi_true_divide", "_npi_true_divide_scalar", "_npi_rtrue_divide_scalar")
    __rtruediv__ = _binary(
        "_npi_true_divide", "_npi_true_divide_scalar", "_npi_rtrue_divide_scalar", reflected=True
    )
    __mod__ = _binary("_npi_mod", "_npi_mod_scalar", "_npi_rmod_scalar")
    __pow__ = _binary("_npi_power", "_npi_power_scalar", "_npi_rpower_scalar")

    def __neg__(self) -> _Symbol:
        return _make("_npi_negative", self)

    def as_nd_ndarray(self) -> Symbol:
        """This symbol as a classic ``mx.sym.Symbol``."""
        return Symbol(self._entries)

    def as_np_ndarray(self) -> _Symbol:
        return self


def as_np_symbol(sym: Symbol) -> _Symbol:
    """``sym`` as a ``_Symbol`` (the same outputs, NumPy operator semantics)."""
    return sym if isinstance(sym, _Symbol) else _Symbol(sym._entries)


def zeros(shape: Any, dtype: Any = "float32", **kwargs: Any) -> _Symbol:
    """A symbol of zeros of ``shape``."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return _make("_npi_zeros", shape=shape, dtype=_onp.dtype(dtype).name, **kwargs)


def ones(shape: Any, dtype: Any = "float32", **kwargs: Any) -> _Symbol:
    """A symbol of ones of ``shape``."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return _make("_npi_ones", shape=shape, dtype=_onp.dtype(dtype).name, **kwargs)


def _symbol_function(reg_name: str, func_name: str) -> Any:
    def fn(*args: Any, **kwargs: Any) -> _Symbol:
        return _make(reg_name, *args, **kwargs)

    fn.__name__ = fn.__qualname__ = func_name
    fn.__doc__ = registry.get(reg_name).__doc__
    return fn


def _populate() -> None:
    here, internal = sys.modules[__name__], _internal
    for reg_name in registry.all_ops():
        if not reg_name.startswith(("_np_", "_npi_", "_npx_")):
            continue
        setattr(internal, reg_name, _symbol_function(reg_name, reg_name))
        short = reg_name[len("_np_") :]
        if reg_name.startswith("_np_") and short not in here.__dict__:
            setattr(here, short, _symbol_function(reg_name, short))


_populate()
