"""The operators of MXNet's automatic mixed precision (AMP): casts between float16, bfloat16
and float32 that leave every other dtype alone, and the finiteness checks of loss scaling.

``amp_cast(data, dtype)`` casts float16/bfloat16/float32 data to ``dtype``; data of any other
dtype passes unchanged. ``amp_multicast(d0, ..., dn-1, num_outputs=n)`` casts the
float16/bfloat16/float32 inputs to the widest of them (float32 if any input is float32, else the
first of them), or with ``cast_narrow`` to the narrowest. Casts to bfloat16 round to
nearest even, as MXNet's oneDNN reorder does. Their gradients are cast back to each input's
dtype. ``all_finite(data)`` and ``multi_all_finite(d0, ..., num_arrays=n)`` give a float32
array of shape (1,): 1 when every element is finite, else 0; with ``init_output=False`` a
finite input leaves the output as it was (several checks can accumulate into one output).
They have no gradient, as in MXNet.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import BFLOAT16, MXNetError
from ...context import Context
from ..param import DTYPE_NAMES, Param, field
from ..registry import Operator, OperatorProperty, OpTest, register
from ..req import OpReq, assign
from ..simple_op import simple_op

__all__: list[str] = []

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)
_LOW_OR_F32 = (_F16, BFLOAT16, _F32)  # the dtypes AMP casts between


class AMPCastParam(Param):
    dtype: str = field(choices=DTYPE_NAMES, doc="Output data type.")


class AMPMultiCastParam(Param):
    num_outputs: int = field(
        low=1, doc="Number of input/output pairs to be casted to the widest type."
    )
    cast_narrow: bool = field(default=False, doc="Whether to cast to the narrowest type")


class AllFiniteParam(Param):
    init_output: bool = field(default=True, doc="Initialize output to 1.")


class MultiAllFiniteParam(Param):
    num_arrays: int = field(default=1, doc="Number of arrays.")
    init_output: bool = field(default=True, doc="Initialize output to 1.")


# ---- amp_cast -------------------------------------------------------------------------------


def _amp_cast_dtype(in_dtype: Any, param: AMPCastParam) -> Any:
    if in_dtype is None:
        return None
    return np.dtype(param.dtype) if np.dtype(in_dtype) in _LOW_OR_F32 else in_dtype


def _amp_cast(xp: Any, x: Any, env: Any, out: Any) -> Any:
    # from the parameter, not ``out``: under req='add' there is no output buffer to ask
    dtype = _amp_cast_dtype(x.dtype, env.param)
    with np.errstate(over="ignore"):  # float32 beyond float16's range becomes inf, silently
        return x.astype(dtype, copy=False)


simple_op(
    "amp_cast",
    forward=_amp_cast,
    gradient=lambda xp, g, env: g,  # cast back to the input's dtype by the gradient's output
    dtype=_amp_cast_dtype,
    param_class=AMPCastParam,
    forward_inplace=True,
    gradient_inplace=True,
    test=OpTest(params={"dtype": "float64"}, dtypes=("float32",), grad=False),
    facts={"amp_cast": True, "keeps_bfloat16": True},
    doc="Cast function between low precision float/FP32 used by AMP. It casts only between "
    "low precision float/FP32 and does not do anything for other types.",
)


# ---- amp_multicast --------------------------------------------------------------------------


class _AMPMultiCastOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        for x, r, y in zip(in_data, req, out_data):
            if r != OpReq.NULL and not (r == OpReq.INPLACE and x.dtype == y.dtype):
                with np.errstate(over="ignore"):
                    assign(y, r, x.astype(y.dtype, copy=False))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        for g, r, gi in zip(out_grad, req, in_grad):
            if r != OpReq.NULL:
                assign(gi, r, g.astype(gi.dtype, copy=False))


@register("amp_multicast")
class AMPMultiCastProp(OperatorProperty):
    """Cast the float16/float32 inputs to their widest (or narrowest) dtype, as AMP does."""

    param_class = AMPMultiCastParam
    key_var_num_args = "num_outputs"
    amp_cast = True
    keeps_bfloat16 = True
    test = OpTest(
        shapes={"data_0": (2, 3), "data_1": (2, 3)}, params={"num_outputs": 2}, dtypes=("float32",)
    )

    def list_arguments(self) -> list[str]:
        return [f"data_{i}" for i in range(self.param.num_outputs)]

    def list_outputs(self) -> list[str]:
        return [f"output{i}" for i in range(self.param.num_outputs)]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        n = self.param.num_outputs
        if len(in_shape) != n:
            raise MXNetError(f"amp_multicast: num_outputs={n} but {len(in_shape)} inputs given.")
        outs = list(out_shape or [None] * n)
        ins = [i if i is not None else o for i, o in zip(in_shape, outs)]
        if any(s is None for s in ins):
            return None
        return ins, ins, []

    def infer_type(self, in_type: list, out_type: list | None = None):
        if any(t is None for t in in_type):
            return None
        known = [np.dtype(t) for t in in_type]
        low = [t for t in known if t in _LOW_OR_F32]
        if self.param.cast_narrow:  # the last 16-bit input decides, as in MXNet's loop
            target = next((t for t in reversed(low) if t != _F32), _F32)
        else:
            target = _F32 if _F32 in low else (low[0] if low else None)
        return known, [target if t in _LOW_OR_F32 else t for t in known], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return list(out_grad)

    def forward_inplace_option(self, in_data: list, out_data: list) -> list:
        return list(zip(in_data, out_data))

    def create_operator(self, ctx: Context) -> Operator:
        return _AMPMultiCastOp()


# ---- all_finite, multi_all_finite -------------------------------------------------------------


class _AllFiniteOp(Operator):
    def __init__(self, init_output: bool, xp: Any) -> None:
        self.init_output = init_output
        self.xp = xp

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        xp, out = self.xp, out_data[0]
        finite = all(bool(xp.isfinite(x.astype(_F32, copy=False)).all()) for x in in_data)
        if self.init_output:
            out[...] = 1.0
        if not finite:
            out[...] = 0.0


class _AllFiniteBase(OperatorProperty):
    differentiable = False

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        return list(in_shape), [(1,)], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        return list(in_type), [_F32], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return []

    def create_operator(self, ctx: Context) -> Operator:
        return _AllFiniteOp(self.param.init_output, ctx.xp)


@register("all_finite")
class AllFiniteProp(_AllFiniteBase):
    """1 if every element of ``data`` is finite, else 0 (a float32 array of shape (1,))."""

    param_class = AllFiniteParam
    test = OpTest(shapes={"data": (2, 3)}, grad=False, accumulates=False)

    def list_arguments(self) -> list[str]:
        return ["data"]


@register("multi_all_finite")
class MultiAllFiniteProp(_AllFiniteBase):
    """1 if every element of every input is finite, else 0 (a float32 array of shape (1,))."""

    param_class = MultiAllFiniteParam
    key_var_num_args = "num_arrays"
    test = OpTest(
        shapes={"array_0": (2, 3), "array_1": (4,)},
        params={"num_arrays": 2},
        grad=False,
        accumulates=False,
    )

    def list_arguments(self) -> list[str]:
        return [f"array_{i}" for i in range(self.param.num_arrays)]
