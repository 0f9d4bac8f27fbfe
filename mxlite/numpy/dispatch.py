"""NumPy's dispatch protocols for ``mx.np.ndarray`` (NEP 18 ``__array_function__``, NEP 13
``__array_ufunc__``), as MXNet 1.9.1 has them: an official NumPy function or ufunc called on
``mx.np`` arrays runs ``mx.np``'s function of the same name when MXNet lists it below, and
otherwise NumPy's on copies of the inputs, its result returned as ``mx.np`` arrays.

The lists are MXNet's ``numpy_dispatch_protocol._NUMPY_ARRAY_FUNCTION_LIST`` and
``_NUMPY_ARRAY_UFUNC_LIST`` (NumPy's function names, with ``linalg.`` for that submodule).
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as onp

from ..autograd import is_recording
from ..base import MXNetError

__all__ = ["ARRAY_FUNCTIONS", "ARRAY_UFUNCS", "array_function", "array_ufunc"]

ARRAY_FUNCTIONS = tuple(
    """all any sometrue argmin argmax around round round_ argsort sort append broadcast_arrays
    broadcast_to clip concatenate copy cumsum diag diagonal diagflat dot expand_dims fix flip
    flipud fliplr inner insert max amax mean min amin nonzero ones_like atleast_1d atleast_2d
    atleast_3d prod product ravel repeat reshape roll split array_split hsplit vsplit dsplit
    squeeze stack std sum swapaxes take tensordot tile transpose unique unravel_index
    diag_indices_from delete var vdot vstack column_stack hstack dstack zeros_like linalg.norm
    linalg.cholesky linalg.inv linalg.solve linalg.tensorinv linalg.tensorsolve linalg.pinv
    linalg.eigvals linalg.eig linalg.eigvalsh linalg.eigh shape trace tril meshgrid outer einsum
    polyval shares_memory may_share_memory quantile percentile diff ediff1d resize where
    full_like bincount empty_like nan_to_num isnan isfinite isposinf isneginf isinf pad""".split()
)

ARRAY_UFUNCS = tuple(
    """abs fabs add arctan2 copysign degrees hypot lcm subtract multiply true_divide negative
    power mod matmul absolute rint sign exp log log2 log10 expm1 sqrt square cbrt reciprocal
    invert bitwise_not remainder sin cos tan sinh cosh tanh arcsin arccos arctan arcsinh arccosh
    arctanh maximum minimum ceil trunc floor bitwise_and bitwise_xor bitwise_or logical_not
    equal not_equal less less_equal greater greater_equal""".split()
)

# NumPy function -> mx.np function, built on first use (mx.np imports this module)
_FUNCTIONS: dict[Any, Any] = {}
_UFUNCS: dict[str, Any] = {}


def _lookup(module: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        module = getattr(module, part, None)
    return module


def _tables() -> tuple[dict[Any, Any], dict[str, Any]]:
    if not _FUNCTIONS:
        mx_np = importlib.import_module(__package__)
        for name in ARRAY_FUNCTIONS:
            theirs, ours = _lookup(onp, name), _lookup(mx_np, name)
            if theirs is not None and ours is not None:
                _FUNCTIONS[theirs] = ours
        for name in ARRAY_UFUNCS:
            ours = getattr(mx_np, name, None)
            if ours is not None:
                _UFUNCS[name] = ours
    return _FUNCTIONS, _UFUNCS


def _to_numpy(value: Any, cls: type) -> Any:
    if isinstance(value, cls):
        return value.asnumpy()
    if isinstance(value, (list, tuple)):
        return type(value)(_to_numpy(v, cls) for v in value)
    return value


def _to_mx(value: Any, ctx: Any) -> Any:
    mx_np = importlib.import_module(__package__)
    if isinstance(value, onp.ndarray):
        return mx_np.array(value, dtype=value.dtype, ctx=ctx)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_mx(v, ctx) for v in value)
    return value


def _fallback(what: str, func: Any, args: Any, kwargs: dict, cls: type, ctx: Any) -> Any:
    if is_recording():
        raise MXNetError(
            f"{what}: falling back to NumPy's {getattr(func, '__name__', func)} is not "
            "supported while autograd records; move it outside the autograd scope."
        )
    out = func(*_to_numpy(args, cls), **{k: _to_numpy(v, cls) for k, v in kwargs.items()})
    return _to_mx(out, ctx)


def _context(values: Any, cls: type) -> Any:
    for v in values:
        if isinstance(v, cls):
            return v.ctx
        if isinstance(v, (list, tuple)):
            found = _context(v, cls)
            if found is not None:
                return found
    return None


def array_function(cls: type, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
    """``mx.np.ndarray.__array_function__``: NumPy's ``func`` on ``mx.np`` arrays."""
    ours = _tables()[0].get(func)
    if ours is None:
        ctx = _context([*args, *kwargs.values()], cls)
        return _fallback("__array_function__", func, args, kwargs, cls, ctx)
    if not all(issubclass(t, cls) for t in types):
        return NotImplemented
    return ours(*args, **kwargs)


def array_ufunc(cls: type, ufunc: Any, method: str, inputs: tuple, kwargs: dict) -> Any:
    """``mx.np.ndarray.__array_ufunc__``: NumPy's ufunc ``ufunc`` on ``mx.np`` arrays."""
    if "out" in kwargs:
        out = kwargs["out"]
        if len(out) != 1:
            raise ValueError(f"{ufunc.__name__}: the `out` parameter must hold exactly one array")
        kwargs["out"] = out[0]
    if method != "__call__":
        return NotImplemented
    ours = _tables()[1].get(ufunc.__name__)
    if ours is None:
        ctx = _context(inputs, cls)
        return _fallback("__array_ufunc__", ufunc, inputs, kwargs, cls, ctx)
    return ours(*inputs, **kwargs)
