"""ROIPooling: max-pool each region of interest into a fixed ``pooled_size`` grid.

Each ROI row is ``[batch_index, x1, y1, x2, y2]`` in image coordinates; corners are scaled by
``spatial_scale`` and rounded half away from zero, the region is at least 1x1, and bin
``(i, j)`` covers rows ``[floor(i*bh), ceil((i+1)*bh))`` (and likewise columns) offset by the
region's corner and clipped to the map. An empty bin or a bad batch index gives 0 and index -1.
The hidden second output ``maxidx`` holds the flat input position of each maximum (the first
in row-major order); backward scatter-adds ``out_grad`` there.

The max over a bin is separable: first over columns for every (ROI, column bin, row), then over
rows, with boolean masks of each bin's extent, so no loop runs over ROIs or pixels.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, register, shape_assign
from ..req import OpReq, assign

__all__: list[str] = []

_FLT_LOWEST = -3.4028234663852886e38  # MXNet starts every bin at -FLT_MAX, for any dtype


class ROIPoolingParam(Param):
    pooled_size: tuple[int, ...] = field(doc="ROI pooling output shape (h,w) ")
    spatial_scale: float = field(
        doc="Ratio of input feature map height (or w) to raw image height (or w). Equals the "
        "reciprocal of total stride in convolutional layers",
    )


@register("ROIPooling", aliases=("_npx_roi_pooling",))
class ROIPoolingProp(OperatorProperty):
    """Max-pool regions of a 4-D feature map into (num_rois, C, ph, pw)."""

    lists_output_names = True

    lists_input_names = True

    param_class = ROIPoolingParam
    test = OpTest(
        shapes={"data": (1, 2, 6, 6), "rois": (2, 5)},
        params={"pooled_size": (2, 2), "spatial_scale": 1.0},
        grad=False,
    )

    def list_arguments(self) -> list[str]:
        return ["data", "rois"]

    def list_outputs(self) -> list[str]:
        return ["output", "maxidx"]

    def num_visible_outputs(self) -> int:
        return 1

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        self.check_num_inputs(in_shape)
        ps = self.param.pooled_size
        if len(ps) != 2 or min(ps) < 1:
            raise ShapeError(
                f"{self.where()}: argument 'pooled_size' must be (h, w) of positive ints, got {ps}."
            )
        data, rois = in_shape
        if data is not None and 0 not in data and len(data) != 4:
            raise ShapeError(f"{self.where()}: argument 'data' must be 4-D, got shape {data}.")
        if rois is not None and len(rois) != 2:
            raise ShapeError(f"{self.where()}: argument 'rois' must be 2-D, got shape {rois}.")
        rois = shape_assign(self, "input", "rois", rois, (0, 5))
        if data is None or 0 in data or 0 in rois:
            return None
        out = (rois[0], data[1], *ps)
        return [tuple(data), rois], [out, out], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = in_type[0] if in_type[0] is not None else in_type[1]
        if t is None:
            return None
        return [t, t], [t, np.dtype(np.int32)], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return [out_grad[0], out_data[1]]  # the max positions say where each gradient goes

    def create_operator(self, ctx: Context) -> Operator:
        return _ROIPoolingOp(self, ctx.xp)


def _round_half_away(xp: Any, v: Any) -> Any:
    return xp.sign(v) * xp.floor(xp.abs(v) + 0.5)


class _ROIPoolingOp(Operator):
    def _bins(self, rois: Any, n_bins: int, coord: int, size: int) -> tuple[Any, Any]:
        """Inclusive-exclusive [start, end) of every bin along one axis, shape (R, n_bins)."""
        xp = self.xp
        dt = rois.dtype
        scale = np.asarray(self.prop.param.spatial_scale, dtype=dt)
        start = _round_half_away(xp, rois[:, coord] * scale).astype(np.int64)
        end = _round_half_away(xp, rois[:, coord + 2] * scale).astype(np.int64)
        length = xp.maximum(end - start + 1, 1).astype(dt)
        bin_size = (length / np.asarray(n_bins, dtype=dt))[:, None]
        i = xp.arange(n_bins, dtype=dt)[None, :]
        lo = xp.floor(i * bin_size).astype(np.int64) + start[:, None]
        hi = xp.ceil((i + 1) * bin_size).astype(np.int64) + start[:, None]
        return xp.clip(lo, 0, size), xp.clip(hi, 0, size)

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        xp = self.xp
        data, rois = in_data
        n, c, h, w = data.shape
        ph, pw = self.prop.param.pooled_size
        batch = rois[:, 0].astype(np.int64)
        valid = (batch >= 0) & (batch < n)
        hs, he = self._bins(rois, ph, 2, h)
        ws, we = self._bins(rois, pw, 1, w)
        rows = xp.arange(h)
        cols = xp.arange(w)
        mh = (rows[None, None, :] >= hs[:, :, None]) & (rows[None, None, :] < he[:, :, None])
        mw = (cols[None, None, :] >= ws[:, :, None]) & (cols[None, None, :] < we[:, :, None])
        feat = data[xp.where(valid, batch, 0)]  # (R, C, H, W)
        lowest = np.asarray(_FLT_LOWEST, dtype=data.dtype)
        # over columns: (R, C, H, pw, W) -> per row, the max of each column bin and where it is
        masked = xp.where(mw[:, None, None, :, :], feat[:, :, :, None, :], lowest)
        col_arg = masked.argmax(axis=-1)  # the first maximum, as MXNet's strict '>'
        col_max = xp.take_along_axis(masked, col_arg[..., None], axis=-1)[..., 0]
        # over rows: (R, C, ph, H, pw)
        masked = xp.where(mh[:, None, :, :, None], col_max[:, :, None, :, :], lowest)
        row_arg = masked.argmax(axis=3)  # (R, C, ph, pw)
        out = xp.take_along_axis(masked, row_arg[:, :, :, None, :], axis=3)[:, :, :, 0, :]
        col_at = xp.take_along_axis(
            col_arg[:, :, None, :, :].repeat(ph, axis=2), row_arg[:, :, :, None, :], axis=3
        )[:, :, :, 0, :]
        empty = (he <= hs)[:, :, None] | (we <= ws)[:, None, :]  # (R, ph, pw)
        dead = empty[:, None] | ~valid[:, None, None, None]
        flat = (
            (xp.where(valid, batch, 0)[:, None, None, None] * c + xp.arange(c)[None, :, None, None])
            * h
            + row_arg
        ) * w + col_at
        assign(out_data[0], req[0], xp.where(dead, 0, out))
        if len(out_data) > 1 and req[1] != OpReq.NULL:
            assign(out_data[1], req[1], xp.where(dead, -1, flat).astype(out_data[1].dtype))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        if len(in_grad) > 1 and req[1] in (OpReq.WRITE, OpReq.INPLACE):
            in_grad[1][...] = 0
        if req[0] == OpReq.NULL:
            return
        g = in_grad[0]
        if req[0] != OpReq.ADD:
            g[...] = 0
        idx = out_data[1].reshape(-1).astype(np.int64)
        dy = out_grad[0].reshape(-1)
        keep = idx >= 0
        self.xp.add.at(g.reshape(-1), idx[keep], dy[keep])
