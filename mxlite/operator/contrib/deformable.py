"""``DeformableConvolution`` and ``ModulatedDeformableConvolution`` (Deformable ConvNets v1 and
v2), 2-D, as MXNet 1.9.1's contrib ops.

Each kernel tap samples the input at its regular position plus a learned offset (``offset``:
(N, 2 * num_deformable_group * kh * kw, out_h, out_w), y then x per tap), by bilinear
interpolation with zeros outside the map; the modulated form multiplies each sample by
``mask`` ((N, num_deformable_group * kh * kw, out_h, out_w)). The samples form im2col columns
(C * kh * kw, out_h * out_w) and the output is the grouped product with the weights. Backward
gives the gradients of data (scattered through the bilinear weights), offset (the derivative of
the interpolation along y and x), mask, weight and bias.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import ParamError, ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, register, shape_assign
from ..req import OpReq, assign

__all__: list[str] = []


class DeformableConvolutionParam(Param):
    kernel: tuple[int, ...] = field(doc="Convolution kernel size: (h, w) or (d, h, w)")
    stride: tuple[int, ...] = field(default=(), doc="Convolution stride: (h, w) or (d, h, w). "
                                    "Defaults to 1 for each dimension.")  # fmt: skip
    dilate: tuple[int, ...] = field(default=(), doc="Convolution dilate: (h, w) or (d, h, w). "
                                    "Defaults to 1 for each dimension.")  # fmt: skip
    pad: tuple[int, ...] = field(default=(), doc="Zero pad for convolution: (h, w) or (d, h, "
                                 "w). Defaults to no padding.")  # fmt: skip
    num_filter: int = field(low=1, doc="Convolution filter(channel) number")
    num_group: int = field(default=1, doc="Number of group partitions.")
    num_deformable_group: int = field(default=1, doc="Number of deformable group partitions.")
    workspace: int = field(default=1024, low=0, doc="Maximum temperal workspace allowed for "
                           "convolution (MB).")  # fmt: skip
    no_bias: bool = field(default=False, doc="Whether to disable bias parameter.")
    layout: str | None = field(default=None, choices=("NCW", "NCHW", "NCDHW"),
                               doc="Set layout for input, output and weight. Empty for default "
                               "layout: NCW for 1d, NCHW for 2d and NCDHW for 3d.")  # fmt: skip


class ModulatedDeformableConvolutionParam(DeformableConvolutionParam):
    im2col_step: int = field(default=64, doc="Maximum number of images per im2col computation; "
                             "The total batch size should be divisable by this value.")  # fmt: skip


class _DeformableProp(OperatorProperty):
    modulated = False

    def list_arguments(self) -> list[str]:
        names = ["data", "offset", "mask", "weight"] if self.modulated else [
            "data", "offset", "weight"]  # fmt: skip
        return names if self.param.no_bias else [*names, "bias"]

    def _geometry(self) -> tuple[tuple, tuple, tuple, tuple]:
        p = self.param
        if len(p.kernel) != 2:
            raise ParamError(f"{self.where()}: only 2-D kernels are supported, got {p.kernel}.")
        return (
            tuple(p.kernel),
            tuple(p.stride) or (1, 1),
            tuple(p.dilate) or (1, 1),
            tuple(p.pad) or (0, 0),
        )

    def out_hw(self, h: int, w: int) -> tuple[int, int]:
        (kh, kw), (sh, sw), (dh, dw), (ph, pw) = self._geometry()
        return (h + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1, (
            w + 2 * pw - (dw * (kw - 1) + 1)
        ) // sw + 1

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        p = self.param
        names = self.list_arguments()
        data = in_shape[0]
        if data is None:
            return None
        if len(data) != 4:
            raise ShapeError(f"{self.where()}: data must be 4-D (NCHW), got shape {tuple(data)}.")
        n, c, h, w = data
        g, dg = p.num_group, p.num_deformable_group
        if c % g or p.num_filter % g or c % dg:
            raise ShapeError(
                f"{self.where()}: channels {c} and num_filter {p.num_filter} must be divisible by "
                f"num_group {g}, and channels by num_deformable_group {dg}."
            )
        (kh, kw), _, _, _ = self._geometry()
        oh, ow = self.out_hw(h, w)
        taps = kh * kw
        want = {
            "data": tuple(data),
            "offset": (n, 2 * dg * taps, oh, ow),
            "mask": (n, dg * taps, oh, ow),
            "weight": (p.num_filter, c // g, kh, kw),
            "bias": (p.num_filter,),
        }
        ins = [shape_assign(self, "input", nm, s, want[nm]) for nm, s in zip(names, in_shape)]
        return ins, [(n, p.num_filter, oh, ow)], []

    def create_operator(self, ctx: Context) -> Operator:
        return _DeformableOp(self)


@register("_contrib_DeformableConvolution", aliases=("_npx_deformable_convolution",))
class DeformableConvolutionProp(_DeformableProp):
    """Convolution whose taps sample at learned offsets (Deformable ConvNets)."""

    param_class = DeformableConvolutionParam
    test = OpTest(
        shapes={
            "data": (1, 2, 4, 4),
            "offset": (1, 18, 4, 4),
            "weight": (3, 2, 3, 3),
            "bias": (3,),
        },  # fmt: skip
        params={"kernel": (3, 3), "pad": (1, 1), "num_filter": 3},
        grad=False,
    )


@register("_contrib_ModulatedDeformableConvolution",
          aliases=("_npx_modulated_deformable_convolution",))  # fmt: skip
class ModulatedDeformableConvolutionProp(_DeformableProp):
    """Deformable convolution whose samples are also scaled by a learned mask (DCN v2)."""

    param_class = ModulatedDeformableConvolutionParam
    modulated = True
    test = OpTest(
        shapes={
            "data": (1, 2, 4, 4),
            "offset": (1, 18, 4, 4),
            "mask": (1, 9, 4, 4),
            "weight": (3, 2, 3, 3),
            "bias": (3,),
        },  # fmt: skip
        params={"kernel": (3, 3), "pad": (1, 1), "num_filter": 3},
        grad=False,
    )


class _Sampler:
    """Bilinear sampling points of one image: corner indices and weights, per channel group.

    ``zero_padded`` (DCN v2, the modulated op): a point strictly inside (-1, H) x (-1, W) mixes
    its four corners, those off the map counting 0. Otherwise (DCN v1, MXNet's CPU kernel): a
    point in [0, H) x [0, W) is sampled, a corner past the last row or column is replaced by
    that row or column (with weight 0 on the far side); any other point gives 0.
    """

    def __init__(self, py: np.ndarray, px: np.ndarray, h: int, w: int, zero_padded: bool) -> None:
        if zero_padded:
            inside = (py > -1) & (px > -1) & (py < h) & (px < w)
        else:
            inside = (py >= 0) & (px >= 0) & (py < h) & (px < w)
        y0 = np.floor(np.where(inside, py, 0)).astype(np.int64)
        x0 = np.floor(np.where(inside, px, 0)).astype(np.int64)
        ly = np.where(inside, py, 0) - y0
        lx = np.where(inside, px, 0) - x0
        y1, x1 = y0 + 1, x0 + 1
        if not zero_padded:
            ly = np.where(y0 >= h - 1, 0, ly)
            lx = np.where(x0 >= w - 1, 0, lx)
            y1 = np.minimum(y1, h - 1)
            x1 = np.minimum(x1, w - 1)
        hy, hx = 1 - ly, 1 - lx
        self.inside = inside
        self.ly, self.lx, self.hy, self.hx = ly, lx, hy, hx
        self.corners = []
        for yy, xx, wt in (
            (y0, x0, hy * hx),
            (y0, x1, hy * lx),
            (y1, x0, ly * hx),
            (y1, x1, ly * lx),
        ):
            ok = inside & (yy >= 0) & (xx >= 0) & (yy <= h - 1) & (xx <= w - 1)
            idx = np.clip(yy, 0, h - 1) * w + np.clip(xx, 0, w - 1)
            self.corners.append((idx, ok, np.where(ok, wt, 0)))

    def values(self, img: np.ndarray) -> list[np.ndarray]:
        """The four corner values (0 where outside) of ``img`` (C, H*W): each (C, *points)."""
        return [np.where(ok, img[:, idx], 0) for idx, ok, _ in self.corners]

    def sample(self, img: np.ndarray) -> np.ndarray:
        return sum(img[:, idx] * wt for idx, _, wt in self.corners)


class _DeformableOp(Operator):
    def _unpack(self, in_data: list) -> tuple:
        it = iter(in_data)
        data, offset = next(it), next(it)
        mask = next(it) if self.prop.modulated else None
        weight = next(it)
        bias = None if self.prop.param.no_bias else next(it)
        return data, offset, mask, weight, bias

    def _points(self, offset_n: np.ndarray, oh: int, ow: int) -> tuple[np.ndarray, np.ndarray]:
        """Sampling positions (dg, K, oh*ow) along y and x for one image."""
        (kh, kw), (sh, sw), (dh, dw), (ph, pw) = self.prop._geometry()
        dg = self.prop.param.num_deformable_group
        k = kh * kw
        off = offset_n.reshape(dg, k, 2, oh * ow)
        ky = np.repeat(np.arange(kh) * dh, kw)
        kx = np.tile(np.arange(kw) * dw, kh)
        base_y = (np.arange(oh) * sh - ph)[:, None].repeat(ow, 1).reshape(-1)
        base_x = (np.arange(ow) * sw - pw)[None, :].repeat(oh, 0).reshape(-1)
        py = base_y[None, None, :] + ky[None, :, None] + off[:, :, 0, :]
        px = base_x[None, None, :] + kx[None, :, None] + off[:, :, 1, :]
        return py, px

    def _columns(self, img: np.ndarray, smp: list, mask_n: Any) -> np.ndarray:
        """im2col columns (C, K, L) of one image from the per-group samplers."""
        c = img.shape[0]
        dg = self.prop.param.num_deformable_group
        cg = c // dg
        cols = np.stack([smp[g].sample(img[g * cg : (g + 1) * cg]) for g in range(dg)]).reshape(
            c, *smp[0].inside.shape
        )
        if mask_n is not None:
            cols = cols * np.repeat(mask_n, cg, axis=0)
        return cols

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        data, offset, mask, weight, bias = (None if a is None else np.asarray(a)
                                            for a in self._unpack(in_data))  # fmt: skip
        n, c, h, w = data.shape
        f = self.prop.param.num_filter
        g = self.prop.param.num_group
        oh, ow = out_data[0].shape[2:]
        dg = self.prop.param.num_deformable_group
        k = weight.shape[2] * weight.shape[3]
        out = np.zeros((n, f, oh * ow), dtype=data.dtype)
        wg = weight.reshape(g, f // g, -1)
        for i in range(n):
            py, px = self._points(offset[i], oh, ow)
            smp = [_Sampler(py[j], px[j], h, w, self.prop.modulated) for j in range(dg)]
            m = None if mask is None else mask[i].reshape(dg, k, oh * ow)
            cols = self._columns(data[i].reshape(c, h * w), smp, m).reshape(g, -1, oh * ow)
            out[i] = np.matmul(wg, cols).reshape(f, -1)
        if bias is not None:
            out += bias.reshape(1, f, 1)
        assign(out_data[0], req[0], out.reshape(out_data[0].shape))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        data, offset, mask, weight, bias = (None if a is None else np.asarray(a)
                                            for a in self._unpack(in_data))  # fmt: skip
        names = self.prop.list_arguments()
        slot = {nm: i for i, nm in enumerate(names)}
        n, c, h, w = data.shape
        p = self.prop.param
        f, g, dg = p.num_filter, p.num_group, p.num_deformable_group
        oh, ow = out_grad[0].shape[2:]
        k = weight.shape[2] * weight.shape[3]
        cg = c // dg
        dy = np.asarray(out_grad[0]).reshape(n, g, f // g, oh * ow)
        wg = weight.reshape(g, f // g, -1)
        d_data = np.zeros((n, c, h * w), dtype=data.dtype)
        d_off = np.zeros((n, dg, k, 2, oh * ow), dtype=data.dtype)
        d_mask = np.zeros((n, dg, k, oh * ow), dtype=data.dtype)
        d_w = np.zeros_like(wg)
        for i in range(n):
            py, px = self._points(offset[i], oh, ow)
            smp = [_Sampler(py[j], px[j], h, w, self.prop.modulated) for j in range(dg)]
            m = None if mask is None else mask[i].reshape(dg, k, oh * ow)
            img = data[i].reshape(c, h * w)
            cols = self._columns(img, smp, m).reshape(g, -1, oh * ow)
            d_w += np.matmul(dy[i], cols.transpose(0, 2, 1))
            dcols = np.matmul(wg.transpose(0, 2, 1), dy[i]).reshape(c, k, oh * ow)
            for j in range(dg):
                s = smp[j]
                gc = dcols[j * cg : (j + 1) * cg]  # (cg, K, L)
                part = img[j * cg : (j + 1) * cg]
                v1, v2, v3, v4 = s.values(part)
                if m is not None:
                    raw = (s.hy * s.hx * v1 + s.hy * s.lx * v2 + s.ly * s.hx * v3
                           + s.ly * s.lx * v4)  # fmt: skip
                    d_mask[i, j] = np.where(s.inside, (gc * raw).sum(axis=0), 0)
                    gc = gc * m[j]
                dval_y = -s.hx * v1 - s.lx * v2 + s.hx * v3 + s.lx * v4
                dval_x = -s.hy * v1 + s.hy * v2 - s.ly * v3 + s.ly * v4
                d_off[i, j, :, 0] = np.where(s.inside, (gc * dval_y).sum(axis=0), 0)
                d_off[i, j, :, 1] = np.where(s.inside, (gc * dval_x).sum(axis=0), 0)
                base = (np.arange(cg) + j * cg)[:, None, None] * (h * w)
                for idx, _, wt in s.corners:
                    np.add.at(d_data[i].reshape(-1), (base + idx[None]).reshape(-1),
                              (gc * wt[None]).reshape(-1))  # fmt: skip
        grads = {
            "data": d_data.reshape(data.shape),
            "offset": d_off.reshape(offset.shape),
            "mask": None if mask is None else d_mask.reshape(mask.shape),
            "weight": d_w.reshape(weight.shape),
            "bias": None if bias is None else dy.sum(axis=(0, 3)).reshape(-1),
        }
        for nm, gv in grads.items():
            i = slot.get(nm)
            if i is not None and req[i] != OpReq.NULL:
                assign(in_grad[i], req[i], gv.astype(in_grad[i].dtype, copy=False))
