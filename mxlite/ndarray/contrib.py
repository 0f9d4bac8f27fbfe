"""mx.nd.contrib: the _contrib_* operators (filled in from the registry by mxlite.ndarray) and
MXNet's Python helpers of this module."""

from __future__ import annotations

import numpy as np

from .ndarray import NDArray

__all__ = ["isinf", "isfinite", "isnan"]


def isinf(data: NDArray) -> NDArray:
    """1 where ``data`` is +inf or -inf, else 0 (in ``data``'s dtype)."""
    return data.abs() == np.inf


def isfinite(data: NDArray) -> NDArray:
    """1 where ``data`` is neither infinite nor NaN, else 0."""
    return (data.abs() != np.inf) * (data == data)


def isnan(data: NDArray) -> NDArray:
    """1 where ``data`` is NaN, else 0."""
    return data != data
