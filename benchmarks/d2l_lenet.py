"""Seconds per epoch of d2l 1.0.3's LeNet (``d2l.LeNet``: sigmoid convolutions, average pooling,
Xavier), hybridized, trained with ``d2l.train_ch6``'s loop (autograd.record, SoftmaxCELoss,
backward, ``gluon.Trainer`` SGD lr 0.9, ``d2l.Accumulator`` of loss, ``d2l.accuracy`` and count
per batch) on FashionMNIST-shaped random data (1x28x28 uniform in [0, 1), 10 classes) from a
``gluon.data.DataLoader`` over an ``ArrayDataset``, batch 256, 20 batches per epoch; NumPy mode.
mxlite runs d2l through its ``mxnet`` alias. Issue 27 asks for <= 1.0x MXNet's time.
Usage: python benchmarks/d2l_lenet.py [--rounds N] [--repeat N] [--batches N] [--profile]."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import import_mx, run_epochs  # noqa: E402

BATCH = 256


def import_d2l(impl: str):
    """``(mx, d2l)``, d2l importing mxlite through the alias when ``impl`` is mxlite."""
    mx = import_mx(impl)
    if impl == "mxlite":
        from mxlite.run import as_mxnet

        as_mxnet()
    from d2l import mxnet as d2l

    return mx, d2l


def epoch_fn(impl: str, batches: int):
    """A function running one training epoch of ``batches`` batches, then waiting."""
    import numpy as onp

    mx, d2l = import_d2l(impl)
    np, npx, gluon, autograd = mx.np, mx.npx, mx.gluon, mx.autograd
    npx.set_np()
    mx.random.seed(0)
    rs = onp.random.RandomState(0)
    X = np.array(rs.uniform(0, 1, (BATCH * batches, 1, 28, 28)).astype("float32"))
    y = np.array(rs.randint(0, 10, BATCH * batches).astype("float32"))
    train_iter = d2l.load_array((X, y), BATCH)
    model = d2l.LeNet(lr=0.9)
    model.hybridize()
    net = model.net
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.9})

    def run_epoch() -> None:
        metric = d2l.Accumulator(3)
        for Xb, yb in train_iter:
            with autograd.record():
                y_hat = net(Xb)
                l = loss(y_hat, yb)  # noqa: E741  (the book's name)
            l.backward()
            trainer.step(Xb.shape[0])
            metric.add(l.sum(), d2l.accuracy(y_hat, yb), Xb.shape[0])
        npx.waitall()

    return run_epoch


if __name__ == "__main__":
    run_epochs("d2l_lenet", __doc__, epoch_fn)
