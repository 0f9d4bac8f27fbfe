"""Activation functions: ``Activation`` (relu, sigmoid, tanh, softrelu, softsign) and
``LeakyReLU`` (leaky, prelu, elu, selu, gelu, rrelu), as in MXNet 1.9.1.

Design note
-----------
Both are OperatorProperty classes because their arguments, outputs and backward reads depend
on ``act_type``. Backward reads what MXNet's reads, so the memory planner can free the rest:
Activation reads the output (softsign: the input); LeakyReLU reads the output, except prelu
and gelu, which read the input. Two MXNet quirks are kept on purpose, because models trained
with MXNet depend on them: leaky/prelu/rrelu multiply negative inputs by the slope in float32
even for float64 data, and selu's gradient on negative inputs is ``lambda * (alpha + y)``.

rrelu draws one slope per element from U(lower_bound, upper_bound) in training (the ``mask``
output holds them; the RANDOM resource provides the generator) and uses their mean in
inference, where the mask is filled with that mean (MXNet leaves it unwritten).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base import DTypeError, Shape, ShapeError
from ...context import Context
from ...resource import ResourceRequest
from ..parallel import cast_buffer, elementwise, relu_into
from ..param import Param, field
from ..registry import Operator, OperatorProperty, register
from ..req import OpReq, assign
from ..tensor import special

__all__ = ["ActivationParam", "LeakyReLUParam", "check_float"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_LAMBDA = 1.0507009873554804934193349852946


def check_float(prop: OperatorProperty, arg: str, dtype: Any) -> None:
    """Raise DTypeError unless ``dtype`` is float16/32/64 (MXNet's real-type switch)."""
    if dtype is not None and np.dtype(dtype).kind != "f":
        raise DTypeError(
            f"{prop.where()}: argument {arg!r} has dtype {np.dtype(dtype).name}; "
            f"{prop.op_name} accepts float16, float32, float64."
        )


def _write(out: Any, req: OpReq, value: Any) -> None:
    if req != OpReq.NULL:
        assign(out, req, value)


# ---------------------------------------------------------------------------------------------
# Activation


class FloatDataProp(OperatorProperty):
    """An operator whose ``data`` must be floating point: the default type inference, then
    that check."""

    def infer_type(self, in_type, out_type=None):
        res = super().infer_type(in_type, out_type)
        if res is not None:
            check_float(self, "data", res[0][0])
        return res


class ActivationParam(Param):
    act_type: str = field(
        choices=("relu", "sigmoid", "softrelu", "softsign", "tanh"),
        doc="Activation function to be applied.",
    )


def _sigmoid(xp: Any, x: Any) -> Any:
    return 1 / (1 + xp.exp(-x))


_ACT_FORWARD = {
    "relu": lambda xp, x: xp.maximum(x, 0),
    "sigmoid": _sigmoid,
    "tanh": lambda xp, x: xp.tanh(x),
    "softrelu": lambda xp, x: xp.logaddexp(x.dtype.type(0), x),
    "softsign": lambda xp, x: x / (1 + xp.abs(x)),
}

# gradient factors dy/dx, from the output (or, for softsign, the input)
_ACT_GRAD = {
    "relu": lambda xp, y: (y > 0).astype(y.dtype),
    "sigmoid": lambda xp, y: y * (1 - y),
    "tanh": lambda xp, y: 1 - y * y,
    "softrelu": lambda xp, y: -xp.expm1(-y),
    "softsign": lambda xp, x: 1 / xp.square(1 + xp.abs(x)),
}


class _ActivationOp(Operator):
    def __init__(self, act_type: str, xp: Any) -> None:
        self.act_type = act_type
        self.xp = xp

    def forward(self, op_ctx, in_data, req, out_data, aux):
        x, out = in_data[0], out_data[0]
        if req[0] == OpReq.NULL:
            return
        xp = self.xp
        if req[0] != OpReq.ADD:
            if self.act_type == "relu":
                elementwise(lambda a, o: relu_into(xp, a, o), x, out)
                return
            if self.act_type == "sigmoid":  # 1 / (1 + exp(-x)) in out: no temporaries
                xp.negative(x, out=out)
                xp.exp(out, out=out)
                out += 1
                xp.reciprocal(out, out=out)
                return
        assign(out, req[0], _ACT_FORWARD[self.act_type](xp, x))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux):
        xp, act = self.xp, self.act_type
        if req[0] == OpReq.WRITE or req[0] == OpReq.INPLACE:
            dy, y, dx = out_grad[0], out_data[0], in_grad[0]
            if act == "relu":
                elementwise(lambda g, a, o: _relu_grad_into(xp, g, a, o), dy, y, dx)
                return
            if act in ("sigmoid", "tanh") and not xp.may_share_memory(dx, y):
                # dy * (y * (1 - y)) or dy * (1 - y * y), the factor built in dx (a copy of
                # the factor first where dx is dy itself, the in-place option)
                factor = xp.empty_like(dx) if xp.may_share_memory(dx, dy) else dx
                if act == "sigmoid":
                    xp.subtract(1, y, out=factor)
                    xp.multiply(y, factor, out=factor)
                else:
                    xp.multiply(y, y, out=factor)
                    xp.subtract(1, factor, out=factor)
                xp.multiply(dy, factor, out=dx)
                return
        src = in_data[0] if act == "softsign" else out_data[0]
        _write(in_grad[0], req[0], out_grad[0] * _ACT_GRAD[act](xp, src))


@register("Activation", aliases=("_npx_activation",))
class ActivationProp(FloatDataProp):
    """Element-wise activation: relu, sigmoid, tanh, softrelu (log(1 + exp(x))) or softsign
    (x / (1 + |x|))."""

    lists_output_names = True

    plot_kind = "activation"

    @classmethod
    def plot_label(cls, name: str, attrs: dict[str, str]) -> str:
        return f"Activation\n{attrs.get('act_type', 'relu')}"

    param_class = ActivationParam

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        if self.param.act_type == "softsign":
            return [out_grad[0], in_data[0]]
        return [out_grad[0], out_data[0]]

    def forward_inplace_option(self, in_data, out_data):
        return [(in_data[0], out_data[0])]

    def backward_inplace_option(self, out_grad, in_data, out_data, in_grad):
        return [(out_grad[0], in_grad[0])]

    quantized_name = "_contrib_quantized_act"

    def quantized_op(self, granularity: str) -> tuple[str, dict[str, str]] | None:
        """Fact for quantization: only ReLU has a quantized form."""
        return super().quantized_op(granularity) if self.param.act_type == "relu" else None

    @property
    def epilogue(self) -> str | None:  # type: ignore[override]
        """Fact for inference passes (``OperatorProperty.epilogue``): "relu" for ReLU."""
        return "relu" if self.param.act_type == "relu" else None

    def create_operator(self, ctx: Context) -> Operator:
        return _ActivationOp(self.param.act_type, ctx.xp)


# ---------------------------------------------------------------------------------------------
# LeakyReLU


class LeakyReLUParam(Param):
    act_type: str = field(
        default="leaky",
        choices=("elu", "gelu", "leaky", "prelu", "rrelu", "selu"),
        doc="Activation function to be applied.",
    )
    slope: float = field(
        default=0.25, doc="Init slope for the activation. (For leaky and elu only)"
    )
    lower_bound: float = field(default=0.125, doc="Lower bound of random slope. (For rrelu only)")
    upper_bound: float = field(default=0.334, doc="Upper bound of random slope. (For rrelu only)")


def _xelu(xp: Any, x: Any, slope: Any) -> Any:
    # MXNet multiplies in float32 whatever the dtype (see the module note)
    neg = (x.astype(np.float32) * np.asarray(slope, dtype=np.float32)).astype(x.dtype)
    return xp.where(x > 0, x, neg)


def _prelu_gamma_shape(prop: OperatorProperty, gamma: Shape, data: Shape) -> Shape:
    """gamma aligned to data's axes 0 and 1 from the right, 1 elsewhere (MXNet's rule)."""
    result = [1] * len(data)
    s = len(gamma) - 1
    for i in range(len(data) - 1, -1, -1):
        if s >= 0 and i <= 1 and (data[i] == gamma[s] or gamma[s] == 1):
            result[i] = gamma[s]
            s -= 1
    if s != -1:
        raise ShapeError(
            f"{prop.where()}: argument 'gamma' has shape {tuple(gamma)}, which does not "
            f"broadcast to data of shape {tuple(data)}; expected (channels,) = ({data[1]},) "
            f"or (1,)."
            if len(data) > 1
            else f"{prop.where()}: argument 'gamma' has shape {tuple(gamma)}; cannot broadcast "
            f"to data of shape {tuple(data)}."
        )
    return tuple(result)


class _LeakyReLUOp(Operator):
    def __init__(self, prop: LeakyReLUProp, xp: Any) -> None:
        self.prop = prop
        self.p = prop.param
        self.xp = xp

    def forward(self, op_ctx, in_data, req, out_data, aux):
        xp, p, x = self.xp, self.p, in_data[0]
        act = p.act_type
        if act == "leaky":
            y = _xelu(xp, x, p.slope)
        elif act == "prelu":
            gamma = in_data[1].reshape(_prelu_gamma_shape(self.prop, in_data[1].shape, x.shape))
            y = _xelu(xp, x, gamma)
        elif act == "rrelu":
            if op_ctx.is_train:
                rng = op_ctx.requested[0].get_random()
                u = xp.asarray(rng.random(x.shape, dtype=np.float32)).astype(x.dtype)
                mask = u * x.dtype.type(p.upper_bound - p.lower_bound) + x.dtype.type(p.lower_bound)
                _write(out_data[1], req[1], mask)
                y = _xelu(xp, x, mask)
            else:
                # MXNet leaves the mask unwritten here; the mean slope makes backward the
                # gradient of the inference function
                slope = np.float32((p.lower_bound + p.upper_bound) / 2.0)
                _write(out_data[1], req[1], slope)
                y = _xelu(xp, x, slope)
        elif act == "elu":
            y = xp.where(x > 0, x, x.dtype.type(p.slope) * xp.expm1(x))
        elif act == "selu":
            y = x.dtype.type(_SELU_LAMBDA) * xp.where(
                x > 0, x, x.dtype.type(_SELU_ALPHA) * xp.expm1(x)
            )
        elif xp is np and x.dtype in (np.float32, np.float16):  # gelu, the erf form
            y = special.gelu32(x.astype(np.float32, copy=False)).astype(x.dtype, copy=False)
        else:
            y = 0.5 * x * (1 + _erf(xp, x / x.dtype.type(math.sqrt(2.0))))
        _write(out_data[0], req[0], y)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux):
        xp, p, g = self.xp, self.p, out_grad[0]
        act = p.act_type
        y = out_data[0]
        one = g.dtype.type(1)
        if act == "leaky":
            dx = g * xp.where(y > 0, one, g.dtype.type(p.slope))
        elif act == "rrelu":
            dx = g * xp.where(y > 0, one, out_data[1])
        elif act == "elu":
            dx = g * xp.where(y > 0, one, g.dtype.type(p.slope) + y)
        elif act == "selu":
            dx = g * (g.dtype.type(_SELU_LAMBDA) * xp.where(y > 0, one, _SELU_ALPHA + y))
        elif act == "gelu" and xp is np and g.dtype in (np.float32, np.float16):
            x = in_data[0].astype(np.float32, copy=False)
            dx = special.gelu_grad32(x, g).astype(g.dtype, copy=False)
        elif act == "gelu":
            x = in_data[0]
            z = x / x.dtype.type(math.sqrt(2.0))
            derf = x.dtype.type(2 / math.sqrt(math.pi)) * xp.exp(-z * z)
            dx = g * (0.5 * (1 + _erf(xp, z) + x * derf / x.dtype.type(math.sqrt(2.0))))
        else:  # prelu
            x, gamma = in_data[0], in_data[1]
            gshape = _prelu_gamma_shape(self.prop, gamma.shape, x.shape)
            pos = x > 0
            dx = g * xp.where(pos, one, gamma.reshape(gshape))
            if req[1] != OpReq.NULL:
                axes = tuple(i for i, n in enumerate(gshape) if n == 1 and x.shape[i] != 1)
                dg = xp.where(pos, 0, x) * g
                dg = dg.sum(axis=axes, keepdims=True) if axes else dg
                assign(in_grad[1], req[1], dg.reshape(gamma.shape))
        _write(in_grad[0], req[0], dx)


def _relu_grad_into(xp: Any, g: Any, y: Any, out: Any) -> None:
    """``out = g * (y > 0)``: the bool mask cast through a small buffer (``cast_buffer``)."""
    with cast_buffer():
        xp.multiply(g, y > 0, out=out)


def _erf(xp: Any, x: Any) -> Any:
    return special.erf(xp, x).astype(x.dtype, copy=False)


@register("LeakyReLU", aliases=("_npx_leaky_relu",))
class LeakyReLUProp(FloatDataProp):
    """Leaky rectifiers and friends: leaky, prelu (learned slope ``gamma``), elu, selu, gelu,
    rrelu (random slope in training)."""

    lists_output_names = True

    plot_kind = "activation"

    @classmethod
    def plot_label(cls, name: str, attrs: dict[str, str]) -> str:
        return f"LeakyReLU\n{attrs.get('act_type', 'Leaky')}"

    input_var_init = {1: '["Constant", {"value": 0.25}]'}  # PReLU's gamma
    lists_input_names = True

    param_class = LeakyReLUParam

    def list_arguments(self) -> list[str]:
        return ["data", "gamma"] if self.param.act_type == "prelu" else ["data"]

    def list_outputs(self) -> list[str]:
        return ["output", "mask"] if self.param.act_type == "rrelu" else ["output"]

    def infer_shape(self, in_shape, out_shape=None):
        n = len(self.list_arguments())
        self.check_num_inputs(in_shape, f"act_type={self.param.act_type!r}")
        data = in_shape[0]
        if data is None:
            return None
        ins = [data]
        if n == 2:
            gamma = in_shape[1]
            if gamma is None:
                gamma = (data[1],) if len(data) > 1 else (data[0],)
            _prelu_gamma_shape(self, gamma, data)
            ins.append(gamma)
        return ins, [data] * len(self.list_outputs()), []

    def forward_resource(self, in_shape):
        return [ResourceRequest.RANDOM] if self.param.act_type == "rrelu" else []

    def is_train_dependent(self) -> bool:
        return self.param.act_type == "rrelu"

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        act = self.param.act_type
        if act == "prelu":
            return [out_grad[0], in_data[0], in_data[1]]
        if act == "gelu":
            return [out_grad[0], in_data[0]]
        return [out_grad[0], *out_data]

    def forward_inplace_option(self, in_data, out_data):
        # gelu and prelu read the input in backward, so it must survive
        if self.param.act_type in ("gelu", "prelu"):
            return []
        return [(in_data[0], out_data[0])]

    def create_operator(self, ctx: Context) -> Operator:
        return _LeakyReLUOp(self, ctx.xp)
