"""``mx.sym.np``: symbols of MXNet's NumPy interface. :class:`_Symbol` is a Symbol whose
arithmetic runs the ``_npi_*`` operators; ``_internal`` has a function for every ``_np*``
operator of the registry, and this module one for every ``_np_<name>`` (as ``<name>``) and a
few creation functions, each returning a ``_Symbol``."""

from __future__ import annotations

import sys
from typing import Any

import numpy as _onp

from ...base import add_members as _add_members
from ...operator import front_end
from ...operator.front_end import FrontEnd
from ...operator.numpy import is_np_op
from ...operator.numpy.elemwise_binary import PY_OPERATORS
from ...operator.numpy.init import arange_bounds
from .. import compose
from .. import register as _sym_register
from .. import symbol as _symbol_module
from ..symbol import Symbol
from . import _internal as _internal

__all__ = [
    "_Symbol",
    "as_np_symbol",
    "np_symbol_call",
    "zeros",
    "ones",
    "full",
    "identity",
    "eye",
    "arange",
    "broadcast_to",
]

_NUMERIC = (int, float, bool, _onp.integer, _onp.floating, _onp.bool_)


def _binary(ops: tuple[str, str, str | None], reflected: bool = False):
    """A method of a symbol and another operand from ``ops``: the operator of two symbols, of a
    symbol and a scalar, and of a scalar and a symbol (None: the second serves)."""
    op, scalar_op, rscalar_op = ops

    def method(self: _Symbol, other: Any) -> _Symbol:
        if isinstance(other, Symbol):
            args = (other, self) if reflected else (self, other)
            return _make(op, *args)
        if isinstance(other, _NUMERIC):
            name = (rscalar_op or scalar_op) if reflected else scalar_op
            is_int = isinstance(other, (int, _onp.integer))
            return _make(name, self, scalar=float(other), is_int=is_int)
        raise TypeError(f"{op}: operand of type {type(other).__name__} is not supported.")

    method.operators = ops  # type: ignore[attr-defined]
    return method


def _axes(axis: Any) -> Any:
    if axis is None:
        return None
    return (int(axis),) if isinstance(axis, (int, _onp.integer)) else tuple(axis)


def _clip_bounds(a_min: Any, a_max: Any) -> dict[str, float]:
    """``_npi_clip``'s bounds for the method ``clip(min, max)`` of ``np`` arrays and symbols:
    a missing one is infinite; both missing is an error, as in MXNet."""
    if a_min is None and a_max is None:
        raise ValueError("clip: array_clip: must set either max or min")
    return {
        "a_min": float("-inf") if a_min is None else float(a_min),
        "a_max": float("inf") if a_max is None else float(a_max),
    }


def _make(op: str, *args: Any, **kwargs: Any) -> _Symbol:
    # a None is kept, as MXNet does: compose skips it for a dtype or an input and writes it
    # for a parameter whose default is not None (concatenate's axis=None)
    return _Symbol(compose.create(op, op, args, kwargs))


def np_symbol_call(op: str, *args: Any, **params: Any) -> Any:
    """The operator ``op`` composed on symbols ``args``: a ``_Symbol``, or a list of them for an
    operator with several outputs (what ``mx.np`` functions give on symbols)."""
    name = params.pop("_func_name", op)
    entries = compose.create(op, name, args, params)
    if len(entries) == 1:
        return _Symbol(entries)
    return [_Symbol([e]) for e in entries]


class _Symbol(Symbol):
    """A symbol with NumPy's operator semantics (``mx.sym.np._Symbol``)."""

    __slots__ = ()

    __hash__ = Symbol.__hash__

    def __matmul__(self, other: Symbol) -> _Symbol:
        return _make("_npi_matmul", self, other)

    def __abs__(self) -> _Symbol:
        return _make("_npi_absolute", self)

    def __neg__(self) -> _Symbol:
        return _make("_npi_negative", self)

    # ---- NumPy's methods, as mx.np.ndarray has them -------------------------------------

    @property
    def T(self) -> _Symbol:  # noqa: N802
        """The symbol with its axes reversed."""
        return self.transpose()

    def transpose(self, *axes: Any) -> _Symbol:  # type: ignore[override]
        perm = tuple(axes[0]) if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        return _make("_np_transpose", self, axes=perm or None)

    def reshape(self, *shape: Any, order: str = "C", **kwargs: Any) -> _Symbol:  # type: ignore[override]
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return _make("_np_reshape", self, newshape=tuple(shape), order=order)

    def flatten(self, order: str = "C") -> _Symbol:  # type: ignore[override]
        return self.reshape(-1)

    def astype(self, dtype: Any, copy: bool = True) -> _Symbol:  # type: ignore[override]
        return _make("_npi_cast", self, dtype=_onp.dtype(dtype).name)

    def dot(self, b: Symbol) -> _Symbol:  # type: ignore[override]
        return _make("_np_dot", self, b)

    def squeeze(self, axis: Any = None) -> _Symbol:  # type: ignore[override]
        return _make("_np_squeeze", self, axis=_axes(axis))

    def repeat(self, repeats: int, axis: int | None = None) -> _Symbol:  # type: ignore[override]
        return _make("_np_repeat", self, repeats=repeats, axis=axis)

    def swapaxes(self, axis1: int, axis2: int) -> _Symbol:  # type: ignore[override]
        return _make("_npi_swapaxes", self, dim1=axis1, dim2=axis2)

    def take(self, indices: Symbol, axis: int | None = None, mode: str = "raise") -> _Symbol:  # type: ignore[override]
        src = self.reshape(-1) if axis is None else self
        return _make("_npi_take", src, indices, axis=0 if axis is None else axis, mode=mode)

    def sum(self, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> _Symbol:  # type: ignore[override]
        dt = None if dtype is None else _onp.dtype(dtype).name
        return _make("_np_sum", self, axis=_axes(axis), dtype=dt, keepdims=keepdims)

    def mean(self, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> _Symbol:  # type: ignore[override]
        dt = None if dtype is None else _onp.dtype(dtype).name
        return _make("_npi_mean", self, axis=_axes(axis), dtype=dt, keepdims=keepdims)

    def max(self, axis: Any = None, keepdims: bool = False) -> _Symbol:  # type: ignore[override]
        return _make("_np_max", self, axis=_axes(axis), keepdims=keepdims)

    def min(self, axis: Any = None, keepdims: bool = False) -> _Symbol:  # type: ignore[override]
        return _make("_np_min", self, axis=_axes(axis), keepdims=keepdims)

    def prod(self, axis: Any = None, keepdims: bool = False) -> _Symbol:  # type: ignore[override]
        return _make("_np_prod", self, axis=_axes(axis), keepdims=keepdims)

    def std(self, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0,
            keepdims: bool = False) -> _Symbol:  # fmt: skip
        dt = None if dtype is None else _onp.dtype(dtype).name
        return _make("_npi_std", self, axis=_axes(axis), dtype=dt, ddof=ddof, keepdims=keepdims)

    def var(self, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0,
            keepdims: bool = False) -> _Symbol:  # fmt: skip
        dt = None if dtype is None else _onp.dtype(dtype).name
        return _make("_npi_var", self, axis=_axes(axis), dtype=dt, ddof=ddof, keepdims=keepdims)

    def cumsum(self, axis: int | None = None, dtype: Any = None, out: Any = None) -> _Symbol:
        dt = None if dtype is None else _onp.dtype(dtype).name
        return _make("_np_cumsum", self, axis=axis, dtype=dt)

    def argmax(self, axis: int | None = None, out: Any = None) -> _Symbol:  # type: ignore[override]
        return _make("_npi_argmax", self, axis=axis)

    def argmin(self, axis: int | None = None, out: Any = None) -> _Symbol:  # type: ignore[override]
        return _make("_npi_argmin", self, axis=axis)

    def argsort(self, axis: int | None = -1, kind: Any = None, order: Any = None) -> _Symbol:  # type: ignore[override]
        src = self.reshape(-1) if axis is None else self
        return _make("_npi_argsort", src, axis=-1 if axis is None else axis, dtype="int64")

    def sort(self, axis: int | None = -1, kind: Any = None, order: Any = None) -> _Symbol:  # type: ignore[override]
        src = self.reshape(-1) if axis is None else self
        return _make("_npi_sort", src, axis=-1 if axis is None else axis)

    def clip(self, min: Any = None, max: Any = None) -> _Symbol:  # type: ignore[override]  # noqa: A002
        return _make("_npi_clip", self, **_clip_bounds(min, max))

    def round(self, decimals: int = 0, out: Any = None) -> _Symbol:  # type: ignore[override]
        return _make("_npi_around", self, decimals=decimals)

    def __getitem__(self, key: Any) -> Any:
        """Basic NumPy indexing (integers, slices, None) of a single-output symbol; on a
        symbol of several outputs, an integer or a name picks an output (``Symbol``'s rule)."""
        if isinstance(key, str) or len(self) > 1:
            return super().__getitem__(key)
        return _basic_index(self, key if isinstance(key, tuple) else (key,))

    def as_nd_ndarray(self) -> Symbol:
        """This symbol as a classic ``mx.sym.Symbol``."""
        return Symbol(self._entries)

    def as_np_ndarray(self) -> _Symbol:
        return self


def _basic_index(sym: _Symbol, key: tuple) -> _Symbol:
    """``sym[key]`` for a tuple of integers, slices and None: one ``_npi_slice`` over the
    leading axes, an ``_npx_reshape`` dropping the integer-indexed axes (code -3; -2 keeps an
    axis, -4 the rest), then ``_npi_expand_dims`` for each None."""
    if not key:
        return sym
    begin: list = []
    end: list = []
    step: list = []
    codes: list[int] = []
    new_axes: list[int] = []
    for k in key:
        if k is None:
            new_axes.append(codes.count(-2) + len(new_axes))
        elif isinstance(k, slice):
            begin.append(k.start)
            end.append(k.stop)
            step.append(1 if k.step is None else k.step)
            codes.append(-2)
        elif isinstance(k, (int, _onp.integer)) and not isinstance(k, bool):
            begin.append(int(k))
            end.append(int(k) + 1 if k != -1 else None)
            step.append(1)
            codes.append(-3)
        else:
            raise IndexError(f"_Symbol.__getitem__: only integers, slices and None index a "
                             f"symbol, got {type(k).__name__} in {key!r}")  # fmt: skip
    out = _make("_npi_slice", sym, begin=tuple(begin), end=tuple(end), step=tuple(step))
    if -3 in codes:
        out = _make("_npx_reshape", out, newshape=(*codes, -4))
    for axis in new_axes:
        out = _make("_npi_expand_dims", out, axis=axis)
    return out


def as_np_symbol(sym: Symbol) -> _Symbol:
    """``sym`` as a ``_Symbol`` (the same outputs, NumPy operator semantics)."""
    return sym if isinstance(sym, _Symbol) else _Symbol(sym._entries)


def _shape(shape: Any) -> tuple:
    return (int(shape),) if isinstance(shape, (int, _onp.integer)) else tuple(shape)


def _dt(dtype: Any) -> str:
    return _onp.dtype("float32" if dtype is None else dtype).name


def zeros(shape: Any, dtype: Any = None, order: str = "C", ctx: Any = None,
          **kwargs: Any) -> _Symbol:  # fmt: skip
    """A symbol of zeros of ``shape`` (float32 by default)."""
    return _make("_npi_zeros", shape=_shape(shape), dtype=_dt(dtype), **kwargs)


def ones(shape: Any, dtype: Any = None, order: str = "C", ctx: Any = None,
         **kwargs: Any) -> _Symbol:  # fmt: skip
    """A symbol of ones of ``shape`` (float32 by default)."""
    return _make("_npi_ones", shape=_shape(shape), dtype=_dt(dtype), **kwargs)


def full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C", ctx: Any = None,
         **kwargs: Any) -> _Symbol:  # fmt: skip
    """A symbol of ``shape`` filled with ``fill_value`` (float32 by default, bool for a bool
    value); a symbol ``fill_value`` is broadcast to ``shape``."""
    if isinstance(fill_value, Symbol):
        res = broadcast_to(fill_value, shape)
        return res if dtype is None else res.astype(dtype)
    if dtype is None and isinstance(fill_value, (bool, _onp.bool_)):
        dtype = bool
    return _make("_npi_full", shape=_shape(shape), value=float(fill_value), dtype=_dt(dtype),
                 **kwargs)  # fmt: skip


def broadcast_to(array: Any, shape: Any) -> _Symbol:  # noqa: A002
    """``array`` broadcast to ``shape``; a scalar gives ``full(shape, array)``."""
    if isinstance(array, _NUMERIC):
        return full(shape, array)
    return _make("_npi_broadcast_to", array, shape=_shape(shape))


def identity(n: int, dtype: Any = None, ctx: Any = None, **kwargs: Any) -> _Symbol:
    """The n x n identity matrix."""
    return _make("_npi_identity", shape=(n, n), dtype=_dt(dtype), **kwargs)


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None, ctx: Any = None,  # noqa: N803
        **kwargs: Any) -> _Symbol:  # fmt: skip
    """A 2-D symbol with ones on the k-th diagonal."""
    return _make("_npi_eye", N=N, M=M, k=k, dtype=_dt(dtype), **kwargs)


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None, ctx: Any = None,
           **kwargs: Any) -> _Symbol:  # fmt: skip
    """Evenly spaced values in [start, stop) (float32 by default; a step of None is 1)."""
    start, stop, step = arange_bounds(start, stop, step)
    return _make("_npi_arange", start=start, stop=stop, step=step, dtype=_dt(dtype), **kwargs)


def _ufunc(name: str, ops: tuple[str, str, str | None]) -> Any:
    fwd = _binary(ops)
    rev = _binary(ops, reflected=True)

    def fn(x1: Any, x2: Any, out: Any = None) -> _Symbol:
        if isinstance(x1, Symbol):
            return fwd(as_np_symbol(x1), x2)
        return rev(as_np_symbol(x2), x1)

    fn.__name__ = fn.__qualname__ = name
    return fn


add = _ufunc("add", PY_OPERATORS["add"])
subtract = _ufunc("subtract", PY_OPERATORS["sub"])
multiply = _ufunc("multiply", PY_OPERATORS["mul"])
true_divide = _ufunc("true_divide", PY_OPERATORS["truediv"])
divide = true_divide
mod = _ufunc("mod", PY_OPERATORS["mod"])
power = _ufunc("power", PY_OPERATORS["pow"])
maximum = _ufunc("maximum", ("_npi_maximum", "_npi_maximum_scalar", None))
minimum = _ufunc("minimum", ("_npi_minimum", "_npi_minimum_scalar", None))


def _build(cls: type, reg_name: str, func_name: str) -> Any:
    def fn(*args: Any, **kwargs: Any) -> Any:
        return np_symbol_call(reg_name, *args, _func_name=func_name, **kwargs)

    return fn


# mx.sym.np's generated functions: sym.np's calls compose _Symbols
KIND = FrontEnd(build=_build, keywords=_sym_register.KIND.keywords,
                doc_tail=_sym_register.KIND.doc_tail)  # fmt: skip


def provide(owner: str, members: dict[str, Any]) -> None:
    """Add to ``mx.sym.np`` the functions that ``owner``, a module above this layer, implements
    (``mx.np``'s functions compose on symbols too): the one place where this module is given
    names from outside its own file."""
    _add_members(globals(), "mx.sym.np", owner, members)


def _as_np_ndarray(self: Symbol) -> _Symbol:
    """This symbol with NumPy operator semantics (an ``mx.sym.np._Symbol``)."""
    return as_np_symbol(self)


_symbol_module.extend(__name__, {"as_np_ndarray": _as_np_ndarray})
# Python's operators, from the operators' table: both orders for arithmetic (MXNet's _Symbol
# has no floor division, bitwise or in-place ones), comparisons
for _name in ("add", "sub", "mul", "truediv", "mod", "pow"):
    setattr(_Symbol, f"__{_name}__", _binary(PY_OPERATORS[_name]))
    setattr(_Symbol, f"__r{_name}__", _binary(PY_OPERATORS[_name], reflected=True))
for _name in ("eq", "ne", "gt", "ge", "lt", "le"):
    setattr(_Symbol, f"__{_name}__", _binary(PY_OPERATORS[_name]))
del _name
front_end.populate(
    sys.modules[__name__],
    {"_internal": _internal, "np": sys.modules[__name__]},
    KIND,
    prefixes=(("_np_", "np"), ("_npi_", "_internal")),  # _internal.X is _npi_X, as in MXNet
    include=is_np_op,
)
