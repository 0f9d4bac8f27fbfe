"""Samples per second of Module training, steady state: an MLP 784-128-64-10, batch 100, 500
batches per epoch, inputs uniform in [0, 1) (NDArrayIter over fixed data), mx.init.Xavier(),
SGD lr 0.1 without momentum, ``forward_backward`` + ``update`` + ``update_metric`` (accuracy)
per batch; one warm-up epoch, then the median epoch of ``--repeat``. mxlite vs MXNet 1.9.1
with stock settings; ``--rounds N`` alternates fresh processes of both and reports medians.
Issue 12 asks for mxlite >= 1.0x MXNet's samples/s (goal 1.3x).
Usage: python benchmarks/train_mlp.py [--rounds N] [--repeat N] [--profile]."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import import_mx, median_time, parser, run  # noqa: E402

BATCH = 100
N_SAMPLES = 50000  # 500 batches per epoch


def network(mx):
    data = mx.sym.var("data")
    h = mx.sym.FullyConnected(data, num_hidden=128, name="fc1")
    h = mx.sym.Activation(h, act_type="relu", name="relu1")
    h = mx.sym.FullyConnected(h, num_hidden=64, name="fc2")
    h = mx.sym.Activation(h, act_type="relu", name="relu2")
    h = mx.sym.FullyConnected(h, num_hidden=10, name="fc3")
    return mx.sym.SoftmaxOutput(h, name="softmax")


def epoch_fn(mx, net, data_shape, batch, n_samples):
    """A function running one training epoch of ``net`` (then waiting for all work)."""
    import numpy as np

    rng = np.random.RandomState(0)
    x = rng.uniform(0, 1, (n_samples, *data_shape)).astype(np.float32)
    y = rng.randint(0, 10, n_samples).astype(np.float32)
    it = mx.io.NDArrayIter(x, y, batch_size=batch, label_name="softmax_label")
    mod = mx.mod.Module(net, context=mx.cpu())
    mod.bind(data_shapes=it.provide_data, label_shapes=it.provide_label)
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1})
    metric = mx.metric.create("acc")

    def epoch() -> None:
        it.reset()
        metric.reset()
        for data_batch in it:
            mod.forward_backward(data_batch)
            mod.update()
            mod.update_metric(metric, data_batch.label)
        mx.nd.waitall()

    return epoch


def measure_net(impl, repeat, build, data_shape, batch, n_samples):
    mx = import_mx(impl)
    epoch = epoch_fn(mx, build(mx), data_shape, batch, n_samples)
    return {"samples_per_s": round(n_samples / median_time(epoch, repeat), 1)}


def profile(build, data_shape, batch, n_samples) -> None:
    """cProfile one epoch of mxlite on the main thread; print the top functions."""
    import cProfile
    import pstats

    mx = import_mx("mxlite")
    epoch = epoch_fn(mx, build(mx), data_shape, batch, n_samples)
    epoch()
    prof = cProfile.Profile()
    prof.runcall(epoch)
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)


def main(name, build, data_shape, batch, n_samples, doc) -> None:
    p = parser(doc)
    p.add_argument("--profile", action="store_true", help="cProfile mxlite's epoch instead")
    args = p.parse_args()
    if args.profile:
        profile(build, data_shape, batch, n_samples)
        return
    # throughput: higher is better, so the ratio mxlite / MXNet should be >= the bar
    run(
        name,
        lambda impl, repeat: measure_net(impl, repeat, build, data_shape, batch, n_samples),
        args,
        ["samples_per_s"],
    )


if __name__ == "__main__":
    main("train_mlp", network, (784,), BATCH, N_SAMPLES, __doc__)
