"""The import table's entries for the ONNX operators that map to mxlite's contrib operators:
``RoiAlign`` (``ROIAlign``) and linear ``Resize`` (``BilinearResize2D``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._importer import Importer, _importer

# ONNX Resize's coordinate modes that sample where MXNet's BilinearResize2D does (half_pixel
# differs only for an output size of 1, where MXNet samples at 0: checked below)
_LINEAR_MODES = {"align_corners": True, "pytorch_half_pixel": False, "half_pixel": False}


def resize_linear(im: Importer) -> Any:
    """A linear ``Resize`` of NCHW data as ``BilinearResize2D``."""
    mode = im.attr("coordinate_transformation_mode", "half_pixel")
    if mode not in _LINEAR_MODES:
        raise im.fail(f"coordinate_transformation_mode={mode!r} has no MXNet equivalent.")
    if im.attr("antialias", 0) or im.attr("axes") is not None:
        raise im.fail("antialias and axes have no MXNet equivalent.")
    ins = im.node.input
    sizes = im.consts.get(ins[3]) if len(ins) > 3 and ins[3] else None
    out = im.shapes.get(im.node.output[0])
    if sizes is not None:
        hw = [int(d) for d in sizes[-2:]]
    elif out is not None and len(out) == 4 and None not in out[2:]:
        hw = list(out[2:])
    else:
        raise im.fail("the output's height and width must be known (constant sizes).")
    if mode == "half_pixel" and 1 in hw:
        raise im.fail("half_pixel resizing to a size of 1 samples the middle; MXNet the edge.")
    return im.sym.contrib.BilinearResize2D(
        im.x(0), height=hw[0], width=hw[1], align_corners=_LINEAR_MODES[mode], name=im.name()
    )


@_importer("RoiAlign")
def _roi_align(im: Importer) -> Any:
    if im.attr("mode", "avg") != "avg":
        raise im.fail("max-mode RoiAlign has no MXNet equivalent.")
    # before opset 16 RoiAlign had no shift: output_half_pixel
    default = "half_pixel" if im.opset >= 16 else "output_half_pixel"
    aligned = im.attr("coordinate_transformation_mode", default)
    # MXNet's rois carry their batch index in column 0
    idx = im.sym.Cast(im.x(2), dtype=np.dtype(np.float32).name, name=im.name("_idx"))
    idx = im.sym.Reshape(idx, shape=(-1, 1), name=im.name("_idx2"))
    rois = im.sym.Concat(idx, im.x(1), dim=1, name=im.name("_rois"))
    ratio = im.attr("sampling_ratio", 0)
    return im.sym.contrib.ROIAlign(
        im.x(0), rois, pooled_size=(im.attr("output_height", 1), im.attr("output_width", 1)),
        spatial_scale=im.attr("spatial_scale", 1.0), sample_ratio=ratio if ratio > 0 else -1,
        aligned=aligned == "half_pixel", name=im.name(),
    )  # fmt: skip
