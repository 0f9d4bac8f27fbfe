"""``BatchNormWithReLU`` (contrib): ``BatchNorm`` followed by ``relu``, with BatchNorm's
parameters. MXNet 1.9.1 runs it on its MKLDNN backend only; mxlite delegates to the
``BatchNorm`` entry of the registry and clips the result at 0. The fourth output,
``workspace`` (hidden, the data's shape), holds the ReLU mask the backward uses."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...context import Context
from ..nn.normalization import BatchNormParam, BatchNormVariantProp
from ..registry import Operator, OpTest, register
from ..req import OpReq, assign

__all__: list[str] = []


def _with_workspace(res: tuple | None, like: int) -> tuple | None:
    """BatchNorm's inferred (inputs, outputs, aux) with the ``workspace`` output added, as
    output ``like`` (its shape is the data's, its type the mean's)."""
    if res is None:
        return None
    ins, outs, aux = res
    return ins, [*outs, outs[like]], aux


@register("_contrib_BatchNormWithReLU")
class BatchNormWithReLUProp(BatchNormVariantProp):
    """Batch normalisation then ``max(x, 0)``; outputs (output, mean, var[, workspace])."""

    lists_output_names = True

    param_class = BatchNormParam
    test = OpTest(shapes=BatchNormVariantProp.test_shapes, params={"fix_gamma": False})

    def bn_kwargs(self, param: Any) -> dict[str, Any]:
        return {k: getattr(param, k) for k in param.field_names()}

    def list_outputs(self) -> list[str]:
        return ["output", "mean", "var", "workspace"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        return _with_workspace(self.bn.infer_shape(in_shape, None), 0)

    def infer_type(self, in_type: list, out_type: list | None = None):
        return _with_workspace(self.bn.infer_type(in_type, None), 1)

    def is_train_dependent(self) -> bool:
        return True

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return [*self.bn.declare_backward_dependency(out_grad, in_data, out_data), out_data[3]]

    def create_operator(self, ctx: Context) -> Operator:
        return _BatchNormWithReLUOp(self.bn.create_operator(ctx))


class _BatchNormWithReLUOp(Operator):
    def __init__(self, bn: Operator) -> None:
        self.bn = bn

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        out = out_data[0]
        self.bn.forward(op_ctx, in_data, req[:3], out_data[:3], aux)
        mask = out > 0
        np.maximum(out, 0, out=out)
        assign(out_data[3], req[3] if req[3] != OpReq.NULL else OpReq.WRITE, mask)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        g = [out_grad[0] * out_data[3].astype(out_grad[0].dtype, copy=False), *out_grad[1:3]]
        self.bn.backward(op_ctx, g, in_data, out_data[:3], req, in_grad, aux)
