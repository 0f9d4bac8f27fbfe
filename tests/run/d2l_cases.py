"""d2l 1.0.3's package functions (``d2l/mxnet.py``), run unchanged on real MXNet 1.9.1 and on
mxlite's ``mxnet`` alias.

``python d2l_cases.py OUT.npz [CASE ...]`` runs the cases (all by default) under whatever
``import mxnet`` gives: the ``d2l`` family of ``tools/golden/`` runs it under real MXNet to write
the golden file, ``tests/run/test_d2l.py`` under ``python -m mxlite.run`` and compares.

``mx.random`` streams differ between the two implementations, so nothing compared depends on
them: parameters come from :class:`Seeded` (official NumPy's ``RandomState`` keyed by the
parameter's name), data from ``RandomState``, dropout is 0, and ``DataLoader`` shuffles with
official NumPy's global stream, seeded here. Functions whose output is random (``synthetic_data``)
are compared by shape and by the relation they promise. No case reads the network: the data sets
are small arrays built here (``ch11`` writes its airfoil-shaped file to the working directory).
"""

from __future__ import annotations

import io
import json
import os
import sys
import time
import zlib
from contextlib import redirect_stdout

os.environ.setdefault("MPLBACKEND", "Agg")

import mxnet as mx  # noqa: E402
import numpy as onp  # noqa: E402
from d2l import mxnet as d2l  # noqa: E402
from mxnet import autograd, gluon, np, npx  # noqa: E402
from mxnet.gluon import nn, rnn  # noqa: E402

npx.set_np()


class Seeded(mx.init.Initializer):
    """Weights from ``RandomState(crc32(name))`` (normal, std ``sqrt(1 / fan_in)``)."""

    def _init_weight(self, name, arr):
        shape = arr.shape
        fan_in = int(onp.prod(shape[1:])) if len(shape) > 1 else int(shape[0])
        rs = onp.random.RandomState(zlib.crc32(name.encode()))
        arr[:] = np.array(rs.normal(0.0, (1.0 / fan_in) ** 0.5, shape).astype(arr.dtype))

    def _init_bias(self, name, arr):
        rs = onp.random.RandomState(zlib.crc32(name.encode()))
        arr[:] = np.array(rs.uniform(-0.1, 0.1, arr.shape).astype(arr.dtype))

    def _init_default(self, name, arr):
        self._init_weight(name, arr)


def seed_init(net) -> None:
    """(Re)initialise every parameter of ``net`` with :class:`Seeded` (deferred ones too)."""
    net.initialize(Seeded(), force_reinit=True)


def data(seed: int, shape, low=-1.0, high=1.0, dtype="float32"):
    return np.array(onp.random.RandomState(seed).uniform(low, high, shape).astype(dtype))


def labels(seed: int, n: int, classes: int):
    return np.array(onp.random.RandomState(seed).randint(0, classes, n).astype("float32"))


def scratch(seed: int, shape, scale=0.1):
    """A from-scratch parameter with its gradient attached."""
    p = np.array(onp.random.RandomState(seed).normal(0, scale, shape).astype("float32"))
    p.attach_grad()
    return p


def params_of(net) -> dict:
    return {k: v.data().asnumpy() for k, v in net.collect_params().items()}


class Patched:
    """``with Patched(mx.init, 'Xavier', fn):`` d2l's own ``init.Xavier()`` calls run ``fn``."""

    def __init__(self, owner, name, value):
        self.owner, self.name, self.value = owner, name, value

    def __enter__(self):
        self.old = getattr(self.owner, self.name)
        setattr(self.owner, self.name, self.value)

    def __exit__(self, *exc):
        setattr(self.owner, self.name, self.old)


class ArrayData(d2l.DataModule):
    """A d2l ``DataModule`` over arrays made here (the book's ``SyntheticRegressionData``
    layout: the first ``num_train`` rows train, the rest validate)."""

    def __init__(self, X, y, num_train, batch_size):
        super().__init__()
        self.save_hyperparameters()

    def get_dataloader(self, train):
        i = slice(0, self.num_train) if train else slice(self.num_train, None)
        return self.get_tensorloader((self.X, self.y), train, i)


def fashion_like(seed: int, n: int):
    """FashionMNIST-shaped data: ``n`` images (n, 1, 28, 28) in [0, 1) and labels 0..9."""
    return data(seed, (n, 1, 28, 28), 0.0, 1.0), labels(seed + 1, n, 10)


# ---- the cases ------------------------------------------------------------------------------


def case_linreg_scratch() -> dict:
    X, y = d2l.synthetic_data(np.array([2, -3.4]), 4.2, 50)
    res = {"synthetic_shapes": onp.array([*X.shape, *y.shape])}
    res["synthetic_fit"] = onp.array(float(((y - d2l.linreg(X, np.array([2, -3.4]), 4.2)
                                             .reshape(-1, 1)) ** 2).mean()) < 1e-3)  # fmt: skip
    X = data(1, (40, 2))
    y = (d2l.matmul(X, np.array([2, -3.4])) + 4.2).reshape(-1, 1)
    w, b = scratch(2, (2, 1), 0.01), np.zeros(1)
    b.attach_grad()
    onp.random.seed(0)
    losses = []
    for _ in range(3):
        for Xb, yb in d2l.load_array((X, y), 10):
            with autograd.record():
                loss = d2l.squared_loss(d2l.linreg(Xb, w, b), yb)
            loss.backward()
            d2l.sgd([w, b], 0.1, 10)
        losses.append(float(d2l.squared_loss(d2l.linreg(X, w, b), y).mean()))
    return {"w": w.asnumpy(), "b": b.asnumpy(), "losses": onp.array(losses)}


def case_linear_concise() -> dict:
    X = data(3, (60, 3))
    y = (d2l.matmul(X, np.array([1.5, -2.0, 0.5])) + 0.3).reshape(-1, 1)
    model = d2l.LinearRegression(lr=0.05)
    seed_init(model)
    onp.random.seed(1)
    trainer = d2l.Trainer(max_epochs=2)
    trainer.fit(model, ArrayData(X, y, 40, 8))
    w, b = model.get_w_b()
    scratch_model = d2l.LinearRegressionScratch(3, lr=0.05)
    scratch_model.w = scratch(4, (3, 1), 0.01)
    onp.random.seed(1)
    d2l.Trainer(max_epochs=2).fit(scratch_model, ArrayData(X, y, 40, 8))
    return {"w": w.asnumpy(), "b": b.asnumpy(), "scratch_w": scratch_model.w.asnumpy(),
            "scratch_b": scratch_model.b.asnumpy()}  # fmt: skip


def case_softmax_classifier() -> dict:
    X, y = data(5, (48, 1, 4, 4), 0.0, 1.0), labels(6, 48, 10)
    model = d2l.SoftmaxRegression(num_outputs=10, lr=0.1)
    seed_init(model)
    onp.random.seed(2)
    d2l.Trainer(max_epochs=2).fit(model, ArrayData(X, y, 32, 8))
    y_hat = model(X)
    acc = d2l.Accumulator(2)
    acc.add(d2l.accuracy(y_hat, y), d2l.size(y))
    acc.add(3, 4)
    iter_ = d2l.load_array((X, y), 16, is_train=False)
    return {"params": onp.concatenate([v.ravel() for v in params_of(model).values()]),
            "loss": onp.array(float(model.loss(y_hat, y))),
            "accuracy": onp.array([float(model.accuracy(y_hat, y)), d2l.accuracy(y_hat, y)]),
            "accumulator": onp.array([acc[0], acc[1]]),
            "evaluate_accuracy": onp.array(d2l.evaluate_accuracy(model, iter_))}  # fmt: skip


def _lenet():
    net = nn.Sequential()
    net.add(
        nn.Conv2D(channels=6, kernel_size=5, padding=2, activation="sigmoid"),
        nn.AvgPool2D(pool_size=2, strides=2),
        nn.Conv2D(channels=16, kernel_size=5, activation="sigmoid"),
        nn.AvgPool2D(pool_size=2, strides=2),
        nn.Dense(120, activation="sigmoid"),
        nn.Dense(84, activation="sigmoid"),
        nn.Dense(10),
    )
    return net


def case_train_ch6() -> dict:
    X, y = fashion_like(7, 80)
    Xt, yt = fashion_like(9, 32)
    net = _lenet()
    net.hybridize()
    onp.random.seed(3)
    train_iter = d2l.load_array((X, y), 16)
    test_iter = d2l.load_array((Xt, yt), 16, is_train=False)
    with Patched(mx.init, "Xavier", lambda *a, **k: Seeded()):
        d2l.train_ch6(net, train_iter, test_iter, 2, 0.9, d2l.try_gpu())
    res = {"out": net(Xt).asnumpy(),
           "accuracy": onp.array(d2l.evaluate_accuracy_gpu(net, test_iter))}  # fmt: skip
    model = d2l.LeNet(lr=0.5)
    seed_init(model)
    onp.random.seed(4)
    d2l.Trainer(max_epochs=1).fit(model, ArrayData(X, y, 64, 16))
    res["lenet_class"] = model(Xt).asnumpy()
    return res


def case_resnet() -> dict:
    X, y = data(11, (10, 3, 16, 16)), labels(12, 10, 10)
    blk = d2l.Residual(6, use_1x1conv=True, strides=2)
    seed_init(blk)
    res = {"residual": blk(X).asnumpy()}
    blk = d2l.ResNeXtBlock(8, 2, 1, use_1x1conv=True, strides=2)
    seed_init(blk)
    res["resnext"] = blk(X).asnumpy()
    # float64: in float32, batch statistics over 2 samples through 18 layers make the trained
    # output move by 1e-2 for an input moved by one rounding (measured): CPUs' SIMD differ by that
    net = d2l.resnet18(10)
    seed_init(net)
    net.cast("float64")
    X64 = X.astype("float64")
    devices = [d2l.try_gpu()]
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.002})
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    onp.random.seed(5)
    it = d2l.load_array((X64, y), 2)
    d2l.train_ch13(net, it, it, loss, trainer, 1, devices)
    res["resnet18"] = net(X64).asnumpy()
    res["split_batch"] = onp.array([a.shape[0] for a in d2l.split_batch(X, y, devices)[0]])
    return res


def case_rnn_scratch() -> dict:
    vocab = d2l.Vocab(list("the time machine by h g wells"))
    tokens = np.array(onp.random.RandomState(13).randint(0, len(vocab), (8, 6)).astype("float32"))
    rnn_block = d2l.RNNScratch(num_inputs=len(vocab), num_hiddens=8)
    rnn_block.W_xh = scratch(14, (len(vocab), 8))
    rnn_block.W_hh = scratch(15, (8, 8))
    model = d2l.RNNLMScratch(rnn_block, vocab_size=len(vocab), lr=1)
    model.W_hq = scratch(16, (8, len(vocab)))
    for p in model.get_scratch_params():
        p.attach_grad()
    out = model(tokens)
    onp.random.seed(6)
    X, Y = tokens[:, :-1], tokens[:, 1:]
    d2l.Trainer(max_epochs=2, gradient_clip_val=1).fit(model, ArrayData(X, Y, 6, 3))
    return {"vocab": onp.array(vocab[list("time")]), "out": out.asnumpy(),
            "W_hq": model.W_hq.asnumpy(), "W_xh": rnn_block.W_xh.asnumpy(),
            "predict": onp.array([ord(c) for c in model.predict("the ", 6, vocab)])}  # fmt: skip


class LSTM(d2l.RNN):
    """The book's concise LSTM (sec_lstm): d2l.RNN on rnn.LSTM, its state a pair."""

    def __init__(self, num_hiddens):
        d2l.Module.__init__(self)
        self.save_hyperparameters()
        self.rnn = rnn.LSTM(num_hiddens)

    def forward(self, inputs, H_C=None):
        if H_C is None:
            H_C = self.rnn.begin_state(inputs.shape[1], ctx=inputs.ctx)
        return self.rnn(inputs, H_C)


def case_rnn_concise() -> dict:
    vocab = d2l.Vocab(list("the time machine by h g wells"))
    n = len(vocab)
    tokens = np.array(onp.random.RandomState(17).randint(0, n, (8, 6)).astype("float32"))
    res = {}
    for name, layer in (("rnn", d2l.RNN(num_hiddens=8)), ("gru", d2l.GRU(8, 2)),
                        ("lstm", LSTM(num_hiddens=8))):  # fmt: skip
        model = d2l.RNNLM(layer, vocab_size=n, lr=1)
        seed_init(model)
        res[f"{name}/out"] = model(tokens).asnumpy()
        onp.random.seed(7)
        d2l.Trainer(max_epochs=2, gradient_clip_val=1).fit(
            model, ArrayData(tokens[:, :-1], tokens[:, 1:], 6, 3)
        )
        res[f"{name}/params"] = onp.concatenate([v.ravel() for v in params_of(model).values()])
        res[f"{name}/predict"] = onp.array([ord(c) for c in model.predict("the ", 5, vocab)])
    # the legacy helper on a Gluon block
    net = nn.Dense(3)
    seed_init(net)
    x = data(18, (4, 5))
    with autograd.record():
        loss = (net(x) ** 2).sum()
    loss.backward()
    d2l.grad_clipping(net, 0.5)
    res["grad_clipping"] = onp.concatenate([p.grad().asnumpy().ravel()
                                            for p in net.collect_params().values()])  # fmt: skip
    return res


def case_attention() -> dict:
    q, k, v = data(19, (2, 3, 4)), data(20, (2, 5, 4)), data(21, (2, 5, 6))
    valid = np.array([2, 4])
    res = {
        "masked_softmax": d2l.masked_softmax(data(22, (2, 3, 5)), valid).asnumpy(),
        "masked_softmax2": d2l.masked_softmax(
            data(22, (2, 3, 5)), np.array([[1, 3, 2], [2, 4, 5]])
        ).asnumpy(),
    }
    dot = d2l.DotProductAttention(dropout=0)
    res["dot"] = dot(q, k, v, valid).asnumpy()
    add = d2l.AdditiveAttention(num_hiddens=8, dropout=0)
    seed_init(add)
    res["additive"] = add(q, k, v, valid).asnumpy()
    res["additive_weights"] = add.attention_weights.asnumpy()
    mha = d2l.MultiHeadAttention(num_hiddens=8, num_heads=2, dropout=0)
    seed_init(mha)
    x = data(23, (2, 4, 8))
    res["multihead"] = mha(x, x, x, valid).asnumpy()
    pe = d2l.PositionalEncoding(num_hiddens=8, dropout=0)
    pe.initialize()
    res["positional"] = pe(np.zeros((1, 5, 8))).asnumpy()
    ffn = d2l.PositionWiseFFN(6, 8)
    seed_init(ffn)
    res["ffn"] = ffn(x).asnumpy()
    addnorm = d2l.AddNorm(dropout=0)
    seed_init(addnorm)
    res["addnorm"] = addnorm(x, x * 2).asnumpy()
    enc = d2l.TransformerEncoder(vocab_size=20, num_hiddens=8, ffn_num_hiddens=16, num_heads=2,
                                 num_blks=2, dropout=0)  # fmt: skip
    seed_init(enc)
    toks = np.array(onp.random.RandomState(24).randint(0, 20, (2, 5)).astype("float32"))
    res["transformer_encoder"] = enc(toks, valid).asnumpy()
    res["transformer_weights"] = onp.stack([w.asnumpy() for w in enc.attention_weights])
    s2s = d2l.Seq2SeqEncoder(vocab_size=20, embed_size=6, num_hiddens=8, num_layers=2)
    seed_init(s2s)
    out, state = s2s(toks)
    res["seq2seq_encoder"] = out.asnumpy()
    res["seq2seq_state"] = state[0].asnumpy()
    loss = d2l.MaskedSoftmaxCELoss()
    res["masked_ce"] = loss(data(25, (2, 5, 20)), toks, valid).asnumpy()
    res["bleu"] = onp.array(d2l.bleu("he is calm .", "he is very calm .", k=2))
    res["truncate_pad"] = onp.array(d2l.truncate_pad([3, 4, 5], 5, 0))
    return res


def case_boxes() -> dict:
    boxes = np.array([[10.0, 20.0, 50.0, 80.0], [5.0, 5.0, 30.0, 40.0]])
    center = d2l.box_corner_to_center(boxes)
    res = {"center": center.asnumpy(), "corner": d2l.box_center_to_corner(center).asnumpy()}
    img = np.zeros((1, 3, 6, 8))
    anchors = d2l.multibox_prior(img, sizes=[0.75, 0.5], ratios=[1, 2, 0.5])
    res["anchors"] = anchors.asnumpy()
    a = anchors[0][:12]
    res["box_iou"] = d2l.box_iou(a[:4], a[4:10]).asnumpy()
    ground_truth = np.array([[0, 0.1, 0.08, 0.52, 0.92], [1, 0.55, 0.2, 0.9, 0.88]])
    four = np.array([[0, 0.1, 0.2, 0.3], [0.15, 0.2, 0.4, 0.4], [0.63, 0.05, 0.88, 0.98],
                     [0.66, 0.45, 0.8, 0.8], [0.57, 0.3, 0.92, 0.9]])  # fmt: skip
    target = d2l.multibox_target(np.expand_dims(four, axis=0), np.expand_dims(ground_truth, axis=0))
    for i, t in enumerate(target):
        res[f"target{i}"] = t.asnumpy()
    anc = np.array([[0.1, 0.08, 0.52, 0.92], [0.08, 0.2, 0.56, 0.95],
                    [0.15, 0.3, 0.62, 0.91], [0.55, 0.2, 0.9, 0.88]])  # fmt: skip
    offsets = np.array([0] * d2l.size(anc))
    cls_probs = np.array([[0] * 4, [0.9, 0.8, 0.7, 0.1], [0.1, 0.2, 0.3, 0.9]])
    res["offset_inverse"] = d2l.offset_inverse(anc, offsets.reshape(-1, 4)).asnumpy()
    res["nms"] = d2l.nms(anc, cls_probs[1], 0.5).asnumpy()
    res["detection"] = d2l.multibox_detection(
        np.expand_dims(cls_probs, axis=0),
        np.expand_dims(offsets, axis=0),
        np.expand_dims(anc, axis=0),
        nms_threshold=0.5,
    ).asnumpy()
    return res


def case_text() -> dict:
    lines = ["the time machine", "by h g wells", "the time traveller"]
    tokens = d2l.tokenize(lines)
    vocab = d2l.Vocab(tokens, reserved_tokens=["<pad>"])
    corr = d2l.corr2d(np.arange(9).reshape(3, 3), np.array([[0.0, 1.0], [2.0, 3.0]]))
    return {"vocab": onp.array(vocab[["time", "the", "zzz"]]), "len": onp.array(len(vocab)),
            "chars": onp.array([len(t) for t in d2l.tokenize(lines, "char")]),
            "corr2d": corr.asnumpy()}  # fmt: skip


def case_ch11() -> dict:
    # get_data_ch11's steps on a local airfoil-shaped file (d2l.download would fetch it)
    rs = onp.random.RandomState(26)
    table = rs.uniform(0, 1, (400, 6))
    table[:, -1] = table[:, :-1] @ rs.uniform(-1, 1, 5) + 0.05 * rs.normal(size=400)
    onp.savetxt("airfoil.dat", table, delimiter="\t", fmt="%.6f")
    raw = np.genfromtxt("airfoil.dat", dtype=np.float32, delimiter="\t")
    raw = (raw - raw.mean(axis=0)) / raw.std(axis=0)
    onp.random.seed(8)
    data_iter = d2l.load_array((raw[:, :-1], raw[:, -1]), 10, is_train=True)
    res = {"data": raw.asnumpy()}
    printed = io.StringIO()
    with Patched(mx.init, "Normal", lambda *a, **k: Seeded()), redirect_stdout(printed):
        d2l.train_concise_ch11("sgd", {"learning_rate": 0.05}, data_iter, num_epochs=1)
        times, losses = d2l.train_ch11(
            lambda params, states, hp: d2l.sgd(params, hp["lr"], 1), None, {"lr": 0.05},
            data_iter, 5, num_epochs=1)  # fmt: skip
    res["concise_loss"] = onp.array(float(printed.getvalue().split("loss: ")[1].split(",")[0]))
    # train_ch11 starts from mx.random weights: only the shape of its record is compared
    res["scratch_record"] = onp.array([len(times), len(losses), all(x < 10 for x in losses)])
    net = nn.Dense(1)
    seed_init(net)
    res["evaluate_loss"] = onp.array(d2l.evaluate_loss(net, data_iter, gluon.loss.L2Loss()))
    return res


CASES = {name[5:]: fn for name, fn in dict(globals()).items() if name.startswith("case_")}


def main(argv: list, cases: dict = CASES) -> None:
    """OUT.npz [CASE ...]: run the cases (all by default) in order, save every array (and
    ``times``, the seconds of each case as JSON)."""
    out_path, names = argv[0], argv[1:] or list(cases)
    result, times = {}, {}
    for name in names:
        t0 = time.time()
        for key, value in cases[name]().items():
            result[f"{name}/{key}"] = onp.asarray(value)
        times[name] = round(time.time() - t0, 2)
        print(f"{name}: {times[name]} s", file=sys.stderr)
    onp.savez_compressed(out_path, times=onp.array(json.dumps(times)), **result)


if __name__ == "__main__":
    main(sys.argv[1:])
