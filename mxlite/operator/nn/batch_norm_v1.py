"""BatchNorm_v1: MXNet's first batch normalisation operator, kept for old models and tests.

It computes what :mod:`BatchNorm <.normalization>` computes, with MXNet 1.9.1's differences:
the channel axis is always 1, data must be float32, ``eps`` and ``momentum`` are C floats,
and the third output is the batch *variance* (BatchNorm's is ``1 / sqrt(var + eps)``); in
inference (or with ``use_global_stats``) the mean and var outputs are the moving statistics.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...context import Context
from ..param import Param, field
from ..registry import Operator, OpTest, register
from .normalization import BatchNormProp, _BatchNormOp, _float_type, _only_float32, _put

__all__: list[str] = []


class BatchNormV1Param(Param):
    eps: float = field(
        default=0.0010000000474974513,
        doc="Epsilon to prevent div 0",
    )
    momentum: float = field(default=0.9, doc="Momentum for moving average")
    fix_gamma: bool = field(default=True, doc="Fix gamma while training")
    use_global_stats: bool = field(
        default=False,
        doc="Whether use global moving statistics instead of local batch-norm. This will force "
        "change batch-norm into a scale shift operator.",
    )
    output_mean_var: bool = field(default=False, doc="Output All,normal mean and var")
    axis: ClassVar[int] = 1  # not a parameter: BatchNorm_v1 normalises over channel axis 1


class _BatchNormV1Op(_BatchNormOp):
    def _eps(self) -> np.float32:
        return np.float32(self.p.eps)

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        super().forward(op_ctx, in_data, req, out_data, aux)  # out_data[2]: 1 / sqrt(var + eps)
        if self.p.fix_gamma:  # MXNet's BatchNorm_v1 sets gamma to ones whatever it writes
            in_data[1][...] = 1
        if op_ctx.is_train and not self.p.use_global_stats:
            invstd = out_data[2]
            _put(out_data[2], req[2], 1 / (invstd * invstd) - self._eps())
        else:
            _put(out_data[2], req[2], aux[1])

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        outs = list(out_data)
        outs[2] = 1 / self.xp.sqrt(out_data[2] + self._eps())  # what BatchNorm's backward reads
        super().backward(op_ctx, out_grad, in_data, outs, req, in_grad, aux)


@register("BatchNorm_v1")
class BatchNormV1Prop(BatchNormProp):
    """Batch normalisation over channel axis 1, float32 only (MXNet's BatchNorm_v1)."""

    lists_output_names = True

    lists_input_names = True
    sparse_form = None  # MXNet 1.9.1's BatchNorm_v1 has no storage rule: dense fallback

    param_class = BatchNormV1Param
    test = OpTest(shapes={"data": (4, 3, 2, 2)}, dtypes=("float32",), grad=False)

    def infer_type(self, in_type: list, out_type: list | None = None):
        _only_float32(self, in_type[0])
        return _float_type(self, in_type, out_type, 3, acc=False)

    def create_operator(self, ctx: Context) -> Operator:
        return _BatchNormV1Op(self.param, ctx.xp)
