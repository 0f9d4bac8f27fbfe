"""``_sg_mkldnn_selfatt_qk`` and ``_sg_mkldnn_selfatt_valatt``: MXNet 1.9.1's fused CPU
self-attention products, each holding one ``_contrib_interleaved_matmul_selfatt_qk`` /
``_valatt`` node as its subgraph (the ``MKLDNN`` backends' transformer pass), float32 or
quantized.

Float32: the interleaved operator's result, the query-key products scaled by
``1 / sqrt(head_dim)`` after the product (oneDNN's output scale). Quantized (the
quantization pass's ``quantized_sg_mkldnn_selfatt_*``): int8 interleaved data (and, for
``valatt``, uint8 attention maps) with their ranges; the exact integer products, then one output
scale: to int8 levels of ``min_calib_range``/``max_calib_range`` when calibrated, to float with
``enable_float_output``, else int32 (the query-key products scaled by ``1 / sqrt(head_dim)``
and rounded) with MXNet's product range. MXNet's uncalibrated query-key range is computed from
zeros (a local pair of variables it never fills), so it is 0; so is it here.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..contrib.tensor import _heads_out, _split
from ..param import field
from ..registry import Operator, dtype_assign, register, register_onnx
from ..req import assign
from . import _mkldnn_common as mc

__all__ = ["selfatt_role", "SgMKLDNNSelfAttQKProp", "SgMKLDNNSelfAttValAttProp"]

_QK = "_contrib_interleaved_matmul_selfatt_qk"
_VALATT = "_contrib_interleaved_matmul_selfatt_valatt"
_I8, _U8, _F32 = np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.float32)


def selfatt_role(node: Any) -> str | None:
    """The fused operator the transformer pass makes of ``node`` (MXNet's
    SgMKLDNNTransformerSelector: each interleaved self-attention product alone), or None."""
    return {_QK: SgMKLDNNSelfAttQKProp.op_name, _VALATT: SgMKLDNNSelfAttValAttProp.op_name}.get(
        node.op
    )


class MKLDNNSelfAttParam(mc.CalibParam):
    heads: int = field(low=1, doc="Set number of heads")
    enable_float_output: bool = field(default=False, doc="Whether to enable float32 output")


class _SelfAttProp(mc.ProductProp):
    param_class = MKLDNNSelfAttParam
    test = None
    quantizable = "must"
    need_requantize = True
    inner_op = ""
    data_args: tuple[str, ...] = ()
    range_args: tuple[str, ...] = ()
    # the dtype each quantized data input must have
    int_types: tuple[np.dtype, ...] = ()

    def quantized_op(self, granularity: str) -> tuple[str, dict[str, str]] | None:
        """Fact for quantization (MXNet's SgMKLDNNSelfAtt*QuantizedOp): the same node,
        ``quantized_<name>``, with ``quantized='True'``."""
        return self.op_name, {"quantized": "True"}

    def read_graph(self, nodes: list[Any]) -> None:
        if len(nodes) != 1 or nodes[0].op != self.inner_op:
            raise mc.MXNetError(f"{self.where()}: its subgraph must be one {self.inner_op} node.")
        self.inner = nodes[0].prop()

    def list_arguments(self) -> list[str]:
        return list(self.data_args + (self.range_args if self.param.quantized else ()))

    def inner_inputs(self) -> tuple[Any, int]:
        return self.inner, len(self.data_args)

    def output_dtype(self) -> np.dtype:
        p = self.param
        if not p.quantized or p.enable_float_output:
            return _F32
        return _I8 if mc.calibrated(p) else mc.I32

    def quantized_types(self, in_type: list, names: list[str]) -> tuple[list, list]:
        k = len(self.data_args)
        ts = [dtype_assign(self, n, t, want)
              for n, t, want in zip(names, in_type, self.int_types)]  # fmt: skip
        ts += [dtype_assign(self, names[i], in_type[i], _F32) for i in range(k, len(in_type))]
        return ts, [self.output_dtype()] + [_F32, _F32] * (self.num_outputs() > 1)


def _int_products(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` of integer arrays, exact: float32 while every sum stays below 2**24."""
    bound = a.shape[-1] * 255 * 128
    wide = np.float32 if bound < 2**24 else np.float64
    return np.matmul(a.astype(wide), b.astype(wide))


def _ranges(in_data: list, start: int) -> list[np.float32]:
    return [mc._F(np.asarray(a).reshape(-1)[0]) for a in in_data[start:]]


def _store(y: np.ndarray, prop: _SelfAttProp, req: list, out_data: list, lo: Any, hi: Any):
    """``y`` (float) into the output: as it is (float), or rounded and saturated (int8, int32),
    with the range outputs."""
    odt = prop.output_dtype()
    assign(out_data[0], req[0], y if odt == _F32 else mc.saturate_into(y, odt))
    if len(out_data) > 1:
        assign(out_data[1], req[1], np.float32(lo))
        assign(out_data[2], req[2], np.float32(hi))


@register("_sg_mkldnn_selfatt_qk")
class SgMKLDNNSelfAttQKProp(_SelfAttProp):
    """The fused query-key products (see the module note)."""

    inner_op = _QK
    data_args = ("queries_keys_values",)
    range_args = ("min_qkv", "max_qkv")
    int_types = (_I8,)

    def create_operator(self, ctx: Any) -> Operator:
        return _QKOp(self)


class _QKOp(Operator):
    def forward(self, op_ctx: Any, in_data: list, req: list, out_data: list, aux: list) -> None:
        p = self.prop.param
        x = np.asarray(in_data[0])
        q, k = _split(x, p.heads, 3, 0), _split(x, p.heads, 3, 1)
        root = mc._F(math.sqrt(q.shape[-1]))
        if not p.quantized:
            y = np.matmul(q.astype(np.float32), k.transpose(0, 2, 1).astype(np.float32))
            assign(out_data[0], req[0], y * (mc._F(1) / root))
            return
        d_lo, d_hi = _ranges(in_data, 1)
        ds = mc.data_scale(_I8, d_lo, d_hi)
        lo = hi = mc._F(0)
        if mc.calibrated(p):
            lo, hi = mc._F(p.min_calib_range), mc._F(p.max_calib_range)
            oscale = mc._F(mc.data_scale(_I8, lo, hi) / mc._F(ds * ds))
        elif p.enable_float_output:
            oscale = mc._F(mc._F(1) / mc._F(ds * ds))
        else:
            oscale = mc._F(1)
            lo, hi = mc.mult_range(0, 0, _I8, 0, 0, data_first=True)
        acc = _int_products(q, k.transpose(0, 2, 1))
        y = (acc * mc._F(oscale / root)).astype(np.float32, copy=False)
        _store(y, self.prop, req, out_data, lo, hi)


@register("_sg_mkldnn_selfatt_valatt")
class SgMKLDNNSelfAttValAttProp(_SelfAttProp):
    """The fused attention-weighted values (see the module note)."""

    inner_op = _VALATT
    data_args = ("queries_keys_values", "attention")
    range_args = ("min_qkv", "max_qkv", "min_attention", "max_attention")
    int_types = (_I8, _U8)

    def create_operator(self, ctx: Any) -> Operator:
        return _ValAttOp(self)


class _ValAttOp(Operator):
    def forward(self, op_ctx: Any, in_data: list, req: list, out_data: list, aux: list) -> None:
        p = self.prop.param
        x, att = np.asarray(in_data[0]), np.asarray(in_data[1])
        v = _split(x, p.heads, 3, 2)
        if not p.quantized:
            y = np.matmul(att.astype(np.float32), v.astype(np.float32))
            assign(out_data[0], req[0], _heads_out(y, p.heads))
            return
        q_lo, q_hi, a_lo, a_hi = _ranges(in_data, 2)
        scale = mc._F(mc.data_scale(_I8, q_lo, q_hi) * mc.data_scale(_U8, a_lo, a_hi))
        acc = _int_products(att, v)
        if mc.calibrated(p):
            lo, hi = mc._F(p.min_calib_range), mc._F(p.max_calib_range)
            y = acc * mc._F(mc.data_scale(_I8, lo, hi) / scale)
        elif p.enable_float_output:
            lo = hi = mc._F(0)
            y = acc * mc._F(mc._F(1) / scale)
        else:
            y = acc
            lo, hi = mc.mult_range(a_lo, a_hi, _U8, q_lo, q_hi, data_first=False)
        y = _heads_out(y.astype(np.float32, copy=False), p.heads)
        _store(y, self.prop, req, out_data, lo, hi)


for _name in ("_sg_mkldnn_selfatt_qk", "_sg_mkldnn_selfatt_valatt"):
    register_onnx(
        _name,
        why_not="a fused node of MXNet's CPU backend (MKLDNN); export the graph before "
        "get_backend_symbol, as MXNet's exporter needs too.",
    )
