"""Train a small LeNet-like network with MXNet 1.9.1's Module and record what it did.

Run under the reference interpreter (never imported by mxlite)::

    /tmp/mxref/bin/python tools/make_golden_module.py [OUT_DIR]

OUT_DIR defaults to tests/module/golden. The data and the initial parameters are closed-form
(``make_data`` and ``initial_params``; tests/module/test_golden.py computes the same), so only
the results are stored:

* ``lenet-symbol.json``, ``lenet-0001.params``, ``lenet-0001.states``: the checkpoint after
  20 SGD steps (``save_checkpoint(prefix, 1, save_optimizer_states=True)``);
* ``module.json``: ``loss``, the mean cross-entropy of each of the 20 training batches (the
  forward before each update); ``fit_ce``, the Train-ce of each epoch of ``Module.fit`` from
  the same start; ``predict``, the class probabilities of the test data after training;
  ``score``, the accuracy on it.
"""

from __future__ import annotations

import json
import logging
import os
import sys

import mxnet as mx
import numpy as np

BATCH = 8
N_TRAIN = 32
N_TEST = 16
OPT_PARAMS = {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.001}


def make_data(n: int, start: int) -> tuple[np.ndarray, np.ndarray]:
    """Images (n, 1, 8, 8) whose pattern depends on the label (4 classes)."""
    i = np.arange(start, start + n)
    label = (i * 7 + 3) % 4
    grid = np.arange(64, dtype=np.float64).reshape(1, 8, 8)
    x = np.sin(grid * (0.15 + 0.1 * label[:, None, None]) + 0.3 * i[:, None, None])
    return x.reshape(n, 1, 8, 8).astype(np.float32), label.astype(np.float32)


def lenet():
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


def initial_params(arg_shapes: dict, aux_shapes: dict) -> tuple[dict, dict]:
    """Deterministic starting values as numpy arrays, by name (sorted for a fixed order)."""
    args = {}
    for k, name in enumerate(sorted(arg_shapes)):
        shape = arg_shapes[name]
        if name in ("data", "softmax_label"):
            continue
        if name.endswith("gamma"):
            args[name] = np.ones(shape, np.float32)
        elif name.endswith("beta"):
            args[name] = np.zeros(shape, np.float32)
        else:
            n = int(np.prod(shape))
            scale = 1.0 / np.sqrt(max(1, n // shape[0]))
            v = np.sin(np.arange(n, dtype=np.float64) * 0.7 + k) * scale
            args[name] = v.reshape(shape).astype(np.float32)
    aux = {}
    for name, shape in aux_shapes.items():
        fill = np.ones if name.endswith("var") else np.zeros
        aux[name] = fill(shape, np.float32)
    return args, aux


def shapes_of(sym):
    arg, _, aux = sym.infer_shape(data=(BATCH, 1, 8, 8), softmax_label=(BATCH,))
    return (
        dict(zip(sym.list_arguments(), arg)),
        dict(zip(sym.list_auxiliary_states(), aux)),
    )


def main(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    sym = lenet()
    args_np, aux_np = initial_params(*shapes_of(sym))
    args = {k: mx.nd.array(v) for k, v in args_np.items()}
    aux = {k: mx.nd.array(v) for k, v in aux_np.items()}
    x, y = make_data(N_TRAIN, 0)
    tx, _ = make_data(N_TEST, 1000)

    mod = mx.mod.Module(sym, context=mx.cpu())
    mod.bind(data_shapes=[("data", (BATCH, 1, 8, 8))], label_shapes=[("softmax_label", (BATCH,))])
    mod.init_params(arg_params=args, aux_params=aux)
    mod.init_optimizer(optimizer="sgd", optimizer_params=OPT_PARAMS)
    it = mx.io.NDArrayIter(x, y, batch_size=BATCH)
    losses = []
    while len(losses) < 20:
        it.reset()
        for batch in it:
            mod.forward(batch, is_train=True)
            prob = mod.get_outputs()[0].asnumpy().astype(np.float64)
            lab = batch.label[0].asnumpy().astype(int)
            losses.append(float(-np.log(prob[np.arange(BATCH), lab]).mean()))
            mod.backward()
            mod.update()
    prefix = os.path.join(out, "lenet")
    mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    test_it = mx.io.NDArrayIter(tx, None, batch_size=BATCH)
    pred = mod.predict(test_it).asnumpy()
    _, ty = make_data(N_TEST, 1000)
    score = mod.score(mx.io.NDArrayIter(tx, ty, batch_size=BATCH), "acc")

    fit_ce = []
    fmod = mx.mod.Module(lenet(), context=mx.cpu())
    fmod.fit(
        mx.io.NDArrayIter(x, y, batch_size=BATCH),
        eval_metric="ce",
        optimizer="sgd",
        optimizer_params=OPT_PARAMS,
        arg_params=args,
        aux_params=aux,
        num_epoch=5,
        epoch_end_callback=lambda *a: fit_ce.append(fmod._last_ce),
        batch_end_callback=lambda p: setattr(fmod, "_last_ce", float(p.eval_metric.get()[1])),
    )
    record = {
        "loss": losses,
        "fit_ce": fit_ce,
        "predict": np.round(pred.astype(np.float64), 7).tolist(),
        "score": [[k, float(v)] for k, v in score],
    }
    with open(os.path.join(out, "module.json"), "w") as f:
        json.dump(record, f, indent=0)


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, "..", "tests", "module", "golden")
    main(sys.argv[1] if len(sys.argv) > 1 else default)
