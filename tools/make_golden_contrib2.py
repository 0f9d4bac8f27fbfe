"""Record golden values of MXNet 1.9.1 for the second batch of contrib work: the deformable
convolution layers of gluon.contrib.cnn, contrib.rnn's dynamic_unroll, boolean_mask in a
hybridized block, DeformablePSROIPooling, the LAMB multi-updates, quantize_v2/requantize and
second-order gradients through FullyConnected.

Run under real MXNet: /tmp/mxref/bin/python tools/make_golden_contrib2.py
Writes tests/gluon/contrib/golden/contrib2_gluon.npz (blocks: parameters, inputs, outputs,
gradients) and tests/operator/contrib/golden/contrib2_ops.npz (operators) with a .json each,
and tests/golden/autograd_higher_fc.npz.
"""

import json
from pathlib import Path

import numpy as np

mx = None  # real MXNet, imported by main() (tests import the builders without it)

ROOT = Path(__file__).resolve().parent.parent
GLUON_OUT = ROOT / "tests" / "gluon" / "contrib" / "golden"
OPS_OUT = ROOT / "tests" / "operator" / "contrib" / "golden"


# ---- blocks: built the same way under MXNet and under mxlite --------------------------------


def deform_net(mx_):
    from_ = mx_.gluon.contrib.cnn
    net = mx_.gluon.nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(from_.DeformableConvolution(4, kernel_size=3, padding=1, num_deformable_group=2))
        net.add(from_.DeformableConvolution(3, kernel_size=(3, 2), activation="relu",
                                            use_bias=False, offset_use_bias=False))  # fmt: skip
    return net, [(2, 4, 7, 8)]


def mdeform_net(mx_):
    # MXNet 1.9.1's CPU build has the forward of the modulated form only (its backward
    # raises "only implemented in GPU"), so this block is recorded without gradients
    net = mx_.gluon.nn.HybridSequential(prefix="mnet_")
    with net.name_scope():
        net.add(mx_.gluon.contrib.cnn.ModulatedDeformableConvolution(
            2, kernel_size=3, strides=2, padding=1, num_deformable_group=2))  # fmt: skip
        net.add(mx_.gluon.contrib.cnn.ModulatedDeformableConvolution(3, kernel_size=(1, 2)))
    return net, [(2, 4, 7, 8)]


class _Unroll:
    """A HybridBlock running contrib.rnn.rnn_cell.dynamic_unroll (made per framework)."""

    @staticmethod
    def make(mx_, layout, with_length):
        gluon = mx_.gluon

        class Unroll(gluon.HybridBlock):
            def __init__(self):
                super().__init__(prefix="unroll_")
                with self.name_scope():
                    self.cell = gluon.rnn.LSTMCell(5, prefix="rnn_")

            def hybrid_forward(self, F, x, h, c, length=None):
                out, states = gluon.contrib.rnn.rnn_cell.dynamic_unroll(
                    self.cell, x, [h, c], layout=layout, valid_length=length
                )
                return out, states[0], states[1]

        shapes = [(4, 3, 2) if layout == "TNC" else (3, 4, 2), (3, 5), (3, 5)]
        return Unroll(), shapes + ([(3,)] if with_length else [])


def unroll_tnc(mx_):
    return _Unroll.make(mx_, "TNC", False)


def unroll_ntc_length(mx_):
    return _Unroll.make(mx_, "NTC", True)


def mask_net(mx_):
    class Masked(mx_.gluon.HybridBlock):
        def __init__(self):
            super().__init__(prefix="masked_")
            with self.name_scope():
                self.dense = mx_.gluon.nn.Dense(3, flatten=False)

        def hybrid_forward(self, F, x, index):
            return F.contrib.boolean_mask(self.dense(x), index).sum(axis=1) * 2

    return Masked(), [(5, 4), (5,)]


BLOCKS = [
    ("deform", deform_net, True),
    ("mdeform", mdeform_net, False),
    ("unroll_tnc", unroll_tnc, True),
    ("unroll_ntc_length", unroll_ntc_length, True),
    ("mask", mask_net, True),
]


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


def record_blocks(arrays, meta):
    for k, (name, build, grad) in enumerate(BLOCKS):
        rng = np.random.default_rng(900 + k)
        net, shapes = build(mx)
        net.initialize()
        ins = block_inputs(name, shapes, rng)
        net(*[mx.nd.array(a) for a in ins])  # shapes the deferred parameters
        params = net.collect_params()
        for pname in sorted(params.keys()):
            p = params[pname]
            value = rng.uniform(-0.5, 0.5, p.shape).astype(np.float32)
            p.set_data(mx.nd.array(value))
            arrays[f"{name}/param/{pname}"] = value
        net.hybridize()
        xs = [mx.nd.array(a) for a in ins]
        for x in xs:
            x.attach_grad()
        with mx.autograd.record(train_mode=grad):
            outs = net(*xs)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        heads = [mx.nd.array(rng.normal(size=o.shape)) for o in outs]
        if grad:
            mx.autograd.backward(outs, heads)
        for i, a in enumerate(ins):
            arrays[f"{name}/in{i}"] = a
            if grad:
                arrays[f"{name}/ingrad{i}"] = xs[i].grad.asnumpy()
        for i, (o, h) in enumerate(zip(outs, heads)):
            arrays[f"{name}/out{i}"] = o.asnumpy()
            arrays[f"{name}/head{i}"] = h.asnumpy()
        for pname in sorted(params.keys()):
            if grad:
                arrays[f"{name}/grad/{pname}"] = params[pname].grad().asnumpy()
        meta.append(dict(name=name, n_in=len(ins), n_out=len(outs), grad=grad,
                         params=sorted(params.keys())))  # fmt: skip


# ---- operators --------------------------------------------------------------------------------

_ROIS = [[0, 1.2, 2.3, 7.9, 8.1], [1, -2, 0.5, 4, 3.3], [0, 3, 3, 3.2, 3.1], [1, 5.5, 1, 12, 12]]

# (name, function under mx.nd.contrib, input shapes or literals, params, grad)
OPS = [
    ("dpsroi", "DeformablePSROIPooling", [(2, 8, 9, 10), _ROIS, ("trans", (4, 2, 2, 2))],
     dict(spatial_scale=0.8, output_dim=2, group_size=2, pooled_size=2, sample_per_part=2,
          trans_std=0.1), True),
    ("dpsroi_classes", "DeformablePSROIPooling", [(2, 18, 9, 10), _ROIS, ("trans", (4, 4, 2, 2))],
     dict(spatial_scale=1.0, output_dim=2, group_size=3, pooled_size=3, part_size=2,
          sample_per_part=3, trans_std=0.2), True),
    ("dpsroi_no_trans", "DeformablePSROIPooling", [(2, 8, 9, 10), _ROIS],
     dict(spatial_scale=0.5, output_dim=2, group_size=2, pooled_size=4, no_trans=True), True),
    ("quantize_v2", "quantize_v2", [(3, 4)], {}, False),
    ("quantize_v2_calib", "quantize_v2", [(3, 4)],
     dict(min_calib_range=-0.5, max_calib_range=0.8), False),
    ("quantize_v2_uint8", "quantize_v2", [(3, 4)],
     dict(out_type="uint8", min_calib_range=-1.0, max_calib_range=1.0), False),
    ("quantize_v2_auto", "quantize_v2", [(3, 4)],
     dict(out_type="auto", min_calib_range=0.0, max_calib_range=1.0), False),
    ("requantize", "requantize", [("int32", (3, 5)), [-4.0], [3.0]], {}, False),
    ("requantize_calib", "requantize", [("int32", (3, 5)), [-4.0], [3.0]],
     dict(min_calib_range=-1e-4, max_calib_range=2e-4), False),
]  # fmt: skip


def op_input(spec, rng):
    if isinstance(spec, list):
        return np.array(spec, np.float32)
    if spec[0] == "trans":
        return rng.uniform(-1, 1, spec[1]).astype(np.float32)
    if spec[0] == "int32":
        return rng.integers(-(2**28), 2**28, spec[1]).astype(np.int32)
    return rng.uniform(-1, 1, spec).astype(np.float32)


def record_ops(arrays, meta):
    for k, (name, fn, specs, params, grad) in enumerate(OPS):
        rng = np.random.default_rng(700 + k)
        ins = [op_input(s, rng) for s in specs]
        xs = [mx.nd.array(a, dtype=a.dtype) for a in ins]
        f = getattr(mx.nd.contrib, fn)
        if grad:
            for i, x in enumerate(xs):
                if i != 1:  # rois take no gradient
                    x.attach_grad()
            with mx.autograd.record():
                outs = f(*xs, **params)
            outs = outs if isinstance(outs, list) else [outs]
            heads = [mx.nd.array(rng.normal(size=o.shape)) for o in outs]
            mx.autograd.backward(outs, heads)
        else:
            outs = f(*xs, **params)
            outs = outs if isinstance(outs, list) else [outs]
        for i, a in enumerate(ins):
            arrays[f"{name}/in{i}"] = a
            if grad and i != 1:
                arrays[f"{name}/grad{i}"] = xs[i].grad.asnumpy()
        for i, o in enumerate(outs):
            arrays[f"{name}/out{i}"] = o.asnumpy()
            if grad:
                arrays[f"{name}/head{i}"] = heads[i].asnumpy()
        meta.append(dict(name=name, fn=fn, params=params, n_in=len(ins), n_out=len(outs),
                         grad=grad))  # fmt: skip


def record_lamb(arrays, meta):
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
        groups = [ws, gs, ms, vs]
        if mp:
            w32 = [w.astype("float32") for w in ws]
            groups.append(w32)
        saved = [a.asnumpy() for grp in groups for a in grp]
        if mp:
            mx.nd.contrib.multi_mp_lamb_update(ws, gs, ms, vs, w32, out=ws, **params)
            after = ws + ms + vs + w32
        else:
            mx.nd.contrib.multi_lamb_update(ws, gs, ms, vs, out=ws, **params)
            after = ws + ms + vs
        for i, a in enumerate(saved):
            arrays[f"{name}/in{i}"] = a
        for i, a in enumerate(after):
            arrays[f"{name}/after{i}"] = a.asnumpy()
        meta.append(dict(name=name, kind="lamb", mp=mp, params=params, n_in=len(saved),
                         n_after=len(after)))  # fmt: skip


# ---- second order through FullyConnected -------------------------------------------------------

FC_CASES = [("fc_flatten", (2, 3, 4), (5, 12), True), ("fc_no_flatten", (2, 3, 4), (5, 4), False)]


def record_fc_second_order(arrays):
    """y = FC(x, w, b); (gx, gw) = grad(y, (x, w), head_grads=hg, create_graph=True); then
    backward of (gx, gw) with heads (hx, hw): the second-order gradients of x, w and hg."""
    for k, (name, xs, ws, flatten) in enumerate(FC_CASES):
        rng = np.random.default_rng(300 + k)
        vals = {n: rng.uniform(-1, 1, s).astype(np.float32)
                for n, s in (("x", xs), ("w", ws), ("b", ws[:1]))}  # fmt: skip
        arrs = {n: mx.nd.array(v) for n, v in vals.items()}
        for a in arrs.values():
            a.attach_grad()
        with mx.autograd.record():
            y = mx.nd.FullyConnected(arrs["x"], arrs["w"], arrs["b"], num_hidden=ws[0],
                                     flatten=flatten)  # fmt: skip
        hg = mx.nd.array(rng.normal(size=y.shape))
        hg.attach_grad()
        with mx.autograd.record():
            gx, gw = mx.autograd.grad(y, [arrs["x"], arrs["w"]], head_grads=hg,
                                      create_graph=True, retain_graph=True)  # fmt: skip
        hx, hw = rng.normal(size=xs).astype(np.float32), rng.normal(size=ws).astype(np.float32)
        mx.autograd.backward([gx, gw], [mx.nd.array(hx), mx.nd.array(hw)])
        for n, v in vals.items():
            arrays[f"{name}/{n}"] = v
        arrays[f"{name}/hg"], arrays[f"{name}/hx"], arrays[f"{name}/hw"] = hg.asnumpy(), hx, hw
        arrays[f"{name}/gx"], arrays[f"{name}/gw"] = gx.asnumpy(), gw.asnumpy()
        for n in ("x", "w"):
            arrays[f"{name}/grad_{n}"] = arrs[n].grad.asnumpy()
        arrays[f"{name}/grad_hg"] = hg.grad.asnumpy()


def main():
    global mx
    import mxnet

    mx = mxnet
    mx.random.seed(0)
    arrays, meta = {}, []
    record_blocks(arrays, meta)
    GLUON_OUT.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(GLUON_OUT / "contrib2_gluon.npz", **arrays)
    (GLUON_OUT / "contrib2_gluon.json").write_text(json.dumps(meta, indent=1) + "\n")
    arrays, meta = {}, []
    record_ops(arrays, meta)
    record_lamb(arrays, meta)
    np.savez_compressed(OPS_OUT / "contrib2_ops.npz", **arrays)
    (OPS_OUT / "contrib2_ops.json").write_text(json.dumps(meta, indent=1) + "\n")
    arrays = {}
    record_fc_second_order(arrays)
    np.savez_compressed(ROOT / "tests" / "golden" / "autograd_higher_fc.npz", **arrays)


if __name__ == "__main__":
    main()
