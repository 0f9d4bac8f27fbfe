"""Region proposals of Faster R-CNN's RPN: ``Proposal`` (one image) and ``MultiProposal`` (a
batch), as MXNet 1.9.1's contrib ops.

For every feature-map cell and anchor (``scales`` x ``ratios`` around a ``feature_stride``
square), the foreground score (second half of ``cls_prob``'s channels) and the box regressed
by ``bbox_pred``, clipped to the image (``im_info``: height, width, scale). Boxes smaller than
``rpn_min_size * scale``, or from cells beyond the image, get score -1. The
``rpn_pre_nms_top_n`` best (stable order) go through greedy NMS at ``threshold`` (pixel
areas, the +1 convention), and the ``rpn_post_nms_top_n`` kept rows are written as
``[batch_index, x1, y1, x2, y2]``, repeating kept rows cyclically when fewer survive. No
gradient: backward writes zeros.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base import ShapeError
from ..param import Param, field
from ..registry import OpTest, register
from ._computed import ComputedProp

__all__: list[str] = []

_F = np.float32


class ProposalParam(Param):
    rpn_pre_nms_top_n: int = field(default=6000, doc="Number of top scoring boxes to keep "
                                   "before applying NMS to RPN proposals")  # fmt: skip
    rpn_post_nms_top_n: int = field(default=300, doc="Number of top scoring boxes to keep "
                                    "after applying NMS to RPN proposals")  # fmt: skip
    threshold: float = field(default=0.7, doc="NMS value, below which to suppress.")
    rpn_min_size: int = field(default=16, doc="Minimum height or width in proposal")
    scales: tuple[float, ...] = field(default=(4.0, 8.0, 16.0, 32.0),
                                      doc="Used to generate anchor windows by enumerating "
                                      "scales")  # fmt: skip
    ratios: tuple[float, ...] = field(default=(0.5, 1.0, 2.0), doc="Used to generate anchor "
                                      "windows by enumerating ratios")  # fmt: skip
    feature_stride: int = field(default=16, doc="The size of the receptive field each unit in "
                                "the convolution layer of the rpn,for example the product of "
                                "all stride's prior to this layer.")  # fmt: skip
    output_score: bool = field(default=False, doc="Add score to outputs")
    iou_loss: bool = field(default=False, doc="Usage of IoU Loss")


def _anchors(p: ProposalParam) -> np.ndarray:
    """(A, 4) base anchors, ratios outer and scales inner, in float32 as MXNet."""
    base = _F(p.feature_stride - 1)
    w = h = base + _F(1)
    cx = cy = _F(0.5) * (w - _F(1))
    out = []
    for ratio in p.ratios:
        for scale in p.scales:
            size_ratios = _F(math.floor(_F(w * h) / _F(ratio)))
            nw = _F(math.floor(_F(math.sqrt(size_ratios)) + _F(0.5))) * _F(scale)
            nh = _F(math.floor(_F(nw / _F(scale) * _F(ratio)) + _F(0.5))) * _F(scale)
            out.append([cx - _F(0.5) * (nw - 1), cy - _F(0.5) * (nh - 1),
                        cx + _F(0.5) * (nw - 1), cy + _F(0.5) * (nh - 1)])  # fmt: skip
    return np.asarray(out, dtype=_F)


def _nms(boxes: np.ndarray, thresh: float, limit: int) -> list[int]:
    area = (boxes[:, 2] - boxes[:, 0] + 1) * (boxes[:, 3] - boxes[:, 1] + 1)
    suppressed = np.zeros(len(boxes), dtype=bool)
    keep: list[int] = []
    for i in range(len(boxes)):
        if len(keep) >= limit:
            break
        if suppressed[i]:
            continue
        keep.append(i)
        rest = slice(i + 1, None)
        xx1 = np.maximum(boxes[i, 0], boxes[rest, 0])
        yy1 = np.maximum(boxes[i, 1], boxes[rest, 1])
        xx2 = np.minimum(boxes[i, 2], boxes[rest, 2])
        yy2 = np.minimum(boxes[i, 3], boxes[rest, 3])
        inter = np.maximum(_F(0), xx2 - xx1 + 1) * np.maximum(_F(0), yy2 - yy1 + 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            ovr = inter / (area[i] + area[rest] - inter)
        suppressed[rest] |= ovr > _F(thresh)
    return keep


def propose(p: ProposalParam, prob: np.ndarray, deltas: np.ndarray, info: np.ndarray):
    """Proposals (post, 4) and scores (post,) of one image."""
    a = prob.shape[0] // 2
    h, w = prob.shape[1:]
    count = a * h * w
    pre = min(p.rpn_pre_nms_top_n if p.rpn_pre_nms_top_n > 0 else count, count)
    post = min(p.rpn_post_nms_top_n, pre)
    stride = p.feature_stride
    anchors = _anchors(p)
    if len(anchors) != a:
        raise ShapeError(
            f"Proposal: cls_prob has {a} anchors per cell; scales x ratios give {len(anchors)}."
        )
    # cell-major order (y, x, anchor), as MXNet lays the proposals out
    shift_x = np.arange(w, dtype=_F) * _F(stride)
    shift_y = np.arange(h, dtype=_F) * _F(stride)
    shifts = np.stack(np.broadcast_arrays(shift_x[None, :], shift_y[:, None],
                                          shift_x[None, :], shift_y[:, None]), axis=-1)  # fmt: skip
    boxes = (anchors[None, None] + shifts[:, :, None]).reshape(-1, 4)
    scores = prob[a:].transpose(1, 2, 0).reshape(-1).astype(_F)
    d = deltas.reshape(a, 4, h, w).transpose(2, 3, 0, 1).reshape(-1, 4).astype(_F)
    im_h, im_w, im_scale = (_F(v) for v in info[:3])
    if p.iou_loss:
        pred = boxes + d
    else:
        bw = boxes[:, 2] - boxes[:, 0] + _F(1)
        bh = boxes[:, 3] - boxes[:, 1] + _F(1)
        cx = boxes[:, 0] + _F(0.5) * (bw - _F(1))
        cy = boxes[:, 1] + _F(0.5) * (bh - _F(1))
        px = d[:, 0] * bw + cx
        py = d[:, 1] * bh + cy
        pw = np.exp(d[:, 2]) * bw
        ph = np.exp(d[:, 3]) * bh
        half_w, half_h = _F(0.5) * (pw - _F(1)), _F(0.5) * (ph - _F(1))
        pred = np.stack([px - half_w, py - half_h, px + half_w, py + half_h], axis=1)
    pred[:, 0::2] = np.clip(pred[:, 0::2], _F(0), im_w - _F(1))
    pred[:, 1::2] = np.clip(pred[:, 1::2], _F(0), im_h - _F(1))
    real_h, real_w = int(im_h / _F(stride)), int(im_w / _F(stride))
    cell_y = np.repeat(np.arange(h), w * a)
    cell_x = np.tile(np.repeat(np.arange(w), a), h)
    scores = np.where((cell_y >= real_h) | (cell_x >= real_w), _F(-1), scores)
    min_size = _F(p.rpn_min_size) * im_scale
    small = ((pred[:, 2] - pred[:, 0] + 1) < min_size) | ((pred[:, 3] - pred[:, 1] + 1) < min_size)
    pred[small, :2] -= min_size / 2
    pred[small, 2:] += min_size / 2
    scores = np.where(small, _F(-1), scores)
    order = np.argsort(-scores, kind="stable")[:pre]
    ordered, ordered_scores = pred[order], scores[order]
    keep = _nms(ordered, p.threshold, post)
    rows = [keep[i] if i < len(keep) else keep[i % len(keep)] for i in range(p.rpn_post_nms_top_n)]
    return ordered[rows], ordered_scores[rows]


def _test(batch: int) -> OpTest:
    """The test case of both proposal operators, for ``batch`` images."""
    return OpTest(
        shapes={
            "cls_prob": (batch, 2, 3, 4),
            "bbox_pred": (batch, 4, 3, 4),
            "im_info": (batch, 3),
        },
        params={
            "scales": (2.0,),
            "ratios": (1.0,),
            "feature_stride": 4,
            "rpn_post_nms_top_n": 5,
            "rpn_min_size": 1,
        },  # fmt: skip
        low=0.0,
        grad=False,
        matches_mxnet=False,  # im_info below 1 x 1: MXNet clips the boxes to 0, mxlite does not
    )


class _ProposalProp(ComputedProp):
    param_class = ProposalParam
    multi = False
    zero_grad = True

    def list_arguments(self) -> list[str]:
        return ["cls_prob", "bbox_pred", "im_info"]

    def list_outputs(self) -> list[str]:
        return ["output", "score"]

    def num_visible_outputs(self) -> int:
        return 2 if self.param.output_score else 1

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        prob = in_shape[0]
        if prob is None:
            return None
        if len(prob) != 4:
            raise ShapeError(f"{self.where()}: cls_prob must be 4-D, got shape {tuple(prob)}.")
        n = prob[0]
        if not self.multi and n != 1:
            raise ShapeError(f"{self.where()}: only one image is supported, got batch size {n}.")
        ins = [tuple(prob), (n, prob[1] * 2, prob[2], prob[3]), (n, 3)]
        for name, got, want in zip(self.list_arguments(), in_shape, ins):
            if got is not None and tuple(got) != want:
                raise ShapeError(f"{self.where()}: {name} has shape {tuple(got)}; expected {want}.")
        rows = n * self.param.rpn_post_nms_top_n
        return ins, [(rows, 5), (rows, 1)], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        prob, deltas, info = (np.asarray(a) for a in ins)
        post = self.param.rpn_post_nms_top_n
        out = np.zeros(outs[0].shape, dtype=outs[0].dtype)
        score = np.zeros(outs[1].shape, dtype=outs[1].dtype)
        for b in range(prob.shape[0]):
            boxes, sc = propose(self.param, prob[b], deltas[b], info[b])
            out[b * post : (b + 1) * post, 0] = b
            out[b * post : (b + 1) * post, 1:] = boxes
            score[b * post : (b + 1) * post, 0] = sc
        return [out, score]


@register("_contrib_Proposal", aliases=("_npx_proposal",))
class ProposalProp(_ProposalProp):
    """Region proposals for one image."""

    test = _test(batch=1)


@register("_contrib_MultiProposal", aliases=("_npx_multi_proposal",))
class MultiProposalProp(_ProposalProp):
    """Region proposals for a batch of images (rows grouped by image)."""

    multi = True
    test = _test(batch=2)
