"""The gluon.rnn cases, run the same way on MXNet 1.9.1 and on mxlite (``mx`` is either):
``tools/golden/cases/gluon_rnn.py`` records what MXNet computes, ``test_rnn.py`` compares."""

from __future__ import annotations

import contextlib
import zlib
from typing import Any

import numpy as np

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


def stack(mx: Any, cells: list) -> Any:
    """The cells in a HybridSequentialRNNCell."""
    seq = mx.gluon.rnn.HybridSequentialRNNCell()
    for c in cells:
        seq.add(c)
    return seq


def fill(mx: Any, net: Any) -> None:
    """Every parameter from a NumPy stream seeded by its structural name."""
    for name, param in sorted(net._collect_params_with_prefix().items()):
        z = np.random.RandomState(zlib.crc32(name.encode())).standard_normal(param.shape)
        param.set_data(mx.nd.array((0.4 * z).astype(np.float32)))


def make(mx: Any, ctor: str, x: Any, layer: bool) -> Any:
    """Case ``ctor``, built in a fresh name scope, initialized by a first pass over ``x``, its
    parameters then :func:`fill`-ed."""
    with mx.name.NameManager():
        net = eval(ctor, {"rnn": mx.gluon.rnn, "stack": lambda cells: stack(mx, cells)})
    net.initialize()
    if layer:
        net(x, net.begin_state(batch(net, x, layer)))
    else:
        net.unroll(3, x, merge_outputs=True)
    fill(mx, net)
    return net


def batch(net: Any, x: Any, layer: bool) -> int:
    return x.shape[1] if layer and net._layout == "TNC" else x.shape[0]


def forward(mx: Any, net: Any, x: Any, layer: bool, valid: Any, train: bool) -> tuple:
    """One pass (layers: ``layer(x, states)`` from states of 0.1; cells: ``unroll`` with
    ``merge_outputs=True`` and ``valid``), under autograd and followed by the backward of the
    outputs' and states' sum of squares when ``train``: the outputs and the states."""
    with mx.autograd.record() if train else contextlib.nullcontext():
        if layer:
            out, states = net(x, [s + 0.1 for s in net.begin_state(batch(net, x, layer))])
        else:
            out, states = net.unroll(3, x, merge_outputs=True, valid_length=valid)
        loss = (out * out).sum() + sum((s * s).sum() for s in states)
    if train:
        loss.backward()
    return out, states


def runs(mx: Any, net: Any, x: Any, ctor: str, layer: bool) -> tuple[dict, dict]:
    """The passes of a case through :func:`forward` (``x`` takes a gradient): ``plain`` and,
    for cells, ``valid`` (``valid_length`` [2, 3]); no backward with a projection (MXNet has
    none on CPU). Returns ``<run>:dx``, ``<run>:out``, ``<run>:state<i>`` (NumPy) and the
    number of states of each run."""
    x.attach_grad()
    arrays, rows = {}, {}
    for tag, valid in [("plain", None)] if layer else [("plain", None), ("valid", [2, 3])]:
        train = "projection" not in ctor
        out, states = forward(mx, net, x, layer, None if valid is None else mx.nd.array(valid),
                              train)  # fmt: skip
        arrays.update({f"{tag}:dx": x.grad.asnumpy()} if train else {})
        arrays[f"{tag}:out"] = out.asnumpy()
        arrays.update({f"{tag}:state{i}": s.asnumpy() for i, s in enumerate(states)})
        rows[tag] = len(states)
    return arrays, rows
