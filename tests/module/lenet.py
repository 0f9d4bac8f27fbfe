"""The network, data and starting parameters of tests/module/test_golden.py, shared with
tools/golden/cases/module.py, which trains them on MXNet 1.9.1 (tests/module/golden/): plain
NumPy and functions of ``mx``, so nothing here imports either implementation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

GOLDEN = Path(__file__).parent / "golden"
BATCH = 8
N_TRAIN = 32
N_TEST = 16
OPT_PARAMS = {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.001}


def make_data(n: int, start: int) -> tuple[np.ndarray, np.ndarray]:
    i = np.arange(start, start + n)
    label = (i * 7 + 3) % 4
    grid = np.arange(64, dtype=np.float64).reshape(1, 8, 8)
    x = np.sin(grid * (0.15 + 0.1 * label[:, None, None]) + 0.3 * i[:, None, None])
    return x.reshape(n, 1, 8, 8).astype(np.float32), label.astype(np.float32)


def lenet(mx: Any) -> Any:
    data = mx.sym.var("data")
    net = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, name="conv1")
    net = mx.sym.BatchNorm(net, name="bn1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    net = mx.sym.Pooling(net, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
    net = mx.sym.Flatten(net, name="flat")
    net = mx.sym.FullyConnected(net, num_hidden=16, name="fc1")
    net = mx.sym.Activation(net, act_type="tanh", name="tanh1")
    net = mx.sym.FullyConnected(net, num_hidden=4, name="fc2")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def initial_params(mx: Any, sym: Any) -> tuple[dict, dict]:
    arg, _, aux = sym.infer_shape(data=(BATCH, 1, 8, 8), softmax_label=(BATCH,))
    arg_shapes = dict(zip(sym.list_arguments(), arg))
    args = {}
    for k, name in enumerate(sorted(arg_shapes)):
        shape = arg_shapes[name]
        if name in ("data", "softmax_label"):
            continue
        if name.endswith("gamma"):
            args[name] = mx.nd.ones(shape)
        elif name.endswith("beta"):
            args[name] = mx.nd.zeros(shape)
        else:
            n = int(np.prod(shape))
            scale = 1.0 / np.sqrt(max(1, n // shape[0]))
            v = np.sin(np.arange(n, dtype=np.float64) * 0.7 + k) * scale
            args[name] = mx.nd.array(v.reshape(shape).astype(np.float32))
    auxs = {}
    for name, shape in zip(sym.list_auxiliary_states(), aux):
        auxs[name] = mx.nd.ones(shape) if name.endswith("var") else mx.nd.zeros(shape)
    return args, auxs


def train(mx: Any, steps: int = 20) -> tuple[Any, list[float]]:
    """A Module over the network from the initial parameters, after ``steps`` SGD steps over
    the training data (epochs as needed), and the mean cross-entropy of each step's batch
    (the forward before its update)."""
    sym = lenet(mx)
    args, aux = initial_params(mx, sym)
    x, y = make_data(N_TRAIN, 0)
    mod = mx.mod.Module(sym, context=mx.cpu())
    mod.bind(data_shapes=[("data", (BATCH, 1, 8, 8))], label_shapes=[("softmax_label", (BATCH,))])
    mod.init_params(arg_params=args, aux_params=aux)
    mod.init_optimizer(optimizer="sgd", optimizer_params=OPT_PARAMS)
    it = mx.io.NDArrayIter(x, y, batch_size=BATCH)
    losses: list[float] = []
    while len(losses) < steps:
        it.reset()
        for batch in it:
            mod.forward(batch, is_train=True)
            prob = mod.get_outputs()[0].asnumpy().astype(np.float64)
            lab = batch.label[0].asnumpy().astype(int)
            losses.append(float(-np.log(prob[np.arange(BATCH), lab]).mean()))
            mod.backward()
            mod.update()
    return mod, losses


def fit_ce(mx: Any) -> list[float]:
    """``Module.fit`` from the initial parameters over the training data, five epochs of SGD
    with the ``ce`` metric: the Train-ce after each epoch's last batch."""
    sym = lenet(mx)
    args, aux = initial_params(mx, sym)
    x, y = make_data(N_TRAIN, 0)
    seen: list[float] = []
    last: list[float] = []
    mx.mod.Module(sym, context=mx.cpu()).fit(
        mx.io.NDArrayIter(x, y, batch_size=BATCH), eval_metric="ce", optimizer="sgd",
        optimizer_params=OPT_PARAMS, arg_params=args, aux_params=aux, num_epoch=5,
        batch_end_callback=lambda p: last.append(float(p.eval_metric.get()[1])),
        epoch_end_callback=lambda *a: seen.append(last[-1]),
    )  # fmt: skip
    return seen
