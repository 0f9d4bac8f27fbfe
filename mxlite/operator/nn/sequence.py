"""Variable-length sequence operators: SequenceMask, SequenceLast, SequenceReverse.

The data is laid out ``[max_sequence_length, batch, ...]`` (``axis=0``) or
``[batch, max_sequence_length, ...]`` (``axis=1``; SequenceMask and SequenceLast only). With
``use_sequence_length`` a second input gives each batch item's length (any dtype, truncated to
an integer); without it every sequence is full. Each kernel builds one index or mask array of
shape (time, batch) and applies it to all items at once; the lengths get a zero gradient.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, register, shape_assign
from ..req import OpReq, assign

__all__: list[str] = []


class _SequenceParam(Param):
    """The flag all three operators take first."""

    use_sequence_length: bool = field(
        default=False,
        doc="If set to true, this layer takes in an extra input parameter `sequence_length` "
        "to specify variable length sequence",
    )


_AXIS_0_1 = "The sequence axis. Only values of 0 and 1 are currently supported."


class SequenceMaskParam(_SequenceParam):
    value: float = field(default=0.0, doc="The value to be used as a mask.")
    axis: int = field(default=0, doc=_AXIS_0_1)


class SequenceLastParam(_SequenceParam):
    axis: int = field(default=0, doc=_AXIS_0_1)


class SequenceReverseParam(_SequenceParam):
    axis: int = field(default=0, doc="The sequence axis. Only 0 is currently supported.")


class _SequenceProp(OperatorProperty):
    """Shared arguments, checks, inference and kernel of the three sequence operators."""

    lists_output_names = True
    lists_input_names = True

    axes: tuple[int, ...] = (0, 1)

    def list_arguments(self) -> list[str]:
        return ["data", "sequence_length"] if self.param.use_sequence_length else ["data"]

    def out_shape(self, dshape: tuple) -> tuple:
        return dshape

    def create_operator(self, ctx: Context) -> Operator:
        return _SequenceOp(self, ctx.xp)

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        n = len(self.list_arguments())
        if len(in_shape) != n:
            raise ShapeError(
                f"{self.where()}: expects {n} inputs ({', '.join(self.list_arguments())}) with "
                f"use_sequence_length={self.param.use_sequence_length}, got {len(in_shape)}."
            )
        axis = self.param.axis
        if axis not in self.axes:
            raise ShapeError(
                f"{self.where()}: argument 'axis' must be one of {self.axes}, got {axis}."
            )
        dshape = in_shape[0]
        if dshape is None or 0 in dshape:
            return None
        if len(dshape) < 2:
            raise ShapeError(
                f"{self.where()}: argument 'data' needs at least 2 dims (time, batch), "
                f"got shape {tuple(dshape)}."
            )
        ins = [tuple(dshape)]
        if n == 2:
            ins.append(
                shape_assign(self, "input", "sequence_length", in_shape[1], (dshape[1 - axis],))
            )
        return ins, [self.out_shape(tuple(dshape))], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = in_type[0]
        if t is None:
            return None
        ins = [t] + [in_type[1] if in_type[1] is not None else t for _ in in_type[1:]]
        return ins, [t], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return [*out_grad, *in_data[1:]]  # only the lengths, never the data


def _lengths(xp: Any, in_data: list, use: bool, steps: int, batch: int) -> Any:
    if not use:
        return xp.full((batch,), steps, dtype=np.int64)
    return in_data[1].astype(np.int64)


def _time_batch(a: Any, axis: int) -> Any:
    """A view of ``a`` with time first and batch second."""
    return a if axis == 0 else a.swapaxes(0, 1)


class _SequenceOp(Operator):
    def __init__(self, prop: _SequenceProp, xp: Any) -> None:
        self.param = prop.param
        self.kind = prop.op_name
        self.xp = xp

    def _mask(self, data: Any, in_data: list) -> Any:
        """Boolean (time, batch, 1, ...) mask of the valid steps."""
        xp, p = self.xp, self.param
        tb = _time_batch(data, p.axis)
        steps, batch = tb.shape[:2]
        lens = _lengths(xp, in_data, p.use_sequence_length, steps, batch)
        mask = xp.arange(steps)[:, None] < lens[None, :]
        return mask.reshape(mask.shape + (1,) * (tb.ndim - 2))

    def _last(self, data: Any, in_data: list) -> tuple[Any, Any]:
        xp, p = self.xp, self.param
        tb = _time_batch(data, p.axis)
        steps, batch = tb.shape[:2]
        lens = _lengths(xp, in_data, p.use_sequence_length, steps, batch)
        return lens - 1, xp.arange(batch)

    def _reverse_index(self, data: Any, in_data: list) -> Any:
        """src[t, b]: the step that lands at step t of item b."""
        xp, p = self.xp, self.param
        steps, batch = data.shape[:2]
        lens = _lengths(xp, in_data, p.use_sequence_length, steps, batch)
        t = xp.arange(steps)[:, None]
        return xp.where(t < lens[None, :], lens[None, :] - 1 - t, t)

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        data, out = in_data[0], out_data[0]
        if self.kind == "SequenceMask":
            if not self.param.use_sequence_length:
                assign(out, req[0], data)
                return
            value = np.asarray(self.param.value, dtype=data.dtype)
            mask = self._mask(data, in_data)
            res = self.xp.where(mask, _time_batch(data, self.param.axis), value)
            assign(_time_batch(out, self.param.axis), req[0], res)
        elif self.kind == "SequenceLast":
            t, b = self._last(data, in_data)
            assign(out, req[0], _time_batch(data, self.param.axis)[t, b])
        else:
            if not self.param.use_sequence_length:
                assign(out, req[0], data[::-1])
                return
            src = self._reverse_index(data, in_data)
            assign(out, req[0], data[src, self.xp.arange(data.shape[1])[None, :]])

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        for k in range(1, len(in_grad)):
            if req[k] in (OpReq.WRITE, OpReq.INPLACE):
                in_grad[k][...] = 0
        if req[0] == OpReq.NULL:
            return
        dy, gin = out_grad[0], in_grad[0]
        axis = self.param.axis
        if self.kind == "SequenceMask":
            if not self.param.use_sequence_length:
                assign(gin, req[0], dy)
                return
            mask = self._mask(gin, in_data)
            assign(_time_batch(gin, axis), req[0], self.xp.where(mask, _time_batch(dy, axis), 0))
        elif self.kind == "SequenceLast":
            t, b = self._last(gin, in_data)
            if req[0] != OpReq.ADD:
                gin[...] = 0
            _time_batch(gin, axis)[t, b] += dy
        else:
            if not self.param.use_sequence_length:
                assign(gin, req[0], dy[::-1])
                return
            src = self._reverse_index(gin, in_data)  # a permutation that is its own inverse
            assign(gin, req[0], dy[src, self.xp.arange(gin.shape[1])[None, :]])


@register("SequenceMask", aliases=("_npx_sequence_mask",))
class SequenceMaskProp(_SequenceProp):
    """Set the steps past each sequence's length to ``value``."""

    param_class = SequenceMaskParam
    test = OpTest(shapes={"data": (4, 3, 2)}, params={})

    def forward_inplace_option(self, in_data: list, out_data: list) -> list:
        return [(in_data[0], out_data[0])]


@register("SequenceLast")
class SequenceLastProp(_SequenceProp):
    """The last valid step of each sequence: the time axis is removed."""

    param_class = SequenceLastParam
    test = OpTest(shapes={"data": (4, 3, 2)}, params={})

    def out_shape(self, dshape: tuple) -> tuple:
        axis = self.param.axis
        return dshape[:axis] + dshape[axis + 1 :]


@register("SequenceReverse")
class SequenceReverseProp(_SequenceProp):
    """Reverse the first ``length`` steps of each sequence; later steps stay in place."""

    param_class = SequenceReverseParam
    test = OpTest(shapes={"data": (4, 3, 2)}, params={})
    axes = (0,)
