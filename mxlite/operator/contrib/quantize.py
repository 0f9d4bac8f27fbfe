"""``quantize``, ``quantize_v2``, ``requantize`` and ``dequantize`` (contrib): float32 to int8
(zero-centred, 127 levels per side of ``max(|min_range|, |max_range|)``) or uint8 (255 levels
over [min_range, max_range]) and back, as MXNet 1.9.1's reference CPU kernels (its MKLDNN
build computes ``quantize_v2`` and ``requantize`` its own way, see the tests). No gradient."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import DTypeError, ShapeError
from ..param import Param, field
from ..registry import OpTest, register, shape_assign
from .quantized_ops import _QuantProp, _scalar, calib_range_field

__all__: list[str] = []

_F = np.float32


class QuantizeParam(Param):
    out_type: str = field(default="uint8", choices=("int8", "uint8"), doc="Output data type.")


class DequantizeParam(Param):
    out_type: str = field(default="float32", choices=("float32",), doc="Output data type.")


def _first(shapes: list | None) -> Any:
    """The first output's shape when the caller knows it, else None."""
    return shapes[0] if shapes else None


def _input_range(in_data: list) -> tuple[np.float32, np.float32]:
    """The float range (``min_range``, ``max_range``) given as inputs 1 and 2."""
    return _scalar(in_data[1]), _scalar(in_data[2])


# the sweep's inputs of an operator of data and its float range
_RANGE_TEST = {"data": (2, 3), "min_range": (1,), "max_range": (1,)}


class _QuantBase(_QuantProp):
    """What the quantize operators share (besides the quantized operators'): ``data`` followed
    by the (1,)-shaped inputs of its float range, and an output shaped like ``data`` followed
    by the (1,)-shaped outputs of its range (each subclass lists which it has)."""

    range_names = ("min_range", "max_range")

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        # the output has the data's shape: a known output fills the data in (MXNet's
        # SHAPE_ASSIGN_CHECK both ways), as a quantized graph's begin states need
        d = shape_assign(self, "input", "data", in_shape[0], _first(out_shape))
        ranges = self._ranges(in_shape)
        if d is None:
            return None
        return [tuple(d), *ranges], [tuple(d)] + [(1,)] * (len(self.list_outputs()) - 1), []


@register("_contrib_quantize")
class QuantizeProp(_QuantBase):
    """Quantize float32 ``data`` given its range; returns (data, min_range, max_range)."""

    param_class = QuantizeParam
    test = OpTest(
        shapes=_RANGE_TEST,
        grad=False,
        dtypes=("float32",),
        matches_mxnet=False,  # random ranges may have min > max
    )

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = np.dtype(np.int8 if self.param.out_type == "int8" else np.uint8)
        f = np.dtype(_F)
        if in_type[0] is not None and np.dtype(in_type[0]) != f:
            raise ShapeError(f"{self.where()}: data must be float32, got {np.dtype(in_type[0])}.")
        return [f, f, f], [t, f, f], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        x = np.asarray(ins[0], dtype=_F)
        lo, hi = _input_range(ins)
        if self.param.out_type == "uint8":
            scale = _F(255.0 / (hi - lo))
            return [((x - lo) * scale + _F(0.5)).astype(np.uint8), lo, hi]
        real = _F(max(abs(lo), abs(hi)))
        return [_to_int8(x, real), -real, real]


@register("_contrib_dequantize")
class DequantizeProp(_QuantBase):
    """Dequantize int8 / uint8 ``data`` given the range it was quantized from."""

    param_class = DequantizeParam
    test = OpTest(
        shapes=_RANGE_TEST,
        grad=False,
        dtypes=("float32",),
    )  # fmt: skip

    def list_outputs(self) -> list[str]:
        return ["output"]

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = in_type[0]
        if t is None:
            return None
        f = np.dtype(_F)
        return [np.dtype(t), f, f], [f], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        q = np.asarray(ins[0])
        lo, hi = _input_range(ins)
        if q.dtype == np.uint8:
            out = q.astype(_F) * _F((hi - lo) / _F(255)) + lo
        else:
            out = q.astype(_F) * (_F(max(abs(lo), abs(hi))) / _F(127))
        return [out.astype(_F)]


# ---- quantize_v2 and requantize ---------------------------------------------------------------

_OUT_TYPE_DOC = (
    "Output data type. `auto` can be specified to automatically determine output type "
    "according to min_calib_range."
)


_CALIB_USE = "If present, it will be used to quantize the fp32 data into int8 or uint8."


class QuantizeV2Param(Param):
    out_type: str = field(default="int8", choices=("auto", "int8", "uint8"), doc=_OUT_TYPE_DOC)
    min_calib_range: float | None = calib_range_field("minimum", _CALIB_USE, False)
    max_calib_range: float | None = calib_range_field("maximum", _CALIB_USE, False)


class RequantizeParam(QuantizeV2Param):
    pass


def _out_dtype(p: QuantizeV2Param) -> np.dtype:
    """MXNet's GetQuantizeOutputType: ``auto`` is uint8 for a calibrated range that starts at
    0 or above, else int8."""
    if p.out_type == "uint8":
        return np.dtype(np.uint8)
    if p.out_type == "auto" and p.min_calib_range is not None and p.max_calib_range is not None:
        return np.dtype(np.uint8 if p.min_calib_range >= 0 else np.int8)
    return np.dtype(np.int8)


def _calibrated(p: QuantizeV2Param) -> bool:
    return p.min_calib_range is not None and p.max_calib_range is not None


def _to_int8(x: np.ndarray, real: np.float32) -> np.ndarray:
    """Zero-centred: ±127 levels over ±real, rounding half away from zero."""
    if real == 0:  # MXNet's kernel computes 0 * inf here and writes 127 (all-zero biases)
        return np.full(np.shape(x), 127, np.int8)
    scale = _F(127.0) / real
    return (np.sign(x) * np.minimum(np.abs(x) * scale + _F(0.5), _F(127))).astype(np.int8)


def _mkldnn_scaled(x: np.ndarray, levels: np.float32, real: np.float32, dtype: type) -> np.ndarray:
    """``x * (levels / real)`` rounded to nearest (even) and saturated into ``dtype``."""
    info = np.iinfo(dtype)
    scale = _F(levels / real) if real else _F(2147483647)
    return np.clip(np.rint(x * scale), info.min, info.max).astype(dtype)


@register("_contrib_quantize_v2")
class QuantizeV2Prop(_QuantBase):
    """Quantize float32 ``data`` to int8 or uint8 over the calibrated range, or over the data's
    own range when none is given; returns (data, min_output, max_output)."""

    param_class = QuantizeV2Param
    calibrate_input = 0
    # MXNet 1.9.1's MKLDNN build rounds some values one step up (82.29 -> 83)
    test = OpTest(shapes={"data": (2, 3)}, grad=False, dtypes=("float32",), matches_mxnet=False)
    range_names = ()

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = in_type[0]
        if t is None:
            return None
        t = np.dtype(t)
        if t not in (np.dtype(_F), np.dtype(np.int8), np.dtype(np.uint8)):
            raise DTypeError(f"{self.where()}: data must be float32, int8 or uint8, got {t}.")
        f = np.dtype(_F)
        return [t], [_out_dtype(self.param), f, f], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        p, x = self.param, np.asarray(ins[0])
        if x.dtype != _F:  # already quantized: passed through with its type's range
            if _calibrated(p):
                return [x, _F(p.min_calib_range), _F(p.max_calib_range)]
            return [x, *((_F(0), _F(255)) if x.dtype == np.uint8 else (_F(-127), _F(127)))]
        if _calibrated(p):
            lo, hi = _F(p.min_calib_range), _F(p.max_calib_range)
        else:
            lo, hi = _F(x.min()), _F(x.max())
        # MXNet 1.9.1's CPU build runs this through MKLDNN's reorder: x * (127.5 or 255.5) /
        # max(|lo|, |hi|), rounded to nearest even and saturated (negatives to 0 for uint8)
        real = _F(max(abs(lo), abs(hi)))
        if _out_dtype(p) == np.uint8:
            return [_mkldnn_scaled(x, _F(255.5), real, np.uint8), lo, hi]
        return [_mkldnn_scaled(x, _F(127.5), real, np.int8), -real, real]


@register("_contrib_requantize")
class RequantizeProp(_QuantBase):
    """Requantize int32 ``data`` (with the float range it stands for) to int8 over the
    calibrated range, or over the range its values actually reach."""

    param_class = RequantizeParam
    calibrate_input = 0
    test = OpTest(
        shapes=_RANGE_TEST,
        grad=False,
        dtypes=("int32",),
        matches_mxnet=False,  # random ranges may have min > max
    )

    def infer_type(self, in_type: list, out_type: list | None = None):
        i32, f = np.dtype(np.int32), np.dtype(_F)
        if in_type[0] is not None and np.dtype(in_type[0]) != i32:
            raise DTypeError(f"{self.where()}: data must be int32, got {np.dtype(in_type[0])}.")
        return [i32, f, f], [_out_dtype(self.param), f, f], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        p, q = self.param, np.asarray(ins[0])
        lo, hi = _input_range(ins)
        # one int32 level: the input's real range over 2**31 - 1 levels (2**31 as a float)
        level = _F(max(abs(lo), abs(hi))) / _F(2147483647)
        x = q.astype(_F) * level
        if _calibrated(p):
            real = _F(max(abs(p.min_calib_range), abs(p.max_calib_range)))
        else:
            real = _F(max(abs(_F(q.min()) * level), abs(_F(q.max()) * level)))
        if real == 0:  # an all-zero input (a begin state): zeros, not 0 * inf
            return [np.zeros(q.shape, _out_dtype(p)), _F(0), real]
        if _out_dtype(p) == np.uint8:
            # MXNet's MKLDNN kernel: one scaled reorder (round half to even, saturate) over
            # [0, real]; what lies below 0 becomes 0
            scale = level * (_F(255.0) / real)
            return [np.clip(np.rint(q.astype(_F) * scale), 0, 255).astype(np.uint8), _F(0), real]
        return [_to_int8(x, real), -real, real]
