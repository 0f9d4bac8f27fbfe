"""NumPy-style creation operators (MXNet 1.9.1's np_init_op.cc): ``_npi_zeros``,
``_npi_ones``, ``_npi_full``, ``_npi_full_like``, ``_npi_arange``, ``_npi_eye`` and
``_npi_identity``.

Under NumPy's shape rules every shape is known as given: ``()`` is a zero-dim array and a 0
dimension is empty, never "unknown" as in the legacy ``_zeros``; an empty range gives a
zero-size array.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base import ParamError, Shape
from ..param import DTYPE_NAMES, Param, field
from ..registry import OperatorProperty, OpTest, register
from ..simple_op import simple_op
from ..tensor.misc import ArangeProp, EyeProp, FullProp, OnesProp, ZerosProp

_CTX_DOC = "Context of output, in format [cpu|gpu|cpu_pinned](n). Only used for imperative calls."


class _NumpyShapes:
    """Creation with NumPy's shape rules: the shape from the parameters is always known."""

    def out_shape(self) -> Shape | None:
        return tuple(self.param.shape)

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        return [], [self.out_shape()], []

    def infer_imperative(self, shapes: tuple, dtypes: tuple):
        return OperatorProperty.infer_imperative(self, shapes, dtypes)


@register("_npi_zeros")
class NpZerosProp(_NumpyShapes, ZerosProp):
    """An array of zeros (``np.zeros``); float32 by default."""

    test = OpTest(params={"shape": (2, 3)}, grad=False)


@register("_npi_ones")
class NpOnesProp(_NumpyShapes, OnesProp):
    """An array of ones (``np.ones``); float32 by default."""

    test = OpTest(params={"shape": (2, 3)}, grad=False)


@register("_npi_full")
class NpFullProp(_NumpyShapes, FullProp):
    """An array filled with ``value`` (``np.full``); MXNet registers it as an alias of
    ``_full``, whose legacy shape rules cannot make zero-dim arrays."""

    test = OpTest(params={"shape": (2, 3), "value": 2.5}, grad=False)


class NpIdentityParam(Param):
    shape: Shape = field(default=(), doc="The shape of the output: (n, n).")
    ctx: str = field(default="", doc=_CTX_DOC)
    dtype: str = field(default="float32", choices=DTYPE_NAMES, doc="Target data type.")


@register("_npi_identity")
class NpIdentityProp(_NumpyShapes, ZerosProp):
    """The square identity matrix (``np.identity``)."""

    param_class = NpIdentityParam
    test = OpTest(params={"shape": (3, 3)}, grad=False)

    def values(self, xp: Any, shape: Shape, dtype: np.dtype) -> Any:
        return xp.eye(shape[0], shape[1], dtype=dtype)


def arange_bounds(start: Any, stop: Any, step: Any) -> tuple[float, float, float]:
    """``(start, stop, step)`` of ``np.arange(start, stop=None, step=1)`` as MXNet's front ends
    read them for ``_npi_arange``: one bound is the stop, a step of None is 1, and a step of
    0 raises ZeroDivisionError."""
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    if start is None:
        raise ValueError("arange: arguments 'start' and 'stop' cannot both be None.")
    if step == 0:
        raise ZeroDivisionError("arange: argument 'step' cannot be 0.")
    return float(start), float(stop), float(step)


@register("_npi_arange")
class NpArangeProp(ArangeProp):
    """Evenly spaced values in [start, stop) (``np.arange``); an empty range is empty."""

    test = OpTest(params={"start": 0.0, "stop": 3.0, "step": 0.5}, grad=False)

    def out_shape(self) -> Shape | None:
        p, start, stop = self.param, self.start, self.stop
        if p.step == 0:
            raise ParamError(f"{self.op_name}: argument 'step' must not be 0.")
        if stop is None:
            return None
        return (max(0, int(math.ceil((stop - start) / p.step))) * p.repeat,)

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        shape = self.out_shape()
        return None if shape is None else ([], [shape], [])

    def infer_imperative(self, shapes: tuple, dtypes: tuple):
        return OperatorProperty.infer_imperative(self, shapes, dtypes)


class NumpyEyeParam(Param):
    N: int = field(typename="long", doc="Number of rows in the output.")
    M: int | None = field(default=None, doc="Number of columns; None means N.")
    k: int = field(default=0, doc="Index of the diagonal: 0 the main one, >0 upper, <0 lower.")
    ctx: str = field(default="", doc=_CTX_DOC)
    dtype: str = field(default="float32", choices=DTYPE_NAMES, doc="Target data type.")


@register("_npi_eye")
class NpEyeProp(EyeProp):
    """A 2-D array with ones on the k-th diagonal (``np.eye``)."""

    param_class = NumpyEyeParam
    test = OpTest(params={"N": 3, "M": 4, "k": 1}, grad=False)

    def out_shape(self) -> Shape | None:
        p = self.param
        if p.N < 0 or (p.M is not None and p.M < 0):
            raise ParamError(f"{self.op_name}: arguments 'N' and 'M' must be >= 0.")
        return (p.N, p.N if p.M is None else p.M)

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        return [], [self.out_shape()], []


class FullLikeParam(Param):
    fill_value: float = field(typename="double", doc="The value to fill with.")
    ctx: str = field(default="", doc=_CTX_DOC)
    dtype: str | None = field(default=None, choices=DTYPE_NAMES, doc="The output dtype.")


def _full_like(xp: Any, a: Any, env: Any, out: Any) -> Any:
    dt = np.dtype(env.param.dtype) if env.param.dtype is not None else a.dtype
    return xp.full(a.shape, env.param.fill_value).astype(dt)


simple_op(
    "_npi_full_like",
    forward=_full_like,
    gradient=lambda xp, g, e: xp.zeros_like(g),
    arg_names=("a",),
    param_class=FullLikeParam,
    dtype=lambda a, p: np.dtype(p.dtype) if p.dtype is not None else a,
    test=OpTest(params={"fill_value": 2.0}, grad=False),
    doc="An array of the input's shape filled with ``fill_value`` (``np.full_like``).",
)
