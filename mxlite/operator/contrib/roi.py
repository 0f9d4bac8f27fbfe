"""Region-of-interest operators of two-stage detectors: ``ROIAlign`` (Mask R-CNN) and
``PSROIPooling`` (R-FCN's position-sensitive pooling), as MXNet 1.9.1's contrib ops.

Each ROI's output is a linear map of one feature map: for every output bin ``p`` a row of
weights over the ``H * W`` positions (bilinear samples averaged for ROIAlign, a box average for
PSROIPooling), and for every output channel the input channel it reads (which depends on the
bin when the pooling is position-sensitive). So forward is ``out[c, p] = sum_hw W[p, hw] *
x[chan[c, p], hw]`` and backward scatters ``W[p, hw] * dy[c, p]`` back, one ROI at a time, each
ROI vectorised over its bins and channels.
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

__all__: list[str] = []


def _round_half_away(v: Any) -> Any:
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def spatial_scale_field(unit: str = "w") -> Any:
    """The ``spatial_scale`` parameter of the ROI operators, a float in [0, 1]; ``unit``: how
    MXNet's text names the width ("w", or "width" for RROIAlign)."""
    return field(
        low=0.0,
        high=1.0,
        doc=f"Ratio of input feature map height (or {unit}) to raw image height (or {unit}). "
        "Equals the reciprocal of total stride in convolutional layers",
    )


class _RoiOp(Operator):
    """Forward and backward from the property's per-ROI plan (batch index, weights, channel
    map): see :meth:`_RoiProp.plan`."""

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        data = np.asarray(in_data[0])
        rois = np.asarray(in_data[1])
        n, c, h, w = data.shape
        out = np.zeros(out_data[0].shape, dtype=data.dtype)
        flat = data.reshape(n, c, h * w)
        for r, item in enumerate(self.prop.plan(rois, data.shape, data.dtype)):
            if item is None:
                continue
            b, wts, chan = item
            if isinstance(wts, tuple):  # separable: rows (ph, H) and columns (pw, W)
                (ay, h0), (ax, w0) = wts
                rows = data[b, :, h0 : h0 + ay.shape[1], w0 : w0 + ax.shape[1]]
                out[r] = np.matmul(np.matmul(ay, rows), ax.T)
            elif chan is None:
                out[r] = (flat[b] @ wts.T).reshape(out.shape[1:])
            else:
                out[r] = np.einsum("cpk,pk->cp", flat[b][chan], wts).reshape(out.shape[1:])
        assign(out_data[0], req[0], out)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        if len(in_grad) > 1 and req[1] in (OpReq.WRITE, OpReq.INPLACE):
            in_grad[1][...] = 0
        if req[0] == OpReq.NULL:
            return
        rois = np.asarray(in_data[1])
        shape = in_grad[0].shape
        n, c, h, w = shape
        dy = np.asarray(out_grad[0])
        dx = np.zeros((n, c, h * w), dtype=in_grad[0].dtype)
        for r, item in enumerate(self.prop.plan(rois, shape, in_grad[0].dtype)):
            if item is None:
                continue
            b, wts, chan = item
            if isinstance(wts, tuple):
                (ay, h0), (ax, w0) = wts
                cells = dx[b].reshape(c, h, w)[:, h0 : h0 + ay.shape[1], w0 : w0 + ax.shape[1]]
                cells += np.matmul(np.matmul(ay.T, dy[r]), ax)
                continue
            g = dy[r].reshape(dy.shape[1], -1)  # (Cout, P)
            if chan is None:
                dx[b] += g @ wts
            else:
                np.add.at(dx[b], chan, g[:, :, None] * wts[None, :, :])
        assign(in_grad[0], req[0], dx.reshape(shape))


def _sample_weights(y: np.ndarray, x: np.ndarray, h: int, w: int, t: Any) -> np.ndarray:
    """(ph*pw, h*w) sums of the bilinear weights of sample points ``y``, ``x`` of shape
    (ph, pw, gh, gw), with MXNet's ROIAlign rules: a point beyond one pixel outside the map
    counts 0, one just outside is moved onto the border, the last row and column clamp."""
    ph, pw = y.shape[:2]
    n_bins = ph * pw
    yl, yh, ly, y_in = _bilinear_axis(y, h, t)
    xl, xh, lx, x_in = _bilinear_axis(x, w, t)
    hy, hx = t(1) - ly, t(1) - lx
    keep = y_in & x_in
    # each bin's row of the (bins, h * w) matrix starts at bin * h * w: the four corners'
    # weights added into it by one bincount (np.add.at took ~20x as long)
    row = (np.arange(n_bins) * (h * w)).reshape(ph, pw, 1, 1)
    cells, weights = [], []
    for pos, wt in (
        (yl * w + xl, hy * hx),
        (yl * w + xh, hy * lx),
        (yh * w + xl, ly * hx),
        (yh * w + xh, ly * lx),
    ):
        cells.append((row + pos)[keep])
        weights.append(np.broadcast_to(wt, y.shape)[keep].astype(np.float64))
    wts = np.bincount(
        np.concatenate(cells), weights=np.concatenate(weights), minlength=n_bins * h * w
    )
    return wts.reshape(n_bins, h * w)


def _bilinear_axis(u: np.ndarray, n: int, t: Any) -> tuple:
    """MXNet's ROIAlign rules for coordinates ``u`` along an axis of ``n`` cells: the lower
    and upper cells, the fraction towards the upper (type ``t``) and whether the point counts
    (one beyond a pixel outside the map does not; one just outside is moved onto the border;
    the last cell clamps, its fraction 0)."""
    inside = ~((u < -1.0) | (u > n))
    u = np.maximum(u, 0)
    lo = u.astype(np.int64)
    top = lo >= n - 1
    lo = np.where(top, n - 1, lo)
    hi = np.where(top, n - 1, lo + 1)
    frac = (np.where(top, lo, u).astype(t) - lo).astype(t)
    return lo, hi, frac, inside


def _axis_weights(u: np.ndarray, n: int, t: Any) -> tuple[np.ndarray, int]:
    """ROIAlign's bilinear weights along one axis of ``n`` cells for the sample coordinates
    ``u`` (bins, samples per bin), averaged over each bin's samples (float64), with MXNet's
    rules per coordinate (:func:`_bilinear_axis`): as (weights (bins, span), first cell),
    the span being the cells any sample touches. A sample's 2-D weight is the product of its
    two coordinates' weights (a point outside on either axis counts 0 on that axis), so a
    bin's average is ``rows @ x @ columns.T``."""
    bins, per = u.shape
    lo, hi, frac, keep = _bilinear_axis(u, n, t)
    first = int(lo[keep].min()) if keep.any() else 0
    span = int(hi[keep].max()) + 1 - first if keep.any() else 1
    row = (np.arange(bins) * span).reshape(-1, 1)
    cells = np.concatenate([(row + lo - first)[keep], (row + hi - first)[keep]])
    wts = np.concatenate([(t(1) - frac)[keep], frac[keep]]).astype(np.float64)
    a = np.bincount(cells, weights=wts, minlength=bins * span).reshape(bins, span)
    return a / per, first


def _float_type(dtype: Any) -> Any:
    """The scalar type the ROI coordinates are computed in: the data's, float32 for integers."""
    return np.dtype(dtype).type if np.dtype(dtype).kind == "f" else np.float32


def _bin_grid(t: Any, y0: Any, x0: Any, rh: Any, rw: Any, pooled: tuple, ratio: int) -> tuple:
    """ROIAlign's sample points ``y``, ``x`` of shape (ph, pw, gh, gw): the region of corner
    (``y0``, ``x0``) and size (``rh``, ``rw``) split into ``pooled`` = (ph, pw) bins, each
    sampled at the centres of a (gh, gw) grid (``ratio`` per axis, or adaptive when <= 0)."""
    ph, pw = pooled
    bh, bw = t(rh / t(ph)), t(rw / t(pw))
    gh = ratio if ratio > 0 else int(math.ceil(rh / ph))
    gw = ratio if ratio > 0 else int(math.ceil(rw / pw))
    iy = (np.arange(gh, dtype=t) + t(0.5)) * bh / t(gh)
    ix = (np.arange(gw, dtype=t) + t(0.5)) * bw / t(gw)
    ys = (y0 + np.arange(ph, dtype=t)[:, None] * bh + iy[None, :]).astype(t)  # (ph, gh)
    xs = (x0 + np.arange(pw, dtype=t)[:, None] * bw + ix[None, :]).astype(t)  # (pw, gw)
    y = np.broadcast_to(ys[:, None, :, None], (ph, pw, gh, gw))
    x = np.broadcast_to(xs[None, :, None, :], (ph, pw, gh, gw))
    return y, x


def _roi_shapes(prop: OperatorProperty, in_shape: list, cols: int = 5) -> tuple | None:
    data, rois = in_shape
    if data is not None and len(data) != 4:
        raise ShapeError(f"{prop.where()}: data must be 4-D (NCHW), got shape {tuple(data)}.")
    if rois is not None and len(rois) != 2:
        raise ShapeError(f"{prop.where()}: rois must be 2-D (num_rois, {cols}), got {tuple(rois)}.")
    rois = shape_assign(prop, "input", "rois", rois, (0, cols))
    if data is None or rois is None or 0 in rois:
        return None
    return tuple(data), tuple(rois)


# ---- ROIAlign ---------------------------------------------------------------------------------


class _RoiProp(OperatorProperty):
    """What the ROI operators share: inputs ``data`` and ``rois`` of one float type, and a
    backward that reads only the output gradient and the regions."""

    roi_cols: int = 5  # the numbers in a row of ``rois``

    def list_arguments(self) -> list[str]:
        return ["data", "rois"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        got = _roi_shapes(self, in_shape, cols=self.roi_cols)
        if got is None:
            return None
        data, rois = got
        return [data, rois], [self.output_shape(data, rois[0])], []

    def output_shape(self, data: tuple, num_rois: int) -> tuple:
        """The output's shape for NCHW ``data`` and ``num_rois`` regions."""
        raise NotImplementedError

    def plan(self, rois: np.ndarray, shape: tuple, dtype: Any) -> list:
        """For each ROI: None (zero output) or (batch, W (P, H*W), chan (Cout, P) or None)."""
        raise NotImplementedError

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = in_type[0] if in_type[0] is not None else in_type[1]
        return None if t is None else ([t, t], [t], [])

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return [out_grad[0], in_data[1]]

    def create_operator(self, ctx: Context) -> Operator:
        return _RoiOp(self)


class ROIAlignParam(Param):
    pooled_size: tuple[int, ...] = field(doc="ROI Align output roi feature map height and width: "
                                         "(h, w)")  # fmt: skip
    spatial_scale: float = spatial_scale_field()
    sample_ratio: int = field(default=-1, doc="Optional sampling ratio of ROI align, using "
                              "adaptive size by default.")  # fmt: skip
    position_sensitive: bool = field(
        default=False,
        doc="Whether to perform position-sensitive RoI pooling. PSRoIPooling is first proposaled "
        "by R-FCN and it can reduce the input channels by ph*pw times, where (ph, pw) is the "
        "pooled_size",
    )
    aligned: bool = field(
        default=False,
        doc="Center-aligned ROIAlign introduced in Detectron2. To enable, set aligned to True.",
    )


@register("_contrib_ROIAlign", aliases=("_npx_roi_align",))
class ROIAlignProp(_RoiProp):
    """Bilinear ROI pooling: (num_rois, C, ph, pw) from NCHW ``data`` and (R, 5) ``rois``."""

    lists_output_names = True

    param_class = ROIAlignParam
    test = OpTest(
        shapes={"data": (1, 2, 6, 6), "rois": (2, 5)},
        params={"pooled_size": (2, 2), "spatial_scale": 1.0},
        grad=False,
    )

    def output_shape(self, data: tuple, num_rois: int) -> tuple:
        ph, pw = self.param.pooled_size
        c = data[1]
        if self.param.position_sensitive:
            if c % (ph * pw):
                raise ShapeError(
                    f"{self.where()}: input channels {c} should be divided by "
                    f"pooled_size[0]*pooled_size[1] when position_sensitive is true."
                )
            c //= ph * pw
        return (num_rois, c, ph, pw)

    def plan(self, rois: np.ndarray, shape: tuple, dtype: Any) -> list:
        p = self.param
        _, c, h, w = shape
        ph, pw = p.pooled_size
        t = _float_type(dtype)
        scale = t(p.spatial_scale)
        off = t(0.5) if p.aligned else t(0)
        n_bins = ph * pw
        chan = None
        if p.position_sensitive:
            cout = c // n_bins
            chan = np.arange(cout)[:, None] * n_bins + np.arange(n_bins)[None, :]
        plans: list = []
        for roi in rois.astype(t):
            b = int(roi[0])
            if b < 0:
                plans.append(None)
                continue
            x1, y1, x2, y2 = (roi[1:5] * scale - off).astype(t)
            rw, rh = t(x2 - x1), t(y2 - y1)
            if not p.aligned:
                rw, rh = max(rw, t(1)), max(rh, t(1))
            y, x = _bin_grid(t, y1, x1, rh, rw, p.pooled_size, p.sample_ratio)
            if chan is None:  # separable (_axis_weights): two small products per ROI
                (ay, h0), (ax, w0) = (
                    _axis_weights(y[:, 0, :, 0], h, t),
                    _axis_weights(x[0, :, 0, :], w, t),
                )
                plans.append((b, ((ay.astype(dtype), h0), (ax.astype(dtype), w0)), None))
                continue
            wts = _sample_weights(y, x, h, w, t)
            plans.append((b, (wts / (y.shape[2] * y.shape[3])).astype(dtype), chan))
        return plans


# ---- PSROIPooling -----------------------------------------------------------------------------


class PSROIPoolingParam(Param):
    spatial_scale: float = spatial_scale_field()
    output_dim: int = field(doc="fix output dim")
    pooled_size: int = field(doc="fix pooled size")
    group_size: int = field(default=0, doc="fix group size")


@register("_contrib_PSROIPooling", aliases=("_npx_psroi_pooling",))
class PSROIPoolingProp(_RoiProp):
    """Position-sensitive ROI average pooling (R-FCN): (num_rois, output_dim, k, k)."""

    param_class = PSROIPoolingParam
    test = OpTest(
        shapes={"data": (1, 8, 6, 6), "rois": (2, 5)},
        params={"spatial_scale": 1.0, "output_dim": 2, "pooled_size": 2},
        grad=False,
    )

    def group(self) -> int:
        return self.param.group_size or self.param.pooled_size

    def output_shape(self, data: tuple, num_rois: int) -> tuple:
        g = self.group()
        if data[1] != self.param.output_dim * g * g:
            raise ShapeError(
                f"{self.where()}: data has {data[1]} channels; expected output_dim * "
                f"group_size**2 = {self.param.output_dim * g * g}."
            )
        k = self.param.pooled_size
        return (num_rois, self.param.output_dim, k, k)

    def plan(self, rois: np.ndarray, shape: tuple, dtype: Any) -> list:
        p, g = self.param, self.group()
        _, _, h, w = shape
        k = p.pooled_size
        t = _float_type(dtype)
        scale = t(p.spatial_scale)
        bins = np.arange(k)
        gsel = np.clip(np.floor(bins.astype(t) * g / k).astype(np.int64), 0, g - 1)
        # channel of (ctop, ph, pw): (ctop * g + gh) * g + gw
        chan = ((np.arange(p.output_dim)[:, None, None] * g + gsel[None, :, None]) * g
                + gsel[None, None, :]).reshape(p.output_dim, k * k)  # fmt: skip
        plans: list = []
        for roi in rois.astype(t):
            b = int(roi[0])
            sw = t(_round_half_away(roi[1])) * scale
            sh = t(_round_half_away(roi[2])) * scale
            ew = t(_round_half_away(roi[3]) + 1) * scale
            eh = t(_round_half_away(roi[4]) + 1) * scale
            rw, rh = max(t(ew - sw), t(0.1)), max(t(eh - sh), t(0.1))
            bh, bw = t(rh / t(k)), t(rw / t(k))
            hs = np.clip(np.floor(bins.astype(t) * bh + sh).astype(np.int64), 0, h)
            he = np.clip(np.ceil((bins + 1).astype(t) * bh + sh).astype(np.int64), 0, h)
            ws = np.clip(np.floor(bins.astype(t) * bw + sw).astype(np.int64), 0, w)
            we = np.clip(np.ceil((bins + 1).astype(t) * bw + sw).astype(np.int64), 0, w)
            rows = np.arange(h)
            cols = np.arange(w)
            mh = (rows[None, :] >= hs[:, None]) & (rows[None, :] < he[:, None])  # (k, H)
            mw = (cols[None, :] >= ws[:, None]) & (cols[None, :] < we[:, None])  # (k, W)
            area = (he - hs)[:, None] * (we - ws)[None, :]  # (k, k)
            mask = (mh[:, None, :, None] & mw[None, :, None, :]).reshape(k * k, h * w)
            safe = np.where(area > 0, area, 1).reshape(k * k, 1)
            wts = np.where(mask, 1.0 / safe, 0.0)
            plans.append((b, wts.astype(dtype), chan))
        return plans


# ---- RROIAlign --------------------------------------------------------------------------------


class RROIAlignParam(Param):
    pooled_size: tuple[int, ...] = field(doc="RROI align output shape (h,w) ")
    spatial_scale: float = spatial_scale_field("width")
    sampling_ratio: int = field(default=-1, doc="Optional sampling ratio of RROI align, using "
                                "adaptive size by default.")  # fmt: skip


@register("_contrib_RROIAlign")
class RROIAlignProp(_RoiProp):
    """ROIAlign over rotated regions: rows ``[batch, cx, cy, w, h, angle_degrees]``."""

    param_class = RROIAlignParam
    test = OpTest(
        shapes={"data": (1, 2, 6, 6), "rois": (2, 6)},
        params={"pooled_size": (2, 2), "spatial_scale": 1.0},
        grad=False,
    )

    roi_cols = 6

    def output_shape(self, data: tuple, num_rois: int) -> tuple:
        ph, pw = self.param.pooled_size
        return (num_rois, data[1], ph, pw)

    def plan(self, rois: np.ndarray, shape: tuple, dtype: Any) -> list:
        p = self.param
        _, _, h, w = shape
        t = _float_type(dtype)
        scale = t(p.spatial_scale)
        plans: list = []
        for roi in rois.astype(t):
            b = int(roi[0])
            cx, cy, rw, rh = (roi[1:5] * scale).astype(t)
            theta = t(roi[5] * t(np.pi) / t(180.0))
            rw, rh = max(rw, t(1)), max(rh, t(1))
            # sample points about the centre, then rotated by theta and moved to (cx, cy)
            yy, xx = _bin_grid(t, t(-rh / 2), t(-rw / 2), rh, rw, p.pooled_size, p.sampling_ratio)
            cos, sin = t(np.cos(theta)), t(np.sin(theta))
            x = (xx * cos + yy * sin + cx).astype(t)
            y = (yy * cos - xx * sin + cy).astype(t)
            wts = _sample_weights(y, x, h, w, t)
            plans.append((b, (wts / (yy.shape[2] * yy.shape[3])).astype(dtype), None))
        return plans
