"""``boolean_mask``: the slices of ``data`` where ``index`` is nonzero, an operator whose
output shape is known only once ``index`` is (a *dynamic-shape* operator).

Shape inference leaves the masked dimension unknown (0); ``dynamic_output_shapes`` sizes it
from the index values when the operator runs. An imperative call waits for ``index`` first
(``ndarray/invoke.py``); a hybridized graph that holds such a node runs node by node
(``executor/cached_op.py``), as MXNet's CachedOp runs graphs with dynamic shapes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, register
from ..req import OpReq, assign

__all__: list[str] = []


class BooleanMaskParam(Param):
    axis: int = field(default=0, doc="An integer that represents the axis in NDArray to mask from.")


@register("_contrib_boolean_mask", aliases=("_npi_boolean_mask",))
class BooleanMaskProp(OperatorProperty):
    """The slices of ``data`` along ``axis`` where the 1-D ``index`` is nonzero."""

    param_class = BooleanMaskParam
    dynamic_shape = True

    def list_arguments(self) -> list[str]:
        return ["data", "index"]

    def _axis(self, ndim: int) -> int:
        axis = self.param.axis
        if not -ndim <= axis < ndim:
            raise ShapeError(f"{self.where()}: axis {axis} is out of range for a {ndim}-D data.")
        return axis % ndim

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        data, index = in_shape
        if data is None:
            return None
        data = tuple(data)
        axis = self._axis(len(data))
        if index is not None and (len(index) != 1 or index[0] not in (0, data[axis])):
            raise ShapeError(
                f"{self.where()}: index must be 1-D with data.shape[{axis}] = {data[axis]} "
                f"elements, got shape {tuple(index)}."
            )
        out = list(data)
        out[axis] = 0  # known only when the operator runs
        return [data, (data[axis],)], [tuple(out)], []

    def dynamic_output_shapes(self, in_data: list[Any]) -> list[tuple[int, ...]]:
        data, index = in_data
        axis = self._axis(data.ndim)
        out = list(data.shape)
        out[axis] = int(np.count_nonzero(index))
        return [tuple(out)]

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = in_type[0]
        if t is None:
            return None
        return [t, in_type[1] if in_type[1] is not None else t], [t], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return [out_grad[0], in_data[1]]

    def create_operator(self, ctx: Context) -> Operator:
        return _BooleanMaskOp(self._axis)


class _BooleanMaskOp(Operator):
    def __init__(self, axis_of: Any) -> None:
        self._axis_of = axis_of

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        data, index = in_data
        axis = self._axis_of(data.ndim)
        picks = np.flatnonzero(index)
        assign(out_data[0], req[0], np.take(data, picks, axis=axis))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        index = in_data[1]
        if req[0] != OpReq.NULL:
            g = in_grad[0]
            axis = self._axis_of(g.ndim)
            full = np.zeros_like(g)
            where = [slice(None)] * g.ndim
            where[axis] = np.flatnonzero(index)
            full[tuple(where)] = out_grad[0]
            assign(g, req[0], full)
        if req[1] in (OpReq.WRITE, OpReq.INPLACE):
            in_grad[1][...] = 0
