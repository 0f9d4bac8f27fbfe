"""Bounding-box operators of detection networks: ``box_nms``, ``box_iou``,
``bipartite_matching``, ``box_encode`` and ``box_decode`` (``mx.nd.contrib.*``).

Boxes are 4 consecutive numbers, ``corner`` ``[xmin, ymin, xmax, ymax]`` or ``center``
``[x, y, width, height]``; a box with negative width or height has area 0.

``box_nms`` keeps, per batch, the boxes whose score passes ``valid_thresh`` (and whose class is
not ``background_id``), takes the ``topk`` best by score (ties keep input order) and drops each
box that overlaps a better kept box (of the same class unless ``force_suppress``) by more than
``overlap_thresh``. Kept boxes move to the front in score order, the rest of the rows become
-1. A hidden second output records where each output row came from (the flat input row, -1 for
none); backward copies each output row's gradient back there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, register, shape_assign
from ..req import OpReq, assign
from ._computed import ComputedProp

__all__: list[str] = []

_FORMATS = ("corner", "center")


def _to_corner(xp: Any, box: Any, fmt: str) -> tuple[Any, Any, Any, Any]:
    """(left, top, right, bottom) of boxes ``box[..., 0:4]`` given in ``fmt``."""
    a, b, c, d = box[..., 0], box[..., 1], box[..., 2], box[..., 3]
    if fmt == "corner":
        return a, b, c, d
    return a - c / 2, b - d / 2, a + c / 2, b + d / 2


def _area(xp: Any, box: Any, fmt: str) -> Any:
    if fmt == "corner":
        w, h = box[..., 2] - box[..., 0], box[..., 3] - box[..., 1]
    else:
        w, h = box[..., 2], box[..., 3]
    return xp.where((w < 0) | (h < 0), 0, w * h).astype(box.dtype)


def _intersection(xp: Any, a: Any, b: Any, fmt: str) -> Any:
    """Overlap area of boxes ``a`` and ``b`` (broadcast against each other)."""
    al, at, ar, ab = _to_corner(xp, a, fmt)
    bl, bt, br, bb = _to_corner(xp, b, fmt)
    w = xp.maximum(xp.minimum(ar, br) - xp.maximum(al, bl), 0)
    h = xp.maximum(xp.minimum(ab, bb) - xp.maximum(at, bt), 0)
    return w * h


def _convert(xp: Any, box: Any, src: str, dst: str) -> Any:
    """Boxes re-encoded from ``src`` to ``dst``; rows whose first coordinate is negative (the -1
    filler) stay as they are, as in MXNet."""
    if src == dst:
        return box
    a, b, c, d = box[..., 0], box[..., 1], box[..., 2], box[..., 3]
    if dst == "center":
        new = xp.stack([(a + c) / 2, (b + d) / 2, c - a, d - b], axis=-1)
    else:
        new = xp.stack([a - c / 2, b - d / 2, a + c / 2, b + d / 2], axis=-1)
    return xp.where(box[..., :1] < 0, box, new.astype(box.dtype))


# ---- box_nms ----------------------------------------------------------------------------------


class BoxNMSParam(Param):
    overlap_thresh: float = field(
        default=0.5, doc="Overlapping(IoU) threshold to suppress object with smaller score."
    )
    valid_thresh: float = field(
        default=0.0, doc="Filter input boxes to those whose scores greater than valid_thresh."
    )
    topk: int = field(
        default=-1, doc="Apply nms to topk boxes with descending scores, -1 to no restriction."
    )
    coord_start: int = field(default=2, doc="Start index of the consecutive 4 coordinates.")
    score_index: int = field(default=1, doc="Index of the scores/confidence of boxes.")
    id_index: int = field(default=-1, doc="Optional, index of the class categories, -1 to disable.")
    background_id: int = field(
        default=-1, doc="Optional, id of the background class which will be ignored in nms."
    )
    force_suppress: bool = field(
        default=False,
        doc="Optional, if set false and id_index is provided, nms will only apply to boxes "
        "belongs to the same category",
    )
    in_format: str = field(default="corner", choices=_FORMATS, doc="The input box encoding type.")
    out_format: str = field(default="corner", choices=_FORMATS, doc="The output box encoding type.")


@register(
    "_contrib_box_nms",
    aliases=("_contrib_box_non_maximum_suppression", "_npx_box_nms"),
)
class BoxNMSProp(OperatorProperty):
    """Non-maximum suppression of boxes (..., num_box, box_width)."""

    param_class = BoxNMSParam
    test = OpTest(shapes={"data": (2, 5, 6)}, params={"id_index": 0}, low=0.0, grad=False)

    def list_outputs(self) -> list[str]:
        return ["output", "record"]

    def num_visible_outputs(self) -> int:
        return 1

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        p = self.param
        shape = in_shape[0]
        if shape is None and out_shape and out_shape[0] is not None:
            shape = out_shape[0]
        if shape is None:
            return None
        if len(shape) < 2:
            raise ShapeError(
                f"{self.where()}: input must have dim >= 2 (..., num_box, box_width), got {shape}."
            )
        width = shape[-1]
        if width:
            need = 6 if p.id_index >= 0 else 5
            if width < need:
                raise ShapeError(
                    f"{self.where()}: the last dimension must have at least {need} elements, "
                    f"got {width}."
                )
            coord = range(p.coord_start, p.coord_start + 4)
            if not 0 <= p.score_index < width or p.score_index in coord:
                raise ShapeError(
                    f"{self.where()}: score_index {p.score_index} is out of range "
                    f"or overlaps the coordinates {tuple(coord)}."
                )
            if p.coord_start < 0 or p.coord_start + 3 >= width:
                raise ShapeError(
                    f"{self.where()}: coordinates {tuple(coord)} out of range (0, {width})."
                )
            if p.id_index >= 0 and (
                p.id_index >= width or p.id_index in coord or p.id_index == p.score_index
            ):
                raise ShapeError(
                    f"{self.where()}: id_index {p.id_index} is out of range or "
                    "conflicts with the score or coordinates."
                )
        shape = tuple(shape)
        return [shape], [shape, (*shape[:-1], 1)], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return [out_grad[0], out_data[1]]

    def create_operator(self, ctx: Context) -> Operator:
        return _BoxNMSOp(self)


def nms_keep(boxes: np.ndarray, ids: np.ndarray | None, thresh: float, fmt: str) -> np.ndarray:
    """Which of ``boxes`` (sorted best first) survive greedy suppression at ``thresh``.

    The pairwise overlaps are computed at once; the greedy pass then only reads rows of that
    matrix (a box suppressed by an earlier one suppresses nothing)."""
    n = boxes.shape[0]
    keep = np.ones(n, dtype=bool)
    if n < 2:
        return keep
    area = _area(np, boxes, fmt)
    inter = _intersection(np, boxes[:, None, :], boxes[None, :, :], fmt)
    with np.errstate(divide="ignore", invalid="ignore"):
        hit = inter / (area[:, None] + area[None, :] - inter) > thresh
    if ids is not None:
        hit &= ids[:, None] == ids[None, :]
    hit = np.triu(hit, k=1)
    for r in range(n - 1):
        if keep[r]:
            keep &= ~hit[r]
    return keep


class _BoxNMSOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        p = self.prop.param
        data = np.asarray(in_data[0])
        shape = data.shape
        n, w = shape[-2], shape[-1]
        flat = data.reshape(-1, n, w)
        out = np.full_like(flat, -1)
        record = np.full(flat.shape[:2], -1, dtype=data.dtype)
        topk = n if p.topk < 0 else min(n, p.topk)
        cs = p.coord_start
        if topk < 1:
            out[...] = flat
            record[...] = np.arange(record.size).reshape(record.shape)
        else:
            for b in range(flat.shape[0]):
                rows = flat[b]
                scores = rows[:, p.score_index]
                valid = scores > np.asarray(p.valid_thresh, dtype=data.dtype)
                if p.id_index >= 0:
                    valid &= rows[:, p.id_index] != p.background_id
                cand = np.flatnonzero(valid)
                cand = cand[np.argsort(-scores[cand], kind="stable")][:topk]
                ids = None
                if p.id_index >= 0 and not p.force_suppress:
                    ids = rows[cand, p.id_index].astype(np.int64)
                kept = cand[nms_keep(rows[cand, cs : cs + 4], ids, p.overlap_thresh, p.in_format)]
                out[b, : len(kept)] = rows[kept]
                record[b, : len(kept)] = kept + b * n
            coords = out[..., cs : cs + 4]
            out[..., cs : cs + 4] = _convert(np, coords, p.in_format, p.out_format)
        assign(out_data[0], req[0], out.reshape(shape))
        if len(out_data) > 1 and req[1] != OpReq.NULL:
            assign(out_data[1], req[1], record.reshape(out_data[1].shape))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        if req[0] == OpReq.NULL:
            return
        shape = in_grad[0].shape
        w = shape[-1]
        dy = np.asarray(out_grad[0]).reshape(-1, w)
        rec = np.asarray(out_data[1]).reshape(-1).astype(np.int64)
        g = np.zeros((dy.shape[0], w), dtype=in_grad[0].dtype)
        ok = rec >= 0
        g[rec[ok]] = dy[ok]
        assign(in_grad[0], req[0], g.reshape(shape))


# ---- box_iou ----------------------------------------------------------------------------------


class BoxOverlapParam(Param):
    format: str = field(default="corner", choices=_FORMATS, doc="The box encoding type.")


@register("_contrib_box_iou", aliases=("_npx_box_iou",))
class BoxIouProp(ComputedProp):
    """Intersection over union of every box of ``lhs`` with every box of ``rhs``."""

    param_class = BoxOverlapParam
    test = OpTest(shapes={"lhs": (3, 4), "rhs": (2, 2, 4)}, low=0.0, grad=False)
    zero_grad = True

    def list_arguments(self) -> list[str]:
        return ["lhs", "rhs"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        for name, s in zip(("lhs", "rhs"), in_shape):
            if s is not None and (len(s) < 2 or s[-1] not in (0, 4)):
                raise ShapeError(
                    f"{self.where()}: argument {name!r} must have dim >= 2 and a last dimension "
                    f"of 4, got shape {s}."
                )
        lhs, rhs = in_shape
        if lhs is None or rhs is None:
            return None
        return [tuple(lhs), tuple(rhs)], [(*lhs[:-1], *rhs[:-1])], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        fmt = self.param.format
        lhs = ins[0].reshape(-1, 1, 4)
        rhs = ins[1].reshape(1, -1, 4)
        inter = _intersection(xp, lhs, rhs, fmt)
        union = _area(xp, lhs, fmt) + _area(xp, rhs, fmt) - inter
        safe = xp.where(inter > 0, union, 1)
        iou = xp.where(inter > 0, inter / safe, 0).astype(lhs.dtype)
        return [iou.reshape(outs[0].shape)]


# ---- bipartite_matching -----------------------------------------------------------------------


class BipartiteMatchingParam(Param):
    is_ascend: bool = field(
        default=False,
        doc="Use ascend order for scores instead of descending. Please set threshold accordingly.",
    )
    threshold: float = field(
        doc="Ignore matching when score < thresh, if is_ascend=false, or ignore score > thresh, "
        "if is_ascend=true."
    )
    topk: int = field(default=-1, doc="Limit the number of matches to topk, set -1 for no limit")


@register("_contrib_bipartite_matching", aliases=("_npx_bipartite_matching",))
class BipartiteMatchingProp(ComputedProp):
    """Greedy bipartite matching of a (..., rows, cols) score matrix: the best pair first."""

    param_class = BipartiteMatchingParam
    test = OpTest(shapes={"data": (2, 3, 4)}, params={"threshold": 0.1}, grad=False)
    zero_grad = True

    def list_outputs(self) -> list[str]:
        return ["output0", "output1"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        s = in_shape[0]
        if s is None:
            return None
        if len(s) < 2:
            raise ShapeError(f"{self.where()}: data must have dim >= 2, got shape {s}.")
        s = tuple(s)
        return [s], [s[:-1], (*s[:-2], s[-1])], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        p = self.param
        data = np.asarray(ins[0])
        nr, nc = data.shape[-2:]
        scores = data.reshape(-1, nr * nc)
        rows = np.full((scores.shape[0], nr), -1, dtype=data.dtype)
        cols = np.full((scores.shape[0], nc), -1, dtype=data.dtype)
        thresh = np.asarray(p.threshold, dtype=np.float32)
        for b, sc in enumerate(scores):
            order = np.argsort(sc if p.is_ascend else -sc, kind="stable")
            count = 0
            for j in order:
                r, c = divmod(int(j), nc)
                if rows[b, r] != -1 or cols[b, c] != -1:
                    continue
                ok = sc[j] < thresh if p.is_ascend else sc[j] > thresh
                if not ok:
                    break
                rows[b, r] = c
                cols[b, c] = r
                count += 1
                # MXNet stops only after the (topk+1)-th match
                if 0 < p.topk < count:
                    break
        return [rows.reshape(outs[0].shape), cols.reshape(outs[1].shape)]


# ---- box_encode / box_decode ------------------------------------------------------------------


def _corner_center(xp: Any, box: Any) -> tuple[Any, Any, Any, Any]:
    w = box[..., 2] - box[..., 0]
    h = box[..., 3] - box[..., 1]
    return box[..., 0] + w * 0.5, box[..., 1] + h * 0.5, w, h


@register("_contrib_box_encode", aliases=("_npx_box_encode",))
class BoxEncodeProp(ComputedProp):
    """Encode matched reference boxes relative to their anchors (Faster R-CNN targets)."""

    test = OpTest(
        shapes={
            "samples": (1, 3),
            "matches": (1, 3),
            "anchors": (1, 3, 4),
            "refs": (1, 2, 4),
            "means": (4,),
            "stds": (4,),
        },
        grad=False,
    )
    zero_grad = True

    def list_arguments(self) -> list[str]:
        return ["samples", "matches", "anchors", "refs", "means", "stds"]

    def list_outputs(self) -> list[str]:
        return ["output0", "output1"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        ss, ms, ash, rs, mean, std = in_shape
        if ss is not None and len(ss) != 2:
            raise ShapeError(f"{self.where()}: samples must be (B, N), got shape {ss}.")
        for name, s in (("anchors", ash), ("refs", rs)):
            if s is not None and (len(s) < 3 or s[-1] not in (0, 4)):
                raise ShapeError(f"{self.where()}: {name} must be (B, N, 4), got shape {s}.")
        mean = shape_assign(self, "input", "means", mean, (4,))
        std = shape_assign(self, "input", "stds", std, (4,))
        if ash is None or ss is None or ms is None or rs is None:
            return None
        ash = tuple(ash)
        return [tuple(ss), tuple(ms), ash, tuple(rs), mean, std], [ash, ash], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        samples, matches, anchors, refs, means, stds = ins
        b, n = anchors.shape[:2]
        match = matches.reshape(b, n).astype(np.int64)
        ref = xp.take_along_axis(refs.reshape(b, -1, 4), match[..., None], axis=1)
        rx, ry, rw, rh = _corner_center(xp, ref)
        ax, ay, aw, ah = _corner_center(xp, anchors.reshape(b, n, 4))
        valid = samples.reshape(b, n) > 0.5
        with np.errstate(divide="ignore", invalid="ignore"):
            t = xp.stack(
                [(rx - ax) / aw, (ry - ay) / ah, xp.log(rw / aw), xp.log(rh / ah)], axis=-1
            )
            t = (t - means) / stds
        mask = xp.broadcast_to(valid[..., None], t.shape)
        dt = outs[0].dtype
        return [xp.where(mask, t, 0).astype(dt), mask.astype(dt)]


class BoxDecodeParam(Param):
    std0: float = field(default=1.0, doc="value to be divided from the 1st encoded values")
    std1: float = field(default=1.0, doc="value to be divided from the 2nd encoded values")
    std2: float = field(default=1.0, doc="value to be divided from the 3rd encoded values")
    std3: float = field(default=1.0, doc="value to be divided from the 4th encoded values")
    clip: float = field(
        default=-1.0, doc="If larger than 0, bounding box target will be clipped to this value."
    )
    format: str = field(
        default="center", choices=_FORMATS, doc="The box encoding type of the anchors."
    )


@register("_contrib_box_decode", aliases=("_npx_box_decode",))
class BoxDecodeProp(ComputedProp):
    """Decode box offsets ``data`` (B, N, 4) against ``anchors`` (1, N, 4) into corner boxes."""

    param_class = BoxDecodeParam
    test = OpTest(shapes={"data": (2, 3, 4), "anchors": (1, 3, 4)}, low=0.1, grad=False)
    zero_grad = True

    def list_arguments(self) -> list[str]:
        return ["data", "anchors"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        d, a = in_shape
        if d is not None and (len(d) != 3 or d[-1] not in (0, 4)):
            raise ShapeError(f"{self.where()}: data must be (B, N, 4), got shape {d}.")
        if a is not None and (len(a) < 3 or a[-1] not in (0, 4)):
            raise ShapeError(f"{self.where()}: anchors must be (1, N, 4), got shape {a}.")
        if d is None or a is None:
            return None
        return [tuple(d), tuple(a)], [tuple(d)], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        p = self.param
        x, anchors = ins
        dt = x.dtype
        n = x.shape[1]
        anc = anchors.reshape(-1, 4)[:n]
        if p.format == "corner":
            ax, ay, aw, ah = _corner_center(xp, anc)
        else:
            ax, ay, aw, ah = anc[:, 0], anc[:, 1], anc[:, 2], anc[:, 3]
        std = [np.asarray(s, dtype=dt) for s in (p.std0, p.std1, p.std2, p.std3)]
        ox = x[..., 0] * std[0] * aw + ax
        oy = x[..., 1] * std[1] * ah + ay
        dw = x[..., 2] * std[2]
        dh = x[..., 3] * std[3]
        if p.clip > 0:
            clip = np.asarray(p.clip, dtype=dt)
            dw = xp.minimum(dw, clip)
            dh = xp.minimum(dh, clip)
        ow = xp.exp(dw) * aw * 0.5
        oh = xp.exp(dh) * ah * 0.5
        return [xp.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1).astype(dt)]
