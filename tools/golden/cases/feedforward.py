"""``mx.model.FeedForward`` training runs (tests/test_feedforward.py): a small MLP with
BatchNorm (so auxiliary states move too), fixed initial parameters and data; per case the
parameters after ``fit``, ``predict`` on the evaluation data and ``score``. MXNet also saves
the first run's checkpoint as tests/golden/feedforward-symbol.json and
tests/golden/feedforward-0002.params, which mxlite loads."""

from __future__ import annotations

from typing import Any

import mxnet as mx
import numpy as np

FILE = "tests/golden/feedforward.npz"
SEED = 0

# (case, FeedForward keyword arguments, fit keyword arguments, number of contexts)
# fmt: off
CASES = [
    ("sgd_mom", {"num_epoch": 2, "learning_rate": 0.1, "momentum": 0.9, "wd": 0.001}, {}, 1),
    ("sgd_epoch_size", {"num_epoch": 2, "epoch_size": 2, "learning_rate": 0.2}, {}, 1),
    ("adam_two_ctx", {"num_epoch": 2, "optimizer": "adam", "learning_rate": 0.01}, {}, 2),
    ("sgd_two_ctx_no_kv", {"num_epoch": 1, "learning_rate": 0.1}, {"kvstore": None}, 2),
]
# fmt: on


def network() -> Any:
    data = mx.sym.var("data")
    h = mx.sym.FullyConnected(data, num_hidden=6, name="fc1")
    h = mx.sym.Activation(h, act_type="relu", name="relu1")
    h = mx.sym.BatchNorm(h, name="bn1")
    h = mx.sym.FullyConnected(h, num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(h, name="softmax")


def record(golden: Any) -> None:
    rng = golden.rng
    net = network()
    x = rng.uniform(-1, 1, (12, 5)).astype("float32")
    y = rng.randint(0, 3, 12).astype("float32")
    xe = rng.uniform(-1, 1, (8, 5)).astype("float32")
    ye = rng.randint(0, 3, 8).astype("float32")
    arg_shapes, _, aux_shapes = net.infer_shape(data=(4, 5), softmax_label=(4,))
    init = {
        n: rng.uniform(-0.5, 0.5, s).astype("float32")
        for n, s in zip(net.list_arguments(), arg_shapes)
        if n not in ("data", "softmax_label")
    }
    aux = {"bn1_moving_mean": np.zeros(6, "float32"), "bn1_moving_var": np.ones(6, "float32")}
    golden.put(
        "setup",
        {},
        x=x,
        y=y,
        xe=xe,
        ye=ye,
        **{f"arg:{k}": v for k, v in init.items()},
        **{f"aux:{k}": v for k, v in aux.items()},
    )
    for case, kwargs, fit_kwargs, n_ctx in CASES:
        model = mx.model.FeedForward(
            net,
            ctx=[mx.cpu(i) for i in range(n_ctx)],
            arg_params={k: mx.nd.array(v) for k, v in init.items()},
            aux_params={k: mx.nd.array(v) for k, v in aux.items()},
            **kwargs,
        )
        model.fit(mx.io.NDArrayIter(x, y, 4), eval_data=mx.io.NDArrayIter(xe, ye, 4), **fit_kwargs)
        out = {f"arg:{k}": v.asnumpy() for k, v in model.arg_params.items()}
        out.update({f"aux:{k}": v.asnumpy() for k, v in model.aux_params.items()})
        pred = model.predict(xe)
        acc = model.score(mx.io.NDArrayIter(xe, ye, 3))
        golden.put(
            case,
            {"kwargs": kwargs, "fit": fit_kwargs, "n_ctx": n_ctx, "score": acc},
            predict=pred,
            **out,
        )
        if case == "sgd_mom":
            model.save(str(golden.path.parent / "feedforward"), 2)
