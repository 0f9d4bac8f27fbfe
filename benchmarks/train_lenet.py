"""Samples per second of Module training, steady state, of LeNet (conv 5x5x20, tanh, max-pool,
conv 5x5x50, tanh, max-pool, fc 500, tanh, fc 10) on 1x28x28 inputs uniform in [0, 1), batch
64, 100 batches per epoch; the same settings and measurement as train_mlp.py (Xavier, SGD lr
0.1, no momentum; warm-up epoch, median epoch; ``--rounds N`` alternates fresh processes).
Issue 12 asks for mxlite >= 1.0x MXNet's samples/s (goal 1.3x).
Usage: python benchmarks/train_lenet.py [--rounds N] [--repeat N] [--profile]."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_mlp import main  # noqa: E402

BATCH = 64
N_SAMPLES = 6400  # 100 batches per epoch


def network(mx):
    data = mx.sym.var("data")
    h = mx.sym.Convolution(data, kernel=(5, 5), num_filter=20, name="conv1")
    h = mx.sym.Activation(h, act_type="tanh", name="tanh1")
    h = mx.sym.Pooling(h, pool_type="max", kernel=(2, 2), stride=(2, 2), name="pool1")
    h = mx.sym.Convolution(h, kernel=(5, 5), num_filter=50, name="conv2")
    h = mx.sym.Activation(h, act_type="tanh", name="tanh2")
    h = mx.sym.Pooling(h, pool_type="max", kernel=(2, 2), stride=(2, 2), name="pool2")
    h = mx.sym.Flatten(h, name="flatten")
    h = mx.sym.FullyConnected(h, num_hidden=500, name="fc1")
    h = mx.sym.Activation(h, act_type="tanh", name="tanh3")
    h = mx.sym.FullyConnected(h, num_hidden=10, name="fc2")
    return mx.sym.SoftmaxOutput(h, name="softmax")


if __name__ == "__main__":
    main("train_lenet", network, (1, 28, 28), BATCH, N_SAMPLES, __doc__)
