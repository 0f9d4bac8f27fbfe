"""Spatial transformer networks: ``GridGenerator``, ``BilinearSampler`` and
``SpatialTransformer``, as in MXNet 1.9.1.

Design note
-----------
A sampling grid holds, for every output pixel, the source position (x, y) normalised to
[-1, 1] over the input's width and height: x = -1 is the centre of the first column, x = 1 of
the last. ``GridGenerator`` makes such a grid from an affine matrix (``theta @ (x, y, 1)`` over
a regular target grid) or from an optical flow in pixels; ``BilinearSampler`` reads the input
at the grid's positions with bilinear weights, treating pixels outside the input as zeros;
``SpatialTransformer`` is the two in one operator.

Sampling is vectorised: the four neighbours of every output position are gathered with one
``take_along_axis`` each, and backward scatters into the input gradient with one
``bincount`` over flat indices. The grid gradient is the exact derivative of the bilinear
weights (zero-valued neighbours outside the input included). The hidden outputs keep MXNet's
names and shapes: ``grid_dst`` (the regular target grid), ``grid_src`` (the source grid) and
BilinearSampler's ``tmp`` (a cuDNN scratch area in MXNet, zeros here).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import ParamError, ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, register, shape_assign
from ..req import OpReq, assign
from .activation import FloatDataProp

__all__ = ["GridGeneratorParam", "BilinearSamplerParam", "SpatialTransformerParam"]


def _write(out: Any, req: OpReq, value: Any) -> None:
    if req != OpReq.NULL:
        assign(out, req, value)


def _target_grid(xp: Any, h: int, w: int, dtype: Any) -> Any:
    """The (3, h*w) regular grid of (x, y, 1) over [-1, 1] that affine transforms act on."""
    idx = np.arange(h * w)
    with np.errstate(divide="ignore", invalid="ignore"):
        gx = -1.0 + (idx % w) * (2.0 / (w - 1)) if w > 1 else np.full(h * w, -1.0)
        gy = -1.0 + (idx // w) * (2.0 / (h - 1)) if h > 1 else np.full(h * w, -1.0)
    return xp.asarray(np.stack([gx, gy, np.ones(h * w)]).astype(dtype))


def _corners(xp: Any, grid: Any, h: int, w: int):
    """For a source grid (N, 2, K): the four neighbours' flat indices, validity and weights,
    plus the fractional weights (wx, wy) of the top-left neighbour."""
    dt = grid.dtype
    x = (grid[:, 0] + 1) * dt.type(w - 1) / 2
    y = (grid[:, 1] + 1) * dt.type(h - 1) / 2
    x0, y0 = xp.floor(x), xp.floor(y)
    wx, wy = 1 - (x - x0), 1 - (y - y0)
    x0, y0 = x0.astype(np.int64), y0.astype(np.int64)
    out = []
    for dy, dx, wgt in (
        (0, 0, wy * wx),
        (0, 1, wy * (1 - wx)),
        (1, 0, (1 - wy) * wx),
        (1, 1, (1 - wy) * (1 - wx)),
    ):
        xi, yi = x0 + dx, y0 + dy
        ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
        flat = xp.where(ok, yi * w + xi, 0)
        out.append((flat, ok, wgt))
    return out, wx, wy


def _gather(xp: Any, data: Any, corners: list) -> list:
    """The value of each neighbour, (N, C, K), zero outside the input."""
    n, c = data.shape[:2]
    flat = data.reshape(n, c, -1)
    vals = []
    for idx, ok, _ in corners:
        v = xp.take_along_axis(flat, xp.broadcast_to(idx[:, None, :], (n, c, idx.shape[-1])), 2)
        vals.append(v * ok[:, None, :])
    return vals


def _sample(xp: Any, data: Any, grid: Any) -> Any:
    """Bilinear sampling of data (N, C, H, W) at grid (N, 2, K): (N, C, K)."""
    corners, _, _ = _corners(xp, grid, data.shape[2], data.shape[3])
    vals = _gather(xp, data, corners)
    return sum(v * wgt[:, None, :] for v, (_, _, wgt) in zip(vals, corners))


def _sample_backward(xp: Any, data: Any, grid: Any, g: Any, need_data: bool, need_grid: bool):
    """Gradients of :func:`_sample` for the head gradient g (N, C, K)."""
    n, c, h, w = data.shape
    corners, wx, wy = _corners(xp, grid, h, w)
    gdata = ggrid = None
    if need_data:
        base = (xp.arange(n * c).reshape(n, c, 1)) * (h * w)
        idx = xp.concatenate([(base + i[:, None, :]).ravel() for i, _, _ in corners])
        val = xp.concatenate([(g * (wgt * ok)[:, None, :]).ravel() for _, ok, wgt in corners])
        gdata = xp.bincount(idx, weights=val, minlength=n * c * h * w)
        gdata = gdata.astype(data.dtype, copy=False).reshape(data.shape)
    if need_grid:
        tl, tr, bl, br = _gather(xp, data, corners)
        mix = tl - tr - bl + br
        gx = -(g * (bl - br + mix * wy[:, None, :])).sum(axis=1) * data.dtype.type(w - 1) / 2
        gy = -(g * (tr - br + mix * wx[:, None, :])).sum(axis=1) * data.dtype.type(h - 1) / 2
        ggrid = xp.stack([gx, gy], axis=1)
    return gdata, ggrid


def _check_4d(prop: OperatorProperty, arg: str, shape: tuple) -> None:
    if len(shape) != 4:
        raise ShapeError(f"{prop.where()}: argument {arg!r} must be 4-D, got shape {shape}.")


def _check_target(prop: OperatorProperty, target: tuple) -> None:
    if len(target) != 2 or target[0] <= 0 or target[1] <= 0:
        raise ParamError(
            f"{prop.where()}: argument 'target_shape' must be two positive ints (h, w), got "
            f"{target}."
        )


class _SamplingProp(FloatDataProp):
    """What GridGenerator, BilinearSampler and SpatialTransformer share: float data, named
    inputs and outputs, and one visible output (the others keep the grids for backward)."""

    lists_output_names = True
    lists_input_names = True

    def num_visible_outputs(self) -> int:
        return 1


# ---------------------------------------------------------------------------------------------
# GridGenerator


class GridGeneratorParam(Param):
    transform_type: str = field(
        choices=("affine", "warp"),
        doc="The type of transformation. For `affine`, input data should be an affine matrix of "
        "size (batch, 6). For `warp`, input data should be an optical flow of size "
        "(batch, 2, h, w).",
    )
    target_shape: tuple[int, ...] = field(
        default=(0, 0),
        doc="Specifies the output shape (H, W). This is required if transformation type is "
        "`affine`. If transformation type is `warp`, this parameter is ignored.",
    )


class _GridGeneratorOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux):
        xp, p, x, out = self.xp, self.prop.param, in_data[0], out_data[0]
        if p.transform_type == "affine":
            h, w = p.target_shape
            dst = _target_grid(xp, h, w, x.dtype)
            out_data[1][...] = dst
            _write(out, req[0], (x.reshape(-1, 2, 3) @ dst).reshape(out.shape))
        else:
            n, _, h, w = x.shape
            dst = xp.stack(xp.meshgrid(xp.arange(w), xp.arange(h))).astype(x.dtype)
            out_data[1][...] = dst
            scale = xp.asarray([(w - 1.0) / 2, (h - 1.0) / 2], dtype=x.dtype).reshape(1, 2, 1, 1)
            _write(out, req[0], (x + dst) / scale - 1)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux):
        if req[0] == OpReq.NULL:
            return
        g, gx = out_grad[0], in_grad[0]
        if self.prop.param.transform_type == "affine":
            n = g.shape[0]
            dst = out_data[1]
            assign(gx, req[0], (g.reshape(n, 2, -1) @ dst.T).reshape(gx.shape))
        else:
            h, w = g.shape[2:]
            scale = self.xp.asarray([(w - 1.0) / 2, (h - 1.0) / 2], dtype=g.dtype)
            assign(gx, req[0], g / scale.reshape(1, 2, 1, 1))


@register("GridGenerator")
class GridGeneratorProp(_SamplingProp):
    """Make a sampling grid from an affine matrix (batch, 6) or an optical flow (batch, 2, h, w)."""

    param_class = GridGeneratorParam

    def list_outputs(self) -> list[str]:
        return ["output", "grid_dst"]

    def infer_shape(self, in_shape, out_shape=None):
        self.check_num_inputs(in_shape)
        data = in_shape[0]
        if data is None or len(data) == 0:
            return None
        if self.param.transform_type == "affine":
            _check_target(self, self.param.target_shape)
            if len(data) != 2 or data[1] not in (0, 6):
                raise ShapeError(
                    f"{self.where()}: argument 'data' must be an affine matrix of shape (batch, "
                    f"6) for transform_type='affine', got {tuple(data)}."
                )
            h, w = self.param.target_shape
            return [data], [(data[0], 2, h, w), (3, h * w)], []
        if len(data) != 4 or data[1] not in (0, 2):
            raise ShapeError(
                f"{self.where()}: argument 'data' must be an optical flow of shape (batch, 2, h, "
                f"w) for transform_type='warp', got {tuple(data)}."
            )
        return [data], [tuple(data), (2, data[2], data[3])], []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        if self.param.transform_type == "affine":
            return [out_grad[0], out_data[1]]
        return [out_grad[0]]

    def create_operator(self, ctx: Context) -> Operator:
        return _GridGeneratorOp(self, ctx.xp)


# ---------------------------------------------------------------------------------------------
# BilinearSampler


class BilinearSamplerParam(Param):
    cudnn_off: bool | None = field(default=None, doc="whether to turn cudnn off")


class _BilinearSamplerOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux):
        data, grid = in_data
        n, c = data.shape[:2]
        k = grid.shape[2] * grid.shape[3]
        out = _sample(self.xp, data, grid.reshape(n, 2, k))
        _write(out_data[0], req[0], out.reshape(out_data[0].shape))
        out_data[1][...] = 0

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux):
        data, grid = in_data
        n, c = data.shape[:2]
        k = grid.shape[2] * grid.shape[3]
        gdata, ggrid = _sample_backward(
            self.xp,
            data,
            grid.reshape(n, 2, k),
            out_grad[0].reshape(n, c, k),
            req[0] != OpReq.NULL,
            req[1] != OpReq.NULL,
        )
        if gdata is not None:
            assign(in_grad[0], req[0], gdata)
        if ggrid is not None:
            assign(in_grad[1], req[1], ggrid.reshape(grid.shape))


@register("BilinearSampler")
class BilinearSamplerProp(_SamplingProp):
    """Sample ``data`` (N, C, H, W) bilinearly at ``grid`` (N, 2, h, w) of normalised (x, y)."""

    param_class = BilinearSamplerParam

    def list_arguments(self) -> list[str]:
        return ["data", "grid"]

    def list_outputs(self) -> list[str]:
        return ["output", "tmp"]

    def infer_shape(self, in_shape, out_shape=None):
        self.check_num_inputs(in_shape)
        data, grid = in_shape
        if data is None or grid is None or len(data) == 0 or len(grid) == 0:
            return None
        _check_4d(self, "data", tuple(data))
        _check_4d(self, "grid", tuple(grid))
        if grid[1] != 2:
            raise ShapeError(
                f"{self.where()}: argument 'grid' must have 2 channels (x, y), got shape "
                f"{tuple(grid)}."
            )
        grid = shape_assign(self, "argument", "grid", tuple(grid), (data[0], 2, 0, 0))
        data = shape_assign(self, "argument", "data", tuple(data), (grid[0], 0, 0, 0))
        n, c, h, w = data[0], data[1], grid[2], grid[3]
        return [data, grid], [(n, c, h, w), (n, h, w, 2)], []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        return [out_grad[0], in_data[0], in_data[1]]

    def create_operator(self, ctx: Context) -> Operator:
        return _BilinearSamplerOp(self, ctx.xp)


# ---------------------------------------------------------------------------------------------
# SpatialTransformer


class SpatialTransformerParam(Param):
    target_shape: tuple[int, ...] = field(
        default=(0, 0), doc="output shape(h, w) of spatial transformer: (y, x)"
    )
    transform_type: str = field(choices=("affine",), doc="transformation type")
    sampler_type: str = field(choices=("bilinear",), doc="sampling type")
    cudnn_off: bool | None = field(default=None, doc="whether to turn cudnn off")


class _SpatialTransformerOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux):
        xp = self.xp
        data, loc = in_data
        n = data.shape[0]
        h, w = self.prop.param.target_shape
        dst = _target_grid(xp, h, w, data.dtype)
        src = loc.reshape(n, 2, 3) @ dst
        out_data[1][...] = dst
        out_data[2][...] = src
        _write(out_data[0], req[0], _sample(xp, data, src).reshape(out_data[0].shape))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux):
        data = in_data[0]  # backward does not keep loc, only grid_dst and grid_src
        n, c = data.shape[:2]
        dst, src = out_data[1], out_data[2]
        gdata, gsrc = _sample_backward(
            self.xp,
            data,
            src,
            out_grad[0].reshape(n, c, -1),
            req[0] != OpReq.NULL,
            req[1] != OpReq.NULL,
        )
        if gdata is not None:
            assign(in_grad[0], req[0], gdata)
        if gsrc is not None:
            assign(in_grad[1], req[1], (gsrc @ dst.T).reshape(in_grad[1].shape))


@register("SpatialTransformer")
class SpatialTransformerProp(_SamplingProp):
    """Warp ``data`` by the affine transform ``loc`` (N, 6) onto a ``target_shape`` grid."""

    param_class = SpatialTransformerParam

    def list_arguments(self) -> list[str]:
        return ["data", "loc"]

    def list_outputs(self) -> list[str]:
        return ["output", "grid_dst", "grid_src"]

    def infer_shape(self, in_shape, out_shape=None):
        self.check_num_inputs(in_shape)
        data, loc = in_shape
        if data is None or len(data) == 0:
            return None
        _check_4d(self, "data", tuple(data))
        _check_target(self, self.param.target_shape)
        loc = shape_assign(self, "argument", "loc", loc, (data[0], 6))
        h, w = self.param.target_shape
        n, c = data[0], data[1]
        return [tuple(data), loc], [(n, c, h, w), (3, h * w), (n, 2, h * w)], []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        return [out_grad[0], out_data[1], out_data[2], in_data[0]]

    def create_operator(self, ctx: Context) -> Operator:
        return _SpatialTransformerOp(self, ctx.xp)
