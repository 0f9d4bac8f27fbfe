"""Pooling: max, average, sum and Lp pooling over 1-D, 2-D and 3-D windows.

Design note
-----------
Kernels work on channel-first arrays (a channel-last ``layout`` is a ``moveaxis`` view, so the
output is written in place through that view). Rows (batch * channels) are split into the
phases of the stride (``_phase_grid``), padding cells holding ``-inf`` for max pooling and
zeros otherwise, and the windows are reduced one spatial axis at a time on that grid
(``_pool_util``), so the Python loop runs over kernel elements only, never over pixels or
batch items. Global pooling reduces over the spatial axes directly.

MXNet's rules kept here: a window that lies wholly in padding gives the lowest finite value
(max); the average divides by the window clipped to ``input + pad`` (``count_include_pad``,
the default) or to the input; Lp pooling sums ``x**p`` (not ``|x|**p``) and takes the p-th
root; max backward routes each output gradient to the *first* position, in row-major window
order, whose value equals the output. float16 sums accumulate in float32.

Max pooling's training forward keeps that position per window (its offset in the window, a
uint8) as a hidden second output, ``workspace``, as MXNet's oneDNN pooling keeps one: the
backward routes by it and neither splits the input again nor compares it with the output.
The workspace is laid out as the kernel's phase grid, ``(N, C, *R)`` in either layout (``R``
per axis the output plus the window's reach past it, ``PhaseGrid.grid_rows``), so that neither
pass copies it between the grid and the output's shape (0.5-0.9 of 17.5 ms of ResNet's stem
pool, forward and backward, one thread); its cells off the output are unspecified.
An inference forward leaves it unset (first cell 254) and the backward then compares, so a
graph recorded with ``train_mode=False`` still gets true gradients.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base import DTypeError, ParamError, Shape, ShapeError
from ...context import Context
from ..parallel import over_rows
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, plot_dims, register, shape_assign
from ..req import OpReq, assign
from . import _pool_util as pk
from ._phase_grid import PhaseGrid

__all__: list[str] = []

_LAYOUTS = ("NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC")
_DEFAULT_LAYOUT = {3: "NCW", 4: "NCHW", 5: "NCDHW"}
# first cell of a max pooling workspace that holds no argmax (an inference forward does not
# compute it): the backward then compares the input with the output instead
_UNSET = 254


class PoolingParam(Param):
    kernel: tuple[int, ...] = field(default=(), doc="Pooling kernel size: (y, x) or (d, y, x)")
    pool_type: str = field(
        default="max", choices=("max", "avg", "sum", "lp"), doc="Pooling type to be applied."
    )
    global_pool: bool = field(
        default=False,
        doc="Ignore kernel size, do global pooling based on current input feature map.",
    )
    cudnn_off: bool = field(default=False, doc="Turn off cudnn pooling (accepted, no effect).")
    pooling_convention: str = field(
        default="valid", choices=("valid", "full", "same"), doc="Pooling convention to be applied."
    )
    stride: tuple[int, ...] = field(
        default=(), doc="Stride: for pooling (y, x) or (d, y, x). Defaults to 1 for each dimension."
    )
    pad: tuple[int, ...] = field(
        default=(), doc="Pad for pooling: (y, x) or (d, y, x). Defaults to no padding."
    )
    p_value: int | None = field(
        default=None, doc="Value of p for Lp pooling, can be 1 or 2, required for Lp Pooling."
    )
    count_include_pad: bool | None = field(
        default=None,
        doc="Only used for AvgPool: whether padding elements count in the average (default true).",
    )
    layout: str | None = field(
        default=None,
        choices=_LAYOUTS,
        doc="Set layout for input and output. Empty for default layout: NCW for 1d, NCHW for "
        "2d and NCDHW for 3d.",
    )


class _Geometry:
    """Kernel, stride, pad and output size per spatial axis, and whether channels come last."""

    __slots__ = ("kernel", "stride", "pad", "out", "channel_last")

    def __init__(self, kernel: Shape, stride: Shape, pad: Shape, out: Shape, last: bool) -> None:
        self.kernel, self.stride, self.pad, self.out = kernel, stride, pad, out
        self.channel_last = last


@register("Pooling", aliases=("_npx_pooling",))
class PoolingProp(OperatorProperty):
    """Pool windows of the input: max, avg, sum or lp (``p_value``)."""

    lists_output_names = True

    plot_kind = "pooling"
    quantized_name = "_contrib_quantized_pooling"

    def quantized_op(self, granularity: str) -> tuple[str, dict[str, str]] | None:
        """Fact for quantization: max and avg pooling have a quantized form."""
        return super().quantized_op(granularity) if self.param.pool_type in ("max", "avg") else None

    @classmethod
    def plot_label(cls, name: str, attrs: dict[str, str]) -> str:
        kernel = plot_dims(attrs["kernel"]) if "kernel" in attrs else "[]"
        stride = plot_dims(attrs["stride"]) if "stride" in attrs else "1"
        return f"Pooling\n{attrs.get('pool_type', 'max')}, {kernel}/{stride}"

    lists_input_names = True

    param_class = PoolingParam
    test = OpTest(shapes={"data": (2, 3, 5, 5)}, params={"kernel": (2, 2), "pool_type": "avg"})

    def _fail(self, why: str) -> ShapeError:
        return ShapeError(f"{self.where()}: {why}")

    def geometry(self, dshape: Shape) -> _Geometry:
        p = self.param
        nd = len(dshape)
        if nd not in (3, 4, 5):
            raise self._fail(
                f"argument 'data' must be 3-D (batch, channel, x), 4-D or 5-D; got shape {dshape}."
            )
        layout = p.layout if p.layout is not None else _DEFAULT_LAYOUT[nd]
        if len(layout) != nd:
            raise ParamError(
                f"{self.where()}: argument 'layout' is {layout!r}, which does not fit "
                f"{nd}-D data of shape {dshape}."
            )
        last = layout[1] != "C"
        spatial = dshape[1:-1] if last else dshape[2:]
        if p.pool_type == "lp" and p.p_value not in (1, 2, 3):
            raise ParamError(
                f"{self.where()}: argument 'p_value' must be 1, 2 or 3 for pool_type='lp', "
                f"got {p.p_value!r}."
            )
        if p.global_pool:
            ones = (1,) * len(spatial)
            return _Geometry(tuple(spatial), ones, (0,) * len(spatial), ones, last)
        k = p.kernel
        if not k:
            raise ParamError(f"{self.where()}: argument 'kernel' is required unless global_pool.")
        if len(k) != len(spatial):
            raise self._fail(
                f"argument 'kernel' {k} has {len(k)} dims; data of shape {dshape} needs "
                f"{len(spatial)}."
            )
        stride = p.stride or (1,) * len(k)
        pad = p.pad or (0,) * len(k)
        for name, val, low in (("kernel", k, 1), ("stride", stride, 1), ("pad", pad, 0)):
            if len(val) < len(k) or min(val[: len(k)]) < low:
                raise ParamError(
                    f"{self.where()}: argument {name!r} must have {len(k)} values >= {low} (one "
                    "per kernel dim), "
                    f"got {val}."
                )
        # MXNet reads only the first len(kernel) values of stride and pad (pad=(0, 0, 0) with a
        # 1-D kernel works there)
        stride, pad = stride[: len(k)], pad[: len(k)]
        conv = p.pooling_convention
        if conv == "same" and (nd != 3 or any(pad)):
            raise ParamError(
                f"{self.where()}: pooling_convention='same' supports only 1-D data without "
                f"'pad'; got data shape {dshape}, pad={pad}."
            )
        out = []
        for n, kk, s, pp in zip(spatial, k, stride, pad):
            if kk > n + 2 * pp:
                raise self._fail(
                    f"argument 'kernel' {k} exceeds the input {tuple(spatial)} padded by {pad}."
                )
            if conv == "valid":
                out.append(1 + (n + 2 * pp - kk) // s)
            elif conv == "full":
                out.append(1 + math.ceil((n + 2 * pp - kk) / s))
            else:
                out.append(math.ceil((n + 2 * pp) / s))
        return _Geometry(tuple(k), tuple(stride), tuple(pad), tuple(out), last)

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        if len(in_shape) != 1:
            raise self._fail(f"expects 1 input (data), got {len(in_shape)}.")
        dshape = in_shape[0]
        if dshape is None or 0 in dshape:
            return None
        g = self.geometry(tuple(dshape))
        oshape = (dshape[0], *g.out, dshape[-1]) if g.channel_last else (*dshape[:2], *g.out)
        if out_shape and out_shape[0] is not None:
            shape_assign(self, "output", "output", out_shape[0], oshape)
        if self.num_outputs() == 1:
            return [tuple(dshape)], [oshape], []
        # the argmax lies on the kernel's flat phase grid, one row per (batch, channel)
        n, c = (dshape[0], dshape[-1]) if g.channel_last else dshape[:2]
        grid = PhaseGrid.grid_rows(g.kernel, g.stride, g.out)
        return [tuple(dshape)], [oshape, (n, c, *grid)], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = in_type[0]
        if t is None:
            return None
        if np.dtype(t).kind != "f":
            raise DTypeError(
                f"{self.where()}: argument 'data' has dtype {np.dtype(t).name}; Pooling "
                "accepts float16, float32, float64."
            )
        return [t], [t, np.uint8][: self.num_outputs()], []

    def argmax_kept(self) -> bool:
        """Whether max pooling keeps each window's argmax as a hidden second output (MXNet's
        oneDNN pooling keeps such a workspace too): the backward then routes the gradient
        without reading the input again. A window of more than 254 positions does without."""
        p = self.param
        return p.pool_type == "max" and not p.global_pool and math.prod(p.kernel) <= _UNSET

    def list_outputs(self) -> list[str]:
        return ["output", "workspace"] if self.argmax_kept() else ["output"]

    def num_visible_outputs(self) -> int:
        return 1

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        if self.param.pool_type in ("avg", "sum"):
            return list(out_grad)  # the gradient spreads dy by window counts only
        return [*out_grad, *in_data, *out_data]

    def create_operator(self, ctx: Context) -> Operator:
        return _PoolingOp(self, ctx.xp)


# ---- kernels ----------------------------------------------------------------------------------


def _counts(xp: Any, g: _Geometry, spatial: Shape, include_pad: bool, dtype: Any) -> Any:
    """The divisor of each average window, as a broadcastable product of per-axis counts."""
    total = None
    nd = len(spatial)
    for axis, (n, k, s, p, o) in enumerate(zip(spatial, g.kernel, g.stride, g.pad, g.out)):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        # a window wholly in padding sums nothing: MXNet divides nothing and gives 0
        cnt = end - start if include_pad else np.minimum(end, n) - np.maximum(start, 0)
        cnt = np.maximum(cnt, 1)
        cnt = cnt.reshape((o,) + (1,) * (nd - 1 - axis))
        total = cnt if total is None else total * cnt
    return xp.asarray(total, dtype=dtype)


def _acc_dtype(dtype: Any) -> Any:
    return np.float32 if dtype == np.float16 else dtype


class _PoolingOp(Operator):
    def __init__(self, prop: PoolingProp, xp: Any) -> None:
        self.prop = prop
        self.xp = xp
        p = prop.param
        self.ptype = p.pool_type
        self.p = p.p_value if p.pool_type == "lp" else 1
        self.include_pad = True if p.count_include_pad is None else p.count_include_pad
        self._grids: dict[Shape, PhaseGrid] = {}

    def _cf(self, a: Any, g: _Geometry) -> Any:
        return self.xp.moveaxis(a, -1, 1) if g.channel_last else a

    def _grid(self, g: _Geometry, spatial: Shape) -> PhaseGrid:
        grid = self._grids.get(spatial)
        if grid is None:
            grid = self._grids[spatial] = PhaseGrid(spatial, g.kernel, g.stride, g.pad, g.out)
        return grid

    def _grid_counts(self, xp: Any, g: _Geometry, grid: PhaseGrid, spatial: Shape, dt: Any) -> Any:
        """The average's divisors: one scalar where every window counts alike (the windows of
        ``valid`` pooling with ``count_include_pad``), else on the grid's cells, flat (1 off
        the output cells)."""
        counts = _counts(np, g, spatial, self.include_pad, dt)
        if counts.min() == counts.max():
            return counts.reshape(-1)[0]
        cnt = xp.ones(grid.rows, dt)
        cnt[grid.out_cells] = xp.asarray(counts)
        return cnt.reshape(-1)

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        # the argmax is worth its work only where a backward may follow
        keep = len(out_data) > 1 and req[0] != OpReq.NULL and op_ctx is not None
        keep = keep and op_ctx.is_train
        if len(out_data) > 1 and not keep:
            out_data[1].reshape(-1)[:1] = _UNSET
        if req[0] == OpReq.NULL:
            return
        x = in_data[0]
        g = self.prop.geometry(x.shape)
        x, out = self._cf(x, g), self._cf(out_data[0], g)
        if self.prop.param.global_pool:
            assign(out, req[0], self._global(x))
            return
        xp = self.xp
        spatial = x.shape[2:]
        rows = x.shape[0] * x.shape[1]
        grid = self._grid(g, spatial)
        x2 = x.reshape(rows, *spatial)
        direct = req[0] != OpReq.ADD and out.flags.c_contiguous
        y2 = out.reshape(rows, *g.out) if direct else xp.empty((rows, *g.out), out.dtype)
        work = x.size + y2.size * len(grid.offsets)
        if self.ptype == "max":
            if keep:
                ws = out_data[1]
                flat = ws.flags.c_contiguous
                ws2 = ws.reshape(rows, -1) if flat else xp.empty((rows, grid.cell), np.uint8)

                def pool_max(a: Any, b: Any, w: Any) -> None:
                    pk.max_forward(xp, grid, a, b, w)

                over_rows(pool_max, rows, work, x2, y2, ws2)
                if not flat:
                    ws[...] = ws2.reshape(ws.shape)
            else:
                over_rows(lambda a, b: pk.max_forward(xp, grid, a, b), rows, work, x2, y2)
        else:
            acc = _acc_dtype(x.dtype)
            cnt = self._grid_counts(xp, g, grid, spatial, acc) if self.ptype == "avg" else None
            p = self.p

            def post(s: Any) -> None:
                if cnt is not None:
                    xp.divide(s, cnt, out=s)
                elif p == 2:
                    xp.sqrt(s, out=s)
                elif p == 3:
                    xp.cbrt(s, out=s)

            scalar = cnt is not None and np.ndim(cnt) == 0

            def pool_sum(a: Any, b: Any) -> None:
                pk.sum_forward(xp, grid, a, p, acc, b, post, cnt if scalar else None)

            over_rows(pool_sum, rows, work, x2, y2)
        if not direct:
            assign(out, req[0], y2.reshape(out.shape))

    def _global(self, x: Any) -> Any:
        axes = tuple(range(2, x.ndim))
        if self.ptype == "max":
            return x.max(axis=axes, keepdims=True)
        xa = x.astype(_acc_dtype(x.dtype), copy=False)
        res = (xa**self.p if self.p > 1 else xa).sum(axis=axes, keepdims=True)
        if self.ptype == "avg":
            res /= np.prod(x.shape[2:])
        elif self.p == 2:
            res = self.xp.sqrt(res)
        elif self.p == 3:
            res = self.xp.cbrt(res)
        return res.astype(x.dtype, copy=False)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        if req[0] == OpReq.NULL:
            return
        gin = in_grad[0]
        g = self.prop.geometry(gin.shape)
        if self.prop.param.global_pool:
            self._global_backward(g, in_data[0], out_data[0], out_grad[0], gin, req[0])
            return
        gin_cf, dy = self._cf(gin, g), self._cf(out_grad[0], g)
        xp = self.xp
        spatial = gin_cf.shape[2:]
        rows = gin_cf.shape[0] * gin_cf.shape[1]
        grid = self._grid(g, spatial)
        direct = gin_cf.flags.c_contiguous
        add = req[0] == OpReq.ADD and direct
        dx2 = gin_cf.reshape(rows, *spatial) if direct else xp.empty((rows, *spatial), gin.dtype)
        dy2 = dy.reshape(rows, *g.out)
        work = gin.size + dy.size * len(grid.offsets)
        acc = _acc_dtype(gin.dtype)
        if self.ptype == "max" and self._routed(out_data):
            ws2 = out_data[1].reshape(rows, -1)

            def route_kept(w: Any, d: Any, dx: Any) -> None:
                pk.max_backward_routed(xp, grid, w, d, dx, add)

            over_rows(route_kept, rows, gin.size + dy.size * 3, ws2, dy2, dx2)
        elif self.ptype == "max":
            x2 = self._cf(in_data[0], g).reshape(rows, *spatial)
            y2 = self._cf(out_data[0], g).reshape(rows, *g.out)

            def route(x: Any, y: Any, d: Any, dx: Any) -> None:
                pk.max_backward(xp, grid, x, y, d, dx, add)

            over_rows(route, rows, work, x2, y2, dy2, dx2)
        elif self.ptype in ("avg", "sum") or self.p == 1:
            cnt = self._grid_counts(xp, g, grid, spatial, acc) if self.ptype == "avg" else None

            def spread(d: Any, dx: Any) -> None:
                pk.sum_backward(xp, grid, d, dx, add, acc, cnt)

            over_rows(spread, rows, work, dy2, dx2)
        else:
            x2 = self._cf(in_data[0], g).reshape(rows, *spatial)
            y2 = self._cf(out_data[0], g).reshape(rows, *g.out).astype(acc, copy=False)
            d2 = dy2.astype(acc, copy=False)

            def lp(x: Any, y: Any, d: Any, dx: Any) -> None:
                pk.lp_backward(xp, grid, x, y, d, self.p, dx, add)

            over_rows(lp, rows, work, x2, y2, d2, dx2)
        if not direct:
            assign(gin_cf, req[0], dx2.reshape(gin_cf.shape))

    @staticmethod
    def _routed(out_data: list) -> bool:
        """Whether the forward kept the argmax of each window (see ``argmax_kept``)."""
        ws = out_data[1] if len(out_data) > 1 else None
        return ws is not None and ws.size > 0 and int(ws.reshape(-1)[0]) != _UNSET

    def _global_backward(self, g: _Geometry, x: Any, y: Any, dy: Any, gin: Any, req: OpReq) -> None:
        """The gradient of a window that is the whole input, in its own layout as ``(N, S, C)``
        (channels last) or ``(N, C, S)``: max routes ``dy`` to the first position equal to the
        output, the sums spread it over every position. Work and memory stay at the input's
        size, where the phase grid would walk ``S`` window offsets over ``S`` cells."""
        xp = self.xp
        axis = 1 if g.channel_last else 2
        n = gin.shape[0]
        lines = (n, -1, gin.shape[-1]) if g.channel_last else (n, gin.shape[1], -1)
        direct = gin.flags.c_contiguous
        dx = gin.reshape(lines) if direct else xp.empty(gin.shape, gin.dtype).reshape(lines)
        d = dy.reshape(dy.shape[0], 1, -1) if g.channel_last else dy.reshape(*dy.shape[:2], 1)
        add = req == OpReq.ADD and direct
        if self.ptype == "max":
            x3 = x.reshape(lines)
            first = xp.argmax(x3, axis=axis)  # (N, C): the first maximum of each window
            # the flat index of each one in the (N, S, C) or (N, C, S) lines
            size = x3.shape[axis]
            pos = xp.arange(first.size).reshape(first.shape)
            if g.channel_last:
                c = x3.shape[2]
                flat = (pos // c * size + first) * c + pos % c
            else:
                flat = pos * size + first
            flat = flat.reshape(-1)
            # NaN never equals the output: a NaN output routes nothing, as the window walk does
            part = d.reshape(-1) * (x3.reshape(-1)[flat] == y.reshape(-1))
            dflat = dx.reshape(-1)
            if add:
                part = part + dflat[flat]
            else:
                dx.fill(0)
            dflat[flat] = part
        else:
            acc = _acc_dtype(gin.dtype)
            part = d.astype(acc, copy=False)
            if self.ptype == "avg":
                part = part / np.prod(gin.shape[1:-1] if g.channel_last else gin.shape[2:])
            elif self.ptype == "lp" and self.p > 1:
                y3 = y.reshape(d.shape).astype(acc, copy=False)
                zero = y3 == 0
                ratio = x.reshape(lines) / xp.where(zero, 1, y3)
                part = xp.where(zero, 0, part) * (ratio if self.p == 2 else ratio * ratio)
            if add:
                dx += part
            else:
                dx[...] = part
        if not direct:
            assign(gin, req, dx.reshape(gin.shape))
