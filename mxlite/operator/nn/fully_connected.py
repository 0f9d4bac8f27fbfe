"""``FullyConnected``: ``Y = X W^T + b`` as one BLAS product.

Design note
-----------
As in MXNet 1.9.1 (src/operator/nn/fully_connected.cc): with ``flatten=True`` the data is viewed
as ``(shape[0], prod(shape[1:]))`` (a 1-D array as a column, ``(n, 1)``) and the output is
``(shape[0], num_hidden)``; with ``flatten=False`` the product applies to the last axis and the
output is ``shape[:-1] + (num_hidden,)``. The weight is ``(num_hidden, num_input)``; the bias is
``(num_hidden,)`` or, as MXNet also accepts, ``(num_hidden, 1)``. Shape inference fills the
weight and bias from the data and the batch size from the output. The product goes straight
into the output under a plain write; the backward (``dX = dY W``, ``dW = dY^T X``,
``db = sum(dY)``) reads the output gradient, data and weight, never the output. Dtypes: float32
and float64 (float16 only on GPU), as MXNet's CPU kernel.
"""

from __future__ import annotations

from math import prod
from typing import Any

import numpy as np

from ...base import ShapeError
from ..parallel import matmul
from ..param import Param, field
from ..registry import OpContext, Operator, OpTest, register, shape_assign
from ..req import OpReq, assign
from . import _conv_util as cu
from .convolution import WeightedLayerProp

_NULL, _WRITE, _ADD = OpReq.NULL, OpReq.WRITE, OpReq.ADD  # quicker than OpReq.X (req.py)

__all__ = ["FullyConnectedParam", "FullyConnectedProp"]


class FullyConnectedParam(Param):
    num_hidden: int = field(low=1, doc="Number of hidden nodes of the output.")
    no_bias: bool = field(default=False, doc="Whether to disable bias parameter.")
    flatten: bool = field(
        default=True, doc="Whether to collapse all but the first axis of the input data tensor."
    )


@register("FullyConnected", aliases=("_npx_fully_connected", "_sparse_FullyConnected"))
class FullyConnectedProp(WeightedLayerProp):
    """Applies a linear transformation: :math:`Y = XW^T + b`.

    With ``flatten=True``: data ``(batch_size, x1, ..., xn)``, weight
    ``(num_hidden, x1 * ... * xn)``, bias ``(num_hidden,)``, out ``(batch_size, num_hidden)``.
    With ``flatten=False``: data ``(x1, ..., xn, input_dim)``, weight
    ``(num_hidden, input_dim)``, out ``(x1, ..., xn, num_hidden)``.
    """

    lists_output_names = True
    quantized_name = "_contrib_quantized_fully_connected"
    quantizable = "must"

    @staticmethod
    def recorded_gradient(prop: Any, op: Any, og: Any, ins: list, outs: list) -> list:
        p = prop.param
        x, w = ins[0], ins[1]
        if p.flatten:
            x2, og2 = op("Reshape", [x], shape=(x.shape[0], -1)), og
        else:
            x2 = op("Reshape", [x], shape=(-1, x.shape[-1]))
            og2 = op("Reshape", [og], shape=(-1, og.shape[-1]))
        grads = [
            op("Reshape", [op("dot", [og2, w])], shape=tuple(x.shape)),
            op("dot", [og2, x2], transpose_a=True),
        ]
        if not p.no_bias:
            grads.append(op("sum", [og2], axis=0))
        return grads

    plot_kind = "layer"

    @classmethod
    def plot_label(cls, name: str, attrs: dict[str, str]) -> str:
        return f"FullyConnected\n{attrs['num_hidden']}"

    lists_input_names = True

    param_class = FullyConnectedParam
    test = OpTest(
        shapes={"data": (3, 2, 4), "weight": (5, 8), "bias": (5,)}, params={"num_hidden": 5}
    )

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        self.check_num_inputs(in_shape, f"no_bias={self.param.no_bias}")
        p = self.param
        dshape = in_shape[0]
        if dshape is None:
            return None
        if len(dshape) == 0:
            raise ShapeError(f"{self.where()}: input 'data' must have at least 1 axis, got ().")
        if p.flatten:
            rest = dshape[1:]
            num_input = 0 if 0 in rest else prod(rest)  # 1-D data: a column
            oshape = (dshape[0], p.num_hidden)
        else:
            num_input = dshape[-1]
            oshape = tuple(dshape[:-1]) + (p.num_hidden,)
        ins = list(in_shape)
        ins[1] = shape_assign(self, "input", "weight", in_shape[1], (p.num_hidden, num_input))
        if not p.no_bias:
            bshape = in_shape[2]
            if bshape is not None and len(bshape) == 2:
                ins[2] = shape_assign(self, "input", "bias", bshape, (p.num_hidden, 1))
            else:
                ins[2] = shape_assign(self, "input", "bias", bshape, (p.num_hidden,))
        if out_shape and out_shape[0] is not None:
            oshape = shape_assign(self, "output", "output", out_shape[0], oshape)
            if len(oshape) and not dshape[0]:
                ins[0] = (oshape[0],) + tuple(dshape[1:])
        return ins, [oshape], []

    def create_operator(self, ctx: Any) -> Operator:
        return _FullyConnectedOp(self, ctx.xp)


class _FullyConnectedOp(Operator):
    __slots__ = ("op_name", "flatten", "no_bias", "xp")

    def __init__(self, prop: FullyConnectedProp, xp: Any) -> None:
        self.op_name = prop.op_name
        self.flatten = prop.param.flatten
        self.no_bias = prop.param.no_bias
        self.xp = xp

    def _matrix(self, a: Any) -> Any:
        """``a`` as the 2-D matrix the product works on (a view when ``a`` is contiguous)."""
        if self.flatten:
            return a.reshape(a.shape[0], -1)
        return a.reshape(-1, a.shape[-1])

    def forward(
        self, op_ctx: OpContext, in_data: list, req: list, out_data: list, aux: list
    ) -> None:
        if req[0] == _NULL:
            return
        xp = self.xp
        cu.check_dtype(self.op_name, xp, in_data[0].dtype)
        x = self._matrix(in_data[0])
        wt = in_data[1].T
        out = out_data[0]
        direct = req[0] != _ADD and out.flags.c_contiguous
        if direct:
            y = out.reshape(x.shape[0], wt.shape[1])  # a view: the product lands in ``out``
            matmul(xp, x, wt, out=y)
        else:
            y = matmul(xp, x, wt)
        if not self.no_bias:
            y += in_data[2].reshape(-1)
        if not direct:
            assign(out, req[0], y.reshape(out.shape))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        xp = self.xp
        cu.check_dtype(self.op_name, xp, in_data[0].dtype)
        x = self._matrix(in_data[0])
        dy = out_grad[0].reshape(x.shape[0], -1)
        w = in_data[1]
        if req[1] == _WRITE and in_grad[1].flags.c_contiguous:
            matmul(xp, dy.T, x, out=in_grad[1])
        elif req[1] != _NULL:
            assign(in_grad[1], req[1], matmul(xp, dy.T, x))
        if not self.no_bias and req[2] != _NULL:
            gb = in_grad[2]
            if req[2] == _WRITE and gb.ndim == 1:
                # (NumPy: the reduction behind ndarray.sum's Python wrapper)
                (np.add.reduce if xp is np else xp.sum)(dy, axis=0, out=gb)
            else:
                assign(gb, req[2], dy.sum(axis=0).reshape(gb.shape))
        if req[0] == _WRITE and in_grad[0].flags.c_contiguous:
            matmul(xp, dy, w, out=in_grad[0].reshape(x.shape))
        elif req[0] != _NULL:
            assign(in_grad[0], req[0], matmul(xp, dy, w).reshape(in_grad[0].shape))
