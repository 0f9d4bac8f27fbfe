"""Module-level ``mx.sym`` helpers that MXNet writes in Python over registered operators:
``pow``/``power``, ``maximum``, ``minimum``, ``hypot`` (symbol or number on either side),
and the creation functions ``zeros``, ``ones``, ``full``, ``eye``, ``arange``, ``linspace``,
``histogram``, ``split_v2`` (float32 unless ``dtype`` says otherwise)."""

from __future__ import annotations

import builtins
import math
from numbers import Number
from typing import Any

import numpy as np

from ..base import MXNetError
from .symbol import Symbol

__all__ = [
    "pow",
    "power",
    "maximum",
    "minimum",
    "hypot",
    "eye",
    "zeros",
    "ones",
    "full",
    "arange",
    "linspace",
    "histogram",
    "split_v2",
]


def _internal(name: str) -> Any:
    from . import _internal as mod

    return getattr(mod, name)


def _dispatch(
    fname: str, left: Any, right: Any, sym_op: str, scalar_op: str, rscalar_op: str, num: Any
) -> Any:
    lsym, rsym = isinstance(left, Symbol), isinstance(right, Symbol)
    if lsym and rsym:
        return _internal(sym_op)(left, right)
    if lsym and isinstance(right, Number):
        return _internal(scalar_op)(left, scalar=right)
    if rsym and isinstance(left, Number):
        return _internal(rscalar_op)(right, scalar=left)
    if isinstance(left, Number) and isinstance(right, Number):
        return num(left, right)
    raise TypeError(
        f"mx.sym.{fname}: arguments must be Symbols or numbers, got "
        f"({type(left).__name__}, {type(right).__name__})."
    )


def pow(base: Any, exp: Any) -> Any:  # noqa: A001 (MXNet's name)
    """``base ** exp`` element-wise, either side a Symbol or a number.

    Parameters
    ----------
    base : Symbol or scalar
        The base.
    exp : Symbol or scalar
        The exponent.
    """
    return _dispatch(
        "pow", base, exp, "_Power", "_PowerScalar", "_rpower_scalar", lambda a, b: a**b
    )


def power(base: Any, exp: Any) -> Any:
    """Same as :func:`pow` (MXNet has both names)."""
    return _dispatch(
        "power", base, exp, "_Power", "_PowerScalar", "_rpower_scalar", lambda a, b: a**b
    )


def maximum(left: Any, right: Any) -> Any:
    """Element-wise maximum of two Symbols, or of a Symbol and a number.

    Parameters
    ----------
    left, right : Symbol or scalar
        The operands.
    """
    return _dispatch(
        "maximum", left, right, "_Maximum", "_MaximumScalar", "_MaximumScalar", builtins.max
    )


def minimum(left: Any, right: Any) -> Any:
    """Element-wise minimum of two Symbols, or of a Symbol and a number.

    Parameters
    ----------
    left, right : Symbol or scalar
        The operands.
    """
    return _dispatch(
        "minimum", left, right, "_Minimum", "_MinimumScalar", "_MinimumScalar", builtins.min
    )


def hypot(left: Any, right: Any) -> Any:
    """Element-wise ``sqrt(left**2 + right**2)``.

    Parameters
    ----------
    left, right : Symbol or scalar
        The legs.
    """
    return _dispatch("hypot", left, right, "_hypot", "_hypot_scalar", "_hypot_scalar", math.hypot)


def _dtype(dtype: Any) -> Any:
    return np.float32 if dtype is None else dtype


def eye(N: int, M: int = 0, k: int = 0, dtype: Any = None, **kwargs: Any) -> Symbol:  # noqa: N803
    """A 2-D symbol with ones on diagonal ``k`` (``M=0``: square).

    Parameters
    ----------
    N : int
        Rows.
    M : int, optional
        Columns; default 0 (same as N).
    k : int, optional
        Diagonal offset; default 0.
    dtype : str or numpy.dtype, optional
        Default float32.
    """
    return _internal("_eye")(N=N, M=M, k=k, dtype=_dtype(dtype), **kwargs)


def zeros(shape: Any, dtype: Any = None, **kwargs: Any) -> Symbol:
    """A symbol of zeros of ``shape`` (float32 unless ``dtype`` is given)."""
    return _internal("_zeros")(shape=shape, dtype=_dtype(dtype), **kwargs)


def ones(shape: Any, dtype: Any = None, **kwargs: Any) -> Symbol:
    """A symbol of ones of ``shape`` (float32 unless ``dtype`` is given)."""
    return _internal("_ones")(shape=shape, dtype=_dtype(dtype), **kwargs)


def full(shape: Any, val: float, dtype: Any = None, **kwargs: Any) -> Symbol:
    """A symbol of ``shape`` filled with ``val`` (float32 unless ``dtype`` is given)."""
    return _internal("_full")(shape=shape, dtype=_dtype(dtype), value=float(val), **kwargs)


def arange(
    start: float,
    stop: float | None = None,
    step: float = 1.0,
    repeat: int = 1,
    infer_range: bool = False,
    name: str | None = None,
    dtype: Any = None,
) -> Symbol:
    """Evenly spaced values in ``[start, stop)``, each repeated ``repeat`` times.

    Parameters
    ----------
    start : number
        Start (or the end, with ``stop`` None).
    stop : number, optional
        End, excluded.
    step : number, optional
        Spacing; default 1.0.
    repeat : int, optional
        Repeats of each value; default 1.
    infer_range : bool, optional
        Infer ``stop`` from the output shape; default False.
    name : str, optional
        Name of the node.
    dtype : str or numpy.dtype, optional
        Default float32.
    """
    return _internal("_arange")(
        start=start, stop=stop, step=step, repeat=repeat, infer_range=infer_range,
        name=name, dtype=_dtype(dtype),
    )  # fmt: skip


def linspace(
    start: float,
    stop: float,
    num: int,
    endpoint: bool = True,
    name: str | None = None,
    dtype: Any = None,
) -> Symbol:
    """``num`` evenly spaced values from ``start`` to ``stop`` (included with ``endpoint``)."""
    return _internal("_linspace")(
        start=start, stop=stop, num=num, endpoint=endpoint, name=name, dtype=_dtype(dtype)
    )


def histogram(a: Symbol, bins: Any = 10, range: Any = None, **kwargs: Any) -> Symbol:  # noqa: A002
    """Histogram of ``a``: ``bins`` a Symbol of edges, or a count with a ``range``.

    Parameters
    ----------
    a : Symbol
        The data.
    bins : int or Symbol, optional
        Bin count (needs ``range``) or bin edges; default 10.
    range : (float, float), optional
        Lower and upper edge when ``bins`` is a count.
    """
    if isinstance(bins, Symbol):
        return _internal("_histogram")(data=a, bins=bins, **kwargs)
    if isinstance(bins, int):
        if range is None:
            raise MXNetError("mx.sym.histogram: argument 'range' is required with a bin count.")
        return _internal("_histogram")(data=a, bin_cnt=bins, range=range, **kwargs)
    raise MXNetError(
        f"mx.sym.histogram: argument 'bins' must be an int or a Symbol, got {type(bins).__name__}."
    )


def split_v2(
    ary: Symbol, indices_or_sections: Any, axis: int = 0, squeeze_axis: bool = False
) -> Symbol:
    """Split ``ary`` along ``axis`` into equal sections (an int) or at indices (a tuple)."""
    if isinstance(indices_or_sections, int):
        indices, sections = (), indices_or_sections
    elif isinstance(indices_or_sections, tuple):
        indices, sections = (0, *indices_or_sections), 0
    else:
        raise MXNetError(
            "mx.sym.split_v2: argument 'indices_or_sections' must be an int or a tuple of "
            f"ints, got {type(indices_or_sections).__name__}."
        )
    return _internal("_split_v2")(
        ary, indices=indices, axis=axis, squeeze_axis=squeeze_axis, sections=sections
    )
