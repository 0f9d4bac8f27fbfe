"""Tensor contrib operators: ``index_copy``, ``index_array``, ``allclose``, ``count_sketch``
and the interleaved multi-head attention products ``interleaved_matmul_*``.

The attention products read the projections packed as MXNet's transformer layers pack them:
``queries_keys_values`` is (seq_length, batch, heads * 3 * head_dim) with, per head, the query,
key and value projections next to each other; ``keys_values`` likewise with key and value. The
results are batched over ``batch * heads`` (batch major), as ``batch_dot`` would give them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base import ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, register, shape_assign
from ..req import OpReq, assign
from ._computed import ComputedProp, zero_grads

__all__: list[str] = []


# ---- index_copy -------------------------------------------------------------------------------


@register("_contrib_index_copy", aliases=("_npx_index_copy",))
class IndexCopyProp(OperatorProperty):
    """A copy of ``old_tensor`` with rows ``index_vector`` replaced by ``new_tensor``."""

    test = OpTest(
        shapes={"old_tensor": (5, 3), "index_vector": (2,), "new_tensor": (2, 3)}, grad=False
    )

    def list_arguments(self) -> list[str]:
        return ["old_tensor", "index_vector", "new_tensor"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        old, idx, new = in_shape
        old = shape_assign(self, "output", "output", out_shape[0] if out_shape else None, old)
        if idx is not None and len(idx) != 1:
            raise ShapeError(f"{self.where()}: index_vector must be 1-D, got shape {idx}.")
        if old is None or idx is None or new is None:
            return None
        if len(new) != len(old) or tuple(new[1:]) != tuple(old[1:]) or new[0] != idx[0]:
            raise ShapeError(
                f"{self.where()}: new_tensor has shape {new}; expected ({idx[0]}, "
                f"{', '.join(map(str, old[1:]))}) for index_vector {idx} and old_tensor {old}."
            )
        return [old, tuple(idx), tuple(new)], [old], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = in_type[0] if in_type[0] is not None else in_type[2]
        if t is None:
            return None
        idx = in_type[1] if in_type[1] is not None else np.dtype(np.int64)
        return [t, idx, t], [t], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return [out_grad[0], in_data[1]]

    def create_operator(self, ctx: Context) -> Operator:
        return _IndexCopyOp()


class _IndexCopyOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        old, idx, new = in_data
        out = old.copy()
        out[idx.astype(np.int64)] = new
        assign(out_data[0], req[0], out)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        g = out_grad[0]
        idx = in_data[1].astype(np.int64)
        if req[0] != OpReq.NULL:
            go = g.copy()
            go[idx] = 0
            assign(in_grad[0], req[0], go)
        if req[1] in (OpReq.WRITE, OpReq.INPLACE):
            in_grad[1][...] = 0
        if req[2] != OpReq.NULL:
            assign(in_grad[2], req[2], g[idx])


# ---- index_array ------------------------------------------------------------------------------


class IndexArrayParam(Param):
    axes: tuple[int, ...] | None = field(
        default=None,
        doc="The axes to include in the index array. Supports negative values.",
    )


@register("_contrib_index_array", aliases=("_npx_index_array",))
class IndexArrayProp(ComputedProp):
    """For every element of ``data``, its index (along ``axes``, default all) as int64."""

    param_class = IndexArrayParam
    test = OpTest(shapes={"data": (2, 3)}, grad=False)
    zero_grad = True

    def _axes(self, ndim: int) -> list[int]:
        axes = self.param.axes
        if axes is None:
            return list(range(ndim))
        out = []
        for a in axes:
            if not -ndim <= a < ndim:
                raise ShapeError(f"{self.where()}: axis {a} is out of range for a {ndim}-D input.")
            out.append(a % ndim)
        return out

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        s = in_shape[0]
        if s is None:
            return None
        s = tuple(s)
        return [s], [(*s, len(self._axes(len(s))))], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = in_type[0]
        return [t], [np.dtype(np.int64)], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        shape = ins[0].shape
        axes = self._axes(len(shape))
        grids = xp.indices(shape, dtype=np.int64) if shape else xp.zeros((0,), np.int64)
        out = xp.stack([grids[a] for a in axes], axis=-1) if axes else xp.zeros(
            (*shape, 0), np.int64)  # fmt: skip
        return [out.reshape(outs[0].shape)]


# ---- allclose ---------------------------------------------------------------------------------


class AllCloseParam(Param):
    rtol: float = field(default=1e-05, doc="Relative tolerance.")
    atol: float = field(default=1e-08, doc="Absolute tolerance.")
    equal_nan: bool = field(
        default=True,
        doc="Whether to compare NaN's as equal. If True, NaN's in A will be "
        "considered equal to NaN's in B in the output array.",
    )


@register("_contrib_allclose", aliases=("_npi_allclose",))
class AllCloseProp(ComputedProp):
    """1 (uint8, shape ()) when ``|a - b| <= atol + rtol * |b|`` everywhere, else 0."""

    param_class = AllCloseParam
    test = OpTest(shapes={"a": (2, 3), "b": (2, 3)}, grad=False)

    def list_arguments(self) -> list[str]:
        return ["a", "b"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        a, b = in_shape
        if a is None or b is None:
            return None
        if tuple(a) != tuple(b):
            raise ShapeError(
                f"{self.where()}: a has shape {a} and b has shape {b}; they must match."
            )
        return [tuple(a), tuple(b)], [()], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = in_type[0] if in_type[0] is not None else in_type[1]
        if t is None:
            return None
        return [t, t], [np.dtype(np.uint8)], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        p = self.param
        a, b = ins
        rtol, atol = np.float32(p.rtol), np.float32(p.atol)
        with np.errstate(invalid="ignore"):
            close = (a == b) | (xp.abs(a - b) <= atol + rtol * xp.abs(b))
        if a.dtype.kind == "f":
            na, nb = xp.isnan(a), xp.isnan(b)
            close = xp.where(na | nb, p.equal_nan & (na == nb), close)
        return [xp.asarray(close.all(), dtype=np.uint8)]


# ---- count_sketch -----------------------------------------------------------------------------


class CountSketchParam(Param):
    out_dim: int = field(low=1, doc="The output dimension.")
    processing_batch_size: int = field(default=32, doc="How many sketch vectors to process at "
                                       "one time.")  # fmt: skip


@register("_contrib_count_sketch")
class CountSketchProp(OperatorProperty):
    """Count sketch: ``out[:, h[i]] += s[i] * data[:, i]`` for (N, in_dim) data."""

    param_class = CountSketchParam
    test = OpTest(shapes={"data": (2, 5), "h": (1, 5), "s": (1, 5)}, params={"out_dim": 3},
                  grad=False)  # fmt: skip

    def list_arguments(self) -> list[str]:
        return ["data", "h", "s"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        d, h, s = in_shape
        if d is None:
            return None
        d = tuple(d)
        vec = (1, d[-1])
        h = shape_assign(self, "input", "h", h, vec)
        s = shape_assign(self, "input", "s", s, vec)
        return [d, h, s], [(*d[:-1], self.param.out_dim)], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return [out_grad[0], in_data[1], in_data[2]]

    def create_operator(self, ctx: Context) -> Operator:
        return _CountSketchOp(self, ctx.xp)


class _CountSketchOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        xp = self.xp
        data, h, s = in_data
        idx = h.reshape(-1).astype(np.int64)
        flat = data.reshape(-1, data.shape[-1]) * s.reshape(1, -1)
        out = xp.zeros((flat.shape[0], self.prop.param.out_dim), dtype=data.dtype)
        xp.add.at(out, (slice(None), idx), flat)
        assign(out_data[0], req[0], out.reshape(out_data[0].shape))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        _, h, s = in_data
        g = out_grad[0].reshape(-1, self.prop.param.out_dim)
        if req[0] != OpReq.NULL:
            dg = g[:, h.reshape(-1).astype(np.int64)] * s.reshape(1, -1)
            assign(in_grad[0], req[0], dg.reshape(in_grad[0].shape))
        zero_grads(in_grad[1:], req[1:])


# ---- interleaved_matmul_* ---------------------------------------------------------------------


class InterleavedMatMulParam(Param):
    heads: int = field(low=1, doc="Set number of heads")


def _strided(flat: Any, seq: int, batch: int, width: int, heads: int, parts: int, which: int):
    """Projection ``which`` of ``parts`` packed in rows of (L, B, width), as MXNet's kernels
    read it: (B*heads, L, D) with D = width // parts // heads, batches ``parts*D`` apart, rows
    ``B*heads*parts*D`` apart (``width`` itself when it divides evenly, as it should)."""
    d = width // parts // heads
    step = flat.itemsize
    return np.lib.stride_tricks.as_strided(
        flat[which * d :],
        (batch * heads, seq, d),
        (parts * d * step, batch * heads * parts * d * step, step),
    )


def _split(x: Any, heads: int, parts: int, which: int) -> Any:
    """Projection ``which`` of ``parts`` packed in (L, B, heads*parts*D), as (B*heads, L, D)."""
    flat = np.ascontiguousarray(x).reshape(-1)
    return _strided(flat, *x.shape, heads, parts, which)


def _merge(g: Any, heads: int, parts: int, which: int, like: Any) -> Any:
    """The gradient of :func:`_split`: (B*heads, L, D) back into a zero (L, B, width) array."""
    out = np.zeros(like.size, dtype=like.dtype)
    _strided(out, *like.shape, heads, parts, which)[...] = g
    return out.reshape(like.shape)


def _heads_out(x: Any, heads: int) -> Any:
    """(B*heads, L, D) to (L, B, heads*D)."""
    bh, seq, d = x.shape
    return x.reshape(bh // heads, heads, seq, d).transpose(2, 0, 1, 3).reshape(seq, -1, heads * d)


def _heads_in(g: Any, heads: int) -> Any:
    seq, batch, width = g.shape
    d = width // heads
    return g.reshape(seq, batch, heads, d).transpose(1, 2, 0, 3).reshape(batch * heads, seq, d)


class _InterleavedProp(OperatorProperty):
    param_class = InterleavedMatMulParam
    args: tuple[str, ...] = ()

    def list_arguments(self) -> list[str]:
        return list(self.args)

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return [out_grad[0], *in_data]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        for name, s in zip(self.args, in_shape):
            if s is not None and len(s) != 3:
                raise ShapeError(f"{self.where()}: {name} must be 3-D, got shape {tuple(s)}.")
        if any(s is None for s in in_shape):
            return None
        ins = [tuple(s) for s in in_shape]
        return ins, [self.output_shape(*ins, self.param.heads)], []

    def output_shape(self, *args: Any) -> tuple:
        """The output's shape for the (3-D) input shapes and the number of heads, checked."""
        raise NotImplementedError


@register("_contrib_interleaved_matmul_selfatt_qk")
class SelfAttQKProp(_InterleavedProp):
    """Scaled query-key products of self-attention: (batch*heads, seq, seq)."""

    args = ("queries_keys_values",)
    test = OpTest(shapes={"queries_keys_values": (3, 2, 12)}, params={"heads": 2})

    def output_shape(self, q: tuple, heads: int) -> tuple:
        # no check that 3 * heads divides the last dimension: MXNet has none (its kernels then
        # read rows 3 * heads * (width // 3 // heads) wide, and so does _split)
        return (heads * q[1], q[0], q[0])

    def create_operator(self, ctx: Context) -> Operator:
        return _SelfAttQKOp(self)


class _SelfAttQKOp(Operator):
    def _qk(self, x: Any) -> tuple[Any, Any, float]:
        heads = self.prop.param.heads
        q, k = _split(x, heads, 3, 0), _split(x, heads, 3, 1)
        return q, k, 1.0 / math.sqrt(q.shape[-1])

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        q, k, scale = self._qk(in_data[0])
        out = np.matmul(q * q.dtype.type(scale), k.transpose(0, 2, 1))
        assign(out_data[0], req[0], out)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        if req[0] == OpReq.NULL:
            return
        x = in_data[0]
        q, k, scale = self._qk(x)
        g = out_grad[0]
        dq = np.matmul(g, k) * x.dtype.type(scale)
        dk = np.matmul(g.transpose(0, 2, 1), q * x.dtype.type(scale))
        heads = self.prop.param.heads
        d = _merge(dq, heads, 3, 0, x) + _merge(dk, heads, 3, 1, x)
        assign(in_grad[0], req[0], d)


@register("_contrib_interleaved_matmul_selfatt_valatt")
class SelfAttValAttProp(_InterleavedProp):
    """Attention-weighted values of self-attention: (seq, batch, heads*head_dim)."""

    args = ("queries_keys_values", "attention")
    test = OpTest(
        shapes={"queries_keys_values": (3, 2, 12), "attention": (4, 3, 3)}, params={"heads": 2}
    )

    def output_shape(self, qkv: tuple, att: tuple, h: int) -> tuple:
        if att != (qkv[1] * h, qkv[0], qkv[0]) or qkv[2] % (3 * h):
            raise ShapeError(
                f"{self.where()}: attention has shape {att}; expected "
                f"{(qkv[1] * h, qkv[0], qkv[0])} for queries_keys_values {qkv} (whose last "
                "dimension is a multiple of 3 * heads)."
            )
        return (qkv[0], qkv[1], qkv[2] // 3)

    def create_operator(self, ctx: Context) -> Operator:
        return _ValAttOp(self.param.heads, 3, 2)


class _ValAttOp(Operator):
    def __init__(self, heads: int, parts: int, which: int) -> None:
        self.heads, self.parts, self.which = heads, parts, which

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        x, att = in_data
        v = _split(x, self.heads, self.parts, self.which)
        assign(out_data[0], req[0], _heads_out(np.matmul(att, v), self.heads))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        x, att = in_data
        v = _split(x, self.heads, self.parts, self.which)
        g = _heads_in(out_grad[0], self.heads)
        if req[0] != OpReq.NULL:
            dv = np.matmul(att.transpose(0, 2, 1), g)
            assign(in_grad[0], req[0], _merge(dv, self.heads, self.parts, self.which, x))
        if req[1] != OpReq.NULL:
            assign(in_grad[1], req[1], np.matmul(g, v.transpose(0, 2, 1)))


@register("_contrib_interleaved_matmul_encdec_qk")
class EncDecQKProp(_InterleavedProp):
    """Scaled query-key products of encoder-decoder attention: (batch*heads, q_len, kv_len)."""

    args = ("queries", "keys_values")
    test = OpTest(shapes={"queries": (3, 2, 4), "keys_values": (5, 2, 8)}, params={"heads": 2})

    def output_shape(self, q: tuple, kv: tuple, heads: int) -> tuple:
        if kv[2] != 2 * q[2] or kv[1] != q[1] or q[2] % heads:
            raise ShapeError(
                f"{self.where()}: keys_values {kv} must be (seq, {q[1]}, {2 * q[2]}) for queries "
                f"{q} (whose last dimension is a multiple of heads)."
            )
        return (q[1] * heads, q[0], kv[0])

    def create_operator(self, ctx: Context) -> Operator:
        return _EncDecQKOp(self)


class _EncDecQKOp(Operator):
    def _qk(self, qin: Any, kv: Any) -> tuple[Any, Any, Any]:
        heads = self.prop.param.heads
        q, k = _heads_in(qin, heads), _split(kv, heads, 2, 0)
        return q, k, q.dtype.type(1.0 / math.sqrt(q.shape[-1]))

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        q, k, scale = self._qk(*in_data)
        assign(out_data[0], req[0], np.matmul(q * scale, k.transpose(0, 2, 1)))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        kv, heads = in_data[1], self.prop.param.heads
        q, k, scale = self._qk(*in_data)
        g = out_grad[0]
        if req[0] != OpReq.NULL:
            assign(in_grad[0], req[0], _heads_out(np.matmul(g, k) * scale, heads))
        if req[1] != OpReq.NULL:
            dk = np.matmul(g.transpose(0, 2, 1), q * scale)
            assign(in_grad[1], req[1], _merge(dk, heads, 2, 0, kv))


@register("_contrib_interleaved_matmul_encdec_valatt")
class EncDecValAttProp(_InterleavedProp):
    """Attention-weighted values of encoder-decoder attention: (q_len, batch, heads*head_dim)."""

    args = ("keys_values", "attention")
    test = OpTest(shapes={"keys_values": (5, 2, 8), "attention": (4, 3, 5)}, params={"heads": 2})

    def output_shape(self, kv: tuple, att: tuple, h: int) -> tuple:
        if att[2] != kv[0] or att[0] != kv[1] * h or kv[2] % (2 * h):
            raise ShapeError(
                f"{self.where()}: attention {att} must be ({kv[1] * h}, q_len, {kv[0]}) for "
                f"keys_values {kv} (whose last dimension is a multiple of 2 * heads)."
            )
        return (att[1], kv[1], kv[2] // 2)

    def create_operator(self, ctx: Context) -> Operator:
        return _ValAttOp(self.param.heads, 2, 1)
