"""``_npi_pad`` (MXNet 1.9.1's np_pad_op.cc) and ``_npi_ediff1d`` (np_ediff1d_op.cc): operators
that add elements at the edges of an array.

``_npi_pad``'s gradient is the head gradient's interior block, whatever the mode, as MXNet's
``_backward_npi_pad`` computes it. ``_npi_ediff1d``'s arrays share one dtype; its scalars are
cast to it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import DTypeError, Shape
from ..param import Param, field
from ..registry import OpTest, register
from .matrix import _NpArrayOp

_MODES = ("constant", "edge", "reflect", "symmetric", "maximum", "minimum")


class NumpyPadParam(Param):
    pad_width: tuple[tuple[int, ...], ...] = field(
        doc="Number of values padded to the edges of each axis: ((before_1, after_1), ... "
        "(before_N, after_N)); ((before, after),) pads every axis alike."
    )
    mode: str = field(default="constant", choices=_MODES, doc="The padding mode.")
    constant_value: float = field(default=0.0, typename="double",
                                  doc="The value padded in mode 'constant'.")  # fmt: skip
    reflect_type: str = field(
        default="even",
        doc="'even' (the only one supported): reflect the values unaltered, in modes 'reflect' "
        "and 'symmetric'.",
    )


@register("_npi_pad")
class NpPadProp(_NpArrayOp):
    """The array padded at the edges of each axis (``np.pad``)."""

    param_class = NumpyPadParam
    test = OpTest(shapes={"data": (2, 3)}, params={"pad_width": ((1, 2), (0, 1))})

    def list_arguments(self) -> list[str]:
        return ["data"]

    def _widths(self, ndim: int) -> np.ndarray:
        pw = np.asarray(self.param.pad_width, dtype=np.int64)
        try:
            pw = np.broadcast_to(pw.reshape(-1, 2) if pw.size else pw, (ndim, 2))
        except ValueError:
            raise self.fail(f"argument 'pad_width' {self.param.pad_width} does not fit an input "
                            f"of {ndim} dimensions.") from None  # fmt: skip
        if (pw < 0).any():
            raise self.fail(f"argument 'pad_width' {self.param.pad_width} must be >= 0.")
        return pw

    def out_shapes(self, data: Shape) -> list[Shape]:
        if self.param.reflect_type != "even":
            raise self.fail(f"argument 'reflect_type' {self.param.reflect_type!r} is not "
                            "supported; use 'even'.")  # fmt: skip
        pw = self._widths(len(data))
        return [tuple(int(d + b + a) for d, (b, a) in zip(data, pw))]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        x, p = ins[0], self.param
        pw = [tuple(int(v) for v in row) for row in self._widths(x.ndim)]
        if p.mode == "constant":
            fill = np.asarray(p.constant_value).astype(x.dtype)
            return [xp.pad(x, pw, mode="constant", constant_values=fill)]
        return [xp.pad(x, pw, mode=p.mode)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        pw = self._widths(len(in_shapes[0]))
        key = tuple(slice(int(b), int(b) + d) for (b, _), d in zip(pw, in_shapes[0]))
        return [ograds[0][key]]


class EDiff1DParam(Param):
    to_begin_arr_given: bool = field(default=False, doc="To determine whether the `to_begin` "
                                     "parameter is an array.")  # fmt: skip
    to_end_arr_given: bool = field(default=False, doc="To determine whether the `to_end` "
                                   "parameter is an array.")  # fmt: skip
    to_begin_scalar: float | None = field(default=None, typename="double or None",
                                          doc="The scalar prepended when no array is.")  # fmt: skip
    to_end_scalar: float | None = field(default=None, typename="double or None",
                                        doc="The scalar appended when no array is.")  # fmt: skip


@register("_npi_ediff1d")
class NpEDiff1DProp(_NpArrayOp):
    """The differences between consecutive elements of the flattened input, with values (an
    array or a scalar) prepended and appended (``np.ediff1d``)."""

    param_class = EDiff1DParam
    backward_reads_inputs = True  # for the sizes of all inputs (MXNet's ElemwiseGradUseIn)
    test = OpTest(shapes={"input1": (2, 3), "input2": (2,), "input3": (1,)},
                  params={"to_begin_arr_given": True, "to_end_arr_given": True})  # fmt: skip

    def list_arguments(self) -> list[str]:
        n = 1 + self.param.to_begin_arr_given + self.param.to_end_arr_given
        return [f"input{i + 1}" for i in range(n)]

    def _sizes(self, shapes: tuple) -> tuple[int, int]:
        """How many elements go before and after the differences."""
        p, k = self.param, 1
        before = after = 0
        if p.to_begin_arr_given:
            before, k = int(np.prod(shapes[k])), k + 1
        elif p.to_begin_scalar is not None:
            before = 1
        if p.to_end_arr_given:
            after = int(np.prod(shapes[k]))
        elif p.to_end_scalar is not None:
            after = 1
        return before, after

    def out_shapes(self, *shapes: Shape) -> list[Shape]:
        before, after = self._sizes(shapes)
        return [(before + max(int(np.prod(shapes[0])) - 1, 0) + after,)]

    def infer_type(self, in_type: list, out_type: list | None = None):
        known = [np.dtype(t) for t in in_type if t is not None]
        if not known:
            return None
        if len(set(known)) > 1:
            raise DTypeError(f"{self.where()}: the input and the to_begin/to_end arrays must "
                             f"share one dtype, got {', '.join(map(str, known))}.")  # fmt: skip
        return [known[0]] * len(in_type), [known[0]], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        p, dt = self.param, ins[0].dtype
        flat = ins[0].reshape(-1)
        parts, k = [], 1
        if p.to_begin_arr_given:
            parts.append(ins[k].reshape(-1))
            k += 1
        elif p.to_begin_scalar is not None:
            parts.append(xp.asarray([p.to_begin_scalar]).astype(dt))
        parts.append(flat[1:] - flat[:-1])
        if p.to_end_arr_given:
            parts.append(ins[k].reshape(-1))
        elif p.to_end_scalar is not None:
            parts.append(xp.asarray([p.to_end_scalar]).astype(dt))
        return [xp.concatenate([a.astype(dt, copy=False) for a in parts])]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        g = ograds[0]
        before, after = self._sizes(tuple(in_shapes))
        n = int(np.prod(in_shapes[0]))
        gd = g[before : g.shape[0] - after]  # the differences' gradient, n - 1 of them
        ga = xp.zeros(n, g.dtype)
        if n > 1:
            ga[1:] += gd
            ga[:-1] -= gd
        grads = [ga.reshape(in_shapes[0])]
        if self.param.to_begin_arr_given:
            grads.append(g[:before].reshape(in_shapes[1]))
        if self.param.to_end_arr_given:
            grads.append(g[g.shape[0] - after :].reshape(in_shapes[-1]))
        return grads
