"""``python -m mxlite.demo``: an MXNet 1.x training script, run unchanged on mxlite.

Trains a LeNet-style network on the UCI 8x8 handwritten digits that ship with mxlite (1,797
images, CC BY 4.0; see mxlite/data/README.md) with ``Module.fit``, showing MXNet's progress
lines and a progress bar, then saves a checkpoint in MXNet's format, loads it back into a new
Module and reports the reloaded model's validation accuracy. Exit status 0 when that accuracy
reaches 95%.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
import time

import numpy as np

import mxlite as mx
from mxlite.data import load_digits


def lenet() -> mx.sym.Symbol:
    """LeNet, sized for 8x8 inputs: two conv/relu/pool stages and two dense layers."""
    data = mx.sym.Variable("data")
    net = mx.sym.Convolution(data, kernel=(3, 3), pad=(1, 1), num_filter=16, name="conv1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    net = mx.sym.Pooling(net, pool_type="max", kernel=(2, 2), stride=(2, 2), name="pool1")
    net = mx.sym.Convolution(net, kernel=(3, 3), pad=(1, 1), num_filter=32, name="conv2")
    net = mx.sym.Activation(net, act_type="relu", name="relu2")
    net = mx.sym.Pooling(net, pool_type="max", kernel=(2, 2), stride=(2, 2), name="pool2")
    net = mx.sym.Flatten(net, name="flatten")
    net = mx.sym.FullyConnected(net, num_hidden=64, name="fc1")
    net = mx.sym.Activation(net, act_type="relu", name="relu3")
    net = mx.sym.FullyConnected(net, num_hidden=10, name="fc2")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stdout)
    mx.random.seed(42)
    np.random.seed(42)

    images, labels = load_digits()
    order = np.random.permutation(len(labels))
    images, labels = images[order], labels[order]
    n_train = 1500
    batch = 50
    train = mx.io.NDArrayIter(
        images[:n_train], labels[:n_train], batch, shuffle=True, label_name="softmax_label"
    )
    val = mx.io.NDArrayIter(images[n_train:], labels[n_train:], batch, label_name="softmax_label")
    print(
        f"mxlite {mx.__version__}: LeNet on {len(labels)} UCI 8x8 digits "
        f"({n_train} train, {len(labels) - n_train} validation), engine "
        f"{type(mx.engine.get()).__name__}"
    )

    mod = mx.mod.Module(lenet(), context=mx.cpu())
    start = time.perf_counter()
    mod.fit(
        train,
        eval_data=val,
        eval_metric="acc",
        optimizer="sgd",
        optimizer_params={"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-4},
        initializer=mx.init.Xavier(magnitude=2.0),
        num_epoch=10,
        batch_end_callback=[
            mx.callback.Speedometer(batch, frequent=10),
            mx.callback.ProgressBar(total=n_train // batch),
        ],
    )
    print(f"trained in {time.perf_counter() - start:.1f} s")

    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "lenet")
        mod.save_checkpoint(prefix, 10)
        print(f"saved {sorted(os.listdir(tmp))} (MXNet's checkpoint format)")
        reloaded = mx.mod.Module.load(prefix, 10, context=mx.cpu())
        reloaded.bind(
            data_shapes=val.provide_data, label_shapes=val.provide_label, for_training=False
        )
        acc = dict(reloaded.score(val, "acc"))["accuracy"]
    print(f"reloaded model: validation accuracy {acc:.4f}")
    return 0 if acc >= 0.95 else 1


if __name__ == "__main__":
    sys.exit(main())
