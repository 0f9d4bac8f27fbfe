"""``reset_arrays``: set several arrays to zero in place, in one call.

MXNet 1.9.1 registers it beside its contrib operators under the plain name ``reset_arrays``
(``mx.nd.reset_arrays(*arrays, num_arrays=n)``); Gluon's ``zero_grad`` uses it. It has no
outputs: every input is mutated (``FMutateInputs``), so later reads wait for the reset.
"""

from __future__ import annotations

from ...base import MXNetError
from ..param import Param, field
from ..registry import Operator, OperatorProperty, register, register_onnx

__all__: list[str] = []


class ResetArraysParam(Param):
    num_arrays: int = field(low=1, doc="number of input arrays.")


class _ResetArraysOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux):
        for a in in_data:
            a[...] = 0


@register("reset_arrays")
class _ResetArraysProp(OperatorProperty):
    """Set to zero multiple arrays"""

    param_class = ResetArraysParam

    def list_arguments(self) -> list[str]:
        return [f"array_{i}" for i in range(self.param.num_arrays)]

    def list_outputs(self) -> list[str]:
        return []

    def mutate_inputs(self) -> list[int]:
        return [] if self.param is None else list(range(self.param.num_arrays))

    def _check(self, n_in: int) -> None:
        if n_in != self.param.num_arrays:
            raise MXNetError(
                f"reset_arrays: argument 'data' needs num_arrays={self.param.num_arrays} arrays, "
                f"got {n_in}."
            )

    def infer_shape(self, in_shape, out_shape=None):
        self._check(len(in_shape))
        if any(s is None for s in in_shape):
            return None
        return list(in_shape), [], []

    def infer_type(self, in_type, out_type=None):
        self._check(len(in_type))
        if any(t is None for t in in_type):
            return None
        return list(in_type), [], []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        return []

    def create_operator(self, ctx):
        return _ResetArraysOp()


register_onnx("reset_arrays", why_not="it changes its inputs in place; ONNX graphs have no state.")
