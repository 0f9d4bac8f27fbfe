"""``DeformablePSROIPooling`` (Deformable ConvNets, Dai 2017): position-sensitive ROI pooling
whose bins move by learned offsets (``trans``, scaled by the ROI size and ``trans_std``).

Each output bin averages ``sample_per_part``² bilinear samples taken inside the (moved) bin
from the position-sensitive input channel of that bin; samples outside the feature map are
skipped, and the hidden second output ``top_count`` keeps how many were taken (the backward
divides by it). As in MXNet, the coordinates are computed in the data's float type; the
gradient of ``trans`` takes each clamped sample's bilinear slopes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, register
from ..req import OpReq, assign
from .roi import _roi_shapes, _round_half_away, spatial_scale_field

__all__: list[str] = []


class DeformablePSROIPoolingParam(Param):
    spatial_scale: float = spatial_scale_field()
    output_dim: int = field(doc="fix output dim")
    group_size: int = field(doc="fix group size")
    pooled_size: int = field(doc="fix pooled size")
    part_size: int = field(default=0, doc="fix part size")
    sample_per_part: int = field(default=1, doc="fix samples per part")
    trans_std: float = field(default=0.0, low=0.0, high=1.0, doc="fix transition std")
    no_trans: bool = field(default=False, doc="Whether to disable trans parameter.")


@register("_contrib_DeformablePSROIPooling")
class DeformablePSROIPoolingProp(OperatorProperty):
    """Deformable position-sensitive ROI pooling: (num_rois, output_dim, k, k)."""

    param_class = DeformablePSROIPoolingParam
    test = OpTest(
        shapes={"data": (1, 8, 6, 6), "rois": (2, 5), "trans": (2, 2, 2, 2)},
        params={"spatial_scale": 1.0, "output_dim": 2, "group_size": 2, "pooled_size": 2},
        grad=False,
    )

    def list_arguments(self) -> list[str]:
        return ["data", "rois"] if self.param.no_trans else ["data", "rois", "trans"]

    def list_outputs(self) -> list[str]:
        return ["output", "top_count"]

    def num_visible_outputs(self) -> int:
        return 1

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        p = self.param
        trans = None if p.no_trans else in_shape[2]
        if trans is not None and len(trans) != 4:
            raise ShapeError(f"{self.where()}: trans must be 4-D, got shape {tuple(trans)}.")
        got = _roi_shapes(self, in_shape[:2])
        if got is None:
            return None
        data, rois = got
        k = p.pooled_size
        out = (rois[0], p.output_dim, k, k)
        shapes = [data, rois] if p.no_trans else [data, rois, tuple(trans) if trans else None]
        if not p.no_trans and trans is None:
            return None
        return shapes, [out, out], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = in_type[0] if in_type[0] is not None else in_type[1]
        if t is None:
            return None
        return [t] * len(in_type), [t, t], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return [out_grad[0], *in_data, out_data[1]]

    def create_operator(self, ctx: Context) -> Operator:
        return _DeformablePSROIPoolingOp(self.param)


class _DeformablePSROIPoolingOp(Operator):
    def __init__(self, param: Any) -> None:
        self.p = param
        self.part = param.part_size or param.pooled_size

    def _samples(self, data: Any, rois: Any, trans: Any) -> dict:
        """Every sample of every output bin: batch, channel, corners, weights, validity."""
        p, part = self.p, self.part
        t = data.dtype.type
        _, _, height, width = data.shape
        k, s, g = p.pooled_size, p.sample_per_part, p.group_size
        rois = rois.astype(t)
        r = rois.shape[0]
        scale = t(p.spatial_scale)
        sw = t(_round_half_away(rois[:, 1])) * scale - t(0.5)
        sh = t(_round_half_away(rois[:, 2])) * scale - t(0.5)
        rw = np.maximum((_round_half_away(rois[:, 3]) + 1).astype(t) * scale - t(0.5) - sw, t(0.1))
        rh = np.maximum((_round_half_away(rois[:, 4]) + 1).astype(t) * scale - t(0.5) - sh, t(0.1))
        bw, bh = rw / t(k), rh / t(k)
        bins = np.arange(k).astype(t)
        part_of = np.floor(bins / t(k) * t(part)).astype(np.int64)  # (k,)
        group_of = np.clip(np.floor(bins * t(g) / t(k)).astype(np.int64), 0, g - 1)
        n_cls = 1 if p.no_trans else trans.shape[1] // 2
        cls = np.arange(p.output_dim) // (p.output_dim // n_cls)  # (C,)
        ri = np.arange(r)[:, None, None, None]
        if p.no_trans:
            tx = ty = np.zeros((r, p.output_dim, k, k), t)
        else:
            ph, pw = part_of[None, None, :, None], part_of[None, None, None, :]
            tx = trans[ri, 2 * cls[None, :, None, None], ph, pw] * t(p.trans_std)
            ty = trans[ri, 2 * cls[None, :, None, None] + 1, ph, pw] * t(p.trans_std)
        # bin starts, (R, C, k, k)
        ws = bins[None, None, None, :] * bw[:, None, None, None] + sw[:, None, None, None]
        ws = ws + tx * rw[:, None, None, None]
        hs = bins[None, None, :, None] * bh[:, None, None, None] + sh[:, None, None, None]
        hs = hs + ty * rh[:, None, None, None]
        steps = np.arange(s).astype(t)
        # samples, (R, C, k, k, s_h, s_w)
        w = ws[..., None, None] + steps[None, :] * (bw / t(s))[:, None, None, None, None, None]
        h = hs[..., None, None] + steps[:, None] * (bh / t(s))[:, None, None, None, None, None]
        ok = (w >= -0.5) & (w <= width - 0.5) & (h >= -0.5) & (h <= height - 0.5)
        w = np.clip(w, 0, width - 1).astype(t)
        h = np.clip(h, 0, height - 1).astype(t)
        x0, y0 = np.floor(w).astype(np.int64), np.floor(h).astype(np.int64)
        x1, y1 = np.ceil(w).astype(np.int64), np.ceil(h).astype(np.int64)
        chan = (np.arange(p.output_dim)[:, None, None] * g + group_of[None, :, None]) * g
        chan = chan + group_of[None, None, :]  # (C, k, k)
        batch = rois[:, 0].astype(np.int64)
        shape = w.shape
        return dict(
            b=np.broadcast_to(batch[:, None, None, None, None, None], shape),
            c=np.broadcast_to(chan[None, :, :, :, None, None], shape),
            x0=x0, x1=x1, y0=y0, y1=y1, dx=(w - x0).astype(t), dy=(h - y0).astype(t),
            ok=ok, rw=rw, rh=rh, cls=cls, part=part_of,
        )  # fmt: skip

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        data, rois = in_data[0], in_data[1]
        trans = None if self.p.no_trans else in_data[2]
        sm = self._samples(data, rois, trans)
        b, c, dx, dy = sm["b"], sm["c"], sm["dx"], sm["dy"]
        val = (
            (1 - dx) * (1 - dy) * data[b, c, sm["y0"], sm["x0"]]
            + (1 - dx) * dy * data[b, c, sm["y1"], sm["x0"]]
            + dx * (1 - dy) * data[b, c, sm["y0"], sm["x1"]]
            + dx * dy * data[b, c, sm["y1"], sm["x1"]]
        )
        val = np.where(sm["ok"], val, 0)
        count = sm["ok"].sum(axis=(-2, -1)).astype(data.dtype)
        total = val.sum(axis=(-2, -1))
        out = np.where(count > 0, total / np.where(count > 0, count, 1), 0).astype(data.dtype)
        assign(out_data[0], req[0], out)
        assign(out_data[1], req[1], count)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        p = self.p
        data, rois = in_data[0], in_data[1]
        trans = None if p.no_trans else in_data[2]
        count = out_data[1]
        sm = self._samples(data, rois, trans)
        t = data.dtype.type
        diff = np.where(count > 0, out_grad[0] / np.where(count > 0, count, 1), 0).astype(t)
        diff = np.where(sm["ok"], diff[..., None, None], 0).astype(t)
        b, c, dx, dy = sm["b"], sm["c"], sm["dx"], sm["dy"]
        x0, x1, y0, y1 = sm["x0"], sm["x1"], sm["y0"], sm["y1"]
        if req[0] != OpReq.NULL:
            gd = np.zeros_like(data)
            np.add.at(gd, (b, c, y0, x0), (1 - dx) * (1 - dy) * diff)
            np.add.at(gd, (b, c, y1, x0), (1 - dx) * dy * diff)
            np.add.at(gd, (b, c, y0, x1), dx * (1 - dy) * diff)
            np.add.at(gd, (b, c, y1, x1), dx * dy * diff)
            assign(in_grad[0], req[0], gd)
        if req[1] in (OpReq.WRITE, OpReq.INPLACE):
            in_grad[1][...] = 0
        if p.no_trans or req[2] == OpReq.NULL:
            return
        u00, u01 = data[b, c, y0, x0], data[b, c, y1, x0]
        u10, u11 = data[b, c, y0, x1], data[b, c, y1, x1]
        std = t(p.trans_std)
        rw = sm["rw"][:, None, None, None, None, None]
        rh = sm["rh"][:, None, None, None, None, None]
        gx = (u11 * dy + u10 * (1 - dy) - u01 * dy - u00 * (1 - dy)) * std * diff * rw
        gy = (u11 * dx + u01 * (1 - dx) - u10 * dx - u00 * (1 - dx)) * std * diff * rh
        gt = np.zeros_like(trans)
        r, k = gx.shape[0], p.pooled_size
        ri = np.arange(r)[:, None, None, None]
        cls = sm["cls"][None, :, None, None]
        ph, pw = sm["part"][None, None, :, None], sm["part"][None, None, None, :]
        shape = (r, p.output_dim, k, k)
        idx = tuple(np.broadcast_to(a, shape) for a in (ri, 2 * cls, ph, pw))
        np.add.at(gt, idx, gx.sum(axis=(-2, -1)))
        idx = tuple(np.broadcast_to(a, shape) for a in (ri, 2 * cls + 1, ph, pw))
        np.add.at(gt, idx, gy.sum(axis=(-2, -1)))
        assign(in_grad[2], req[2], gt)
