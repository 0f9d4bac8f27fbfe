"""``Dropout``: zero each element with probability ``p`` in training and scale the rest by
1 / (1 - p), as in MXNet 1.9.1.

Design note
-----------
Outputs are ``output`` and a hidden ``mask`` (the scaled keep mask, shape of ``data`` with a 1
on every axis in ``axes``, so one draw is shared along those axes: variational dropout).
Backward is ``out_grad * mask``: it reads only the mask, and may overwrite ``out_grad``.

When dropout is off (inference in mode 'training', or p = 0) the output is the input and the
mask is written as ones, so backward needs no memory of what forward did (MXNet keeps a
pass-through flag in its stateful operator instead). p = 1 gives NaN, as in MXNet: a zero
keep mask times the infinite scale 1 / 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import ShapeError
from ...context import Context
from ...resource import ResourceRequest
from ..param import Param, field
from ..registry import Operator, register
from ..req import OpReq, assign
from .activation import FloatDataProp

__all__ = ["DropoutParam"]


class DropoutParam(Param):
    p: float = field(
        default=0.5,
        low=0.0,
        high=1.0,
        doc="Fraction of the input that gets dropped out during training time.",
    )
    mode: str = field(
        default="training",
        choices=("always", "training"),
        doc="Whether to only turn on dropout during training or to also turn on for inference.",
    )
    axes: tuple[int, ...] = field(default=(), doc="Axes for variational dropout kernel.")
    cudnn_off: bool | None = field(
        default=False,
        doc="Whether to turn off cudnn in dropout operator. This option is ignored if axes is "
        "specified.",
    )


class _DropoutOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux):
        x, out, mask = in_data[0], out_data[0], out_data[1]
        pkeep = 1.0 - self.prop.param.p
        if pkeep < 1 and (op_ctx.is_train or self.prop.param.mode == "always"):
            rng = op_ctx.requested[0].get_random()
            keep = self.xp.asarray(rng.random(mask.shape, dtype=np.float32)) < pkeep
            with np.errstate(divide="ignore", invalid="ignore"):
                scale = mask.dtype.type(np.inf if pkeep == 0 else 1.0 / pkeep)
                self.xp.multiply(keep, scale, out=mask, casting="unsafe")
                if req[0] == OpReq.WRITE or req[0] == OpReq.INPLACE:
                    self.xp.multiply(x, mask, out=out)
                elif req[0] == OpReq.ADD:
                    out += x * mask
            return
        mask[...] = 1
        if req[0] != OpReq.NULL:
            assign(out, req[0], x)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux):
        if req[0] == OpReq.NULL:
            return
        g, mask = out_grad[0], out_data[1]
        with np.errstate(invalid="ignore"):
            if req[0] == OpReq.ADD:
                in_grad[0] += g * mask
            else:
                self.xp.multiply(g, mask, out=in_grad[0])


@register("Dropout", aliases=("_npx_dropout",))
class DropoutProp(FloatDataProp):
    """Dropout: in training, zero elements with probability ``p`` and scale the rest by
    1 / (1 - p); in inference the identity (unless ``mode='always'``)."""

    lists_output_names = True
    bfloat16_kernel = False  # MXNet 1.9.1 refuses bfloat16 here (operator/bfloat16.py)

    @staticmethod
    def recorded_gradient(prop: Any, op: Any, og: Any, ins: list, outs: list) -> list:
        # the mask is a constant of this backward (what forward drew), not a graph entry
        return [op("broadcast_mul", [og, op.constant(outs[1])])]

    lists_input_names = True

    param_class = DropoutParam

    def list_outputs(self) -> list[str]:
        return ["output", "mask"]

    def num_visible_outputs(self) -> int:
        return 1

    def infer_shape(self, in_shape, out_shape=None):
        self.check_num_inputs(in_shape)
        data = in_shape[0]
        if data is None and out_shape:
            data = out_shape[0]
        if data is None:
            return None
        mask = list(data)
        for a in self.param.axes:
            if not -len(data) <= a < len(data):
                raise ShapeError(
                    f"{self.where()}: argument 'axes' has axis {a}, out of range for data of "
                    f"shape {tuple(data)}."
                )
            mask[a] = 1
        return [data], [data, tuple(mask)], []

    def forward_resource(self, in_shape):
        return [ResourceRequest.RANDOM] if self.param.p > 0 else []

    def is_train_dependent(self) -> bool:
        return True

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        return [out_grad[0], out_data[1]]

    def forward_inplace_option(self, in_data, out_data):
        return [(in_data[0], out_data[0])]

    def backward_inplace_option(self, out_grad, in_data, out_data, in_grad):
        return [(out_grad[0], in_grad[0])]

    def create_operator(self, ctx: Context) -> Operator:
        return _DropoutOp(self, ctx.xp)
