"""``quantize`` and ``dequantize`` (contrib): float32 to int8 (zero-centred, 127 levels per
side of ``max(|min_range|, |max_range|)``) or uint8 (255 levels over [min_range, max_range])
and back, as MXNet 1.9.1's CPU kernels. No gradient."""

from __future__ import annotations

import numpy as np

from ...base import ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, register, shape_assign
from ..req import assign

__all__: list[str] = []

_F = np.float32


class QuantizeParam(Param):
    out_type: str = field(default="uint8", choices=("int8", "uint8"), doc="Output data type.")


class DequantizeParam(Param):
    out_type: str = field(default="float32", choices=("float32",), doc="Output data type.")


class _QuantBase(OperatorProperty):
    differentiable = False

    def list_arguments(self) -> list[str]:
        return ["data", "min_range", "max_range"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        d = in_shape[0]
        mn = shape_assign(self, "input", "min_range", in_shape[1], (1,))
        mx = shape_assign(self, "input", "max_range", in_shape[2], (1,))
        if d is None:
            return None
        return [tuple(d), mn, mx], self.out_shapes(tuple(d)), []

    def out_shapes(self, d: tuple) -> list:
        return [d]

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return []


@register("_contrib_quantize")
class QuantizeProp(_QuantBase):
    """Quantize float32 ``data`` given its range; returns (data, min_range, max_range)."""

    param_class = QuantizeParam
    test = OpTest(shapes={"data": (2, 3), "min_range": (1,), "max_range": (1,)}, grad=False)

    def list_outputs(self) -> list[str]:
        return ["output", "min_output", "max_output"]

    def out_shapes(self, d: tuple) -> list:
        return [d, (1,), (1,)]

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = np.dtype(np.int8 if self.param.out_type == "int8" else np.uint8)
        f = np.dtype(_F)
        if in_type[0] is not None and np.dtype(in_type[0]) != f:
            raise ShapeError(f"{self.where()}: data must be float32, got {np.dtype(in_type[0])}.")
        return [f, f, f], [t, f, f], []

    def create_operator(self, ctx: Context) -> Operator:
        return _QuantizeOp(self.param.out_type)


class _QuantizeOp(Operator):
    def __init__(self, out_type: str) -> None:
        self.out_type = out_type

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        x = np.asarray(in_data[0], dtype=_F)
        lo, hi = (
            _F(np.asarray(in_data[1]).reshape(-1)[0]),
            _F(np.asarray(in_data[2]).reshape(-1)[0]),
        )
        if self.out_type == "uint8":
            scale = _F(255.0 / (hi - lo))
            q = ((x - lo) * scale + _F(0.5)).astype(np.uint8)
            omin, omax = lo, hi
        else:
            real = _F(max(abs(lo), abs(hi)))
            scale = _F(127.0) / real
            q = (np.sign(x) * np.minimum(np.abs(x) * scale + _F(0.5), _F(127))).astype(np.int8)
            omin, omax = -real, real
        assign(out_data[0], req[0], q)
        assign(out_data[1], req[1], omin)
        assign(out_data[2], req[2], omax)


@register("_contrib_dequantize")
class DequantizeProp(_QuantBase):
    """Dequantize int8 / uint8 ``data`` given the range it was quantized from."""

    param_class = DequantizeParam
    test = OpTest(shapes={"data": (2, 3), "min_range": (1,), "max_range": (1,)}, grad=False,
                  dtypes=("float32",))  # fmt: skip

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = in_type[0]
        if t is None:
            return None
        f = np.dtype(_F)
        return [np.dtype(t), f, f], [f], []

    def create_operator(self, ctx: Context) -> Operator:
        return _DequantizeOp()


class _DequantizeOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        q = np.asarray(in_data[0])
        lo, hi = (
            _F(np.asarray(in_data[1]).reshape(-1)[0]),
            _F(np.asarray(in_data[2]).reshape(-1)[0]),
        )
        if q.dtype == np.uint8:
            out = q.astype(_F) * _F((hi - lo) / _F(255)) + lo
        else:
            out = q.astype(_F) * (_F(max(abs(lo), abs(hi))) / _F(127))
        assign(out_data[0], req[0], out.astype(_F))
