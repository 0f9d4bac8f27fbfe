"""``mrcnn_mask_target``: Mask R-CNN's mask training targets, one ROIAlign of the matched
ground-truth mask per sampled ROI, repeated for every class, and the one-hot class masks.

MXNet 1.9.1 has the operator on GPU only; mxlite computes it on any context with its
ROIAlign kernel (ROIs are (x1, y1, x2, y2) in mask pixels, ``matches`` picks the mask of the
image). It has no gradient, as in MXNet.
"""

from __future__ import annotations

import numpy as np

from ...base import ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, register
from ..req import assign
from .roi import ROIAlignProp

__all__: list[str] = []


class MRCNNMaskTargetParam(Param):
    num_rois: int = field(doc="Number of sampled RoIs.")
    num_classes: int = field(doc="Number of classes.")
    mask_size: tuple[int, ...] = field(doc="Size of the pooled masks height and width: (h, w).")
    sample_ratio: int = field(
        default=2, doc="Sampling ratio of ROI align. Set to -1 to use adaptative size."
    )
    aligned: bool = field(
        default=False,
        doc="Center-aligned ROIAlign introduced in Detectron2. To enable, set aligned to True.",
    )


@register("_contrib_mrcnn_mask_target")
class MRCNNMaskTargetProp(OperatorProperty):
    """Generate mask targets for Mask-RCNN."""

    param_class = MRCNNMaskTargetParam
    test = OpTest(
        shapes={"rois": (1, 2, 4), "gt_masks": (1, 3, 8, 8), "matches": (1, 2),
                "cls_targets": (1, 2)},
        params={"num_rois": 2, "num_classes": 3, "mask_size": (2, 2)},
        grad=False,
        low=0.0,
    )  # fmt: skip

    def list_arguments(self) -> list[str]:
        return ["rois", "gt_masks", "matches", "cls_targets"]

    def list_outputs(self) -> list[str]:
        return ["mask_targets", "mask_cls"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        rois, masks, matches, cls = in_shape
        size = self.param.mask_size
        if len(size) != 2 or min(size) <= 0:
            raise ShapeError(f"{self.where()}: mask_size must be 2 positive ints, got {size}.")
        if rois is None or masks is None:
            return None
        if len(rois) != 3 or rois[2] != 4:
            raise ShapeError(f"{self.where()}: rois must be (batch, rois, 4), got {tuple(rois)}.")
        if len(masks) != 4:
            raise ShapeError(f"{self.where()}: gt_masks must be 4-D, got {tuple(masks)}.")
        b, n = rois[0], rois[1]
        for name, s in (("matches", matches), ("cls_targets", cls)):
            if s is not None and (len(s) != 2 or s[0] != b):
                raise ShapeError(f"{self.where()}: {name} must be ({b}, rois), got {tuple(s)}.")
        if masks[0] != b:
            raise ShapeError(f"{self.where()}: gt_masks has batch {masks[0]}; rois has {b}.")
        out = (b, n, self.param.num_classes, *self.param.mask_size)
        return [tuple(rois), tuple(masks), (b, n), (b, n)], [out, out], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = in_type[1]
        if t is None:
            return None
        return [t, t, t, t], [t, t], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return []

    def create_operator(self, ctx: Context) -> Operator:
        p = self.param
        align = ROIAlignProp.get_prop(
            {"pooled_size": p.mask_size, "spatial_scale": 1.0, "sample_ratio": p.sample_ratio,
             "aligned": p.aligned}
        )  # fmt: skip
        return _MRCNNMaskTargetOp(p, align.operator(ctx))


class _MRCNNMaskTargetOp(Operator):
    def __init__(self, param: MRCNNMaskTargetParam, align: Operator) -> None:
        self.p = param
        self.align = align

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        rois, masks, matches, cls = (np.asarray(a) for a in in_data)
        b, n = rois.shape[:2]
        m, h, w = masks.shape[1:]
        # every image's masks as one batch of one-channel maps; a ROI reads mask b*M + match
        which = (np.arange(b)[:, None] * m + matches.astype(np.int64)).reshape(-1, 1)
        boxes = np.concatenate([which.astype(rois.dtype), rois.reshape(-1, 4)], axis=1)
        pooled = np.empty((b * n, 1, *self.p.mask_size), masks.dtype)
        self.align.forward(
            op_ctx, [masks.reshape(b * m, 1, h, w), boxes], [1], [pooled], []
        )  # fmt: skip
        shape = out_data[0].shape
        assign(out_data[0], req[0], np.broadcast_to(pooled.reshape(b, n, 1, *shape[3:]), shape))
        onehot = cls[:, :, None] == np.arange(self.p.num_classes)[None, None, :]
        assign(out_data[1], req[1], np.broadcast_to(onehot[..., None, None], shape))
