"""MXNet 1.9.1's quantized layers with int32 results or rescaled ranges (contrib):
``quantized_elemwise_add``, ``quantized_elemwise_mul``, ``quantized_concat``,
``quantized_fully_connected`` and ``quantized_conv``. ``elemwise_add``, ``concat``, the fully
connected layer and the convolution follow MXNet's CPU (MKLDNN) kernels: scales of
``127.5 / max|range|`` for int8 data and ``255 / max|range|`` for uint8, results rounded to
nearest and saturated; ``elemwise_mul`` follows MXNet's reference CPU kernel (truncation).
Products accumulate exactly in int32. None has a gradient."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import ParamError, ShapeError
from ...context import Context
from ..nn import _int8_gemm as ig
from ..nn.convolution import ConvolutionParam
from ..nn.fully_connected import FullyConnectedParam
from ..nn.rnn import RNNParam
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, get, register
from ..req import OpReq, assign
from ..tensor.join import ConcatParam
from .quantized_ops import (
    _CPU,
    _F,
    _I8,
    _I32,
    _INT8_RANGE,
    _INT32_MAX,
    _U8,
    _UINT8_RANGE,
    _max_abs,
    _QuantProp,
    _range_scale,
    _saturate,
    _scalar,
    calib_range_field,
)

__all__: list[str] = []


def _calib(p: Any) -> bool:
    return p.min_calib_range is not None and p.max_calib_range is not None


def _data_range(dtype: np.dtype) -> np.float32:
    return _INT8_RANGE if dtype == _I8 else _UINT8_RANGE


def _level(lo: Any, hi: Any, levels: int) -> np.float32:
    """Float value of one level when ``levels`` levels span max(|lo|, |hi|)."""
    return _max_abs(lo, hi) / _F(levels)


# ---- elemwise_add / elemwise_mul --------------------------------------------------------------


_REQUANTIZE_USE = "If present, it will be used to requantize the int8 output data."


class QuantizedElemwiseAddParam(Param):
    min_calib_range: float | None = calib_range_field("minimum", _REQUANTIZE_USE)
    max_calib_range: float | None = calib_range_field("maximum", _REQUANTIZE_USE)


class QuantizedElemwiseMulParam(QuantizedElemwiseAddParam):
    enable_float_output: bool = field(default=False, doc="Whether to enable float32 output")


_BINARY_TEST = {"lhs": (2, 3), "rhs": (2, 3), "lhs_min": (1,), "lhs_max": (1,),
                "rhs_min": (1,), "rhs_max": (1,)}  # fmt: skip


class _BinaryProp(_QuantProp):
    data_names = ("lhs", "rhs")
    range_names = ("lhs_min", "lhs_max", "rhs_min", "rhs_max")
    allowed: tuple = (_I8, _U8)

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        ranges = self._ranges(in_shape)
        a, b = in_shape[0], in_shape[1]
        if a is None and b is None:
            return None
        d = tuple(a if a is not None else b)
        if a is not None and b is not None and tuple(a) != tuple(b):
            raise ShapeError(
                f"{self.where()}: lhs and rhs must have one shape, got {tuple(a)} and {tuple(b)}."
            )
        return [d, d, *ranges], [d] + [(1,)] * (len(self.list_outputs()) - 1), []

    def infer_type(self, in_type: list, out_type: list | None = None):
        ins = self._types(in_type, self.allowed)
        if ins is None:
            return None
        f = np.dtype(_F)
        return ins, [self.out_dtype(ins[0], ins[1])] + [f] * (len(self.list_outputs()) - 1), []


@register("_contrib_quantized_elemwise_add")
class QuantizedElemwiseAddProp(_BinaryProp):
    """Add two int8 / uint8 arrays into int32 (range: the sum of the inputs' ranges), or into
    int8 / uint8 over the calibrated range."""

    param_class = QuantizedElemwiseAddParam
    need_requantize = True
    test = OpTest(shapes=_BINARY_TEST, grad=False, dtypes=("int8",))

    def out_dtype(self, a: np.dtype, b: np.dtype) -> np.dtype:
        if not _calib(self.param):
            return _I32
        return a if a == b else _I8

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        a, b = np.asarray(ins[0]), np.asarray(ins[1])
        a_lo, a_hi, b_lo, b_hi = (_scalar(v) for v in ins[2:6])
        a_abs, b_abs = _max_abs(a_lo, a_hi), _max_abs(b_lo, b_hi)
        out_t = outs[0].dtype
        out_range = {_I8: _INT8_RANGE, _U8: _UINT8_RANGE}.get(np.dtype(out_t), _F(_INT32_MAX))
        p = self.param
        if _calib(p):
            lo, hi = _F(p.min_calib_range), _F(p.max_calib_range)
            out_scale = out_range / _max_abs(lo, hi)
            sa, sb = (
                out_scale / _range_scale(a.dtype, a_lo, a_hi),
                out_scale / _range_scale(b.dtype, b_lo, b_hi),
            )
        else:
            hi = a_abs + b_abs
            lo = -hi
            if a.dtype == b.dtype:
                sa = a_abs * out_range / (hi * _data_range(a.dtype))
                sb = b_abs * out_range / (hi * _data_range(a.dtype))
            else:
                sa = a_abs * out_range / (hi * _data_range(a.dtype))
                sb = b_abs * out_range / (hi * _data_range(b.dtype))
        if a.dtype != b.dtype:  # MKLDNN first reorders the uint8 side to int8 with its scale
            if a.dtype == _U8:
                a, sa = _saturate(a.astype(_F) * _F(sa), _I8), _F(1)
            else:
                b, sb = _saturate(b.astype(_F) * _F(sb), _I8), _F(1)
        out = a.astype(_F) * _F(sa) + b.astype(_F) * _F(sb)
        return [_saturate(out, np.dtype(out_t)), _F(lo), _F(hi)]


@register("_contrib_quantized_elemwise_mul")
class QuantizedElemwiseMulProp(_BinaryProp):
    """Multiply two int8 arrays into int32 (range: one level of each input times
    2**31 - 1), into int8 over the calibrated range, or into float32 with
    ``enable_float_output`` (then the one output only)."""

    param_class = QuantizedElemwiseMulParam
    need_requantize = True
    test = OpTest(shapes=_BINARY_TEST, grad=False, dtypes=("int8",))
    allowed = (_I8,)

    def list_outputs(self) -> list[str]:
        return ["output"] if self.param.enable_float_output else ["output", "min_output",
                                                                   "max_output"]  # fmt: skip

    def out_dtype(self, a: np.dtype, b: np.dtype) -> np.dtype:
        if self.param.enable_float_output:
            return np.dtype(_F)
        return _I8 if _calib(self.param) else _I32

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        p = self.param
        prod = np.asarray(ins[0]).astype(np.int32) * np.asarray(ins[1]).astype(np.int32)
        a_lo, a_hi, b_lo, b_hi = (_scalar(v) for v in ins[2:6])
        a_scale = _INT8_RANGE / _max_abs(a_lo, a_hi)
        b_scale = _INT8_RANGE / _max_abs(b_lo, b_hi)
        if p.enable_float_output:
            return [prod.astype(_F) * _F(_F(1) / a_scale / b_scale)]
        if _calib(p):
            lo, hi = _F(p.min_calib_range), _F(p.max_calib_range)
            scale = _INT8_RANGE / _max_abs(lo, hi) / a_scale / b_scale
            # MXNet's kernel truncates to int and keeps the low byte: out-of-range values wrap
            out = np.trunc(prod.astype(_F) * _F(scale)).astype(np.int32).astype(_I8)
        else:
            hi = _level(a_lo, a_hi, 127) * _level(b_lo, b_hi, 127) * _F(_INT32_MAX)
            lo, out = -hi, prod
        return [out, _F(lo), _F(hi)]


# ---- concat -----------------------------------------------------------------------------------


@register("_contrib_quantized_concat")
class QuantizedConcatProp(_QuantProp):
    """Join int8 / uint8 arrays along ``dim``; inputs whose range differs from the widest
    (min of the minima, max of the maxima, each bounded by 0) are rescaled to it. The output is
    int8 if any input is int8, else uint8."""

    param_class = ConcatParam
    key_var_num_args = "num_args"
    test = OpTest(shapes={"arg0": (2, 3), "arg1": (2, 2), "arg0_min": (1,), "arg0_max": (1,),
                          "arg1_min": (1,), "arg1_max": (1,)},
                  params={"num_args": 2, "dim": 1}, grad=False, dtypes=("int8",))  # fmt: skip

    def __init__(self, param: Any = None, attrs: dict[str, str] | None = None) -> None:
        super().__init__(param, attrs)
        n = self.param.num_args
        self.data_names = tuple(f"arg{i}" for i in range(n))
        self.range_names = tuple(f"arg{i}_{e}" for i in range(n) for e in ("min", "max"))
        self.concat = get("Concat").get_prop({"num_args": n, "dim": self.param.dim})

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        n = self.param.num_args
        ranges = self._ranges(in_shape)
        res = self.concat.infer_shape(list(in_shape[:n]), None if not out_shape else out_shape[:1])
        if res is None:
            return None
        ins, outs, _ = res
        return [*ins, *ranges], [outs[0], (1,), (1,)], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        ins = self._types(in_type)
        if ins is None:
            return None
        out = _I8 if _I8 in ins[: self.param.num_args] else _U8
        return ins, [out, np.dtype(_F), np.dtype(_F)], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        n = self.param.num_args
        xs = [np.asarray(x) for x in ins[:n]]
        los = [_scalar(v) for v in ins[n::2]]
        his = [_scalar(v) for v in ins[n + 1 :: 2]]
        lo, hi = min(_F(0), *los), max(_F(0), *his)
        out_t = np.dtype(outs[0].dtype)
        out_scale = _range_scale(out_t, lo, hi)
        parts = []
        for x, a, b in zip(xs, los, his):
            s = _range_scale(x.dtype, a, b)
            parts.append(x if s == out_scale else _saturate(x.astype(_F) * (out_scale / s), out_t))
        axis = self.param.dim % xs[0].ndim
        return [np.concatenate([p.astype(out_t) for p in parts], axis=axis), lo, hi]


# ---- fully connected and convolution ----------------------------------------------------------


class _LayerProp(_QuantProp):
    """data, weight[, bias] then (min, max) of each: int8 weights, int32 output."""

    float_op = ""

    def __init__(self, param: Any = None, attrs: dict[str, str] | None = None) -> None:
        super().__init__(param, attrs)
        parts = ("data", "weight") if self.param.no_bias else ("data", "weight", "bias")
        self.data_names = parts
        self.range_names = tuple(f"{e}_{p}" for p in parts for e in ("min", "max"))
        kw = {k: getattr(self.param, k) for k in self.param.field_names()}
        self.float_prop = get(self.float_op).get_prop(kw)

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        k = len(self.data_names)
        ranges = self._ranges(in_shape)
        # a known output shape fills in the data's (a begin state's batch), as in the float op
        res = self.float_prop.infer_shape(list(in_shape[:k]), out_shape[:1] if out_shape else None)
        if res is None:
            return None
        ins, outs, _ = res
        return [*ins, *ranges], [outs[0], (1,), (1,)], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        k = len(self.data_names)
        if in_type[0] is None:
            return None
        ts = [self._check_dtype("data", in_type[0], (_I8, _U8))]
        for name, t in zip(self.data_names[1:], in_type[1:k]):
            ts.append(_I8 if t is None else self._check_dtype(name, t, (_I8,)))
        f = np.dtype(_F)
        return ts + [f] * (len(in_type) - k), [_I32, f, f], []

    def create_operator(self, ctx: Context) -> Operator:
        return _LayerOp(self, self.float_prop.create_operator(_CPU))


class _LayerOp(Operator):
    def __init__(self, prop: _LayerProp, float_op: Operator) -> None:
        self.prop, self.op = prop, float_op
        self._key: Any = None
        self._kernel: Any = None

    def _integer_sums(self, op_ctx, data: np.ndarray, weight: Any, shape: tuple):
        """The exact sums on the integer products (``_int8_gemm``), in the output's shape;
        None where they do not apply (float64 products then)."""
        geom = getattr(self.op, "geom", None)
        if (geom is not None and not ig.Int8Conv.supports(geom)) or not ig.available():
            return None
        vars_ = op_ctx.in_vars
        key = None if vars_ is None else (vars_[1], vars_[1].version)
        if key is None or key != self._key:
            w = np.asarray(weight)
            self._kernel = (
                ig.Int8Conv(w, geom) if geom is not None else ig.Int8Matmul(w.reshape(len(w), -1).T)
            )
            self._key = key
        if geom is not None:
            return self._kernel(data, shape[2:]).transpose(0, 2, 1).reshape(shape)
        rows = (
            data.reshape(len(data), -1)
            if self.prop.param.flatten
            else data.reshape(-1, data.shape[-1])
        )
        return self._kernel(*ig.as_uint8(np.ascontiguousarray(rows))).reshape(shape)

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        k = len(self.prop.data_names)
        data = np.asarray(in_data[0])
        out = self._integer_sums(op_ctx, data, in_data[1], out_data[0].shape)
        if out is None:
            # float64 holds every int8 x int8 sum of fewer than 2**37 terms exactly
            ins = [np.asarray(x).astype(np.float64) for x in in_data[:2]]
            if k == 3:
                ins.append(np.zeros(np.asarray(in_data[2]).shape, np.float64))
            out = np.empty(out_data[0].shape, np.float64)
            self.op.forward(op_ctx, ins, [OpReq.WRITE], [out], [])
        ranges = [_scalar(v) for v in in_data[k:]]
        bias = None if k == 2 else np.asarray(in_data[2]).astype(np.int64)
        acc, lo, hi = self.prop.finish(out, data.dtype, bias, ranges)
        assign(out_data[0], req[0], np.clip(acc, -_INT32_MAX - 1, _INT32_MAX).astype(_I32))
        assign(out_data[1], req[1], lo)
        assign(out_data[2], req[2], hi)


def _bias_shape(x: np.ndarray, ndim: int) -> np.ndarray:
    return x.reshape((1, -1) + (1,) * (ndim - 2))


@register("_contrib_quantized_fully_connected")
class QuantizedFullyConnectedProp(_LayerProp):
    """FullyConnected of int8 / uint8 ``data`` and int8 ``weight`` into int32; the int8
    ``bias`` is rescaled to the output's levels (MXNet's MKLDNN kernel)."""

    param_class = FullyConnectedParam
    float_op = "FullyConnected"
    need_requantize = True
    test = OpTest(shapes={"data": (2, 3), "weight": (4, 3), "bias": (4,)},
                  params={"num_hidden": 4}, grad=False, dtypes=("int8",))  # fmt: skip

    def finish(self, out: np.ndarray, dtype: np.dtype, bias: Any, ranges: list) -> tuple:
        d_lo, d_hi, w_lo, w_hi = ranges[:4]
        acc = np.rint(out).astype(np.int64)
        if bias is not None:
            d_scale = _data_range(dtype) / _max_abs(d_lo, d_hi)
            w_scale = _INT8_RANGE / _max_abs(w_lo, w_hi)
            rescale = _F(d_scale * w_scale * _max_abs(ranges[4], ranges[5]) / _INT8_RANGE)
            acc += np.trunc(bias.astype(_F) * rescale).astype(np.int64)
        # MXNet's range for uint8 data reads the data as 127 levels, the weight as 255
        d_levels, w_levels = (127, 127) if dtype == _I8 else (127, 255)
        hi = _level(d_lo, d_hi, d_levels) * _level(w_lo, w_hi, w_levels) * _F(_INT32_MAX)
        return acc, -hi, hi


@register("_contrib_quantized_conv")
class QuantizedConvProp(_LayerProp):
    """Convolution of uint8 (MXNet's CPU kernel) or int8 ``data`` with int8 ``weight`` into
    int32, plus the int8 ``bias`` as it is (uint8 data, as MXNet's kernel) or rescaled to the
    output's levels (int8 data, which MXNet's CPU refuses); range ±(one level of data x one
    level of weight) x (2**31 - 1), 127 levels each."""

    param_class = ConvolutionParam
    float_op = "Convolution"
    need_requantize = True
    test = OpTest(shapes={"data": (1, 2, 4, 4), "weight": (3, 2, 3, 3), "bias": (3,)},
                  params={"num_filter": 3, "kernel": (3, 3)}, grad=False,
                  dtypes=("uint8",))  # fmt: skip

    def finish(self, out: np.ndarray, dtype: np.dtype, bias: Any, ranges: list) -> tuple:
        acc = np.rint(out).astype(np.int64)
        if bias is not None and dtype == _U8:
            acc += _bias_shape(bias, acc.ndim)
        elif bias is not None:
            # int8 data, which MXNet's CPU kernel refuses: the bias rescaled to the output's
            # levels, as the quantized FullyConnected does, rather than added as it is
            scale = _F(127) / _max_abs(*ranges[0:2]) * (_F(127) / _max_abs(*ranges[2:4]))
            rescale = _F(scale * _max_abs(*ranges[4:6]) / _INT8_RANGE)
            acc += _bias_shape(np.trunc(bias.astype(_F) * rescale).astype(np.int64), acc.ndim)
        hi = _level(*ranges[0:2], 127) * _level(*ranges[2:4], 127) * _F(_INT32_MAX)
        return acc, -hi, hi


# ---- LSTM -------------------------------------------------------------------------------------


class QuantizedRNNParam(RNNParam):
    quantized: bool = field(default=False, doc="Set by the quantization pass ('true').")


@register("_contrib_quantized_rnn")
class QuantizedRNNProp(_QuantProp):
    """LSTM over uint8 ``data`` quantized asymmetrically (``quantize_asym``): ``min_data`` and
    ``max_data`` carry its ``scale`` and ``shift``. mxlite restores the float data
    (``(data - shift) / scale``) and runs the float LSTM with the float ``parameters``; MXNet's
    MKLDNN kernel also quantizes the weights to int8, so its results differ by that rounding."""

    param_class = QuantizedRNNParam
    data_names = ("data", "parameters", "state", "state_cell")
    test = OpTest(
        shapes={"data": (2, 1, 3), "parameters": (144,), "state": (1, 1, 4),
                "state_cell": (1, 1, 4), "min_data": (1,), "max_data": (1,)},
        params={"state_size": 4, "num_layers": 1, "mode": "lstm"},
        grad=False,
        dtypes=("uint8",),
    )  # fmt: skip

    def __init__(self, param: Any = None, attrs: dict[str, str] | None = None) -> None:
        super().__init__(param, attrs)
        p = self.param
        if p.mode != "lstm" or p.use_sequence_length:
            raise ParamError(f"{self.where()}: MXNet quantizes mode='lstm' without "
                             "use_sequence_length only.")  # fmt: skip
        self.rnn = get("RNN").get_prop(
            {k: getattr(p, k) for k in p.field_names() if k != "quantized"}
        )

    def list_outputs(self) -> list[str]:
        if self.param.state_outputs:
            return ["output", "state_output", "statecell_ouput"]  # MXNet's spelling
        return ["output"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        ranges = self._ranges(in_shape)
        res = self.rnn.infer_shape(list(in_shape[:4]), None)
        if res is None:
            return None
        ins, outs, _ = res
        return [*ins, *ranges], outs[: len(self.list_outputs())], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None:
            return None
        f = np.dtype(_F)
        ins = [self._check_dtype("data", in_type[0], (_U8,))] + [f] * 5
        return ins, [f] * len(self.list_outputs()), []

    def create_operator(self, ctx: Context) -> Operator:
        return _QuantizedRNNOp(self.rnn)


class _QuantizedRNNOp(Operator):
    def __init__(self, rnn: OperatorProperty) -> None:
        self.rnn = rnn
        self.op = rnn.create_operator(_CPU)

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        scale, shift = _scalar(in_data[4]), _scalar(in_data[5])
        x = ((np.asarray(in_data[0]).astype(_F) - shift) / scale).astype(_F)
        ins = [x, *(np.asarray(a, dtype=_F) for a in in_data[1:4])]
        shapes = self.rnn.infer_shape([a.shape for a in ins], None)[1]
        outs = [np.empty(s, _F) for s in shapes]
        self.op.forward(op_ctx, ins, [OpReq.WRITE] * len(outs), outs, [])
        for i, o in enumerate(out_data):
            assign(o, req[i], outs[i])
