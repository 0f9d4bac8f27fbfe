"""The functions MXNet 1.9.1's ``mx.np`` hands to official NumPy (its ``fallback.py``): each
runs NumPy's function on the inputs' data and gives ``mx.np`` arrays back, on the context of
the first array argument; scalars stay scalars, as NumPy returns them.

They have no gradient: calling one while autograd records raises, as in MXNet. Names NumPy 2
dropped run their replacement (``alltrue``: ``all``, ``msort``: ``sort`` along axis 0,
``trapz``: ``trapezoid``, ``in1d``: ``isin`` of the flattened input); the financial functions
NumPy removed in 1.20 raise as they do under MXNet 1.9.1 with NumPy 1.23.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as onp

from .. import autograd
from ..context import Context
from ..ndarray import NDArray
from .creation import array

# MXNet 1.9.1's python/mxnet/numpy/fallback.py __all__ (84 names)
FALLBACK_NAMES = (
    "allclose alltrue apply_along_axis apply_over_axes argpartition argwhere array_equal "
    "array_equiv choose compress corrcoef correlate count_nonzero cov digitize divmod extract "
    "flatnonzero float_power frexp heaviside histogram2d histogram_bin_edges histogramdd i0 in1d "
    "interp intersect1d isclose isin ix_ lexsort min_scalar_type mirr modf msort nanargmax "
    "nanargmin nancumprod nancumsum nanmax nanmedian nanmin nanpercentile nanprod nanquantile "
    "ndim npv partition piecewise packbits poly polyadd polydiv polyfit polyint polymul polysub "
    "positive ppmt promote_types ptp pv rate real result_type rollaxis roots searchsorted select "
    "setdiff1d setxor1d signbit size spacing take_along_axis trapz tril_indices_from trim_zeros "
    "triu_indices_from union1d unpackbits unwrap vander"
).split()

# MXNet 1.9.1's python/mxnet/numpy/fallback_linalg.py __all__
LINALG_FALLBACK_NAMES = ("cond", "lstsq", "matrix_power", "matrix_rank", "multi_dot", "qr")

_FINANCIAL = ("mirr", "npv", "ppmt", "pv", "rate")


def _in1d(ar1: Any, ar2: Any, assume_unique: bool = False, invert: bool = False) -> Any:
    return onp.isin(onp.ravel(ar1), ar2, assume_unique=assume_unique, invert=invert)


def _msort(a: Any) -> Any:
    return onp.sort(a, axis=0)


def _removed(name: str) -> Callable:
    def expired(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            f"numpy.{name} was removed from NumPy in version 1.20 (it lives in "
            f"the numpy_financial package); mx.np.{name} is not available."
        )

    return expired


def _numpy_function(name: str, module: Any = onp) -> Callable:
    replacement = {"alltrue": onp.all, "msort": _msort, "trapz": getattr(onp, "trapezoid", None),
                   "in1d": _in1d}  # fmt: skip
    fn = getattr(module, name, None) or replacement.get(name)
    return fn if fn is not None else _removed(name)


def _to_numpy(x: Any, found: list) -> Any:
    if isinstance(x, NDArray):
        found.append(x.context)
        return x.asnumpy()
    if isinstance(x, (list, tuple)):
        return type(x)(_to_numpy(v, found) for v in x)
    return x


def _to_mx(x: Any, ctx: Context | None) -> Any:
    if isinstance(x, onp.ndarray):
        return array(onp.ascontiguousarray(x), dtype=x.dtype, ctx=ctx)
    if isinstance(x, (list, tuple)):  # NumPy 2's named results (QRResult, ...) as tuples
        return (list if isinstance(x, list) else tuple)(_to_mx(v, ctx) for v in x)
    return x


def fallback(name: str, module: Any = onp, prefix: str = "") -> Callable:
    """``mx.np.<name>``: NumPy's ``module.<name>`` on the data of ``mx.np`` arrays."""
    fn = _numpy_function(name, module)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if autograd.is_recording():
            raise ValueError(f"Falling back to NumPy operator {prefix}{name} with autograd "
                             "active is not supported. Please consider moving the operator "
                             "to the outside of the autograd scope.")  # fmt: skip
        found: list = []
        args = _to_numpy(args, found)
        kwargs = {k: _to_numpy(v, found) for k, v in kwargs.items()}
        return _to_mx(fn(*args, **kwargs), found[0] if found else None)

    wrapper.__name__ = name
    wrapper.__qualname__ = name
    wrapper.__module__ = "mxlite.numpy"
    # NumPy's own docstring would run its examples (on NumPy arrays) as this module's doctests
    wrapper.__doc__ = (
        f"Official NumPy's ``{module.__name__}.{name}`` on the data of ``mx.np`` arrays, "
        "returning ``mx.np`` arrays on the first array's context (MXNet's fallback; not "
        "recorded by autograd). See NumPy's documentation for the parameters."
    )
    try:
        wrapper.__signature__ = inspect.signature(fn)  # type: ignore[attr-defined]
    except (TypeError, ValueError):  # some ufuncs and builtins have none
        pass
    return wrapper


# the functions themselves, as MXNet's mxnet/numpy/fallback.py holds them (mx.np re-exports)
__all__ = list(FALLBACK_NAMES)
for _name in FALLBACK_NAMES:
    globals()[_name] = fallback(_name)
del _name
