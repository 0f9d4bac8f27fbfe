"""The blocks of tests/gluon/contrib/test_golden_contrib2.py, built from an ``mx`` module the
same way under MXNet 1.9.1 (tools/golden/cases/contrib2.py records them) and under mxlite: the
deformable convolution layers of gluon.contrib.cnn, contrib.rnn's dynamic_unroll and
boolean_mask in a hybridized block."""


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


def run(mx_, name, inputs, values, heads):
    """Block ``name`` on inputs ``inputs(shapes)`` (NumPy arrays for the shapes the block
    takes): built, shaped by a first call, its parameters set to ``values(pname, shape)`` (in
    sorted order), hybridized, called under ``autograd.record`` (training mode for the blocks
    that take gradients) and, for those, backward from ``heads(outs)``. Returns the inputs, the
    parameters, the input arrays and the outputs."""
    build, grad = {n: (b, g) for n, b, g in BLOCKS}[name]
    net, shapes = build(mx_)
    net.initialize()
    ins = inputs(shapes)
    net(*[mx_.nd.array(a) for a in ins])  # shapes the deferred parameters
    params = net.collect_params()
    for pname in sorted(params.keys()):
        params[pname].set_data(mx_.nd.array(values(pname, params[pname].shape)))
    net.hybridize()
    xs = [mx_.nd.array(a) for a in ins]
    for x in xs:
        x.attach_grad()
    with mx_.autograd.record(train_mode=grad):
        outs = net(*xs)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    hs = heads(outs)
    if grad:
        mx_.autograd.backward(outs, [mx_.nd.array(h) for h in hs])
    return ins, params, xs, outs
