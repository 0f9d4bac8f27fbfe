"""What MXNet 1.9.1's fused CPU operators ``_sg_mkldnn_conv`` and ``_sg_mkldnn_fully_connected``
share: the graph they hold, the post-operations read from it, and the quantization scales.

Design note
-----------
A fused node holds one subgraph (the float operators it replaces, as the MKLDNN backends of
``mxlite/symbol/subgraph_mkldnn.py`` cut them out) and reads its own parameters from it: the
convolution's or fully connected layer's parameters, BatchNorm's ``eps``/``fix_gamma``, the
activations that follow. The parameters of the fused node itself are only flags and the
calibrated output range.

Quantized arithmetic runs on float32 arrays holding integers: int8 x int8 products summed in
float32 are exact while a sum stays below 2**24, and beyond that the rounding error is far below
one output level after requantization; so the int8 kernels use the fast float32 convolution and
GEMM paths of ``operator/nn`` and round once, in the output pass. The scales are MKLDNN's:
``127.5 / max|range|`` for int8 data, ``255.5 / max|range|`` for uint8 (``GetQuantizeScale``),
weights scaled per output channel when the output range is calibrated, rounded to nearest and
saturated.
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

import numpy as np

from ...base import DTypeError, MXNetError
from ...context import Context
from ..contrib.quantized_ops import (
    _I8,
    _I32,
    _INT8_RANGE,
    _INT32_MAX,
    _U8,
    _max_abs,
    _range_scale,
    calib_range_field,
)
from ..parallel import over_rows, relu_into
from ..param import Param, field
from ..registry import OpContext, OperatorProperty, dtype_assign, shape_assign
from ..req import OpReq, assign

__all__: list[str] = []

_F = np.float32
_CPU = Context("cpu", 0)

# The activations MKLDNN's int8 kernels leave non-negative, so their quantized output is uint8
# (IsOutputUInt8: relu, sigmoid, softrelu, bounded relu; the FC adds square, sqrt, exp, abs).
_NON_NEGATIVE = ("relu", "sigmoid", "softrelu", "clip", "square", "sqrt", "exp", "abs")


_CALIB_USE = (
    "If present, it will be used to by quantized convolution op to calculate primitive scale"
)


class CalibParam(Param):
    """The fields both fused operators share."""

    quantized: bool = field(default=False, doc="enable quantization")
    min_calib_range: float | None = calib_range_field("minimum", _CALIB_USE)
    max_calib_range: float | None = calib_range_field("maximum", _CALIB_USE)


def fused_activation(node: Any, quantize: bool, leaky: tuple[str, ...]) -> bool:
    """Whether an Activation or LeakyReLU ``node`` is one MKLDNN applies as a post-op of the
    layer before it: an Activation relu, sigmoid, tanh or softrelu (relu only when quantizing);
    a LeakyReLU whose ``act_type`` is one of ``leaky`` (each fused layer has its own)."""
    if node.op == "Activation":
        ok = ("relu",) if quantize else ("relu", "sigmoid", "tanh", "softrelu")
        return node.attrs.get("act_type") in ok
    return node.attrs.get("act_type", "leaky") in leaky


def identity_role(node: Any) -> bool:
    """Whether ``node`` is the identity in inference that MXNet's SgMKLDNNIdentityProperty
    removes: ``_copy``, a Dropout in its default mode ("training": it drops only when
    training)."""
    if node.op == "Dropout":
        return node.attrs.get("mode", "training") == "training"
    return node.op == "_copy"


def post_quantize_role(node: Any) -> str | None:
    """What ``node`` is to the post-quantize passes: "requantize" (a calibrated
    ``_contrib_requantize``, whose range a fused node takes), "requantize_uncalibrated",
    "dequantize" (``_contrib_dequantize``) or None."""
    if node.op == "_contrib_requantize":
        calib = "min_calib_range" in node.attrs and "max_calib_range" in node.attrs
        return "requantize" if calib else "requantize_uncalibrated"
    return "dequantize" if node.op == "_contrib_dequantize" else None


_FLOAT_OUTPUT_FUSIONS = (
    "_sg_mkldnn_fully_connected",
    "_contrib_quantized_elemwise_mul",
    "_sg_mkldnn_selfatt_qk",
    "_sg_mkldnn_selfatt_valatt",
)


def requantize_fusion(node: Any) -> str | None:
    """How ``node`` takes in a calibrated requantize after it in MKLDNN_QUANTIZE's
    post-quantize passes: "range" (a quantized ``_sg_mkldnn_conv``, a
    ``_contrib_quantized_elemwise_add``: the requantize's range becomes its own), "float" (a
    ``_sg_mkldnn_fully_connected``, a ``_contrib_quantized_elemwise_mul``: the same, or float
    output where a dequantize follows the requantize; also the self-attention products),
    None: it does not."""
    if node.op == "_sg_mkldnn_conv":
        return "range" if node.prop().param.quantized else None
    if node.op == "_contrib_quantized_elemwise_add":
        return "range"
    if node.op in _FLOAT_OUTPUT_FUSIONS:
        return "float"
    return None


def align_scale_role(node: Any, seed: bool = False) -> str | None:
    """What ``node`` is to MKLDNN_QUANTIZE's scale alignment (MXNet's
    SgMKLDNNPostQuantizeAlignScaleProperty): with ``seed``, "concat" for a
    ``_contrib_quantized_concat`` (a walk starts there); else "calibrated" (a node with a
    calibrated range: it takes the common range), "through" (a quantized concat or pooling:
    the walk passes it) or None."""
    if seed:
        return "concat" if node.op == "_contrib_quantized_concat" else None
    if "min_calib_range" in node.attrs and "max_calib_range" in node.attrs:
        return "calibrated"
    if node.op in ("_contrib_quantized_concat", "_contrib_quantized_pooling"):
        return "through"
    return None


def calibrated(p: Any) -> bool:
    return p.min_calib_range is not None and p.max_calib_range is not None


class PostOp:
    """One activation of the subgraph applied to a float array: the node's own operator."""

    def __init__(self, node: Any) -> None:
        self.node = node
        self.prop = node.prop()
        self.kind = _post_kind(node)

    def __call__(self, y: np.ndarray) -> np.ndarray:
        if self.kind == "relu":
            return relu_into(np, y, y)
        out = np.empty_like(y)
        ctx = OpContext(False, None, [])
        self.prop.operator(_CPU).forward(ctx, [y], [OpReq.WRITE], [out], [])
        return out


def _post_kind(node: Any) -> str:
    """``relu`` for the activations MKLDNN runs as its relu; the operator's name otherwise (the
    ``act_type`` for Activation/LeakyReLU)."""
    attrs = node.attrs
    if node.op in ("Activation", "LeakyReLU"):
        act = attrs.get("act_type", "leaky" if node.op == "LeakyReLU" else "")
        if act == "leaky" and float(attrs.get("slope", "0.25")) == 0:
            return "relu"
        return act
    return node.op


def output_unsigned(post: PostOp | None) -> bool:
    return post is not None and post.kind in _NON_NEGATIVE


class FusedProp(OperatorProperty):
    """Common ground of the fused operators: the subgraph and the inference-only rules."""

    differentiable = False
    grad_flow = "zeros"
    lists_input_names = True
    lists_output_names = True
    # its subgraph was cut out of a graph by a backend pass, not composed (symbol JSON writes
    # its variables' entries unversioned)
    backend_cut = True
    # attribute names of MXNet's older files -> today's (its attribute parsers rename them)
    legacy_names: ClassVar[dict[str, str]] = {}

    @classmethod
    def parse_params(cls, kwargs: dict[str, Any], name: str | None = None) -> Any:
        kw = {cls.legacy_names.get(k, k): v for k, v in kwargs.items()}
        return super().parse_params(kw, name)

    def __init__(self, param: Any = None, attrs: dict[str, str] | None = None) -> None:
        self.graph: list[Any] = []
        super().__init__(param, attrs)

    def set_subgraphs(self, subgraphs: list[list[Any]]) -> None:
        """Read the fused operators' parameters from the one subgraph (see the module note)."""
        if len(subgraphs) != 1:
            raise MXNetError(f"{self.op_name}: expects 1 subgraph, got {len(subgraphs)}.")
        self.graph = list(subgraphs[0])
        self.read_graph(self._chain())

    def _chain(self) -> list[Any]:
        """The subgraph's operator nodes, first to last: a fused chain, in which each node reads
        at most one other operator node (the rest of its inputs are the subgraph's variables)."""
        nodes: list[Any] = []
        node = self.graph[0][0]
        while not node.is_variable():
            nodes.append(node)
            ops = [src for src, _ in node.inputs if not src.is_variable()]
            if len(ops) > 1:
                raise MXNetError(f"{self.op_name}: its subgraph is not a chain at {node.name!r}.")
            if not ops:
                break
            node = ops[0]
        return nodes[::-1]

    def read_graph(self, nodes: list[Any]) -> None:
        raise NotImplementedError

    def _check_graph(self) -> None:
        if not self.graph:
            raise MXNetError(
                f"{self.op_name}: this operator holds a subgraph; it is made by "
                "Symbol.get_backend_symbol('MKLDNN') or read from a symbol file."
            )

    def infer_type(self, in_type: list, out_type: list | None = None):
        self._check_graph()
        f = np.dtype(np.float32)
        names = self.list_arguments()
        if not self.param.quantized:
            return [dtype_assign(self, names[i], t, f) for i, t in enumerate(in_type)], [f], []
        if in_type[0] is None:
            return None
        ins, outs = self.quantized_types(in_type, names)
        return ins, outs, []

    def quantized_types(self, in_type: list, names: list[str]) -> tuple[list, list]:
        """The input and output dtypes of the quantized operator (``in_type[0]`` is known)."""
        raise NotImplementedError

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return []

    def range_outputs(self) -> list[str]:
        return ["output", "output_min", "output_max"]


class ProductProp(FusedProp):
    """A fused product whose quantized form may give float output (the fully connected layer,
    the self-attention products): its first inputs are its inner operator's, then ``(1,)``
    ranges; its outputs the product and, quantized without float output, its range."""

    def inner_inputs(self) -> tuple[OperatorProperty, int]:
        """The inner operator whose shapes the node takes, and how many inputs are its."""
        raise NotImplementedError

    def list_outputs(self) -> list[str]:
        p = self.param
        if p.quantized and not p.enable_float_output:
            return ["output", "min_output", "max_output"]
        return ["output"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        self._check_graph()
        inner, k = self.inner_inputs()
        res = inner.infer_shape(list(in_shape[:k]), None)
        if res is None:
            return None
        ins, outs, _ = res
        names = self.list_arguments()
        rest = [shape_assign(self, "input", names[i], in_shape[i], (1,))
                for i in range(k, len(in_shape))]  # fmt: skip
        return list(ins) + rest, [outs[0]] + [(1,), (1,)] * (self.num_outputs() - 1), []


class IntKernel(NamedTuple):
    """An int8 weight on the integer products (``nn/_int8_gemm.py``: an ``Int8Conv`` or
    ``Int8Matmul``), and the scale of each output channel (None: the int32 levels as they are)."""

    product: Any
    scale: np.ndarray | None


def check_int8(prop: FusedProp, dtype: Any) -> np.dtype:
    t = np.dtype(dtype)
    if t not in (_I8, _U8):
        raise DTypeError(f"{prop.where()}: quantized input 'data' must be int8 or uint8, got {t}.")
    return t


def data_scale(dtype: np.dtype, lo: Any, hi: Any) -> np.float32:
    """Levels per float unit of quantized data (MXNet's GetQuantizeScale)."""
    return _range_scale(dtype, lo, hi)


def weight_scales(w: np.ndarray, bias: np.ndarray | None, dscale: float, channelwise: bool):
    """MKLDNN's weight scales: per output channel (capped so that the int32 bias keeps half of
    int32's range) or one for the tensor, with the tensor's (min, max)."""
    flat = w.reshape(len(w), -1)
    lo, hi = flat.min(axis=1), flat.max(axis=1)
    if not channelwise:
        total = _max_abs(lo.min(), hi.max())
        s = _F(_INT32_MAX) if not total else _INT8_RANGE / total
        return np.array([s], _F), _F(lo.min()), _F(hi.max())
    amax = np.maximum(np.abs(lo), np.abs(hi)).astype(_F)
    with np.errstate(divide="ignore"):
        scales = np.where(amax > 0, _INT8_RANGE / np.where(amax > 0, amax, 1), _F(_INT32_MAX))
    scales = scales.astype(_F)
    if bias is not None:
        b = bias.astype(_F)
        nz = b != 0
        limit = np.where(b > 0, _F(_INT32_MAX), _F(-_INT32_MAX - 1)) / _F(2)
        with np.errstate(divide="ignore", invalid="ignore"):
            cap = (limit / np.where(nz, b, 1) / _F(dscale)).astype(_F)
        scales = np.where(nz, np.minimum(scales, cap), scales).astype(_F)
    return scales, None, None


def saturate_into(y: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Round to nearest (even) and clip into ``dtype``, as MKLDNN stores its results."""
    info = np.iinfo(dtype)
    np.rint(y, out=y)
    np.clip(y, info.min, info.max, out=y)
    return y.astype(dtype)


def saturate_to(y: np.ndarray, out: np.ndarray, req: int, rounded: bool = False) -> None:
    """Write float ``y`` (scratch: changed here) into the integer array ``out`` rounded to
    nearest (even) and saturated, honouring ``req``; ``rounded``: ``y`` is non-negative and
    already holds the value plus one half, so truncation rounds it."""
    if req == OpReq.WRITE or req == OpReq.INPLACE:
        info = np.iinfo(out.dtype)
        lo, hi = y.dtype.type(info.min), y.dtype.type(info.max)

        def block(yb: np.ndarray, ob: np.ndarray) -> None:
            if rounded:
                np.minimum(yb, hi, out=yb)
            else:
                np.rint(yb, out=yb)
                np.clip(yb, lo, hi, out=yb)
            np.copyto(ob, yb, casting="unsafe")

        # rows of images over the kernel threads: this is a third of an int8 layer's passes
        over_rows(block, y.shape[0], y.size * 3, y, out)
    elif req != OpReq.NULL:
        if rounded:
            y -= np.float32(0.5)
        assign(out, req, saturate_into(y, out.dtype))


def mult_range(d_lo: Any, d_hi: Any, d_dtype: np.dtype, w_lo: Any, w_hi: Any, data_first: bool):
    """MXNet's int32 output range of an int8 product (QuantizationRangeFor{S8S8,S8U8}
    Multiplication): one level of each side times (2**31 - 1); for uint8 data the second
    operand of MXNet's call is read with 255 levels (``data_first`` says whether data is the
    first)."""
    a_levels, b_levels = 127, (127 if d_dtype == _I8 else 255)
    d_lvl, w_lvl = (a_levels, b_levels) if data_first else (b_levels, a_levels)
    d_one = _max_abs(d_lo, d_hi) / _F(d_lvl)
    w_one = _max_abs(w_lo, w_hi) / _F(w_lvl)
    one = _F(d_one * w_one) if data_first else _F(w_one * d_one)
    hi = _F(one * _F(_INT32_MAX))
    return -hi, hi


I32 = _I32
