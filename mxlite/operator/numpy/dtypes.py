"""The dtype rules of MXNet 1.9.1's NumPy operators, in one place.

* Two arrays of different dtypes (``_npi_add`` and the other broadcast arithmetic): a bool
  operand takes the other's dtype; an integer meets a float: the float; two floats or two
  integers: the wider (NumPy's promotion).
* True division of integers or bools gives float32 (MXNet's default float), not float64.
* An array and a Python scalar (``*_scalar`` operators): the array's dtype, the scalar cast to
  it (``int32 + 1.5`` adds 1); a bool array with an int scalar gives int64, with a float
  scalar float32 (MXNet 1.9.1 gives int64 there too; mxlite follows NumPy's kind).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import DTypeError

__all__ = [
    "BOOL",
    "FLOAT32",
    "INT64",
    "binary_result",
    "true_divide_result",
    "scalar_result",
    "is_float",
    "no_bool",
]

BOOL = np.dtype(bool)
FLOAT32 = np.dtype(np.float32)
INT64 = np.dtype(np.int64)


def is_float(dt: np.dtype) -> bool:
    return dt.kind == "f"


def binary_result(a: np.dtype | None, b: np.dtype | None) -> np.dtype | None:
    """The output dtype of a broadcast arithmetic operator on arrays of dtypes ``a``, ``b``."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    if a == BOOL:
        return b
    if b == BOOL:
        return a
    if is_float(a) != is_float(b):
        return a if is_float(a) else b
    return np.promote_types(a, b)


def true_divide_result(a: np.dtype | None, b: np.dtype | None) -> np.dtype | None:
    out = binary_result(a, b)
    if out is None:
        return None
    return out if is_float(out) else FLOAT32


def scalar_result(a: np.dtype | None, is_int: bool) -> np.dtype | None:
    """The output dtype of an arithmetic ``*_scalar`` operator on an array of dtype ``a``."""
    if a is None:
        return None
    if a == BOOL:
        return INT64 if is_int else FLOAT32
    return a


def no_bool(op: str, a: np.dtype | None) -> np.dtype | None:
    """``a`` itself; a bool input raises, as MXNet's math kernels have no bool form."""
    if a is not None and a == BOOL:
        raise DTypeError(f"{op}: argument 'x' has dtype bool; {op} accepts numeric dtypes.")
    return a


def cast_scalar(x: Any, scalar: float) -> Any:
    """The scalar in the array's dtype, as MXNet casts it before computing (bool arrays
    compute in int64)."""
    dt = x.dtype
    if dt == BOOL:
        return np.int64(scalar)
    return dt.type(scalar)
