"""The dtypes and constants of ``mx.np`` (MXNet 1.9.1's ``mxnet/numpy/utils.py``), and
``_STR_2_DTYPE_``, the dtype of each dtype name MXNet writes."""

from __future__ import annotations

import numpy as onp

__all__ = [
    "float16", "float32", "float64", "uint8", "int32", "int8", "int64", "bool", "bool_", "pi",
    "inf", "nan", "PZERO", "NZERO", "newaxis", "finfo", "e", "NINF", "PINF", "NAN", "NaN",
    "_STR_2_DTYPE_",
]  # fmt: skip

float16 = onp.float16
float32 = onp.float32
float64 = onp.float64
uint8 = onp.uint8
int32 = onp.int32
int8 = onp.int8
int64 = onp.int64
bool_ = onp.bool_
bool = bool  # noqa: A001, PLW0127  (MXNet's onp.bool, which is Python's bool)
pi = onp.pi
inf = onp.inf
nan = onp.nan
PZERO = 0.0
NZERO = -0.0
NINF = -onp.inf
PINF = onp.inf
e = onp.e
NAN = onp.nan
NaN = onp.nan
newaxis = None
finfo = onp.finfo

_STR_2_DTYPE_ = {"float16": float16, "float32": float32, "float64": float64, "float": float64,
                 "uint8": uint8, "int8": int8, "int32": int32, "int64": int64, "int": int64,
                 "bool": bool, "bool_": bool_, "None": None}  # fmt: skip
