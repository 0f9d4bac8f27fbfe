"""``SyncBatchNorm`` (contrib): batch normalisation whose statistics MXNet averages over the
``ndev`` devices of one process. mxlite runs one executor per device without that exchange, so
on one device (and with ``ndev=1``) it is ``BatchNorm`` over axis 1, and delegates to the
``BatchNorm`` entry of the registry; the one difference is its third output, the batch
variance where BatchNorm gives the inverse standard deviation."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...context import Context
from ..nn.batch_norm_v1 import BatchNormV1Param
from ..nn.normalization import BatchNormVariantProp
from ..param import field
from ..registry import Operator, OpTest, register
from ..req import OpReq

__all__: list[str] = []


class SyncBatchNormParam(BatchNormV1Param):
    """BatchNorm_v1's parameters (``eps`` defaulting to 1e-3) and the synchronisation's."""

    eps: float = field(default=1e-3, doc="Epsilon to prevent div 0")
    ndev: int = field(default=1, doc="The count of GPU devices")
    key: str = field(doc="Hash key for synchronization, please set the same hash key for same "
                     "layer, Block.prefix is typically used as in "
                     ":class:`gluon.nn.contrib.SyncBatchNorm`.")  # fmt: skip


@register("_contrib_SyncBatchNorm")
class SyncBatchNormProp(BatchNormVariantProp):
    """Batch normalisation (statistics of this device's batch; see the module note)."""

    input_var_init = {3: '["zero", {}]', 4: '["one", {}]'}  # moving mean, moving var

    param_class = SyncBatchNormParam
    test = OpTest(shapes=BatchNormVariantProp.test_shapes, params={"key": "bn"}, grad=False)

    def bn_kwargs(self, param: Any) -> dict[str, Any]:
        names = ("eps", "momentum", "fix_gamma", "use_global_stats", "output_mean_var")
        return {k: getattr(param, k) for k in names}

    def list_outputs(self) -> list[str]:
        return self.bn.list_outputs()

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        return self.bn.infer_shape(in_shape, out_shape)

    def infer_type(self, in_type: list, out_type: list | None = None):
        return self.bn.infer_type(in_type, out_type)

    def forward_resource(self, in_shape: list) -> list:
        return self.bn.forward_resource(in_shape)

    def backward_resource(self, in_shape: list) -> list:
        return self.bn.backward_resource(in_shape)

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return self.bn.declare_backward_dependency(out_grad, in_data, out_data)

    def forward_inplace_option(self, in_data: list, out_data: list) -> list:
        return self.bn.forward_inplace_option(in_data, out_data)

    def is_train_dependent(self) -> bool:
        return self.bn.is_train_dependent()

    def create_operator(self, ctx: Context) -> Operator:
        return _SyncBatchNormOp(self.bn.create_operator(ctx), self.param.eps)


class _SyncBatchNormOp(Operator):
    """BatchNorm's kernel, with the variance (not 1/std) as the third output."""

    def __init__(self, bn: Operator, eps: float) -> None:
        self.bn = bn
        self.eps = eps

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        inv = out_data[2]
        self.bn.forward(op_ctx, in_data, req, out_data, aux)
        if self.bn.p.fix_gamma:  # MXNet's SyncBatchNorm sets gamma to ones whatever it writes
            in_data[1][...] = 1
        if req[2] != OpReq.NULL:
            with np.errstate(divide="ignore"):
                inv[...] = 1.0 / (inv * inv) - inv.dtype.type(self.eps)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        outs = list(out_data)
        if outs[2] is not None:
            outs[2] = 1.0 / (outs[2] + outs[2].dtype.type(self.eps)) ** 0.5
        self.bn.backward(op_ctx, out_grad, in_data, outs, req, in_grad, aux)
