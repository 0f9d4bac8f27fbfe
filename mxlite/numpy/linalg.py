"""``mx.np.linalg``: ``norm`` (vector norms, the Frobenius and nuclear-free matrix norms) built
from the registered operators, so autograd sees it."""

from __future__ import annotations

from typing import Any

from ..base import MXNetError
from .multiarray import _axes, call, ndarray

__all__ = ["norm"]


def norm(x: ndarray, ord: Any = None, axis: Any = None, keepdims: bool = False) -> ndarray:  # noqa: A002
    """The norm of ``x``: the 2-norm of the flattened array by default, a vector norm along
    an int ``axis`` (``ord`` None/2, 1, inf, -inf, 0 or p), or the Frobenius norm ('fro')
    over two axes."""
    axes = _axes(axis)
    if ord in (None, "fro", 2) and (axes is None or len(axes) <= 2):
        if ord == 2 and axes is not None and len(axes) == 2:
            raise MXNetError("norm: ord=2 over two axes (the spectral norm) is not supported.")
        return call("_npi_sqrt", call("_np_sum", x * x, axis=axes, keepdims=keepdims))
    if axes is not None and len(axes) != 1:
        raise MXNetError(f"norm: ord={ord!r} needs one axis, got axis={axis!r}.")
    a = abs(x)
    if ord == 1:
        return call("_np_sum", a, axis=axes, keepdims=keepdims)
    if ord == float("inf"):
        return call("_np_max", a, axis=axes, keepdims=keepdims)
    if ord == float("-inf"):
        return call("_np_min", a, axis=axes, keepdims=keepdims)
    if ord == 0:
        return call("_np_sum", (a != 0).astype(x.dtype), axis=axes, keepdims=keepdims)
    if isinstance(ord, (int, float)):
        s = call("_np_sum", a ** float(ord), axis=axes, keepdims=keepdims)
        return s ** (1.0 / float(ord))
    raise MXNetError(f"norm: argument 'ord' {ord!r} is not supported.")
