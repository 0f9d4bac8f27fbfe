"""Gluon in NumPy-array mode (``npx.set_np()``) as programs that run unchanged on MXNet 1.9.1
and on mxlite: ``tools/golden/cases/gluon_np.py`` records what MXNet computes,
``test_np_mode.py`` runs them here and compares.

Three d2l-style programs (:func:`run_program`: linear regression with Dense + L2Loss + SGD
through a DataLoader, softmax regression with SoftmaxCrossEntropyLoss + SGD, a hybridized LeNet
with BatchNorm + SGD) and the rnn layers (:func:`run_rnn`). MXNet's random streams are not
reproduced by mxlite, so the data and the initial parameters are drawn once
(:func:`make_data`) and set into the networks.
"""

from __future__ import annotations

from typing import Any

import numpy as onp


def set_params(net: Any, np: Any, values: list) -> None:
    for p, v in zip(net.collect_params().values(), values):
        p.set_data(np.array(v))


def lenet(gluon: Any) -> Any:
    """LeNet as d2l writes it (Dropout left out: its random masks differ between libraries)."""
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Conv2D(6, kernel_size=5, padding=2, activation="sigmoid"),
            gluon.nn.AvgPool2D(pool_size=2, strides=2),
            gluon.nn.BatchNorm(),
            gluon.nn.Conv2D(16, kernel_size=5, activation="sigmoid"),
            gluon.nn.MaxPool2D(pool_size=2, strides=2),
            gluon.nn.Dense(120, activation="relu"),
            gluon.nn.Dense(84, activation="tanh"), gluon.nn.Dense(10))  # fmt: skip
    return net


def run_program(mx: Any, data: dict, export_prefix: str | None = None) -> dict:
    """The d2l-style program on library ``mx`` (mxnet or mxlite) with NumPy semantics on;
    ``data`` holds the inputs and the initial parameters (``init_<net>_<i>``)."""
    np, npx, gluon, autograd, init = mx.np, mx.npx, mx.gluon, mx.autograd, mx.init
    npx.set_np()
    out: dict = {}
    # linear regression
    X, y = np.array(data["lin_X"]), np.array(data["lin_y"])
    it = gluon.data.DataLoader(gluon.data.ArrayDataset(X, y), 10, shuffle=False)
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(1))
    net.initialize(init.Normal(sigma=0.01))
    net(X[:1])
    set_params(net, np, [data["init_lin_0"], data["init_lin_1"]])
    loss = gluon.loss.L2Loss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.03})
    losses = []
    for _ in range(3):
        for Xb, yb in it:
            with autograd.record():
                ls = loss(net(Xb), yb)
            ls.backward()
            trainer.step(10)
        losses.append(float(loss(net(X), y).mean()))
    out["lin_losses"] = onp.array(losses)
    out["lin_w"] = net[0].weight.data().asnumpy()
    out["lin_b"] = net[0].bias.data().asnumpy()
    out["lin_types"] = onp.array(
        [type(ls).__module__.split(".")[1], type(net[0].weight.grad()).__module__.split(".")[1]]
    )
    # softmax regression
    Xs, ys = np.array(data["sm_X"]), np.array(data["sm_y"])
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Flatten(), gluon.nn.Dense(10))
    net.initialize(init.Normal(sigma=0.01))
    net(Xs[:1])
    set_params(net, np, [data["init_sm_0"], data["init_sm_1"]])
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    acc = mx.metric.Accuracy()
    losses, accs = [], []
    for _ in range(3):
        with autograd.record():
            ls = loss(net(Xs), ys)
        ls.backward()
        trainer.step(Xs.shape[0])
        losses.append(float(ls.mean()))
        acc.update(ys.as_nd_ndarray(), net(Xs).as_nd_ndarray())
        accs.append(acc.get()[1])
    out["sm_losses"] = onp.array(losses)
    out["sm_accs"] = onp.array(accs)
    # LeNet, hybridized
    net = lenet(gluon)
    net.initialize(init.Xavier())
    net(Xs[:2])
    n_params = len(list(net.collect_params().values()))
    set_params(net, np, [data[f"init_lenet_{i}"] for i in range(n_params)])
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
    losses = []
    for _ in range(3):
        with autograd.record():
            ls = loss(net(Xs), ys)
        ls.backward()
        trainer.step(Xs.shape[0])
        losses.append(float(ls.mean()))
    out["lenet_losses"] = onp.array(losses)
    out["lenet_out"] = net(Xs).asnumpy()
    for i, p in enumerate(net.collect_params().values()):
        if p.data().size <= 1000:  # the small ones: the large add 0.5 MB to the file
            out[f"lenet_after_{i}"] = p.data().asnumpy()
    if export_prefix is not None:
        net.export(export_prefix)
    npx.reset_np()
    return out


def run_rnn(mx: Any) -> dict:
    """The rnn layers in NumPy mode (two bidirectional layers, constant weights), hybridized
    and not: outputs, input gradients and the last states."""
    mx.npx.set_np()
    out: dict = {}
    x_np = onp.linspace(-1, 1, 30).reshape(2, 5, 3).astype("float32")
    for cls in ("LSTM", "GRU", "RNN"):
        for hybridize in (False, True):
            layer = getattr(mx.gluon.rnn, cls)(4, num_layers=2, layout="NTC", bidirectional=True,
                                               input_size=3)  # fmt: skip
            layer.initialize(mx.init.Constant(0.1))
            if hybridize:
                layer.hybridize()
            x = mx.np.array(x_np)
            x.attach_grad()
            with mx.autograd.record():
                y = layer(x)
            y.backward()
            key = f"rnn_{cls}_{int(hybridize)}"
            out[f"{key}_out"] = y.asnumpy()
            out[f"{key}_grad"] = x.grad.asnumpy()
            _, states = layer(x, layer.begin_state(2))
            out[f"{key}_state"] = states[-1].asnumpy()
    mx.npx.reset_np()
    return out


def make_data(mx: Any) -> dict:
    """The inputs and the initial parameters, drawn once (on MXNet, for its Xavier draw)."""
    rng = onp.random.RandomState(7)
    data: dict = {}
    X = rng.normal(0, 1, (100, 2)).astype("float32")
    data["lin_X"] = X
    data["lin_y"] = (X @ onp.array([2, -3.4], "float32") + 4.2
                     + rng.normal(0, 0.01, 100)).astype("float32")  # fmt: skip
    data["init_lin_0"] = rng.normal(0, 0.01, (1, 2)).astype("float32")
    data["init_lin_1"] = onp.zeros(1, "float32")
    data["sm_X"] = rng.uniform(size=(16, 1, 28, 28)).astype("float32")
    data["sm_y"] = rng.randint(0, 10, 16).astype("float32")
    data["init_sm_0"] = rng.normal(0, 0.01, (10, 784)).astype("float32")
    data["init_sm_1"] = onp.zeros(10, "float32")
    mx.npx.set_np()
    net = lenet(mx.gluon)
    net.initialize(mx.init.Xavier())
    net(mx.np.array(data["sm_X"][:2]))
    for i, p in enumerate(net.collect_params().values()):
        data[f"init_lenet_{i}"] = p.data().asnumpy()
    mx.npx.reset_np()
    return data
