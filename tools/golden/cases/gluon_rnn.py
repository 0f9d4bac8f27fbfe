"""mx.gluon.rnn (tests/gluon/rnn/test_rnn.py; helpers in tests/gluon/rnn/rnn_cases.py): per case
``k`` (a constructor evaluated with ``rnn`` in scope, built in a fresh name scope), the
parameter names (``collect_params`` and ``save_parameters``), and, with every parameter filled
from a NumPy stream seeded by its structural name, the outputs, final states and the gradient
of the input of one forward pass (layers: ``layer(x, states)``, no gradient with a projection:
MXNet has none on CPU; cells: ``unroll`` with ``merge_outputs=True``, with and without
``valid_length``).
"""

from __future__ import annotations

import contextlib
from typing import Any

import mxnet as mx
import numpy as np
from core import load_module
from mxnet import autograd
from mxnet.gluon import rnn  # noqa: F401 (the constructors of the table are evaluated)

FILE = "tests/gluon/rnn/golden/rnn.npz"
SEED = 0

# constructor, input shape (layout of the layer, NTC for cells), kind
CASES = [
    ("rnn.RNN(4, 2, activation='tanh')", (3, 2, 5), "layer"),
    ("rnn.LSTM(4, 2, layout='NTC', bidirectional=True)", (2, 3, 5), "layer"),
    ("rnn.GRU(4, bidirectional=True)", (3, 2, 5), "layer"),
    ("rnn.LSTM(6, projection_size=3)", (3, 2, 5), "layer"),
    ("rnn.RNNCell(4, activation='relu')", (2, 3, 5), "cell"),
    ("rnn.LSTMCell(4)", (2, 3, 5), "cell"),
    ("rnn.GRUCell(4)", (2, 3, 5), "cell"),
    ("rnn.BidirectionalCell(rnn.LSTMCell(4), rnn.GRUCell(3))", (2, 3, 5), "cell"),
    ("stack([rnn.LSTMCell(4), rnn.ResidualCell(rnn.GRUCell(4))])", (2, 3, 5), "cell"),
]


c = load_module("tests/gluon/rnn/rnn_cases.py")


def stack(cells: list) -> Any:
    return c.stack(mx, cells)


def record(golden: Any) -> None:
    meta, arrays = [], {}
    for k, (ctor, shape, kind) in enumerate(CASES):
        with mx.name.NameManager():
            net = eval(ctor)
        net.initialize()
        x = mx.nd.array(np.random.RandomState(k).uniform(-1, 1, shape).astype(np.float32))
        valid = mx.nd.array([2, 3])
        if kind == "layer":
            batch = shape[1] if net._layout == "TNC" else shape[0]
            net(x, net.begin_state(batch))
        else:
            net.unroll(3, x, merge_outputs=True)
        c.fill(mx, net)
        x.attach_grad()
        rows = {}
        runs = [("plain", None)] if kind == "layer" else [("plain", None), ("valid", valid)]
        for tag, vl in runs:
            train = "projection" not in ctor  # MXNet has no CPU backward for projection
            with autograd.record() if train else contextlib.nullcontext():
                if kind == "layer":
                    batch = shape[1] if net._layout == "TNC" else shape[0]
                    states = net.begin_state(batch)
                    for s in states:
                        s[:] = 0.1
                    out, states = net(x, states)
                else:
                    out, states = net.unroll(3, x, merge_outputs=True, valid_length=vl)
                loss = (out * out).sum() + sum((s * s).sum() for s in states)
            if train:
                loss.backward()
                arrays[f"{k}/{tag}:dx"] = x.grad.asnumpy()
            rows[tag] = len(states)
            arrays[f"{k}/{tag}:out"] = out.asnumpy()
            for i, s in enumerate(states):
                arrays[f"{k}/{tag}:state{i}"] = s.asnumpy()
        arrays[f"{k}/x"] = x.asnumpy()
        meta.append({"ctor": ctor, "shape": list(shape), "kind": kind, "runs": rows,
                     "params": list(net.collect_params().keys()),
                     "structural": list(net._collect_params_with_prefix().keys())})  # fmt: skip
    golden.take(arrays, [{"name": str(k), **m} for k, m in enumerate(meta)])
