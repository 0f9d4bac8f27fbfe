"""The second batch of contrib work: the blocks of tests/gluon/contrib/block_cases.py
(parameters, inputs, outputs, gradients: contrib2_gluon.npz), DeformablePSROIPooling, the LAMB
multi-updates and quantize_v2/requantize (tests/operator/contrib/golden/contrib2_ops.npz)."""

from functools import partial

import mxnet as mx
import numpy as np
from core import ROIS, Golden, load_module

FILE = "tests/gluon/contrib/golden/contrib2_gluon.npz"
c = load_module("tests/gluon/contrib/block_cases.py")
g = load_module("tests/operator/contrib/graph_cases.py")  # the LAMB updates


def block_inputs(name, shapes, rng):
    ins = []
    for i, s in enumerate(shapes):
        if name == "unroll_ntc_length" and i == 3:
            ins.append(np.array([4, 1, 3], np.float32))
        elif name == "mask" and i == 1:
            ins.append(np.array([1, 0, 1, 1, 0], np.float32))
        else:
            ins.append(rng.uniform(-1, 1, s).astype(np.float32))
    return ins


def record_blocks(golden: Golden) -> None:
    for k, (name, _, grad) in enumerate(c.BLOCKS):
        rng = np.random.default_rng(900 + k)
        found = {}

        def value(pname, shape, rng=rng, found=found):
            found[f"param/{pname}"] = rng.uniform(-0.5, 0.5, shape).astype(np.float32)
            return found[f"param/{pname}"]

        def heads(outs, rng=rng, found=found):
            hs = [rng.normal(size=o.shape) for o in outs]
            found.update({f"head{i}": h.astype(np.float32) for i, h in enumerate(hs)})
            return hs

        inputs = partial(block_inputs, name, rng=rng)
        ins, params, xs, outs = c.run(mx, name, inputs, value, heads)
        found.update({f"in{i}": a for i, a in enumerate(ins)})
        found.update({f"out{i}": o.asnumpy() for i, o in enumerate(outs)})
        if grad:
            found.update({f"ingrad{i}": x.grad.asnumpy() for i, x in enumerate(xs)})
            found.update({f"grad/{p}": params[p].grad().asnumpy() for p in sorted(params.keys())})
        meta = dict(n_in=len(ins), n_out=len(outs), grad=grad, params=sorted(params.keys()))
        golden.put(name, meta, **found)


# ---- operators --------------------------------------------------------------------------------

# (name, function under mx.nd.contrib, inputs, params, grad); an input is a literal list, a shape
# (uniform in [-1, 1)) or ("int32", shape)
# fmt: off
OPS = [
    ("dpsroi", "DeformablePSROIPooling", [(2, 8, 9, 10), ROIS, (4, 2, 2, 2)],
     dict(spatial_scale=0.8, output_dim=2, group_size=2, pooled_size=2, sample_per_part=2,
      trans_std=0.1), True),
    ("dpsroi_classes", "DeformablePSROIPooling", [(2, 18, 9, 10), ROIS, (4, 4, 2, 2)],
     dict(spatial_scale=1.0, output_dim=2, group_size=3, pooled_size=3, part_size=2,
      sample_per_part=3, trans_std=0.2), True),
    ("dpsroi_no_trans", "DeformablePSROIPooling", [(2, 8, 9, 10), ROIS],
     dict(spatial_scale=0.5, output_dim=2, group_size=2, pooled_size=4, no_trans=True), True),
    ("quantize_v2", "quantize_v2", [(3, 4)], {}, False),
    ("quantize_v2_calib", "quantize_v2", [(3, 4)], dict(min_calib_range=-0.5, max_calib_range=0.8),
     False),
    ("quantize_v2_uint8", "quantize_v2", [(3, 4)],
     dict(out_type="uint8", min_calib_range=-1.0, max_calib_range=1.0), False),
    ("quantize_v2_auto", "quantize_v2", [(3, 4)],
     dict(out_type="auto", min_calib_range=0.0, max_calib_range=1.0), False),
    ("requantize", "requantize", [("int32", (3, 5)), [-4.0], [3.0]], {}, False),
    ("requantize_calib", "requantize", [("int32", (3, 5)), [-4.0], [3.0]],
     dict(min_calib_range=-1e-4, max_calib_range=2e-4), False),
]
# fmt: on


def op_input(spec, rng):
    if isinstance(spec, list):
        return np.array(spec, np.float32)
    if spec[0] == "int32":
        return rng.integers(-(2**28), 2**28, spec[1]).astype(np.int32)
    return rng.uniform(-1, 1, spec).astype(np.float32)


def record_ops(ops: Golden) -> None:
    for k, (name, fn, specs, params, grad) in enumerate(OPS):
        rng = np.random.default_rng(700 + k)
        ins = [op_input(s, rng) for s in specs]
        wrt = [i for i in range(len(ins)) if i != 1]  # rois take no gradient
        ops.op(name, f"contrib.{fn}", ins, params, grad=grad, wrt=wrt, head="normal",
               head_rng=rng, fn=fn)  # fmt: skip


def record_lamb(ops: Golden) -> None:
    rng = np.random.default_rng(77)
    shapes = [(3, 4), (5,)]

    def arrs(lo, hi, dtype="float32"):
        return [mx.nd.array(rng.uniform(lo, hi, s), dtype=dtype) for s in shapes]

    cases = [
        ("multi_lamb", False, dict(step_count=(1, 3), lrs=(0.1, 0.05), wds=(0.0, 0.01))),
        ("multi_lamb_bounds", False,
         dict(step_count=(2, 2), lrs=(0.1, 0.2), wds=(0.1, 0.0), bias_correction=False,
              lower_bound=0.5, upper_bound=1.5, clip_gradient=0.3, rescale_grad=2.0,
              beta1=0.8, beta2=0.9, epsilon=1e-4)),
        ("multi_mp_lamb", True, dict(step_count=(4, 1), lrs=(0.01, 0.02), wds=(0.01, 0.0))),
    ]  # fmt: skip
    for name, mp, params in cases:
        dtype = "float16" if mp else "float32"
        ws, gs = arrs(-1, 1, dtype), arrs(-1, 1, dtype)
        ms, vs = arrs(-0.1, 0.1), arrs(0, 0.1)
        w32 = [w.astype("float32") for w in ws] if mp else []
        saved = [a.asnumpy() for a in ws + gs + ms + vs + w32]
        after = g.lamb(mx, mp, ws + gs + ms + vs + w32, params)
        ops.updated(name, saved, after, params, kind="lamb", mp=mp)


def record(golden: Golden) -> None:
    mx.random.seed(0)
    record_blocks(golden)
    ops = Golden("tests/operator/contrib/golden/contrib2_ops.npz", 0)
    record_ops(ops)
    record_lamb(ops)
    ops.save()
