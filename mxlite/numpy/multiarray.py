"""``mx.np.ndarray``: an NDArray with NumPy's semantics as MXNet 1.9.1 gives them.

Design note
-----------
The class adds no state to :class:`~mxlite.ndarray.NDArray`: same chunk, engine var and
operator path. An operator's fresh outputs become ``mx.np`` arrays by a change of class (no
copy); ``as_np_ndarray``/``as_nd_ndarray`` make a second Python object on the same chunk,
var and autograd entry. What differs is the front end: every method and operator calls the
``_np*`` operators of the registry (:func:`call`), so results keep NumPy's shapes (zero-dim
reductions and indexing), dtypes (bool comparisons, mixed-dtype promotion in
``operator/numpy/dtypes.py``) and printing (``array([1., 2.])``). Autograd records those calls
as any other; ``grad`` is an ``mx.np`` view of the gradient buffer.

Example::

    >>> x = mx.np.array([1, 2, 3])
    >>> (x * 2).sum()
    array(12.)
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..context import Context
from ..fileio import allow
from ..ndarray import NDArray
from ..ndarray import indexing as _nd_indexing
from ..ndarray import ndarray as _nd_ndarray
from ..ndarray.invoke import invoke
from ..ndarray.ndarray import array_from_numpy
from ..operator import registry
from ..operator.numpy.dtypes import FLOAT32
from ..operator.numpy.elemwise_binary import PY_OPERATORS
from ..symbol.numpy import _clip_bounds, np_symbol_call
from ..symbol.symbol import Symbol
from .dispatch import array_function, array_ufunc

__all__ = ["ndarray", "call", "as_np", "view_np", "binary", "is_tensor", "NUMERIC"]

NUMERIC = (int, float, bool, np.integer, np.floating, np.bool_)


def call(op_name: str, *inputs: NDArray, out: Any = None, ctx: Context | None = None,
         **params: Any) -> Any:  # fmt: skip
    """Run the registered operator ``op_name`` on ``inputs`` with ``params``; the outputs are
    ``mx.np`` arrays (one, or a list). On symbols (a hybridized block's ``F.np``), compose it
    instead: the same function then serves ``mx.np`` and ``mx.sym.np``."""
    if inputs and not isinstance(inputs[0], NDArray) and isinstance(inputs[0], Symbol):
        return np_symbol_call(op_name, *inputs, **params)  # an mx.np function on symbols
    cls = registry.get(op_name)
    prop = cls.get_prop(params)
    return as_np(invoke(prop, inputs, out, None, ctx))


def is_tensor(x: Any) -> bool:
    """Whether ``x`` is an array or a symbol (an operand the mx.np functions run on)."""
    return isinstance(x, (NDArray, Symbol))


def as_np(res: Any) -> Any:
    """Fresh operator outputs (an NDArray or a list of them) turned into ``mx.np`` arrays."""
    if isinstance(res, NDArray):
        if type(res) is NDArray:
            res.__class__ = ndarray
        return res
    if isinstance(res, (list, tuple)):
        return type(res)(as_np(r) for r in res)
    return res


def _view(x: NDArray, cls: type) -> Any:
    """A second object of class ``cls`` on ``x``'s chunk, data and autograd entry."""
    arr = cls.__new__(cls)
    arr._chunk = x._chunk
    arr._data = x._data
    arr.writable = x.writable
    arr._grad = x._grad
    arr._grad_req = x._grad_req
    arr._ag = x._ag
    arr._fresh_grad = x._fresh_grad
    return arr


def view_np(x: NDArray) -> ndarray:
    """``x`` as an ``mx.np`` array, no copy (``NDArray.as_np_ndarray``)."""
    return x if isinstance(x, ndarray) else _view(x, ndarray)


def binary(lhs: Any, rhs: Any, op: str, scalar_op: str, rscalar_op: str | None,
           out: Any = None) -> Any:  # fmt: skip
    """MXNet's ufunc helper: two arrays, an array and a scalar, or a scalar and an array
    (``rscalar_op``; None for a commutative operator). Symbols compose the same operators."""
    if is_tensor(lhs):
        if is_tensor(rhs):
            return call(op, lhs, rhs, out=out)
        if isinstance(rhs, NUMERIC):
            return call(scalar_op, lhs, out=out, scalar=float(rhs), is_int=_is_int(rhs))
    elif isinstance(lhs, NUMERIC):
        if is_tensor(rhs):
            name = rscalar_op or scalar_op
            return call(name, rhs, out=out, scalar=float(lhs), is_int=_is_int(lhs))
        if isinstance(rhs, NUMERIC):
            # two scalars: official NumPy's function of the operator's name, as MXNet's helper
            return getattr(np, op.removeprefix("_npi_"))(lhs, rhs)
    raise TypeError(
        f"{op}: operands must be mx.np arrays or Python/NumPy scalars, got "
        f"{type(lhs).__name__} and {type(rhs).__name__}."
    )


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer, np.bool_))


def _dunder(py: str, reflected: bool = False):
    op, scalar_op, rscalar_op = PY_OPERATORS[py]
    if reflected:

        def method(self: ndarray, other: Any) -> Any:
            return binary(other, self, op, scalar_op, rscalar_op)

    else:

        def method(self: ndarray, other: Any) -> Any:
            return binary(self, other, op, scalar_op, rscalar_op)

    method.operators = PY_OPERATORS[py]  # type: ignore[attr-defined]
    return method


def _inplace(py: str):
    op, scalar_op, _ = PY_OPERATORS[py]

    def method(self: ndarray, other: Any) -> Any:
        if not self.writable:
            raise ValueError("trying to add to a readonly ndarray")
        return binary(self, other, op, scalar_op, None, out=self)

    method.operators = PY_OPERATORS[py]  # type: ignore[attr-defined]
    return method


def _compare(py: str):
    op, scalar_op, rscalar_op = PY_OPERATORS[py]

    def method(self: ndarray, other: Any) -> Any:
        if other is None or not isinstance(other, (NDArray, *NUMERIC)):
            raise TypeError(f"type {type(other)} not supported")
        return binary(self, other, op, scalar_op, rscalar_op)

    method.operators = PY_OPERATORS[py]  # type: ignore[attr-defined]
    return method


def _shape_args(args: tuple) -> Any:
    """``f(2, 3)`` or ``f((2, 3))`` (NumPy's methods take both)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    if len(args) == 1 and args[0] is None:
        return None
    return tuple(args)


class ndarray(NDArray):  # noqa: N801  (MXNet's name)
    """An array with NumPy's semantics on a device, computed asynchronously
    (``mx.np.ndarray``). Create one with ``mx.np.array``, ``zeros``, ``ones``, ..."""

    __slots__ = ()

    # ---- attributes -----------------------------------------------------------------

    @property
    def dtype(self) -> np.dtype:  # type: ignore[override]
        """The element type, a ``numpy.dtype`` (``dtype('float32')``)."""
        return self._data.dtype

    @property
    def T(self) -> ndarray:  # type: ignore[override]
        """The array with its axes reversed."""
        return self.transpose()

    @property
    def grad(self) -> ndarray | None:  # type: ignore[override]
        """The gradient buffer attached by ``attach_grad``, as an ``mx.np`` array (None with
        ``grad_req='null'``, as MXNet gives it)."""
        g = self._grad
        return None if g is None or self._grad_req == "null" else view_np(g)

    @property
    def stype(self) -> str:
        return "default"

    # ---- conversions ----------------------------------------------------------------

    def as_nd_ndarray(self) -> NDArray:
        """The array as a classic ``mx.nd.NDArray``, no copy."""
        return _view(self, NDArray)

    def as_np_ndarray(self) -> ndarray:
        """This array itself."""
        return self

    def __array_function__(self, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
        """NumPy's function ``func`` called on mx.np arrays: mx.np's (see :mod:`.dispatch`)."""
        return array_function(ndarray, func, types, args, kwargs)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """NumPy's ufunc called on mx.np arrays: mx.np's (see :mod:`.dispatch`)."""
        return array_ufunc(ndarray, ufunc, method, inputs, kwargs)

    def item(self, *args: Any) -> Any:
        """A Python scalar: the only element, or the one at ``args`` (as ``numpy.ndarray.item``)."""
        return self.asnumpy().item(*args)

    def tolist(self) -> Any:
        """The array as nested Python lists of Python scalars."""
        return self.asnumpy().tolist()

    def asscalar(self) -> Any:
        raise AttributeError("mxnet.numpy.ndarray object has no attribute asscalar")

    def tostype(self, stype: str) -> Any:
        raise AttributeError("mxnet.numpy.ndarray object has no attribute tostype")

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        arr = self.asnumpy()
        return arr if dtype is None else arr.astype(dtype, copy=False)

    def astype(self, dtype: Any, order: str = "K", casting: str = "unsafe", subok: bool = True,
               copy: bool = True) -> ndarray:  # fmt: skip
        """The array cast to ``dtype``; without ``copy``, this array when the dtype matches."""
        dt = np.dtype(dtype if dtype is not None else FLOAT32)
        if not copy and dt == self._data.dtype:
            return self
        return call("_npi_cast", self, dtype=dt.name)

    def copy(self, order: str = "C") -> ndarray:
        """A copy of the array (C order only)."""
        if order != "C":
            raise NotImplementedError(
                f"ndarray.copy only supports order='C', while received {order}"
            )
        return call("_np_copy", self)

    def copyto(self, other: Any) -> Any:
        return as_np(super().copyto(other))

    def as_in_context(self, context: Context) -> ndarray:
        return self if self.context == context else self.copyto(context)

    as_in_ctx = as_in_context

    def detach(self) -> ndarray:
        return view_np(NDArray.detach(self))

    # ---- printing ---------------------------------------------------------------------

    def __repr__(self) -> str:
        arr = self.asnumpy()
        text = repr(arr)
        if arr.dtype == FLOAT32:
            text = re.sub(r",\s*dtype=float32", "", text)
        elif "dtype=" not in text:  # NumPy leaves out its defaults; MXNet's is float32
            if arr.dtype != np.bool_:
                text = text[:-1] + f", dtype={arr.dtype.name})"
        if self.context.device_type != "cpu":
            text = text[:-1] + f", ctx={self.context})"
        return text

    def __str__(self) -> str:
        text = str(self.asnumpy())
        if self.context.device_type != "cpu":
            text += f" @{self.context}"
        return text

    def __format__(self, spec: str) -> str:
        if not spec:
            return str(self)
        if self.ndim == 0:
            return format(self.item(), spec)
        raise TypeError("Cannot format mxnet.numpy.ndarray with format_spec")

    # ---- pickling ------------------------------------------------------------------------

    def __reduce__(self) -> Any:
        return (ndarray, (None,), self.__getstate__())

    # ---- Python protocol ------------------------------------------------------------------

    __hash__ = NDArray.__hash__

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __bool__(self) -> bool:
        n = self.size
        if n == 0:
            warnings.warn(
                "The truth value of an empty array is ambiguous. Returning False, but in "
                "future this will result in an error.",
                DeprecationWarning,
                stacklevel=2,
            )
            return False
        if n == 1:
            return bool(self.item())
        raise ValueError("The truth value of an ndarray with more than one element is ambiguous.")

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iu":
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self.item())

    # ---- indexing ------------------------------------------------------------------------

    def __getitem__(self, key: Any) -> ndarray:
        want = _np_index_shape(self.shape, key)
        res = _nd_indexing.getitem(self, key)
        if res is self:
            return self
        res = as_np(res)  # a fresh object: a view, a copy or a recorded result
        if res.shape != want:  # the legacy indexing gives (1,) where NumPy gives ()
            if res._ag is not None:
                return call("_np_reshape", res, newshape=want)
            res._data = res._data.reshape(want)
        return res

    def __setitem__(self, key: Any, value: Any) -> None:
        _nd_indexing.setitem(self, key, value)

    # ---- operators -------------------------------------------------------------------------

    def __matmul__(self, other: Any) -> ndarray:
        return call("_npi_matmul", self, other)

    def __rmatmul__(self, other: Any) -> ndarray:
        return call("_npi_matmul", other, self)

    def __neg__(self) -> ndarray:
        return call("_npi_negative", self)

    def __pos__(self) -> ndarray:
        return self

    def __abs__(self) -> ndarray:
        return call("_npi_absolute", self)

    def __invert__(self) -> ndarray:
        return call("_npi_bitwise_not", self)

    # ---- methods (NumPy's names and arguments) ------------------------------------------------

    def reshape(self, *args: Any, order: str = "C", **kwargs: Any) -> ndarray:  # type: ignore[override]
        """The array with a new shape (``a.reshape(2, 3)`` or ``a.reshape((2, 3))``)."""
        shape = _shape_args(args) if args else kwargs.pop("newshape", kwargs.pop("shape", None))
        if kwargs:
            raise TypeError(f"ndarray.reshape: unexpected arguments {sorted(kwargs)}")
        if shape is None:
            raise TypeError("ndarray.reshape: the new shape is missing")
        if isinstance(shape, int):
            shape = (shape,)
        return call("_np_reshape", self, newshape=tuple(shape), order=order)

    def reshape_view(self, *shape: Any, **kwargs: Any) -> ndarray:
        """A view of this array with a new shape by ``NDArray.reshape``'s rules (``0`` keeps a
        dimension, ``-1`` infers one, ``-2``/``-3``/``-4``, ``reverse=``), no data copied."""
        return NDArray.reshape(self, *shape, **kwargs).as_np_ndarray()

    def transpose(self, *axes: Any) -> ndarray:  # type: ignore[override]
        """The array with its axes permuted (reversed by default)."""
        perm = _shape_args(axes) if axes else None
        return call("_np_transpose", self, axes=perm)

    def swapaxes(self, axis1: int, axis2: int) -> ndarray:  # type: ignore[override]
        return call("_npi_swapaxes", self, dim1=axis1, dim2=axis2)

    def flatten(self, order: str = "C") -> ndarray:  # type: ignore[override]
        return call("_np_reshape", self, newshape=(-1,))

    def squeeze(self, axis: Any = None) -> ndarray:  # type: ignore[override]
        return call("_np_squeeze", self, axis=_axes(axis))

    def broadcast_to(self, shape: Any) -> ndarray:  # type: ignore[override]
        return call("_npi_broadcast_to", self, shape=tuple(shape))

    def repeat(self, repeats: int, axis: int | None = None) -> ndarray:  # type: ignore[override]
        return call("_np_repeat", self, repeats=repeats, axis=axis)

    def take(self, indices: Any, axis: int | None = None, mode: str = "raise") -> ndarray:  # type: ignore[override]
        if not isinstance(indices, NDArray):
            indices = as_np(array_from_numpy(np.asarray(indices, np.int64), self.context))
        src = self.reshape(-1) if axis is None else self
        return call("_npi_take", src, indices, axis=0 if axis is None else axis, mode=mode)

    def clip(self, min: Any = None, max: Any = None) -> ndarray:  # type: ignore[override]  # noqa: A002
        return call("_npi_clip", self, **_clip_bounds(min, max))

    def dot(self, b: Any) -> ndarray:  # type: ignore[override]
        return call("_np_dot", self, b)

    def sum(self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False,
            initial: Any = None) -> ndarray:  # type: ignore[override]  # fmt: skip
        return call("_np_sum", self, out=out, axis=_axes(axis), dtype=_dt(dtype),
                    keepdims=keepdims, initial=initial)  # fmt: skip

    def prod(self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False,
             initial: Any = None) -> ndarray:  # type: ignore[override]  # fmt: skip
        return call("_np_prod", self, out=out, axis=_axes(axis), dtype=_dt(dtype),
                    keepdims=keepdims, initial=initial)  # fmt: skip

    def mean(self, axis: Any = None, dtype: Any = None, out: Any = None,
             keepdims: bool = False) -> ndarray:  # type: ignore[override]  # fmt: skip
        return call("_npi_mean", self, out=out, axis=_axes(axis), dtype=_dt(dtype),
                    keepdims=keepdims)  # fmt: skip

    def max(self, axis: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:  # type: ignore[override]
        return call("_np_max", self, out=out, axis=_axes(axis), keepdims=keepdims)

    def min(self, axis: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:  # type: ignore[override]
        return call("_np_min", self, out=out, axis=_axes(axis), keepdims=keepdims)

    def std(self, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0,
            keepdims: bool = False) -> ndarray:  # fmt: skip
        return call("_npi_std", self, out=out, axis=_axes(axis), dtype=_dt(dtype), ddof=ddof,
                    keepdims=keepdims)  # fmt: skip

    def var(self, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0,
            keepdims: bool = False) -> ndarray:  # fmt: skip
        return call("_npi_var", self, out=out, axis=_axes(axis), dtype=_dt(dtype), ddof=ddof,
                    keepdims=keepdims)  # fmt: skip

    def argmax(self, axis: int | None = None, out: Any = None) -> ndarray:  # type: ignore[override]
        return call("_npi_argmax", self, out=out, axis=axis)

    def argmin(self, axis: int | None = None, out: Any = None) -> ndarray:  # type: ignore[override]
        return call("_npi_argmin", self, out=out, axis=axis)

    def all(self, axis: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:
        return call("_np_all", self, out=out, axis=_axes(axis), keepdims=keepdims)

    def any(self, axis: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:
        return call("_np_any", self, out=out, axis=_axes(axis), keepdims=keepdims)

    def cumsum(self, axis: int | None = None, dtype: Any = None, out: Any = None) -> ndarray:
        return call("_np_cumsum", self, out=out, axis=axis, dtype=_dt(dtype))

    def round(self, decimals: int = 0, out: Any = None) -> ndarray:  # type: ignore[override]
        return call("_npi_around", self, out=out, decimals=decimals)

    def argsort(self, axis: int = -1, kind: Any = None, order: Any = None) -> ndarray:  # type: ignore[override]
        return call("_npi_argsort", self, axis=axis, dtype="int64")

    def sort(self, axis: int = -1, kind: Any = None, order: Any = None) -> ndarray:  # type: ignore[override]
        return call("_npi_sort", self, axis=axis)

    def nonzero(self) -> tuple[ndarray, ...]:
        idx = np.nonzero(np.atleast_1d(self.asnumpy()))  # a zero-dim array as one element
        return tuple(as_np(array_from_numpy(i.astype(np.int64), self.context)) for i in idx)


def _axes(axis: Any) -> Any:
    if axis is None:
        return None
    if isinstance(axis, (int, np.integer)):
        return (int(axis),)
    return tuple(int(a) for a in axis)


def _dt(dtype: Any) -> str | None:
    return None if dtype is None else np.dtype(dtype).name


def _np_index_shape(shape: tuple[int, ...], key: Any) -> tuple[int, ...]:
    """The shape NumPy gives ``x[key]`` for an array of ``shape``, read from a zero-stride
    stand-in (no data is touched); index arrays count by their shape and dtype only."""

    def conv(k: Any) -> Any:
        if isinstance(k, NDArray):
            return k.asnumpy() if k._data.dtype == np.bool_ else _zeros_index(k.shape)
        if isinstance(k, (list, range)):
            arr = np.asarray(k)
            return arr if arr.dtype == np.bool_ else _zeros_index(arr.shape)
        if isinstance(k, np.ndarray) and k.dtype != np.bool_:
            return _zeros_index(k.shape)
        return k

    items = tuple(conv(k) for k in key) if isinstance(key, tuple) else conv(key)
    dummy = np.lib.stride_tricks.as_strided(np.zeros(1, np.uint8), shape, (0,) * len(shape))
    try:
        return dummy[items].shape
    except IndexError as exc:
        raise IndexError(f"index {key!r} is out of range for shape {shape}: {exc}") from None


def _zeros_index(shape: Sequence[int]) -> np.ndarray:
    return np.zeros(tuple(shape), dtype=np.int64)


def _not_in_np(name: str) -> Any:
    def method(self: ndarray, *args: Any, **kwargs: Any) -> Any:
        raise AttributeError(f"mxnet.numpy.ndarray object has no attribute {name}")

    method.__name__ = name
    return method


def _as_np_ndarray(self: NDArray) -> ndarray:
    """This array as an ``mx.np.ndarray``, no copy (same chunk, var and autograd entry)."""
    return view_np(self)


_nd_ndarray.extend(__name__, {"as_np_ndarray": _as_np_ndarray})
# MXNet's pickles name the class mxnet.numpy.ndarray
allow(ndarray, "mxnet.numpy.ndarray", "mxnet.numpy.multiarray.ndarray")
# Python's operators, from the operators' table: both orders for arithmetic and bitwise ones,
# in place for those MXNet's ndarray has, comparisons
for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor"):
    setattr(ndarray, f"__{_name}__", _dunder(_name))
    setattr(ndarray, f"__r{_name}__", _dunder(_name, reflected=True))
for _name in ("add", "sub", "mul", "truediv", "mod", "pow"):
    setattr(ndarray, f"__i{_name}__", _inplace(_name))
for _name in ("eq", "ne", "gt", "ge", "lt", "le"):
    setattr(ndarray, f"__{_name}__", _compare(_name))
# MXNet's Python 2 names for division
ndarray.__div__ = ndarray.__truediv__
ndarray.__rdiv__ = ndarray.__rtruediv__
ndarray.__idiv__ = ndarray.__itruediv__
# NDArray's methods that MXNet's mx.np.ndarray refuses: the operators' fluent methods (and
# split_v2) it does not define itself
for _name in (*registry.fluent_methods(), "split_v2"):
    if _name not in vars(ndarray):
        setattr(ndarray, _name, _not_in_np(_name))
del _name
