"""``_sg_mkldnn_conv``: MXNet 1.9.1's fused CPU convolution (Convolution [+ BatchNorm]
[+ activation] [+ elemwise_add] [+ activation after the sum]), float32 or quantized.

Its inputs are MXNet's: ``data, weight[, bias][, gamma, beta, mean, var][, sum]`` and, when
``quantized``, ``data_min, data_max[, sum_min, sum_max]``; its outputs ``output`` and, when
quantized, ``output_min, output_max``. A quantized node takes int8/uint8 data and float32
weights, which it scales itself: per output channel when the output range is calibrated
(``min_calib_range``/``max_calib_range``: int8 output, uint8 after a relu), per tensor otherwise
(int32 output with MXNet's product range). BatchNorm is folded into the weight and bias first.
Which operators fuse as what is declared here too (:func:`conv_role`), for the backend passes of
``mxlite/symbol/subgraph_mkldnn.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import ShapeError
from ...resource import ResourceRequest
from ..nn import _conv_algo as ca
from ..nn import _int8_gemm as ig
from ..parallel import over_rows
from ..param import field
from ..registry import Operator, dtype_assign, register, register_onnx, shape_assign
from ..req import OpReq, assign
from . import _mkldnn_common as mc

__all__ = ["conv_role", "SgMKLDNNConvProp"]


def conv_role(node: Any, quantize: bool) -> str | None:
    """What ``node`` becomes inside a fused convolution (MXNet's SgMKLDNNConvSelector): "conv"
    (the seed: a 2-D or 3-D Convolution), "bn" (BatchNorm), "sum" (elemwise_add), "act" (relu,
    sigmoid, tanh, softrelu, a leaky/gelu LeakyReLU or a clip from 0) or None."""
    op, a = node.op, node.attrs
    if op == "Convolution":
        return "conv" if len(node.prop().param.kernel) in (2, 3) else None
    if op == "BatchNorm":
        return "bn"
    if op == "elemwise_add":
        return "sum"
    if op in ("Activation", "LeakyReLU"):
        return "act" if mc.fused_activation(node, quantize, ("leaky", "gelu")) else None
    if op == "clip":
        return "clip" if float(a.get("a_min", "nan")) == 0.0 else None
    return None


class MKLDNNConvParam(mc.CalibParam):
    with_bn: bool = field(default=False, doc="Add post batchnorm.")
    with_act: bool = field(default=False, doc="Add post activation")
    with_sum: bool = field(default=False, doc="Add post sum")
    with_postsum_act: bool = field(default=False, doc="Add post activation after sum")


@register("_sg_mkldnn_conv")
class SgMKLDNNConvProp(mc.FusedProp):
    """The fused convolution (see the module note)."""

    param_class = MKLDNNConvParam
    test = None
    legacy_names = {"with_relu": "with_act", "with_postsum_relu": "with_postsum_act"}
    # what mx.contrib.quantization's graph pass reads (MXNet's FQuantizable, FNeedRequantize)
    quantizable = "must"
    need_requantize = True

    def quantized_op(self, granularity: str) -> tuple[str, dict[str, str]] | None:
        """Fact for quantization (MXNet's SgMKLDNNConvQuantizedOp): the same fused node,
        ``quantized_<name>``, with ``quantized='true'``; it takes float weights."""
        return self.op_name, {"quantized": "true"}

    def avoid_quantize_input(self, index: int, granularity: str) -> bool:
        """Fact for quantization: the weight, bias and BatchNorm inputs stay float (the node
        quantizes them itself); the data and the sum are quantized."""
        self._check_graph()
        return 0 < index < self._base() + 4 * self.param.with_bn

    def read_graph(self, nodes: list[Any]) -> None:
        p = self.param
        self.conv = self.bn = self.act = self.postsum = None
        for n in nodes:
            if n.op == "Convolution":
                self.conv = n.prop()
            elif n.op == "BatchNorm":
                self.bn = n.prop().param
            elif n.op != "elemwise_add":
                post = mc.PostOp(n)
                if p.with_act and self.act is None:
                    self.act = post
                else:
                    self.postsum = post
        if self.conv is None:
            raise ShapeError(f"{self.where()}: its subgraph holds no Convolution.")

    def list_arguments(self) -> list[str]:
        self._check_graph()
        p = self.param
        names = ["data", "weight"] + ([] if self.conv.param.no_bias else ["bias"])
        names += ["gamma", "beta", "mean", "var"] if p.with_bn else []
        names += ["sum"] if p.with_sum else []
        if p.quantized:
            names += ["data_min", "data_max"] + (["sum_min", "sum_max"] if p.with_sum else [])
        return names

    def forward_resource(self, in_shape: list) -> list:
        """Temporary space for the float32 copies of an int8 node's data and result (MXNet's
        node asks for kTempSpace too)."""
        return [ResourceRequest.TEMP_SPACE] if self.param.quantized else []

    def aux_input_positions(self) -> list[int]:
        """BatchNorm's moving mean and variance: auxiliary states amid the inputs (MXNet's
        DefaultSubgraphOpMutableInputs: the subgraph's own auxiliary states); the fused
        operator only reads them."""
        if not self.graph or not self.param.with_bn:
            return []
        return [self._base() + 2, self._base() + 3]

    def list_outputs(self) -> list[str]:
        return self.range_outputs() if self.param.quantized else ["output"]

    def _base(self) -> int:
        return 2 if self.conv.param.no_bias else 3

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        self._check_graph()
        p, k = self.param, self._base()
        names = self.list_arguments()
        res = self.conv.infer_shape(list(in_shape[:k]), None)
        if res is None:
            return None
        ins, outs, _ = res
        ins = list(ins) + list(in_shape[k:])
        oshape = outs[0]
        i = k
        if p.with_bn:
            for j in range(4):
                ins[i + j] = shape_assign(self, "input", names[i + j], ins[i + j], (oshape[1],))
            i += 4
        if p.with_sum:
            ins[i] = shape_assign(self, "input", "sum", ins[i], oshape)
            i += 1
        for j in range(i, len(ins)):
            ins[j] = shape_assign(self, "input", names[j], ins[j], (1,))
        return ins, [oshape] + [(1,), (1,)] * p.quantized, []

    def output_dtype(self) -> np.dtype:
        p = self.param
        if not mc.calibrated(p):
            return mc.I32
        post = self.postsum if p.with_sum else self.act
        if p.with_sum and not p.with_postsum_act:
            post = None
        return np.dtype(np.uint8) if mc.output_unsigned(post) else np.dtype(np.int8)

    def quantized_types(self, in_type: list, names: list[str]) -> tuple[list, list]:
        p = self.param
        f = np.dtype(np.float32)
        ts = [mc.check_int8(self, in_type[0])]
        sum_at = self._base() + 4 * p.with_bn
        for i, t in enumerate(in_type[1:], 1):
            if p.with_sum and i == sum_at:
                ts.append(np.dtype(np.int8) if t is None else np.dtype(t))
            else:
                ts.append(dtype_assign(self, names[i], t, f))
        return ts, [self.output_dtype(), f, f]

    def create_operator(self, ctx: Any) -> Operator:
        return _SgConvOp(self)


def fold_bn(w: np.ndarray, b: np.ndarray | None, bn: Any, gamma, beta, mean, var):
    """The weight and bias of a convolution with the BatchNorm after it folded in (MXNet's
    UpdateConvWeightBias, in float32)."""
    g = np.ones_like(gamma) if bn.fix_gamma else gamma
    alpha = (g / np.sqrt(var + np.float32(bn.eps))).astype(np.float32)
    wf = w * alpha.reshape((-1,) + (1,) * (w.ndim - 1))
    bf = beta + alpha * ((b if b is not None else 0) - mean)
    return wf.astype(np.float32), bf.astype(np.float32)


class _SgConvOp(Operator):
    """The kernels: one float32 convolution (``_conv_algo``, im2col or Winograd by shape) with
    the scales folded into its weight and bias, then the activation, sum and rounding."""

    def __init__(self, prop: SgMKLDNNConvProp) -> None:
        self.prop = prop
        self.geom = prop.conv.geom
        self._key: Any = None
        self._cache: Any = None
        # stands for the engine var of the weight this operator derives (folded, quantized):
        # Winograd's transformed kernel is cached under it while its version stays
        self._wkey = _KernelKey()
        # the integer products of the weight's version, by its int8 scales: an uncalibrated
        # node's data range changes every batch, its int8 weight only with the weight
        self._int_convs: dict[bytes, ig.Int8Conv] = {}

    def _weights(self, op_ctx: Any, in_data: list) -> tuple:
        """The (folded) float weight and bias, cached under the versions of their inputs."""
        p, k = self.prop.param, self.prop._base()
        n = k + 4 * p.with_bn
        vars_ = op_ctx.in_vars
        key = None if vars_ is None else tuple((v, v.version) for v in vars_[1:n])
        if key is not None and key == self._key:
            return self._cache
        w = np.asarray(in_data[1], np.float32)
        b = None if k == 2 else np.asarray(in_data[2], np.float32)
        if p.with_bn:
            bn = [np.asarray(a, np.float32) for a in in_data[k : k + 4]]
            w, b = fold_bn(w, b, self.prop.bn, *bn)
        self._key, self._cache = key, (w, b, {})
        self._int_convs.clear()
        self._wkey.version += 1
        return self._cache

    def forward(self, op_ctx: Any, in_data: list, req: list, out_data: list, aux: list) -> None:
        prop, p = self.prop, self.prop.param
        w, b, derived = self._weights(op_ctx, in_data)
        sum_at = prop._base() + 4 * p.with_bn
        out = out_data[0]
        if not p.quantized:
            x = np.asarray(in_data[0], np.float32)
            res = np.array(in_data[sum_at], np.float32) if p.with_sum else None
            post = prop.postsum if p.with_sum else None
            direct = req[0] == OpReq.WRITE and out.flags.c_contiguous
            buf = out if direct else np.empty(out.shape, np.float32)
            y = _post_ops(x, w, b, self.geom, buf, self._wkey, prop.act, res, post)
            if y is not out:
                assign(out, req[0], y)
            return
        self._forward_int8(op_ctx, in_data, req, out_data, w, b, derived, sum_at)

    def _forward_int8(self, op_ctx, in_data, req, out_data, w, b, derived, sum_at) -> None:
        prop, p = self.prop, self.prop.param
        x = in_data[0]
        rng = in_data[sum_at + p.with_sum :]
        d_lo, d_hi = mc._F(np.asarray(rng[0]).reshape(-1)[0]), mc._F(np.asarray(rng[1]).ravel()[0])
        ds = mc.data_scale(x.dtype, d_lo, d_hi)
        calib = mc.calibrated(p)
        odt = prop.output_dtype()
        act, post = prop.act, prop.postsum if p.with_sum else None
        # MKLDNN drops a bounded relu (clip) before no sum: the int8 range clips already
        if act is not None and act.kind == "clip" and calib and not p.with_sum:
            act = None
        # a uint8 output after a relu in the convolution's own pass is rounded there: a half
        # added to the bias, then truncation (round half up where MKLDNN rounds half to even:
        # the same but for exact ties)
        relu_last = (act is None and post is not None and post.kind == "relu") or (
            act is not None and act.kind == "relu" and not p.with_sum
        )
        half = relu_last and odt == np.uint8
        key = (x.dtype, float(d_lo), float(d_hi))
        if key not in derived:
            derived.clear()
            derived[key] = self._int8_weights(w, b, x.dtype, ds, d_lo, d_hi, odt, calib, half)
            self._wkey.version += 1
        kernel, qb, out_scale, lo, hi = derived[key]
        s = s_scale = None
        if p.with_sum:
            s = in_data[sum_at]
            s_lo, s_hi = np.asarray(rng[2]).ravel()[0], np.asarray(rng[3]).ravel()[0]
            s_scale = mc._F(out_scale / mc.data_scale(s.dtype, s_lo, s_hi))
        if isinstance(kernel, mc.IntKernel):
            self._int8_products(op_ctx, x, s, s_scale, kernel, qb, act, post, half, req[0],
                                out_data[0])  # fmt: skip
        else:
            # the float32 copies of the data and of the result share the temporary space
            nx, ny = x.size, out_data[0].size
            space = op_ctx.requested[0].get_space((nx + ny,), np.float32)
            xf, buf = space[:nx].reshape(x.shape), space[nx:].reshape(out_data[0].shape)
            over_rows(np.copyto, x.shape[0], x.size * 2, xf, x)
            residual = None
            if s is not None:
                # the scaled sum goes where the result will be (the convolution adds it in its
                # output pass), unless an activation comes between them
                residual = buf if act is None else np.empty(buf.shape, np.float32)
                over_rows(lambda sb, rb: np.multiply(sb, s_scale, out=rb), s.shape[0],
                          s.size * 2, s, residual)  # fmt: skip
            y = _post_ops(xf, kernel, qb, self.geom, buf, self._wkey, act, residual, post)
            mc.saturate_to(y, out_data[0], req[0], rounded=half)
        assign(out_data[1], req[1], np.float32(lo))
        assign(out_data[2], req[2], np.float32(hi))

    def _int8_products(self, op_ctx, x, s, s_scale, kernel, qb, act, post, half, req, out):
        """The integer path: the exact int32 sums (:mod:`_int8_gemm`, channels last), then per
        block of images, still channels last (the scales and the bias broadcast along rows),
        the output scale per channel, the bias, MKLDNN's post-operations in its order (all
        element-wise) and the saturating store into the channels-first output."""
        acc = kernel.product(x, out.shape[2:])
        f = out.shape[1]
        space = op_ctx.requested[0].get_space((out.size,), np.float32)
        buf = space.reshape(acc.shape)

        # a uint8 output after a relu (``half``): the relu, the saturation and the rounding
        # are one clip to [0, 255] of values already plus one half, then truncation
        direct = half and req in (OpReq.WRITE, OpReq.INPLACE)
        last = post if post is not None else act

        def block(acc_b: np.ndarray, y: np.ndarray, out_b: np.ndarray, *sum_b: np.ndarray):
            np.multiply(acc_b, kernel.scale, out=y)
            if qb is not None:
                y += qb
            if act is not None and not (direct and act is last):
                np.copyto(y, act(y))
            if sum_b:
                y += sum_b[0].reshape(len(y), f, -1).transpose(0, 2, 1) * s_scale
            if post is not None and not direct:
                np.copyto(y, post(y))
            dest = out_b.reshape(len(y), f, -1).transpose(0, 2, 1)
            if direct:
                np.copyto(dest, np.clip(y, 0, 255, out=y), casting="unsafe")
            else:
                mc.saturate_to(y, dest, req, rounded=half)

        arrays = (acc, buf, out) if s is None else (acc, buf, out, s)
        over_rows(block, len(out), out.size * 4, *arrays)

    def _int8_weights(self, w, b, dtype, ds, d_lo, d_hi, odt, calib, half) -> tuple:
        """The kernel, the int32 bias as a float32 array already multiplied by the output scale
        per channel (so the convolution yields output levels; ``half``: plus 0.5, so truncation
        rounds), the output's scale and range. The kernel: the int8 weight on the integer
        products with the scale of each channel (``_mkldnn_common.IntKernel``), or, without
        them, the int8 weight as float32 already multiplied by the scales."""
        p = self.prop.param
        ws, w_lo, w_hi = mc.weight_scales(w, b, ds, calib)
        shape = (-1,) + (1,) * (w.ndim - 1)
        qw = np.clip(np.rint(w * ws.reshape(shape)), -128, 127).astype(np.float32)
        qb = None if b is None else np.rint(b * (ws * mc._F(ds))).astype(np.float32)
        if calib:
            lo, hi = mc._F(p.min_calib_range), mc._F(p.max_calib_range)
            out_scale = mc.data_scale(odt, lo, hi)
            rescale = (out_scale / mc._F(ds) / ws).astype(np.float32)
        else:
            lo, hi = mc.mult_range(d_lo, d_hi, dtype, w_lo, w_hi, data_first=False)
            out_scale = mc._F(mc._F(ds) * ws[0])
            rescale = np.ones(1, np.float32)
        if qb is not None:
            qb = (qb * rescale).astype(np.float32)
        if half:
            qb = (np.zeros(len(w), np.float32) if qb is None else qb) + np.float32(0.5)
        if ig.Int8Conv.supports(self.geom) and ig.available():
            per_channel = np.broadcast_to(rescale, (len(w),)).astype(np.float32)
            conv = self._int_convs.get(ws.tobytes())
            if conv is None:
                if len(self._int_convs) >= 8:  # scales that move with the data's range
                    self._int_convs.clear()
                conv = self._int_convs[ws.tobytes()] = ig.Int8Conv(qw.astype(np.int8), self.geom)
            kernel = mc.IntKernel(conv, per_channel)
        else:
            kernel = (qw * rescale.reshape(shape)).astype(np.float32)
        return kernel, qb, out_scale, lo, hi


class _KernelKey:
    """A weak-referenceable stand-in for a weight's engine var (``_conv_algo``'s cache key)."""

    __slots__ = ("version", "__weakref__")

    def __init__(self) -> None:
        self.version = 0


def _post_ops(x, w, b, geom, out, wkey, act, residual, post) -> np.ndarray:
    """MKLDNN's post-operations in its order: the convolution, the activation, the sum, the
    activation after the sum; the relu and sum join the convolution's own output pass where
    nothing comes between them. ``out``: the float32 array to write."""
    spatial = out.shape[2:]

    def conv(**kw: Any) -> np.ndarray:
        return ca.conv_forward(np, x, w, geom, spatial, out=out, bias=b, weight_var=wkey, **kw)

    if act is None and (post is None or post.kind == "relu"):
        return conv(residual=residual, relu=post is not None)
    if residual is None and act is not None and act.kind == "relu":
        return conv(relu=True)
    y = conv()
    if act is not None:
        y = act(y)
    if residual is not None:
        y += residual
    return post(y) if post is not None else y


register_onnx(
    "_sg_mkldnn_conv",
    why_not="a fused node of MXNet's CPU backend (MKLDNN); export the graph before "
    "get_backend_symbol, as MXNet's exporter needs too.",
)
