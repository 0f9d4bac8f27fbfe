"""``BilinearResize2D`` and ``AdaptiveAvgPooling2D`` (contrib), both linear maps applied to the
last two axes of an NCHW array: ``out = A_h @ x @ A_w.T`` with small interpolation (or
averaging) matrices, so backward is ``A_h.T @ dy @ A_w``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base import ParamError, ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, register
from ..req import OpReq, assign
from ._computed import zero_grads

__all__: list[str] = []

_MODES = ("size", "odd_scale", "like", "to_even_down", "to_even_up", "to_odd_down", "to_odd_up")


def _bilinear_matrix(n_in: int, n_out: int, align_corners: bool) -> np.ndarray:
    """(n_out, n_in) weights of MXNet's bilinear source positions (computed in float32)."""
    f32 = np.float32
    if n_out > 1:
        scale = f32((n_in - 1) / (n_out - 1)) if align_corners else f32(n_in / n_out)
    else:
        scale = f32(0)
    dst = np.arange(n_out, dtype=f32)
    if align_corners:
        src = scale * dst
    else:
        src = np.maximum(scale * (dst + f32(0.5)) - f32(0.5), f32(0))
    lo = src.astype(np.int64)
    lam = (src - lo).astype(f32)
    hi = np.where(lo < n_in - 1, lo + 1, lo)
    m = np.zeros((n_out, n_in), dtype=np.float64)
    rows = np.arange(n_out)
    np.add.at(m, (rows, lo), 1 - lam)
    np.add.at(m, (rows, hi), lam)
    return m


def _avg_matrix(n_in: int, n_out: int) -> np.ndarray:
    """(n_out, n_in) averaging weights of adaptive pooling bins."""
    m = np.zeros((n_out, n_in), dtype=np.float64)
    for i in range(n_out):
        lo = math.floor(np.float32(i * n_in) / np.float32(n_out))
        hi = math.ceil(np.float32((i + 1) * n_in) / np.float32(n_out))
        m[i, lo:hi] = 1.0 / (hi - lo)
    return m


class _SeparableOp(Operator):
    """``out = A_h @ x @ A_w.T`` over the last two axes; matrices cached per input size."""

    def __init__(self, xp: Any) -> None:
        self.xp = xp
        self._cache: dict[tuple, tuple[Any, Any]] = {}

    def matrices(self, in_hw: tuple, out_hw: tuple) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def _mats(self, in_hw: tuple, out_hw: tuple, dtype: Any) -> tuple[Any, Any]:
        key = (in_hw, out_hw, np.dtype(dtype))
        hit = self._cache.get(key)
        if hit is None:
            mh, mw = self.matrices(in_hw, out_hw)
            hit = (self.xp.asarray(mh.astype(dtype)), self.xp.asarray(mw.astype(dtype)))
            if len(self._cache) < 64:
                self._cache[key] = hit
        return hit

    # the products run in float64 and round once, as MXNet's per-pixel 4-term sums nearly do
    # (a float32 product rounds at every step, enough to upset finite-difference checks)

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        x = in_data[0]
        out = out_data[0]
        mh, mw = self._mats(x.shape[2:], out.shape[2:], np.float64)
        y = self.xp.matmul(self.xp.matmul(mh, x.astype(np.float64)), mw.T)
        assign(out, req[0], y.astype(out.dtype))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        g = out_grad[0]
        if req[0] != OpReq.NULL:
            mh, mw = self._mats(in_grad[0].shape[2:], g.shape[2:], np.float64)
            dx = self.xp.matmul(self.xp.matmul(mh.T, g.astype(np.float64)), mw)
            assign(in_grad[0], req[0], dx.astype(in_grad[0].dtype))
        zero_grads(in_grad[1:], req[1:])


# ---- BilinearResize2D -------------------------------------------------------------------------


class BilinearSampleParam(Param):
    height: int = field(
        default=1,
        low=1,
        doc="output height (required, but ignored if scale_height is defined or mode is not "
        '"size")',
    )
    width: int = field(
        default=1,
        low=1,
        doc='output width (required, but ignored if scale_width is defined or mode is not "size")',
    )
    scale_height: float | None = field(
        default=None,
        doc='sampling scale of the height (optional, used in modes "scale" and "odd_scale")',
    )
    scale_width: float | None = field(
        default=None,
        doc='sampling scale of the width (optional, used in modes "scale" and "odd_scale")',
    )
    mode: str = field(default="size", choices=_MODES, doc="resizing mode.")
    align_corners: bool = field(
        default=True,
        doc="With align_corners = True, the interpolating doesn't proportionally align the "
        "output and input pixels, and thus the output values can depend on the input size.",
    )


@register("_contrib_BilinearResize2D", aliases=("_npx_bilinearresize2d",))
class BilinearResize2DProp(OperatorProperty):
    """Resize the last two axes of NCHW data by bilinear interpolation."""

    plot_inputs = 1  # plot_network draws the data's edge only, as MXNet's does

    param_class = BilinearSampleParam
    test = OpTest(shapes={"data": (1, 2, 3, 4)}, params={"height": 5, "width": 3})

    def list_arguments(self) -> list[str]:
        return ["data", "like"] if self.param.mode == "like" else ["data"]

    def _out_hw(self, h: int, w: int, like: Any) -> tuple[int, int]:
        p = self.param
        if p.mode == "size":
            if p.scale_height is not None:
                if p.scale_width is None:
                    raise ParamError(f"{self.where()}: scale_height needs scale_width as well.")
                return int(p.scale_height * h), int(p.scale_width * w)
            return p.height, p.width
        if p.mode == "odd_scale":
            if p.scale_height is None or p.scale_width is None:
                raise ParamError(f"{self.where()}: mode 'odd_scale' needs scale_height and "
                                 "scale_width.")  # fmt: skip
            nh = int(h * p.scale_height) if h % 2 == 0 else int((h - 1) * p.scale_height) + 1
            nw = int(w * p.scale_width) if w % 2 == 0 else int((w - 1) * p.scale_width) + 1
            return nh, nw
        if p.mode == "like":
            return like[2], like[3]
        even = p.mode.startswith("to_even")
        step = 1 if p.mode.endswith("up") else -1

        def fix(n: int) -> int:
            return n if (n % 2 == 0) == even else n + step

        return fix(h), fix(w)

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        d = in_shape[0]
        like = in_shape[1] if self.param.mode == "like" else None
        if d is None or (self.param.mode == "like" and like is None):
            return None
        if len(d) != 4:
            raise ShapeError(f"{self.where()}: data must be 4-D (NCHW), got shape {tuple(d)}.")
        if like is not None and len(like) != 4:
            raise ShapeError(f"{self.where()}: like must be 4-D (NCHW), got shape {tuple(like)}.")
        oh, ow = self._out_hw(d[2], d[3], like)
        ins = [tuple(d)] + ([tuple(like)] if like is not None else [])
        return ins, [(d[0], d[1], oh, ow)], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return [out_grad[0]]

    def create_operator(self, ctx: Context) -> Operator:
        return _BilinearOp(self.param.align_corners, ctx.xp)


class _BilinearOp(_SeparableOp):
    def __init__(self, align_corners: bool, xp: Any) -> None:
        super().__init__(xp)
        self.align = align_corners

    def matrices(self, in_hw: tuple, out_hw: tuple) -> tuple[np.ndarray, np.ndarray]:
        if tuple(in_hw) == tuple(out_hw):
            return np.eye(in_hw[0]), np.eye(in_hw[1])
        return (_bilinear_matrix(in_hw[0], out_hw[0], self.align),
                _bilinear_matrix(in_hw[1], out_hw[1], self.align))  # fmt: skip


# ---- AdaptiveAvgPooling2D ---------------------------------------------------------------------


class AdaptiveAvgPoolParam(Param):
    output_size: tuple[int, ...] = field(
        default=(), doc="int (output size) or a tuple of int for output (height, width)."
    )


@register("_contrib_AdaptiveAvgPooling2D", aliases=("_npx_adaptive_avg_pooling2d",))
class AdaptiveAvgPooling2DProp(OperatorProperty):
    """Average-pool NCHW data into ``output_size`` bins (each covering floor..ceil)."""

    param_class = AdaptiveAvgPoolParam
    test = OpTest(shapes={"data": (1, 2, 5, 7)}, params={"output_size": (2, 3)})

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        d = in_shape[0]
        if d is None:
            return None
        if len(d) != 4:
            raise ShapeError(f"{self.where()}: data must be 4-D (NCHW), got shape {tuple(d)}.")
        size = self.param.output_size
        if len(size) > 2:
            raise ParamError(
                f"{self.where()}: output_size must be an int or (height, width), got {size}."
            )
        oh, ow = (1, 1) if not size else (size[0], size[-1])
        return [tuple(d)], [(d[0], d[1], oh, ow)], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return [out_grad[0]]

    def create_operator(self, ctx: Context) -> Operator:
        return _AdaptiveAvgOp(ctx.xp)


class _AdaptiveAvgOp(_SeparableOp):
    def matrices(self, in_hw: tuple, out_hw: tuple) -> tuple[np.ndarray, np.ndarray]:
        return _avg_matrix(in_hw[0], out_hw[0]), _avg_matrix(in_hw[1], out_hw[1])
