"""Contrib operators and control-flow graphs (tests/operator/contrib/test_golden.py): inputs,
outputs, head and input gradients of the operators, optimizer states, and for control flow
also MXNet's symbol JSON."""

from typing import Any

import mxnet as mx
import numpy as np
from core import ROIS, Golden, load_module

FILE = "tests/operator/contrib/golden/contrib.npz"
c = load_module("tests/operator/contrib/graph_cases.py")  # the control-flow graphs, shared

_BOXES = [[0, 0.5, 0.1, 0.1, 0.2, 0.2], [1, 0.4, 0.1, 0.1, 0.2, 0.2],
          [0, 0.3, 0.1, 0.1, 0.14, 0.14], [2, 0.6, 0.5, 0.5, 0.7, 0.8],
          [1, 0.9, 0.45, 0.5, 0.72, 0.75], [-1, 0.2, 0.0, 0.0, 0.3, 0.3]]  # fmt: skip
F8 = (2, 8, 9, 10)  # the feature map of the ROI cases


def _u(shape, lo=-1.0, hi=1.0):
    return ("uniform", list(shape), lo, hi)


# (name, function under mx.nd.contrib, inputs, params, grad)
# an input is a literal list, ("uniform", shape, lo, hi) or ("int", shape, lo, hi)
# fmt: off
CASES = [
    ("box_nms", "box_nms", [_BOXES], dict(overlap_thresh=0.1, id_index=0), True),
    ("box_nms_force", "box_nms", [[_BOXES, _BOXES[:: -1]]], dict(overlap_thresh=0.3,
     force_suppress=True, topk=3, out_format="center"), True),
    ("box_nms_bg", "box_nms", [_BOXES], dict(overlap_thresh=0.5, id_index=0, background_id=1,
     valid_thresh=0.25), True),
    ("box_iou", "box_iou", [_u((2, 3, 4), 0, 1), _u((5, 4), 0, 1)], {}, False),
    ("box_iou_center", "box_iou", [_u((4, 4), 0.2, 1), _u((2, 4), 0.2, 1)], dict(format="center"),
     False),
    ("bipartite", "bipartite_matching", [_u((2, 4, 3), 0, 1)], dict(threshold=0.2), False),
    ("bipartite_asc", "bipartite_matching", [_u((5, 4), 0, 1)],
     dict(threshold=0.8, is_ascend=True, topk=2), False),
    ("box_encode", "box_encode", [[[1, -1, 1]], [[1, 0, 1]],
      [[[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8], [0.2, 0.1, 0.9, 0.6]]],
      [[[0.15, 0.25, 0.35, 0.5], [0.4, 0.55, 0.9, 0.85]]], [0.0, 0.1, 0.0, 0.0],
      [0.1, 0.1, 0.2, 0.2]], {}, False),
    ("box_decode", "box_decode", [_u((2, 3, 4)), _u((1, 3, 4), 0.1, 0.9)],
     dict(std0=0.1, std1=0.1, std2=0.2, std3=0.2, format="corner", clip=0.5), False),
    ("box_decode_center", "box_decode", [_u((1, 3, 4)), _u((1, 3, 4), 0.2, 0.9)], {}, False),
    ("mbox_prior", "MultiBoxPrior", [_u((1, 2, 3, 4))],
     dict(sizes=(0.5, 0.25), ratios=(1, 2, 0.5), clip=True), False),
    ("mbox_prior_steps", "MultiBoxPrior", [_u((1, 1, 2, 3))],
     dict(sizes=(0.3,), steps=(0.4, 0.3), offsets=(0.2, 0.7)), False),
    ("mbox_target", "MultiBoxTarget",
     [[[[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8], [0.05, 0.1, 0.5, 0.45], [0.6, 0.5, 0.9, 0.9]]],
      [[[1, 0.1, 0.1, 0.5, 0.6], [0, 0.55, 0.5, 0.85, 0.9], [-1, -1, -1, -1, -1]]], _u((1, 3, 4))],
     dict(overlap_threshold=0.3, negative_mining_ratio=1, negative_mining_thresh=0.4), False),
    ("mbox_detection", "MultiBoxDetection", [("softmax", [2, 3, 5]), _u((2, 20), -0.5, 0.5),
      _u((1, 5, 4), 0, 1)], dict(threshold=0.1, nms_threshold=0.3), False),
    ("multi_proposal", "MultiProposal", [_u((2, 12, 9, 13), 0, 1), _u((2, 24, 9, 13), -0.2, 0.2),
      [[70, 100, 1.0], [50, 90, 0.8]]], dict(scales=(2, 4), ratios=(0.5, 1, 2),
      rpn_pre_nms_top_n=100, rpn_post_nms_top_n=20, threshold=0.5, rpn_min_size=8,
      output_score=True), False),
    ("proposal_iou", "Proposal", [_u((1, 12, 9, 13), 0, 1), _u((1, 24, 9, 13), -0.5, 0.5),
      [[70, 100, 1.0]]], dict(scales=(1, 2, 3), ratios=(0.5, 2), feature_stride=8,
      rpn_post_nms_top_n=60, iou_loss=True), False),
    ("sync_bn", "SyncBatchNorm", [_u((4, 3, 2)), _u((3,), 0.5, 1.5), _u((3,)), [0.0, 0.0, 0.0],
      [1.0, 1.0, 1.0]], dict(key="bn0", fix_gamma=False, eps=1e-4, output_mean_var=True), True),
    ("quadratic", "quadratic", [_u((3, 4))], dict(a=1.5, b=-0.5, c=2.0), True),
    ("gradmult", "gradientmultiplier", [_u((3, 4))], dict(scalar=-0.7), True),
    ("round_ste", "round_ste", [_u((3, 4), -3, 3)], {}, True),
    ("sign_ste", "sign_ste", [_u((3, 4), -3, 3)], {}, True),
    ("div_sqrt_dim", "div_sqrt_dim", [_u((2, 3, 5))], {}, True),
    ("hawkesll", "hawkesll", [[[1.5, 2.0, 3.0], [1.2, 2.2, 2.5]], [0.2, 0.3, 0.4], [1.0, 2.0, 3.0],
      [[0.1, 0.2, 0.3], [0, 0, 0]], [[1.0, 0.5, 2.0, 1.0], [0.3, 0.4, 0.2, 0.1]],
      ("int", [2, 4], 0, 3), [3, 4], [10.0, 8.0]], {}, True),
    ("index_copy", "index_copy", [_u((5, 3)), ("int64", [0, 4, 2]), _u((3, 3))], {}, True),
    ("index_array", "index_array", [_u((2, 3, 2))], dict(axes=(2, 0)), False),
    ("allclose", "allclose", [[1.0, 2.0, 3.0], [1.0, 2.00001, 3.0]], dict(rtol=1e-5, atol=1e-8),
     False),
    ("selfatt_qk", "interleaved_matmul_selfatt_qk", [_u((3, 2, 12))], dict(heads=2), True),
    ("selfatt_valatt", "interleaved_matmul_selfatt_valatt", [_u((3, 2, 12)), _u((4, 3, 3))],
     dict(heads=2), True),
    ("encdec_qk", "interleaved_matmul_encdec_qk", [_u((3, 2, 4)), _u((5, 2, 8))], dict(heads=2),
     True),
    ("encdec_valatt", "interleaved_matmul_encdec_valatt", [_u((5, 2, 8)), _u((4, 3, 5))],
     dict(heads=2), True),
    ("boolean_mask", "boolean_mask", [_u((4, 3)), [0, 1, 1, 0]], {}, True),
    ("bilinear", "BilinearResize2D", [_u((2, 3, 5, 7))], dict(height=9, width=4), True),
    ("bilinear_nc", "BilinearResize2D", [_u((1, 2, 5, 7))], dict(height=3, width=11,
     align_corners=False), True),
    ("bilinear_odd", "BilinearResize2D", [_u((1, 2, 5, 6))], dict(mode="odd_scale",
     scale_height=2.0, scale_width=0.5), True),
    ("adaptive_avg", "AdaptiveAvgPooling2D", [_u((2, 3, 5, 7))], dict(output_size=(2, 4)), True),
    ("adaptive_avg1", "AdaptiveAvgPooling2D", [_u((1, 2, 4, 6))], dict(output_size=3), True),
    ("roi_align", "ROIAlign", [_u(F8), ROIS], dict(pooled_size=(3, 2), spatial_scale=0.5,
     sample_ratio=2), True),
    ("roi_align_ps", "ROIAlign", [_u(F8), ROIS], dict(pooled_size=(2, 2), spatial_scale=1.0,
     position_sensitive=True, aligned=True), True),
    ("psroi", "PSROIPooling", [_u(F8), ROIS], dict(spatial_scale=0.8, output_dim=2,
     pooled_size=2), True),
    ("psroi_group", "PSROIPooling", [_u(F8), ROIS], dict(spatial_scale=1.0, output_dim=2,
     pooled_size=3, group_size=2), True),
    ("deform_conv", "DeformableConvolution", [_u((2, 4, 5, 6)), _u((2, 18, 5, 6), -1.5, 1.5),
      _u((4, 4, 3, 3)), _u((4,))], dict(kernel=(3, 3), pad=(1, 1), num_filter=4), True),
    ("deform_conv_groups", "DeformableConvolution", [_u((1, 4, 6, 5)),
      _u((1, 36, 6, 5), -1.5, 1.5), _u((6, 2, 3, 3))], dict(kernel=(3, 3), pad=(2, 2),
      dilate=(2, 2), num_filter=6, num_group=2, num_deformable_group=2, no_bias=True), True),
]
# fmt: on
DTYPES = {"deform_conv": "float64", "deform_conv_groups": "float64", "hawkesll": "float64"}
# inputs that take no gradient (MXNet refuses to compute one for them)
NO_GRAD = {"hawkesll": {3, 4, 5, 6, 7}, "index_copy": {1}, "sync_bn": {3, 4},
           "boolean_mask": {1}}  # fmt: skip


def _make(spec, rng, dtype):
    kind = spec[0] if isinstance(spec, tuple) else None
    if kind == "uniform":
        return rng.uniform(spec[2], spec[3], spec[1]).astype(dtype)
    if kind == "int":
        return rng.integers(spec[2], spec[3], spec[1]).astype("int32")
    if kind == "int64":
        return np.array(spec[1], dtype="int64")
    if kind == "softmax":
        z = rng.normal(size=spec[1])
        return (np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)).astype(dtype)
    return np.array(spec, dtype=dtype)


def cases(_rng: Any):
    """Each case draws its inputs, then its (standard normal) head gradients, from a generator
    seeded 500 + its index; ``grads`` lists the inputs given a gradient."""
    for k, (name, fn, specs, params, grad) in enumerate(CASES):
        rng = np.random.default_rng(500 + k)
        ins = [_make(s, rng, DTYPES.get(name, "float32")) for s in specs]
        skip = NO_GRAD.get(name, ())
        wrt = [i for i, x in enumerate(ins) if x.dtype.kind == "f" and i not in skip]
        opts = {"grad": grad, "wrt": wrt, "head": "normal", "head_rng": rng}
        opts.update({"aux": 2} if name == "sync_bn" else {})  # the moving mean and variance
        yield name, f"contrib.{fn}", ins, params, {**opts, "fn": fn, "grads": wrt if grad else []}


# ---- optimizer updates: the states they update in place, after one call -------------------------


ADAMW = dict(beta1=0.9, beta2=0.99, epsilon=1e-6, clip_gradient=0.5)
# (name, the inputs in the call's order as (low, high, dtype) of a uniform draw, params)
U01, U11 = (0, 1, "float32"), (-1, 1, "float32")
OPTIMIZERS = [
    ("adamw", [U01, U11, U01, U01], dict(lr=0.1, eta=0.5, wd=0.01, **ADAMW)),
    ("mp_adamw", [(0, 1, "float16"), (-1, 1, "float16"), U01, U01, U01],
     dict(lr=0.1, eta=1.0, **ADAMW)),
    ("multi_adamw", [U01] * 2 + [U11] * 2 + [U01] * 4,
     dict(lrs=(0.1, 0.2), wds=(0.0, 0.01), etas=(1.0, 0.5), **ADAMW)),
]  # fmt: skip


def record_optimizers(golden: Golden) -> None:
    rng = np.random.default_rng(7)
    for name, draws, params in OPTIMIZERS:
        ins = [mx.nd.array(rng.uniform(lo, hi, (3, 4)), dtype=dt) for lo, hi, dt in draws]
        if name == "mp_adamw":
            ins[4][:] = ins[0].astype("float32")  # the float32 copy of the float16 weight
        saved = [a.asnumpy() for a in ins]
        golden.updated(name, saved, c.adamw(mx, name, ins, params), params)


# ---- control flow: graphs, their JSON, outputs and gradients ------------------------------------


def record_graphs(golden: Golden) -> None:
    for k, (name, build, shapes) in enumerate(c.GRAPHS):
        rng = np.random.default_rng(900 + k)
        net = c.built(mx, build)
        args = {n: mx.nd.array(rng.uniform(0.1, 1.0, shapes[n])) for n in net.list_arguments()}
        if name == "cf_while":
            args["i"] = mx.nd.array([1.0])

        def normal(outs: list, rng: np.random.Generator = rng) -> list:  # after the forward
            return [mx.nd.array(rng.normal(size=o.shape)) for o in outs]

        outs, heads, grads = c.train_step(mx, net, args, normal)
        arrays = {f"arg_{n}": a.asnumpy() for n, a in args.items()}
        arrays.update({f"grad_{n}": g.asnumpy() for n, g in grads.items()})
        arrays.update({f"out{i}": o.asnumpy() for i, o in enumerate(outs)})
        arrays.update({f"head{i}": h.asnumpy() for i, h in enumerate(heads)})
        meta = dict(kind="graph", json=net.tojson(), args=net.list_arguments(), n_out=len(outs))
        golden.put(name, meta, **arrays)


def record_conv_cells(golden: Golden) -> None:
    for k, cls in enumerate(("ConvRNNCell", "ConvLSTMCell", "ConvGRUCell")):
        rng = np.random.default_rng(950 + k)
        _, net = c.conv_cell(mx, cls)
        shapes = net.infer_shape(c_t0_data=(1, 2, 5, 4), c_t1_data=(1, 2, 5, 4))[0]
        args = {n: mx.nd.array(rng.uniform(-0.5, 0.5, s))
                for n, s in zip(net.list_arguments(), shapes)}  # fmt: skip
        outs = net.bind(mx.cpu(), args).forward()
        meta = dict(kind="conv_cell", cls=cls, args=net.list_arguments(), json=net.tojson(),
                    n_out=len(outs))  # fmt: skip
        golden.put(f"rnn_{cls}", meta, **{f"arg_{n}": a.asnumpy() for n, a in args.items()},
                   **{f"out{i}": o.asnumpy() for i, o in enumerate(outs)})  # fmt: skip


def record(golden: Golden) -> None:
    record_optimizers(golden)
    record_graphs(golden)
    record_conv_cells(golden)
