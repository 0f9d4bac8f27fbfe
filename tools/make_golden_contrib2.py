"""Record golden values of MXNet 1.9.1 for the second batch of contrib work: the deformable
convolution layers of gluon.contrib.cnn, contrib.rnn's dynamic_unroll, boolean_mask in a
hybridized block, DeformablePSROIPooling, the LAMB multi-updates and quantize_v2/requantize.

Run under real MXNet: /tmp/mxref/bin/python tools/make_golden_contrib2.py
Writes tests/gluon/contrib/golden/contrib2_gluon.npz (blocks: parameters, inputs, outputs,
gradients) and tests/operator/contrib/golden/contrib2_ops.npz (operators) with a .json each.
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


if __name__ == "__main__":
    main()
