"""The SSD operators: ``MultiBoxPrior`` (anchor boxes), ``MultiBoxTarget`` (training targets)
and ``MultiBoxDetection`` (decoded, suppressed detections), as MXNet 1.9.1's contrib ops.

Anchors are corner boxes in [0, 1] image coordinates, shared over the batch: (1, N, 4).
Location offsets are encoded relative to an anchor's centre and size and divided by
``variances``. None of these operators has a gradient: backward writes zeros.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base import ParamError, ShapeError
from ..param import Param, field
from ..registry import OpTest, register
from ._computed import ComputedProp

__all__: list[str] = []


# ---- MultiBoxPrior ----------------------------------------------------------------------------


class MultiBoxPriorParam(Param):
    sizes: tuple[float, ...] = field(
        default=(1.0,), doc="List of sizes of generated MultiBoxPriores."
    )
    ratios: tuple[float, ...] = field(
        default=(1.0,), doc="List of aspect ratios of generated MultiBoxPriores."
    )
    clip: bool = field(default=False, doc="Whether to clip out-of-boundary boxes.")
    steps: tuple[float, ...] = field(
        default=(-1.0, -1.0), doc="Priorbox step across y and x, -1 for auto calculation."
    )
    offsets: tuple[float, ...] = field(
        default=(0.5, 0.5), doc="Priorbox center offsets, y and x respectively"
    )


@register("_contrib_MultiBoxPrior", aliases=("_npx_multibox_prior",))
class MultiBoxPriorProp(ComputedProp):
    """Anchor boxes for every position of a (N, C, H, W) feature map: (1, H*W*A, 4)."""

    param_class = MultiBoxPriorParam
    zero_grad = True
    test = OpTest(
        shapes={"data": (1, 2, 3, 4)}, params={"sizes": (0.5, 0.25), "ratios": (1, 2)}, grad=False
    )

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        p = self.param
        if len(p.steps) != 2 or len(p.offsets) != 2 or not p.sizes or not p.ratios:
            raise ParamError(
                f"{self.where()}: steps and offsets must have 2 values and sizes, ratios at "
                f"least one; got steps={p.steps}, offsets={p.offsets}."
            )
        s = in_shape[0]
        if s is None:
            return None
        if len(s) < 4:
            raise ShapeError(
                f"{self.where()}: input data should be 4D (batch, channel, y, x), got {s}."
            )
        n = s[2] * s[3] * (len(p.sizes) + len(p.ratios) - 1)
        return [tuple(s)], [(1, n, 4)], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        p = self.param
        h, w = ins[0].shape[2:4]
        step_y, step_x = p.steps
        if step_y <= 0 or step_x <= 0:
            step_y, step_x = 1.0 / h, 1.0 / w
        f32 = np.float32  # MXNet computes the anchors in float
        cy = (np.arange(h, dtype=f32) + f32(p.offsets[0])) * f32(step_y)
        cx = (np.arange(w, dtype=f32) + f32(p.offsets[1])) * f32(step_x)
        half = []
        r0 = math.sqrt(p.ratios[0])
        for size in p.sizes:
            half.append((size * h / w * r0 / 2, size / r0 / 2))
        for ratio in p.ratios[1:]:
            r = math.sqrt(ratio)
            half.append((p.sizes[0] * h / w * r / 2, p.sizes[0] / r / 2))
        hw = np.asarray(half, dtype=f32)  # (A, 2): half width, half height
        cxg = np.broadcast_to(cx[None, :, None], (h, w, len(half)))
        cyg = np.broadcast_to(cy[:, None, None], (h, w, len(half)))
        boxes = np.stack(
            [cxg - hw[:, 0], cyg - hw[:, 1], cxg + hw[:, 0], cyg + hw[:, 1]], axis=-1
        ).reshape(1, -1, 4)
        if p.clip:
            boxes = np.clip(boxes, 0, 1)
        return [xp.asarray(boxes.astype(outs[0].dtype))]


# ---- MultiBoxTarget ---------------------------------------------------------------------------


class MultiBoxTargetParam(Param):
    overlap_threshold: float = field(
        default=0.5, doc="Anchor-GT overlap threshold to be regarded as a positive match."
    )
    ignore_label: float = field(default=-1.0, doc="Label for ignored anchors.")
    negative_mining_ratio: float = field(
        default=-1.0, doc="Max negative to positive samples ratio, use -1 to disable mining"
    )
    negative_mining_thresh: float = field(default=0.5, doc="Threshold used for negative mining.")
    minimum_negative_samples: int = field(default=0, doc="Minimum number of negative samples.")
    variances: tuple[float, ...] = field(
        default=(0.1, 0.1, 0.2, 0.2), doc="Variances to be encoded in box regression target."
    )


@register("_contrib_MultiBoxTarget", aliases=("_npx_multibox_target",))
class MultiBoxTargetProp(ComputedProp):
    """Match anchors to ground-truth labels: location targets, their mask, class targets."""

    param_class = MultiBoxTargetParam
    zero_grad = True
    test = OpTest(
        shapes={"anchor": (1, 3, 4), "label": (1, 2, 5), "cls_pred": (1, 2, 3)}, grad=False
    )

    def list_arguments(self) -> list[str]:
        return ["anchor", "label", "cls_pred"]

    def list_outputs(self) -> list[str]:
        return ["loc_target", "loc_mask", "cls_target"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        a, lab, pred = in_shape
        if a is None or lab is None or pred is None:
            return None
        if len(a) != 3 or a[0] != 1 or a[2] != 4:
            raise ShapeError(f"{self.where()}: anchor must be (1, num_anchors, 4), got {a}.")
        if len(lab) != 3 or lab[2] < 5:
            raise ShapeError(f"{self.where()}: label must be (batch, num_labels, >=5), got {lab}.")
        if len(pred) != 3 or pred[2] != a[1]:
            raise ShapeError(
                f"{self.where()}: cls_pred must be (batch, num_classes, {a[1]}), got {pred}."
            )
        loc = (lab[0], a[1] * 4)
        return [tuple(a), tuple(lab), tuple(pred)], [loc, loc, (lab[0], a[1])], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        p = self.param
        anchors = np.asarray(ins[0]).reshape(-1, 4)
        labels = np.asarray(ins[1])
        preds = np.asarray(ins[2])
        dt = outs[0].dtype
        b, na = labels.shape[0], anchors.shape[0]
        loc = np.zeros((b, na, 4), dtype=dt)
        mask = np.zeros((b, na, 4), dtype=dt)
        cls = np.full((b, na), p.ignore_label, dtype=dt)
        f = anchors.astype(np.float32)
        aw, ah = f[:, 2] - f[:, 0], f[:, 3] - f[:, 1]
        ax, ay = (f[:, 0] + f[:, 2]) * 0.5, (f[:, 1] + f[:, 3]) * 0.5
        vx, vy, vw, vh = p.variances
        for i in range(b):
            flags, gt, any_gt = _match(p, anchors, labels[i], preds[i])
            if not any_gt:
                continue
            pos = flags == 1
            g = labels[i][gt[pos]].astype(np.float32)
            gw, gh = g[:, 3] - g[:, 1], g[:, 4] - g[:, 2]
            gx, gy = (g[:, 1] + g[:, 3]) * 0.5, (g[:, 2] + g[:, 4]) * 0.5
            with np.errstate(divide="ignore", invalid="ignore"):
                loc[i, pos] = np.stack(
                    [
                        (gx - ax[pos]) / aw[pos] / vx,
                        (gy - ay[pos]) / ah[pos] / vy,
                        np.log(gw / aw[pos]) / vw,
                        np.log(gh / ah[pos]) / vh,
                    ],
                    axis=-1,
                )
            mask[i, pos] = 1
            cls[i, pos] = g[:, 0] + 1  # 0 is the background class
            cls[i, flags == 0] = 0
        return [loc.reshape(b, -1), mask.reshape(b, -1), cls]


def _corner_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of corner boxes a (N, 4) with b (M, 4), areas unclipped, 0 where the union is 0."""
    a, b = a[:, None, :], b[None, :, :]
    iw = np.maximum(np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]), 0)
    ih = np.maximum(np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]), 0)
    inter = iw * ih
    union = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
    union = union + (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1]) - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(union == 0, 0, inter / union)


def _match(p: MultiBoxTargetParam, anchors: np.ndarray, labels: np.ndarray, pred: np.ndarray):
    """Flags (1 positive, 0 negative, -1 ignored) and the matched label of each anchor."""
    na = anchors.shape[0]
    n_gt = 0
    while n_gt < labels.shape[0] and labels[n_gt, 0] != -1:
        n_gt += 1
    flags = np.full(na, -1, dtype=np.int8)
    best_iou = np.full(na, -1.0, dtype=np.float32)
    best_gt = np.full(na, -1, dtype=np.int64)
    if n_gt == 0:
        return flags, best_gt, False
    iou = _corner_iou(anchors, labels[:n_gt, 1:5]).astype(np.float32)
    # greedy: the best remaining (anchor, gt) pair, until each gt has an anchor
    work = np.where(iou > np.float32(1e-6), iou, -np.inf)
    for _ in range(n_gt):
        flat = int(np.argmax(work))
        j, k = divmod(flat, n_gt)
        if not np.isfinite(work[j, k]):
            break
        best_iou[j], best_gt[j], flags[j] = work[j, k], k, 1
        work[j, :] = -np.inf
        work[:, k] = -np.inf
    free = flags != 1
    if p.overlap_threshold > 0:
        k = iou.argmax(axis=1)
        m = iou[np.arange(na), k]
        best_iou[free], best_gt[free] = m[free], k[free]
        flags[free & (m > np.float32(p.overlap_threshold))] = 1
    if p.negative_mining_ratio > 0:
        n_pos = int((flags == 1).sum())
        n_neg = min(int(n_pos * p.negative_mining_ratio), na - n_pos)
        if n_neg > 0:
            unset = (flags != 1) & (best_iou < 0)
            k = iou.argmax(axis=1)
            best_iou[unset], best_gt[unset] = iou[unset, k[unset]], k[unset]
            cand = np.flatnonzero((flags == -1) & (best_iou < np.float32(p.negative_mining_thresh)))
            z = pred[:, cand]
            e = np.exp(z - z.max(axis=0))
            bg = e[0] / e.sum(axis=0)  # background probability: least likely first
            order = np.argsort(bg, kind="stable")
            flags[cand[order[:n_neg]]] = 0
    else:
        flags[flags != 1] = 0
    return flags, best_gt, True


# ---- MultiBoxDetection ------------------------------------------------------------------------


class MultiBoxDetectionParam(Param):
    clip: bool = field(default=True, doc="Clip out-of-boundary boxes.")
    threshold: float = field(default=0.01, doc="Threshold to be a positive prediction.")
    background_id: int = field(default=0, doc="Background id.")
    nms_threshold: float = field(default=0.5, doc="Non-maximum suppression threshold.")
    force_suppress: bool = field(
        default=False, doc="Suppress all detections regardless of class_id."
    )
    variances: tuple[float, ...] = field(
        default=(0.1, 0.1, 0.2, 0.2), doc="Variances to be decoded from box regression output."
    )
    nms_topk: int = field(
        default=-1, doc="Keep maximum top k detections before nms, -1 for no limit."
    )


@register("_contrib_MultiBoxDetection", aliases=("_npx_multibox_detection",))
class MultiBoxDetectionProp(ComputedProp):
    """Decode SSD predictions into (batch, num_anchors, 6) rows [id, score, xmin, ymin, xmax,
    ymax], suppressed rows having id -1."""

    param_class = MultiBoxDetectionParam
    zero_grad = True
    test = OpTest(
        shapes={"cls_prob": (1, 3, 4), "loc_pred": (1, 16), "anchor": (1, 4, 4)},
        low=0.0,
        grad=False,
    )

    def list_arguments(self) -> list[str]:
        return ["cls_prob", "loc_pred", "anchor"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        c, loc, a = in_shape
        if c is None or loc is None or a is None:
            return None
        if len(c) != 3 or len(loc) != 2 or len(a) != 3 or a[2] != 4:
            raise ShapeError(
                f"{self.where()}: expected cls_prob (B, C, N), loc_pred (B, N*4), anchor (1, N, 4);"
                f" got {c}, {loc}, {a}."
            )
        if c[2] != a[1] or c[2] * 4 != loc[1]:
            raise ShapeError(
                f"{self.where()}: number of anchors mismatch: cls_prob {c}, loc_pred {loc}, "
                f"anchor {a}."
            )
        return [tuple(c), tuple(loc), tuple(a)], [(c[0], a[1], 6)], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        p = self.param
        prob = np.asarray(ins[0])
        dt = prob.dtype
        b, _, na = prob.shape
        locp = np.asarray(ins[1]).reshape(b, na, 4)
        anc = np.asarray(ins[2]).reshape(na, 4)
        aw, ah = anc[:, 2] - anc[:, 0], anc[:, 3] - anc[:, 1]
        ax, ay = (anc[:, 0] + anc[:, 2]) / 2, (anc[:, 1] + anc[:, 3]) / 2
        vx, vy, vw, vh = (np.asarray(v, dtype=dt) for v in p.variances)
        out = np.full((b, na, 6), -1, dtype=dt)
        for i in range(b):
            fg = prob[i, 1:]
            cid = fg.argmax(axis=0) + 1
            score = fg[cid - 1, np.arange(na)]
            cid = np.where(score < np.asarray(p.threshold, dtype=dt), 0, cid)
            ox = locp[i, :, 0] * vx * aw + ax
            oy = locp[i, :, 1] * vy * ah + ay
            ow = np.exp(locp[i, :, 2] * vw) * aw / 2
            oh = np.exp(locp[i, :, 3] * vh) * ah / 2
            box = np.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1)
            if p.clip:
                box = np.clip(box, 0, 1)
            rows = np.concatenate([(cid - 1)[:, None].astype(dt), score[:, None], box], axis=1)
            rows = rows[rows[:, 0] >= 0]
            nv = rows.shape[0]
            out[i, :nv] = rows
            if nv < 1 or p.nms_threshold <= 0 or p.nms_threshold > 1:
                continue
            order = np.argsort(-rows[:, 1], kind="stable")
            nkeep = nv if not 0 < p.nms_topk < nv else p.nms_topk
            out[i, nkeep:nv, 0] = -1
            kept = rows[order[:nkeep]].copy()
            thr = np.asarray(p.nms_threshold, dtype=dt)
            if p.force_suppress:
                _suppress(kept, np.arange(nkeep), thr)
            else:  # boxes of one class suppress only each other: each class on its own
                for k in np.unique(kept[:, 0]):
                    _suppress(kept, np.flatnonzero(kept[:, 0] == k), thr)
            out[i, :nkeep] = kept
        return [out]


def _suppress(kept: np.ndarray, idx: np.ndarray, thr: Any) -> None:
    """MXNet's greedy NMS over the rows ``idx`` (in score order) of ``kept`` (class, score,
    corners): each surviving row marks the later ones overlapping it by ``thr`` or more
    (class -1). The IoUs of up to ``_NMS_BLOCK`` rows at a time come from one product of
    arrays, each row then one boolean pass, where a row at a time took 8 NumPy calls on the
    rest (SSD's 5776 anchors in 21 classes, batch 4: 915 -> 62 ms)."""
    alive = np.ones(len(idx), bool)
    for lo in range(0, len(idx), _NMS_BLOCK):
        hi = min(len(idx), lo + _NMS_BLOCK)
        over = _corner_iou(kept[idx[lo:hi], 2:6], kept[idx[lo:], 2:6]) >= thr
        for r in range(lo, hi):
            if alive[r]:
                alive[r + 1 :] &= ~over[r - lo, r + 1 - lo :]
    kept[idx[~alive], 0] = -1


_NMS_BLOCK = 512  # rows whose IoUs with the later rows are computed together
