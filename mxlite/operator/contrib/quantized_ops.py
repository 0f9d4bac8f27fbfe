"""MXNet 1.9.1's quantized operators (contrib): ``quantize_asym`` and the ``quantized_*``
layers over int8 / uint8 data, each with its float range as ``min_*`` / ``max_*`` inputs and
outputs. Where MXNet's CPU build runs a layer through MKLDNN (act, pooling, elemwise_add,
concat), mxlite follows that kernel's arithmetic (scales as MKLDNN's, rounding to nearest);
``quantized_fully_connected`` and ``quantized_elemwise_mul`` follow the reference kernels
(int32 accumulation, output range ±(one level of data x one level of weight) x (2**31 - 1)).
None has a gradient."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import DTypeError, ParamError
from ...context import Context
from ..nn.activation import ActivationParam
from ..nn.embedding import EmbeddingParam
from ..nn.normalization import BatchNormParam
from ..nn.pooling import PoolingParam
from ..param import Param, field
from ..registry import Operator, OpTest, get, register, shape_assign
from ..req import OpReq
from ._computed import ComputedProp

__all__: list[str] = []

_CPU = Context("cpu", 0)

_F = np.float32
_I8, _U8, _I32 = np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int32)
_INT8_RANGE = _F(127.5)  # MKLDNN's scale for int8 data (kInt8Range)
_UINT8_RANGE = _F(255.5)  # (kUint8Range)
_INT32_MAX = 2147483647
_RANGE_OUTS = ["output", "min_output", "max_output"]


def _scalar(a: Any) -> np.float32:
    return _F(np.asarray(a).reshape(-1)[0])


def calib_range_field(end: str, use: str, calibrated: bool = True) -> Any:
    """An optional float32 bound of the range calibration gave a quantized operator, as MXNet
    words it: ``end`` is "minimum" or "maximum", ``use`` MXNet's sentence on what reads it,
    ``calibrated`` whether its text says "obtained through calibration"."""
    how = " obtained through calibration" if calibrated else ""
    return field(default=None, doc=f"The {end} scalar value in the form of float32{how}. {use}")


def _max_abs(lo: Any, hi: Any) -> np.float32:
    return _F(max(abs(_F(lo)), abs(_F(hi))))


def _saturate(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Round to nearest (even) and clip into ``dtype``, as MKLDNN's reorders store."""
    info = np.iinfo(dtype)
    return np.clip(np.rint(x), info.min, info.max).astype(dtype)


def _range_scale(dtype: np.dtype, lo: Any, hi: Any) -> np.float32:
    """Levels per float unit of data of ``dtype`` quantized over [lo, hi] (MXNet's GetScale)."""
    real = _max_abs(lo, hi)
    if not real:
        return _F(_INT32_MAX)
    return (_INT8_RANGE if dtype == _I8 else _UINT8_RANGE) / real


def _one_level(lo: Any, hi: Any) -> np.float32:
    """Float value of one int8 level for the symmetric range [lo, hi] (127 levels a side)."""
    return _max_abs(lo, hi) / _F(127)


def _mult_range(lo_a: Any, hi_a: Any, lo_b: Any, hi_b: Any) -> np.float32:
    """Upper end of the int32 range of a product of two int8 arrays (symmetric)."""
    return _F(_one_level(lo_a, hi_a) * _one_level(lo_b, hi_b) * _F(_INT32_MAX))


class _QuantProp(ComputedProp):
    """An operator over quantized arrays: data inputs then their (min, max) pairs; no
    gradient. Its kernel is ``compute`` (see ComputedProp)."""

    differentiable = False
    data_names: tuple[str, ...] = ("data",)
    range_names: tuple[str, ...] = ("min_data", "max_data")

    def list_arguments(self) -> list[str]:
        return [*self.data_names, *self.range_names]

    def list_outputs(self) -> list[str]:
        return list(_RANGE_OUTS)

    def _ranges(self, in_shape: list) -> list:
        n = len(self.data_names)
        names = self.range_names
        return [shape_assign(self, "input", names[i], s, (1,)) for i, s in
                enumerate(in_shape[n:])]  # fmt: skip

    def _check_dtype(self, name: str, t: Any, allowed: tuple) -> np.dtype:
        t = np.dtype(t)
        if t not in allowed:
            want = " or ".join(str(a) for a in allowed)
            raise DTypeError(f"{self.where()}: input {name} must be {want}, got {t}.")
        return t

    def _types(self, in_type: list, allowed: tuple = (_I8, _U8)) -> list | None:
        n = len(self.data_names)
        if any(t is None for t in in_type[:n]):
            return None
        f = np.dtype(_F)
        ts = [self._check_dtype(nm, t, allowed) for nm, t in zip(self.data_names, in_type[:n])]
        return ts + [f] * (len(in_type) - n)


# ---- quantize_asym ----------------------------------------------------------------------------


_QUANTIZE_USE = "If present, it will be used to quantize the fp32 data."


class QuantizeAsymParam(Param):
    min_calib_range: float | None = calib_range_field("minimum", _QUANTIZE_USE, False)
    max_calib_range: float | None = calib_range_field("maximum", _QUANTIZE_USE, False)


@register("_contrib_quantize_asym")
class QuantizeAsymProp(_QuantProp):
    """Quantize float32 ``data`` to uint8 as ``data * scale + shift`` rounded, over the
    calibrated range (or the data's own range); returns (output, scale, shift)."""

    param_class = QuantizeAsymParam
    calibrate_input = 0
    range_names = ()
    test = OpTest(shapes={"data": (2, 3)}, grad=False, dtypes=("float32",))

    def list_outputs(self) -> list[str]:
        return ["output", "scale", "shift"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        d = in_shape[0]
        if d is None:
            return None
        return [tuple(d)], [tuple(d), (1,), (1,)], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None:
            return None
        t = self._check_dtype("data", in_type[0], (np.dtype(_F),))
        return [t], [_U8, np.dtype(_F), np.dtype(_F)], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        x, p = np.asarray(ins[0], dtype=_F), self.param
        if p.min_calib_range is not None and p.max_calib_range is not None:
            lo, hi = _F(p.min_calib_range), _F(p.max_calib_range)
        else:
            lo, hi = _F(x.min()), _F(x.max())
        scale = _F(255) / (hi - lo)
        shift = _F(255) - hi * scale
        return [np.clip(np.rint(x * scale + shift), 0, 255).astype(_U8), scale, shift]


# ---- flatten, act, pooling: int8/uint8 in, same type out, range passed through ----------------


class _PassRangeProp(_QuantProp):
    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        ranges = self._ranges(in_shape)
        d = in_shape[0]
        if d is None:
            return None
        return [tuple(d), *ranges], [self.out_shape(tuple(d)), (1,), (1,)], []

    def out_shape(self, d: tuple) -> tuple:
        return d

    def infer_type(self, in_type: list, out_type: list | None = None):
        ins = self._types(in_type)
        if ins is None:
            return None
        return ins, [self.out_dtype(ins[0]), np.dtype(_F), np.dtype(_F)], []

    def out_dtype(self, t: np.dtype) -> np.dtype:
        return t

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [self.transform(np.asarray(ins[0])), _scalar(ins[1]), _scalar(ins[2])]

    def transform(self, x: np.ndarray) -> np.ndarray:
        """The output data from the input data."""
        raise NotImplementedError


_RANGE_TEST = {"data": (2, 3, 4, 4), "min_data": (1,), "max_data": (1,)}


class _NoParam(Param):
    pass


@register("_contrib_quantized_flatten")
class QuantizedFlattenProp(_PassRangeProp):
    """Flatten int8 / uint8 ``data`` to 2-D (batch, rest); the range passes through."""

    param_class = _NoParam
    test = OpTest(shapes=_RANGE_TEST, grad=False, dtypes=("int8",))

    def out_shape(self, d: tuple) -> tuple:
        return (d[0], int(np.prod(d[1:], dtype=np.int64))) if d else (1, 1)

    def transform(self, x: np.ndarray) -> np.ndarray:
        return x.reshape(self.out_shape(x.shape))


@register("_contrib_quantized_act")
class QuantizedActProp(_PassRangeProp):
    """``relu`` of int8 / uint8 ``data`` (the only ``act_type`` MXNet quantizes) into an int8
    output; the range passes through. For uint8 data MXNet's CPU kernel leaves the bytes as
    they are in the int8 output (values above 127 read as negative), and so does mxlite."""

    param_class = ActivationParam
    test = OpTest(shapes=_RANGE_TEST, params={"act_type": "relu"}, grad=False, dtypes=("int8",))

    def create_operator(self, ctx: Context) -> Operator:
        if self.param.act_type != "relu":
            raise ParamError(f"{self.where()}: act_type must be 'relu', got "
                             f"{self.param.act_type!r}.")  # fmt: skip
        return super().create_operator(ctx)

    def out_dtype(self, t: np.dtype) -> np.dtype:
        return _I8

    def transform(self, x: np.ndarray) -> np.ndarray:
        if x.dtype == _U8:  # relu is the identity; MXNet stores the bytes as they are
            return x.view(_I8)
        return np.maximum(x, 0)


@register("_contrib_quantized_pooling")
class QuantizedPoolingProp(_PassRangeProp):
    """Max or average pooling of int8 / uint8 ``data`` with Pooling's parameters (averages
    rounded to nearest); the range passes through."""

    param_class = PoolingParam
    test = OpTest(shapes=_RANGE_TEST, params={"kernel": (2, 2)}, grad=False, dtypes=("int8",))

    def __init__(self, param: Any = None, attrs: dict[str, str] | None = None) -> None:
        super().__init__(param, attrs)
        if self.param.pool_type not in ("max", "avg"):
            raise ParamError(f"{self.where()}: pool_type must be 'max' or 'avg', got "
                             f"{self.param.pool_type!r}.")  # fmt: skip
        kw = {k: getattr(self.param, k) for k in self.param.field_names()}
        self.pool = get("Pooling").get_prop(kw)

    def out_shape(self, d: tuple) -> tuple:
        return tuple(self.pool.infer_shape([d])[1][0])

    def transform(self, x: np.ndarray) -> np.ndarray:
        op = self.pool.create_operator(_CPU)
        xf = x.astype(_F)
        out = np.empty(self.out_shape(x.shape), _F)
        op.forward(None, [xf], [OpReq.WRITE], [out], [])  # no context: no max indices kept
        return _saturate(out, x.dtype)


# ---- batch_norm and embedding -----------------------------------------------------------------


@register("_contrib_quantized_batch_norm")
class QuantizedBatchNormProp(_QuantProp):
    """Inference batch normalisation (moving statistics) of int8 / uint8 ``data`` into int8
    over the calibrated range ``[min_calib_range, max_calib_range]``, which MXNet requires.
    As MXNet's MKLDNN kernel: uint8 data is first rescaled to int8, and the folded scale is
    applied to data normalised with mean 0 and variance 1 (so once more by 1/sqrt(1 + eps)).
    ``moving_mean`` and ``moving_var`` are read only, but auxiliary states of the symbol, in
    MXNet's input order (see ``mutate_inputs``)."""

    param_class = BatchNormParam
    calibrate_output = 0
    data_names = ("data", "gamma", "beta", "moving_mean", "moving_var")
    test = OpTest(
        shapes={"data": (2, 3, 4), "gamma": (3,), "beta": (3,), "moving_mean": (3,),
                "moving_var": (3,), "min_data": (1,), "max_data": (1,)},
        params={"min_calib_range": -1.0, "max_calib_range": 1.0},
        grad=False,
        dtypes=("int8",),
    )  # fmt: skip

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        ranges = self._ranges(in_shape)
        d = in_shape[0]
        if d is None:
            return None
        axis = self.param.axis % len(d) if len(d) else 0
        c = (d[axis],)
        params = [shape_assign(self, "input", n, s, c) for n, s in
                  zip(self.data_names[1:], in_shape[1:5])]  # fmt: skip
        return [tuple(d), *params, *ranges], [tuple(d), (1,), (1,)], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None:
            return None
        f = np.dtype(_F)
        return [self._check_dtype("data", in_type[0], (_I8, _U8))] + [f] * 6, [_I8, f, f], []

    def aux_input_positions(self) -> list[int]:
        # MXNet declares the moving statistics mutated (FMutateInputs), which makes them the
        # symbol's auxiliary states; the kernel only reads them
        return [3, 4]

    def create_operator(self, ctx: Context) -> Operator:
        p = self.param
        if p.min_calib_range is None or p.max_calib_range is None:
            raise ParamError(f"{self.where()}: min_calib_range and max_calib_range are required "
                             "(MXNet's quantized BatchNorm has no uncalibrated mode).")  # fmt: skip
        return super().create_operator(ctx)

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        p, x = self.param, np.asarray(ins[0])
        gamma, beta, mean, var = (np.asarray(a, dtype=_F) for a in ins[1:5])
        abs_data = _max_abs(_scalar(ins[5]), _scalar(ins[6]))
        lo, hi = _F(p.min_calib_range), _F(p.max_calib_range)
        abs_out = _max_abs(lo, hi)
        if x.dtype == _U8:
            x = _saturate(x.astype(_F) * (_INT8_RANGE / _UINT8_RANGE), _I8)
        invstd = (_F(1) / np.sqrt(var + _F(p.eps))).astype(_F)
        scale = gamma * invstd * abs_data / abs_out
        shift = (beta - mean * gamma * invstd) * _INT8_RANGE / abs_out
        axis = p.axis % x.ndim
        shape = [1] * x.ndim
        shape[axis] = -1
        norm = x.astype(_F) / np.sqrt(_F(1) + _F(p.eps))
        out = norm * scale.reshape(shape) + shift.reshape(shape)
        return [_saturate(out, _I8), lo, hi]


@register("_contrib_quantized_embedding")
class QuantizedEmbeddingProp(_QuantProp):
    """Look up int8 rows of ``weight`` for the indices in ``data`` (clipped into
    ``[0, input_dim)``); the weight's range is the output's."""

    param_class = EmbeddingParam
    data_names = ("data", "weight")
    range_names = ("min_weight", "max_weight")
    test = OpTest(shapes={"data": (2, 3), "weight": (5, 4), "min_weight": (1,),
                          "max_weight": (1,)},
                  params={"input_dim": 5, "output_dim": 4}, grad=False, low=0,
                  high=4, dtypes=("float32",))  # fmt: skip

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        ranges = self._ranges(in_shape)
        p, d = self.param, in_shape[0]
        w = shape_assign(self, "input", "weight", in_shape[1], (p.input_dim, p.output_dim))
        if d is None:
            return None
        return [tuple(d), w, *ranges], [(*d, p.output_dim), (1,), (1,)], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None:
            return None
        f = np.dtype(_F)
        w = _I8 if in_type[1] is None else self._check_dtype("weight", in_type[1], (_I8,))
        return [np.dtype(in_type[0]), w, f, f], [_I8, f, f], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        idx = np.clip(np.asarray(ins[0]), 0, self.param.input_dim - 1).astype(np.int64)
        return [np.asarray(ins[1])[idx], _scalar(ins[2]), _scalar(ins[3])]
