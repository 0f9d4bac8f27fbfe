"""mx.gluon (tests/gluon/nn/test_layers.py, test_loss.py, test_block.py, test_trainer.py,
test_hybrid_block.py; the networks of tests/gluon/mlp_cases.py) in tests/gluon/golden/gluon.npz:

- ``layer<k>``: a layer (``ctor``, input ``shape``, structural ``params`` names): input ``x``,
  head gradient ``head``, parameters ``param/<name>``, output ``y``, and the gradients of the
  input ``dx`` and parameters ``grad/<name>`` (training mode; BatchNorm's running statistics
  after the step as ``after/<name>``);
- ``loss<k>``: a loss (``ctor``, ``n`` inputs): inputs ``in<i>``, ``loss``, gradients ``grad<i>``;
- ``names`` (metadata only): parameter names (full and structural) of nested blocks, and a
  symbol's JSON node names after hybridize;
- ``mlp_io``: input ``x`` and output ``y`` of one small network, saved next to the file as
  ``mlp.params`` (``save_parameters``), ``mlp_dict.params`` (``ParameterDict.save``) and
  ``exported-symbol.json``/``exported-0000.params`` (``export``);
- ``train``: data ``x``, ``label`` and the loss curves ``<opt>_<hybrid>`` of a short training run
  (SGD with momentum, Adam) from ``train_init.params``; the SGD run's Trainer states and
  parameters after it go to ``train_sgd.states`` and ``train_sgd_after.params``.
"""

import mxnet as mx
import numpy as np
from core import Golden, load_module
from mxnet import autograd, gluon

FILE = "tests/gluon/golden/gluon.npz"
c = load_module("tests/gluon/mlp_cases.py")

# constructor (evaluated by mlp_cases.layer_step), input shape
# fmt: off
LAYERS = [
    ("nn.Dense(5)", (3, 4)),
    ("nn.Dense(5, activation='tanh', flatten=False, use_bias=False)", (2, 3, 4)),
    ("nn.Conv1D(3, 3, padding=1, strides=2)", (2, 2, 9)),
    ("nn.Conv2D(2, 3, padding=2, dilation=2)", (1, 2, 6, 6)),
    ("nn.Conv2D(4, (3, 2), padding=(1, 0), groups=2)", (2, 2, 7, 6)),
    ("nn.Conv3D(2, 2, strides=(1, 2, 1))", (1, 2, 4, 5, 4)),
    ("nn.Conv1DTranspose(3, 3, strides=2, output_padding=1)", (2, 2, 5)),
    ("nn.Conv2DTranspose(2, (3, 3), strides=(2, 1), padding=1)", (1, 3, 4, 4)),
    ("nn.Conv3DTranspose(2, 2)", (1, 2, 3, 3, 3)),
    ("nn.MaxPool1D(3, 2, 1)", (2, 3, 9)),
    ("nn.MaxPool2D((2, 3), (2, 3), ceil_mode=True)", (2, 2, 7, 8)),
    ("nn.MaxPool3D(2)", (1, 2, 4, 4, 4)),
    ("nn.AvgPool1D(2)", (2, 3, 8)),
    ("nn.AvgPool2D(3, 2, 1, count_include_pad=False)", (2, 2, 7, 7)),
    ("nn.AvgPool3D(2, ceil_mode=True)", (1, 2, 5, 4, 4)),
    *[(f"nn.Global{kind}Pool{d}D()", shape) for kind in ("Max", "Avg")
      for d, shape in [(1, (2, 3, 5)), (2, (2, 3, 4, 5)), (3, (1, 2, 3, 4, 3))]],
    ("nn.BatchNorm()", (4, 3, 2, 2)),
    ("nn.BatchNorm(axis=-1, center=False, momentum=0.5)", (5, 3)),
    ("nn.InstanceNorm(scale=True)", (2, 3, 5)),
    ("nn.LayerNorm()", (3, 6)),
    ("nn.LayerNorm(axis=1, center=False)", (2, 4, 3)),
    ("nn.GroupNorm(num_groups=2)", (2, 4, 3, 3)),
    ("nn.Flatten()", (2, 3, 2, 2)),
    *[(f"nn.Activation('{act}')", (3, 4)) for act in ("relu", "sigmoid", "tanh", "softrelu",
                                                       "softsign")],
    ("nn.LeakyReLU(0.1)", (3, 4)),
    ("nn.PReLU()", (3, 4)),
    ("nn.PReLU(in_channels=3)", (2, 3, 4)),
    ("nn.ELU(0.5)", (3, 4)),
    ("nn.SELU()", (3, 4)),
    ("nn.Swish(2.0)", (3, 4)),
    ("nn.GELU()", (3, 4)),
    ("nn.ReflectionPad2D(2)", (1, 2, 4, 5)),
    ("nn.Dropout(0.0)", (3, 4)),
    ("nn.HybridLambda('tanh')", (3, 4)),
]
# fmt: on
EMBEDDING = ("nn.Embedding(7, 3)", (2, 5))

# constructor (evaluated by mlp_cases.loss_step), input kinds, shape
LOSSES = [
    ("gluon.loss.L2Loss()", ["pred", "label"], (4, 3)),
    ("gluon.loss.L2Loss(weight=0.5)", ["pred", "label", "sample_weight"], (4, 3)),
    ("gluon.loss.L1Loss()", ["pred", "label"], (4, 3)),
    ("gluon.loss.SigmoidBCELoss()", ["pred", "label01"], (4, 3)),
    ("gluon.loss.SigmoidBCELoss(from_sigmoid=True)", ["prob", "label01"], (4, 3)),
    ("gluon.loss.SigmoidBCELoss()", ["pred", "label01", "sample_weight", "pos_weight"], (4, 3)),
    ("gluon.loss.SoftmaxCELoss()", ["pred", "sparse"], (4, 5)),
    ("gluon.loss.SoftmaxCELoss(sparse_label=False, weight=2.0)", ["pred", "dist"], (4, 5)),
    ("gluon.loss.SoftmaxCELoss(axis=1, batch_axis=0)", ["pred", "sparse2"], (2, 3, 4)),
    ("gluon.loss.KLDivLoss()", ["logp", "dist"], (4, 5)),
    ("gluon.loss.KLDivLoss(from_logits=False)", ["pred", "dist"], (4, 5)),
    ("gluon.loss.HuberLoss(rho=0.5)", ["pred", "label"], (4, 3)),
    ("gluon.loss.HingeLoss()", ["pred", "sign"], (4, 3)),
    ("gluon.loss.SquaredHingeLoss(margin=2)", ["pred", "sign"], (4, 3)),
    ("gluon.loss.LogisticLoss()", ["pred", "sign"], (4, 3)),
    ("gluon.loss.LogisticLoss(label_format='binary')", ["pred", "label01"], (4, 3)),
    ("gluon.loss.TripletLoss(margin=0.5)", ["pred", "label", "label2"], (4, 3)),
    ("gluon.loss.PoissonNLLLoss()", ["pred", "count"], (4, 3)),
    ("gluon.loss.PoissonNLLLoss(from_logits=False, compute_full=True)", ["prob", "count"], (4, 3)),
    ("gluon.loss.CosineEmbeddingLoss(margin=0.1)", ["pred", "label", "sign1"], (4, 3)),
    ("gluon.loss.CTCLoss()", ["ctc_pred", "ctc_label"], (2, 6, 4)),
]


def _norm(p: np.ndarray) -> np.ndarray:
    return p / p.sum(-1, keepdims=True)


# loss input kinds: (generator, the case's shape) -> values, made float32
# fmt: off
INPUTS = {
    "pred": lambda rs, s: rs.randn(*s), "label": lambda rs, s: rs.randn(*s),
    "label2": lambda rs, s: rs.randn(*s), "ctc_pred": lambda rs, s: rs.randn(*s),
    "prob": lambda rs, s: rs.uniform(0.05, 0.95, s),
    "label01": lambda rs, s: rs.rand(*s) > 0.5,
    "sample_weight": lambda rs, s: rs.uniform(0.5, 1.5, (s[0], 1)),
    "pos_weight": lambda rs, s: rs.uniform(0.5, 2, (s[-1],)),
    "sparse": lambda rs, s: rs.randint(0, s[-1], (s[0],)),
    "sparse2": lambda rs, s: rs.randint(0, s[1], (s[0], 1, s[2])),
    "dist": lambda rs, s: _norm(rs.rand(*s).astype("float32") + 0.1),
    "logp": lambda rs, s: np.log(_norm(rs.rand(*s) + 0.1)),
    "sign": lambda rs, s: np.where(rs.rand(*s) > 0.5, 1, -1),
    "sign1": lambda rs, s: np.array([1, -1, 1, -1]),
    "count": lambda rs, s: rs.randint(0, 5, s),
    "ctc_label": lambda rs, s: np.array([[1, 2, -1], [0, 2, 1]]),
}
# fmt: on
GRAD_KINDS = ("pred", "prob", "logp", "ctc_pred")  # the loss inputs given a gradient


def make_layers(golden: Golden, rs: np.random.RandomState) -> None:
    def values(name: str, p: gluon.Parameter) -> np.ndarray | None:  # running statistics kept
        return None if "running" in p.name else rs.uniform(-1, 1, p.shape).astype("float32")

    def normal(shape: tuple) -> np.ndarray:
        return rs.randn(*shape).astype("float32")

    for k, (ctor, shape) in enumerate(LAYERS + [EMBEDDING]):
        embedding = ctor.startswith("nn.Embedding")
        x = mx.nd.array(rs.randint(0, 7, shape).astype("float32") if embedding else normal(shape))
        params, before, y, head = c.layer_step(mx, ctor, x, values, normal)
        out = {f"param/{name}": v for name, v in before.items()}
        out.update(x=x.asnumpy(), head=head, y=y.asnumpy())
        out.update({} if embedding else {"dx": x.grad.asnumpy()})
        for name, p in params.items():
            key = "after" if p.grad_req == "null" else "grad"
            out[f"{key}/{name}"] = (p.data() if key == "after" else p.grad()).asnumpy()
        meta = {"ctor": ctor, "shape": list(shape), "params": sorted(params)}
        golden.put(f"layer{k}", meta, **out)


def make_losses(golden: Golden, rs: np.random.RandomState) -> None:
    for k, (ctor, kinds, shape) in enumerate(LOSSES):
        arrays = [mx.nd.array(INPUTS[kind](rs, shape).astype("float32")) for kind in kinds]
        full = "compute_full" in ctor  # MXNet adds in place to a recorded array: no gradient
        wrt = [] if full else [i for i, kind in enumerate(kinds) if kind in GRAD_KINDS]
        value, out = c.loss_step(mx, ctor, arrays, wrt), {}
        for i, a in enumerate(arrays):  # in0, grad0, in1, ...
            out[f"in{i}"] = a.asnumpy()
            if i in wrt:
                out[f"grad{i}"] = a.grad.asnumpy()
        golden.put(f"loss{k}", {"ctor": ctor, "n": len(kinds)}, **out, loss=value.asnumpy())


def make_names(golden: Golden, rs: np.random.RandomState) -> None:
    golden.put("names", c.block_names(mx))


def make_files(golden: Golden, rs: np.random.RandomState) -> None:
    out = str(golden.path.parent)
    net = c.make_mlp(mx)
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(rs.randn(4, 5).astype("float32"))
    net.hybridize()
    with autograd.record():  # a training step moves the BatchNorm statistics
        net(x)
    y = net(x)
    net.save_parameters(out + "/mlp.params")
    net.collect_params().save(out + "/mlp_dict.params")
    net.export(out + "/exported", epoch=0)
    golden.put("mlp_io", {}, x=x.asnumpy(), y=y.asnumpy())


def make_training(golden: Golden, rs: np.random.RandomState) -> None:
    out = str(golden.path.parent)
    x = rs.randn(32, 10).astype("float32")
    label = rs.randint(0, 4, (32,)).astype("float32")
    init = c.make_mlp(mx)
    init.initialize(mx.init.Xavier())
    init(mx.nd.array(x))
    init.save_parameters(out + "/train_init.params")
    curves = {}
    for opt in c.OPTIMIZERS:
        for hybrid in (False, True):
            net, trainer, values = c.train(mx, out + "/train_init.params", x, label, opt, hybrid)
            curves[f"{opt}_{int(hybrid)}"] = np.array(values, "float32")
            if opt == "sgd" and not hybrid:
                trainer.save_states(out + "/train_sgd.states")
                net.save_parameters(out + "/train_sgd_after.params")
    golden.put("train", {}, x=x, label=label, **curves)


def record(golden: Golden) -> None:
    mx.random.seed(0)
    for part in (make_layers, make_losses, make_names, make_files, make_training):
        mx.name.NameManager._current.value = mx.name.NameManager()  # each names from 0
        part(golden, golden.rng)
