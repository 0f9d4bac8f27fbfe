"""The base of the contrib operators whose backward reads nothing: detection-box encoders,
proposals, index arrays, the quantize family. Their kernel is one method of the property,
``compute(xp, ins, outs)``, the list of the outputs' values (written as each output's request
says), run by the operator the tensor operators share (``ArrayOp``'s); ``zero_grad`` says
whether the inputs' gradient is zero, as MXNet's backward kernels of these operators write it
(``req='add'`` adds nothing), or the operator has none at all.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ...base import MXNetError
from ...context import Context
from ..registry import Operator, OperatorProperty
from ..req import OpReq
from ..tensor.array_op import _ArrayOperator

__all__ = ["ComputedProp", "zero_grads"]


def zero_grads(in_grad: list, req: list) -> None:
    """Zero input gradients, as the backward kernels of inputs with no gradient write them
    (``req='add'`` adds nothing)."""
    for g, r in zip(in_grad, req):
        if r in (OpReq.WRITE, OpReq.INPLACE):
            g[...] = 0


class ComputedProp(OperatorProperty):
    """An operator computed by its property's ``compute``; see the module note."""

    zero_grad: ClassVar[bool] = False

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return []

    def create_operator(self, ctx: Context) -> Operator:
        return _ArrayOperator(self, ctx.xp)

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        raise NotImplementedError

    def gradient_block(self, in_shapes: list, ograds: list) -> list | None:
        # no block of the head gradient reaches any input: zeros (ArrayOp's protocol)
        return [None] * len(in_shapes) if self.zero_grad else None

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        raise MXNetError(f"{self.op_name}: this operator has no gradient (MXNet registers none).")
