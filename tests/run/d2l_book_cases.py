"""Cells of *Dive into Deep Learning*'s MXNet code (d2l-ai/d2l-en at tag v1.0.3), run unchanged
on real MXNet 1.9.1 and on mxlite's ``mxnet`` alias: one case per chapter, each a few of the
short cells a reader runs, on small data.

``python d2l_book_cases.py OUT.npz [CASE ...]``, as ``d2l_cases.py`` (whose helpers this uses:
parameters from :class:`~d2l_cases.Seeded`, data from official NumPy's seeded streams). Files
the cells save go to the working directory (a temporary one in the test and the golden run).
"""

from __future__ import annotations

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as onp  # noqa: E402
from d2l import mxnet as d2l  # noqa: E402
from d2l_cases import data, labels, main, scratch, seed_init  # noqa: E402
from mxnet import autograd, gluon, image, init, np, npx  # noqa: E402
from mxnet.gluon import nn, rnn  # noqa: E402

npx.set_np()


def case_preliminaries() -> dict:
    x = np.arange(12)
    X = x.reshape(3, 4)
    Y = np.array([[2, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
    res = {"cat0": np.concatenate([X, Y], axis=0), "cat1": np.concatenate([X, Y], axis=1),
           "eq": X == Y, "sum": X.sum(), "exp": np.exp(x[:4]),
           "broadcast": np.arange(3).reshape(3, 1) + np.arange(2).reshape(1, 2),
           "slice": X[-1], "sum_axis": X.sum(axis=[0, 1]), "cumsum": X.cumsum(axis=0),
           "mean": X.mean(axis=0), "norm": np.linalg.norm(np.array([3.0, -4.0])),
           "dot": np.dot(np.arange(3.0), np.ones(3)), "matmul": np.dot(X, Y.T)}  # fmt: skip
    X[0:2, :] = 12
    res["assign"] = X
    before = id(Y)
    Y[:] = X + Y
    res["inplace"] = onp.array(id(Y) == before)
    A = X.asnumpy()
    res["numpy_roundtrip"] = np.array(A).sum()
    # autograd
    x = np.arange(4.0)
    x.attach_grad()
    with autograd.record():
        y = 2 * np.dot(x, x)
    y.backward()
    res["grad"] = x.grad.copy()
    with autograd.record():
        y = x * x
        u = y.detach()
        z = u * x
    z.backward()
    res["detach"] = x.grad.copy()

    def f(a):
        b = a * 2
        while np.linalg.norm(b) < 1000:
            b = b * 2
        return b if b.sum() > 0 else 100 * b

    a = np.array(0.37)
    a.attach_grad()
    with autograd.record():
        d = f(a)
    d.backward()
    res["control_flow"] = a.grad == d / a
    return {k: onp.asarray(v.asnumpy() if hasattr(v, "asnumpy") else v) for k, v in res.items()}


def case_linear_softmax() -> dict:
    # softmax regression from scratch (sec_softmax_scratch)
    def softmax(X):
        X_exp = np.exp(X)
        partition = X_exp.sum(1, keepdims=True)
        return X_exp / partition

    def cross_entropy(y_hat, y):
        return -np.log(y_hat[list(range(len(y_hat))), y])

    y = np.array([0, 2])
    y_hat = np.array([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
    res = {"pick": y_hat[[0, 1], y], "ce": cross_entropy(y_hat, y),
           "softmax": softmax(data(30, (2, 5)))}  # fmt: skip
    # linear regression, concise (sec_linear_concise)
    net = nn.Sequential()
    net.add(nn.Dense(1))
    net.initialize(init.Normal(sigma=0.01))
    seed_init(net)
    loss = gluon.loss.L2Loss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.03})
    X = data(31, (30, 2))
    yy = (np.dot(X, np.array([2, -3.4])) + 4.2).reshape(-1, 1)
    onp.random.seed(10)
    for _ in range(3):
        for Xb, yb in d2l.load_array((X, yy), 10):
            with autograd.record():
                ll = loss(net(Xb), yb)
            ll.backward()
            trainer.step(10)
    res["weight"] = net[0].weight.data()
    res["bias"] = net[0].bias.data()
    res["grad"] = net[0].weight.grad()
    return {k: v.asnumpy() for k, v in res.items()}


def case_mlp() -> dict:
    x = np.arange(-8.0, 8.0, 0.1)
    x.attach_grad()
    with autograd.record():
        y = npx.relu(x)
    y.backward()
    res = {"relu_grad": x.grad.copy()}
    with autograd.record():
        y = npx.sigmoid(x)
    y.backward()
    res["sigmoid_grad"] = x.grad.copy()
    with autograd.record():
        y = np.tanh(x)
    y.backward()
    res["tanh_grad"] = x.grad.copy()
    net = nn.Sequential()
    net.add(nn.Flatten(), nn.Dense(32, activation="relu"), nn.Dropout(0.5), nn.Dense(10))
    seed_init(net)
    X, yy = data(32, (16, 1, 4, 4)), labels(33, 16, 10)
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    with autograd.predict_mode():
        res["predict"] = net(X)
    dropout = nn.Dropout(0.5)
    with autograd.record():
        kept = dropout(np.ones((200, 50)))
        ll = loss(net[1](net[0](X)).dot(np.ones((32, 10))) * 0.1, yy)  # no mx.random on the path
    ll.backward()
    res["dropout_values"] = np.unique(kept)
    trainer.step(16, ignore_stale_grad=True)
    res["after_step"] = net[1].weight.data()
    return {k: v.asnumpy() for k, v in res.items()}


class MLP(nn.Block):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Dense(256, activation="relu")
        self.out = nn.Dense(10)

    def forward(self, X):
        return self.out(self.hidden(X))


class MySequential(nn.Block):
    def add(self, block):
        self._children[block.name] = block

    def forward(self, X):
        for block in self._children.values():
            X = block(X)
        return X


class FixedHiddenMLP(nn.Block):
    def __init__(self):
        super().__init__()
        self.rand_weight = np.random.uniform(size=(20, 20))
        self.dense = nn.Dense(20, activation="relu")

    def forward(self, X):
        X = self.dense(X)
        X = npx.relu(np.dot(X, self.rand_weight) + 1)
        X = self.dense(X)
        while np.abs(X).sum() > 1:
            X /= 2
        return X.sum()


class CenteredLayer(nn.Block):
    def forward(self, X):
        return X - X.mean()


class MyDense(nn.Block):
    def __init__(self, units, in_units, **kwargs):
        super().__init__(**kwargs)
        self.weight = self.params.get("weight", shape=(in_units, units))
        self.bias = self.params.get("bias", shape=(units,))

    def forward(self, x):
        linear = np.dot(x, self.weight.data(ctx=x.ctx)) + self.bias.data(ctx=x.ctx)
        return npx.relu(linear)


def case_builders_guide() -> dict:
    X = data(34, (2, 20))
    res = {}
    net = MLP()
    seed_init(net)
    res["mlp"] = net(X)
    seq = MySequential()
    seq.add(nn.Dense(256, activation="relu"))
    seq.add(nn.Dense(10))
    seed_init(seq)
    res["my_sequential"] = seq(X)
    fixed = FixedHiddenMLP()
    seed_init(fixed)
    fixed.rand_weight = data(35, (20, 20), 0.0, 1.0)
    res["fixed_hidden"] = fixed(X)
    # parameters: access, shared, custom initialisation (sec_parameters, sec_param_init)
    net = nn.Sequential()
    net.add(nn.Dense(8, activation="relu"))
    net.add(nn.Dense(1))
    net.initialize()
    res["lazy_shape_before"] = onp.array(net[0].weight.shape)
    net(X)
    res["lazy_shape_after"] = onp.array(net[0].weight.shape)
    res["names"] = onp.array(sorted(net.collect_params(".*weight").keys()))
    net.initialize(init=init.Constant(1), force_reinit=True)
    res["constant"] = net[0].weight.data()[0]
    net[0].weight.initialize(init=init.Constant(42), force_reinit=True)
    net[1].initialize(init=init.Constant(3), force_reinit=True)
    res["mixed_init"] = net(X)
    net[0].weight.data()[:] += 1
    net[0].weight.data()[0, 0] = 42
    res["set"] = net[0].weight.data()[0]
    shared = nn.Dense(8, activation="relu")
    net = nn.Sequential()
    net.add(
        nn.Dense(8, activation="relu"),
        shared,
        nn.Dense(8, activation="relu", params=shared.params),
        nn.Dense(10),
    )
    seed_init(net)
    net(X)
    net[1].weight.data()[0, 0] = 100
    res["shared"] = onp.array(bool((net[1].weight.data()[0] == net[2].weight.data()[0]).all()))
    # custom layers
    layer = CenteredLayer()
    res["centered"] = layer(np.array([1.0, 2, 3, 4, 5]))
    dense = MyDense(units=3, in_units=5)
    seed_init(dense)
    res["my_dense"] = dense(data(36, (2, 5)))
    # file I/O (sec_read_write)
    x = np.arange(4)
    npx.save("x-file", x)
    res["load"] = npx.load("x-file")[0]
    npx.save("mydict", {"x": x, "y": np.zeros(4)})
    res["load_dict"] = npx.load("mydict")["y"]
    net = MLP()
    seed_init(net)
    Y = net(X)
    net.save_parameters("mlp.params")
    clone = MLP()
    clone.load_parameters("mlp.params")
    res["clone_equal"] = onp.array(bool((clone(X) == Y).all()))
    # hybridize and export (sec_hybridize)
    hnet = nn.HybridSequential()
    hnet.add(nn.Dense(16, activation="relu"), nn.Dense(2))
    seed_init(hnet)
    before = hnet(X)
    hnet.hybridize()
    res["hybrid_equal"] = onp.array(bool(onp.allclose(hnet(X).asnumpy(), before.asnumpy(),
                                                      atol=1e-6)))  # fmt: skip
    hnet.export("my_mlp")
    res["exported"] = onp.array(sorted(os.listdir(".")))
    imported = gluon.SymbolBlock.imports("my_mlp-symbol.json", ["data"], "my_mlp-0000.params")
    res["imported"] = imported(X)
    return {k: v.asnumpy() if hasattr(v, "asnumpy") else onp.asarray(v) for k, v in res.items()}


def nin_block(num_channels, kernel_size, strides, padding):
    blk = nn.Sequential()
    blk.add(nn.Conv2D(num_channels, kernel_size, strides, padding, activation="relu"),
            nn.Conv2D(num_channels, kernel_size=1, activation="relu"),
            nn.Conv2D(num_channels, kernel_size=1, activation="relu"))  # fmt: skip
    return blk


def corr2d_multi_in(X, K):
    return sum(d2l.corr2d(x, k) for x, k in zip(X, K))


def corr2d_multi_in_out(X, K):
    return np.stack([corr2d_multi_in(X, k) for k in K], 0)


def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    if not autograd.is_training():
        X_hat = (X - moving_mean) / np.sqrt(moving_var + eps)
    else:
        assert len(X.shape) in (2, 4)
        if len(X.shape) == 2:
            mean = X.mean(axis=0)
            var = ((X - mean) ** 2).mean(axis=0)
        else:
            mean = X.mean(axis=(0, 2, 3), keepdims=True)
            var = ((X - mean) ** 2).mean(axis=(0, 2, 3), keepdims=True)
        X_hat = (X - mean) / np.sqrt(var + eps)
        moving_mean = (1.0 - momentum) * moving_mean + momentum * mean
        moving_var = (1.0 - momentum) * moving_var + momentum * var
    Y = gamma * X_hat + beta
    return Y, moving_mean, moving_var


def case_cnn() -> dict:
    res = {}
    X = np.ones((6, 8))
    X[:, 2:6] = 0
    K = np.array([[1.0, -1.0]])
    Y = d2l.corr2d(X, K)
    res["edge"] = Y
    conv2d = nn.Conv2D(1, kernel_size=(1, 2), use_bias=False)
    seed_init(conv2d)
    X, Y = X.reshape(1, 1, 6, 8), Y.reshape(1, 1, 6, 7)
    for _ in range(10):
        with autograd.record():
            Y_hat = conv2d(X)
            ll = (Y_hat - Y) ** 2
        ll.backward()
        conv2d.weight.data()[:] -= 3e-2 * conv2d.weight.grad()
    res["learned_kernel"] = conv2d.weight.data().reshape(1, 2)
    Xc = np.array([[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]],
                   [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]])  # fmt: skip
    Kc = np.array([[[0.0, 1.0], [2.0, 3.0]], [[1.0, 2.0], [3.0, 4.0]]])
    res["multi_in"] = corr2d_multi_in(Xc, Kc)
    res["multi_out"] = corr2d_multi_in_out(Xc, np.stack((Kc, Kc + 1, Kc + 2), 0))
    pool = nn.MaxPool2D(3, padding=1, strides=2)
    res["pool"] = pool(np.arange(16, dtype=np.float32).reshape((1, 1, 4, 4)))
    img = data(37, (2, 1, 24, 24))
    net = nn.Sequential()
    net.add(nin_block(8, kernel_size=5, strides=2, padding=0), nn.MaxPool2D(pool_size=3, strides=2),
            nin_block(10, kernel_size=3, strides=1, padding=1), nn.GlobalAvgPool2D(),
            nn.Flatten())  # fmt: skip
    seed_init(net)
    res["nin"] = net(img)
    gamma, beta = scratch(38, (1, 3, 1, 1)), scratch(39, (1, 3, 1, 1))
    x = data(40, (4, 3, 5, 5))
    with autograd.record():
        out, mm, mv = batch_norm(x, gamma, beta, np.zeros((1, 3, 1, 1)), np.ones((1, 3, 1, 1)),
                                 1e-5, 0.1)  # fmt: skip
        weighted = (out * data(44, out.shape)).sum()  # sum(X_hat) alone is 0 up to rounding
    weighted.backward()
    res["bn_scratch"], res["bn_mean"], res["bn_gamma_grad"] = out, mm, gamma.grad
    bn = nn.BatchNorm()
    seed_init(bn)
    with autograd.record():
        yy = bn(x)
    res["bn_layer"] = yy
    res["bn_running"] = bn.running_mean.data()
    return {k: v.asnumpy() for k, v in res.items()}


def case_optimization() -> dict:
    # sgd with momentum and adam from scratch (sec_momentum, sec_adam), on a least squares fit
    def init_momentum_states(feature_dim):
        return (np.zeros((feature_dim, 1)), np.zeros(1))

    def sgd_momentum(params, states, hyperparams):
        for p, v in zip(params, states):
            v[:] = hyperparams["momentum"] * v + p.grad
            p[:] -= hyperparams["lr"] * v

    def init_adam_states(feature_dim):
        v_w, v_b = np.zeros((feature_dim, 1)), np.zeros(1)
        s_w, s_b = np.zeros((feature_dim, 1)), np.zeros(1)
        return ((v_w, s_w), (v_b, s_b))

    def adam(params, states, hyperparams):
        beta1, beta2, eps = 0.9, 0.999, 1e-6
        for p, (v, s) in zip(params, states):
            v[:] = beta1 * v + (1 - beta1) * p.grad
            s[:] = beta2 * s + (1 - beta2) * np.square(p.grad)
            v_bias_corr = v / (1 - beta1 ** hyperparams["t"])
            s_bias_corr = s / (1 - beta2 ** hyperparams["t"])
            p[:] -= hyperparams["lr"] * v_bias_corr / (np.sqrt(s_bias_corr) + eps)
        hyperparams["t"] += 1

    X = data(41, (40, 5))
    y = np.dot(X, np.array([[1.0], [-2.0], [0.5], [0.0], [3.0]])) + 0.1
    res = {}
    for name, step, states, hp in (
        ("momentum", sgd_momentum, init_momentum_states(5), {"lr": 0.02, "momentum": 0.5}),
        ("adam", adam, init_adam_states(5), {"lr": 0.01, "t": 1}),
    ):
        w, b = scratch(42, (5, 1), 0.01), np.zeros(1)
        b.attach_grad()
        onp.random.seed(11)
        for Xb, yb in d2l.load_array((X, y), 10):
            with autograd.record():
                ll = d2l.squared_loss(d2l.linreg(Xb, w, b), yb).mean()
            ll.backward()
            step([w, b], states, hp)
        res[name] = onp.concatenate([w.asnumpy().ravel(), b.asnumpy()])
    # the same with gluon.Trainer's optimizers (train_concise_ch11)
    for name, hp in (("sgd", {"learning_rate": 0.02, "momentum": 0.5}),
                     ("adam", {"learning_rate": 0.01}), ("rmsprop", {"learning_rate": 0.01}),
                     ("adagrad", {"learning_rate": 0.1}), ("adadelta", {"rho": 0.9})):  # fmt: skip
        net = nn.Sequential()
        net.add(nn.Dense(1))
        seed_init(net)
        trainer = gluon.Trainer(net.collect_params(), name, hp)
        loss = gluon.loss.L2Loss()
        onp.random.seed(11)
        for Xb, yb in d2l.load_array((X, y), 10):
            with autograd.record():
                ll = loss(net(Xb), yb)
            ll.backward()
            trainer.step(Xb.shape[0])
        res[f"trainer_{name}"] = net[0].weight.data().asnumpy()
    res["train_2d"] = onp.array(
        d2l.train_2d(lambda x1, x2, s1, s2: (x1 - 0.4 * 0.2 * x1, x2 - 0.4 * 4 * x2, 0, 0), steps=5)
    )
    res["lr_schedule"] = onp.array([math.cos(math.pi * t / 10) for t in range(3)])
    return res


def case_vision() -> dict:
    rs = onp.random.RandomState(43)
    img = np.array(rs.randint(0, 256, (24, 32, 3)).astype("uint8"))
    T = gluon.data.vision.transforms
    res = {"to_tensor": T.ToTensor()(img),
           "normalize": T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])(
               T.ToTensor()(img)),
           "resize": T.Resize((16, 12))(img), "center_crop": T.CenterCrop(16)(img),
           "compose": T.Compose([T.Resize(20), T.ToTensor()])(img),
           "flip_lr": image.flip_left_right(img) if hasattr(image, "flip_left_right")
           else img[:, ::-1, :]}  # fmt: skip
    flipped = T.RandomFlipLeftRight()(img)
    res["random_flip_is_flip"] = onp.array(
        bool((flipped == img).all() or (flipped == img[:, ::-1, :]).all())
    )
    crop = T.RandomResizedCrop((20, 20), scale=(0.1, 1), ratio=(0.5, 2))(img)
    res["random_resized_crop_shape"] = onp.array(crop.shape)
    color = T.RandomColorJitter(brightness=0.5, contrast=0.5, saturation=0.5, hue=0.5)
    res["color_jitter_shape"] = onp.array(color(img.astype("float32")).shape)
    aug = T.Compose([T.RandomFlipLeftRight(), T.ToTensor()])
    dataset = gluon.data.ArrayDataset(np.stack([img, img]), np.array([0, 1]))
    loader = gluon.data.DataLoader(dataset.transform_first(aug), batch_size=2)
    X, y = next(iter(loader))
    res["loader_shape"] = onp.array(X.shape)
    res["loader_type"] = onp.array(isinstance(X, np.ndarray) and isinstance(y, np.ndarray))
    return {k: v.asnumpy() if hasattr(v, "asnumpy") else onp.asarray(v) for k, v in res.items()}


class Seq2SeqDecoder(d2l.Decoder):
    """The book's RNN decoder (sec_seq2seq): the encoder's last state as context."""

    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = d2l.GRU(num_hiddens, num_layers, dropout)
        self.dense = nn.Dense(vocab_size, flatten=False)
        self.initialize(init.Xavier())

    def init_state(self, enc_all_outputs, *args):
        return enc_all_outputs

    def forward(self, X, state):
        embs = self.embedding(d2l.transpose(X))
        enc_output, hidden_state = state
        context = np.tile(enc_output[-1], (embs.shape[0], 1, 1))
        outputs, hidden_state = self.rnn(np.concatenate((embs, context), -1), hidden_state)
        return d2l.swapaxes(self.dense(outputs), 0, 1), [enc_output, hidden_state]


class Seq2SeqAttentionDecoder(d2l.AttentionDecoder):
    """The book's Bahdanau decoder (sec_seq2seq_attention), on d2l.AdditiveAttention."""

    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.attention = d2l.AdditiveAttention(num_hiddens, dropout)
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = rnn.GRU(num_hiddens, num_layers, dropout=dropout)
        self.dense = nn.Dense(vocab_size, flatten=False)
        self.initialize(init.Xavier())

    def init_state(self, enc_outputs, enc_valid_lens):
        outputs, hidden_state = enc_outputs
        return (outputs.swapaxes(0, 1), hidden_state, enc_valid_lens)

    def forward(self, X, state):
        enc_outputs, hidden_state, enc_valid_lens = state
        X = self.embedding(X).swapaxes(0, 1)
        outputs, self._attention_weights = [], []
        for x in X:
            query = np.expand_dims(hidden_state[-1], axis=1)
            context = self.attention(query, enc_outputs, enc_outputs, enc_valid_lens)
            x = np.concatenate((context, np.expand_dims(x, axis=1)), axis=-1)
            out, hidden_state = self.rnn(x.swapaxes(0, 1), hidden_state)
            hidden_state = hidden_state[0]
            outputs.append(out)
            self._attention_weights.append(self.attention.attention_weights)
        outputs = self.dense(np.concatenate(outputs, axis=0))
        return outputs.swapaxes(0, 1), [enc_outputs, hidden_state, enc_valid_lens]

    @property
    def attention_weights(self):
        return self._attention_weights


class PairData(d2l.DataModule):
    """(source, decoder input, source length, target) batches, as d2l's MTFraEng gives."""

    def __init__(self, arrays, batch_size):
        super().__init__()
        self.save_hyperparameters()

    def get_dataloader(self, train):
        return self.get_tensorloader(self.arrays, train, slice(0, 8 if train else None))


def case_seq2seq() -> dict:
    rs = onp.random.RandomState(45)
    src = np.array(rs.randint(3, 12, (10, 6)).astype("float32"))
    tgt = np.array(rs.randint(3, 12, (10, 6)).astype("float32"))
    valid = np.array(rs.randint(2, 7, 10).astype("float32"))
    dec_in = np.concatenate([np.ones((10, 1)), tgt[:, :-1]], 1)  # <bos> is 1
    res = {}
    for name, decoder in (("rnn", Seq2SeqDecoder(12, 6, 8, 2)),
                          ("attention", Seq2SeqAttentionDecoder(12, 6, 8, 2))):  # fmt: skip
        encoder = d2l.Seq2SeqEncoder(12, 6, 8, 2)
        model = d2l.Seq2Seq(encoder, decoder, tgt_pad=0, lr=0.01)
        seed_init(model)
        res[f"{name}/out"] = model(src, dec_in, valid).asnumpy()
        onp.random.seed(12)
        d2l.Trainer(max_epochs=2, gradient_clip_val=1).fit(
            model, PairData((src, dec_in, valid, tgt), 4)
        )
        pred, weights = model.predict_step((src[:3], dec_in[:3], valid[:3], tgt[:3]),
                                           d2l.try_gpu(), 4, name == "attention")  # fmt: skip
        res[f"{name}/predict"] = pred.asnumpy()
        if weights:
            res[f"{name}/weights"] = onp.stack([w[0].asnumpy() for w in weights])
        res[f"{name}/params"] = onp.concatenate(
            [p.data().asnumpy().ravel() for p in model.collect_params().values()]
        )
    return res


CASES = {name[5:]: fn for name, fn in dict(globals()).items() if name.startswith("case_")}


if __name__ == "__main__":
    main(sys.argv[1:], CASES)
