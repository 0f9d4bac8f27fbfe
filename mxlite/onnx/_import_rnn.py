"""Import of ONNX's LSTM, GRU and RNN nodes as mxlite's fused ``RNN`` (one layer each); the
gate orders and the flat parameter layout are the export's (translations/rnn.py) reversed."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._importer import Importer, _importer

_GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
# MXNet gate g is ONNX gate _FROM[op][g]
_FROM = {"LSTM": [0, 2, 3, 1], "GRU": [1, 0, 2], "RNN": [0]}


def _mx_order(a: np.ndarray, op: str, hidden: int) -> np.ndarray:
    blocks = [a[g * hidden : (g + 1) * hidden] for g in range(_GATES[op])]
    return np.concatenate([blocks[j] for j in _FROM[op]], axis=0)


@_importer("LSTM", "GRU", "RNN")
def _recurrent(im: Importer) -> Any:
    op = im.node.op_type
    ins = list(im.node.input) + [""] * (8 - len(im.node.input))
    if im.attr("layout", 0) != 0:
        raise im.fail("layout=1 (batch first) is not supported.")
    if ins[4] or (op == "LSTM" and ins[7]):
        raise im.fail("sequence_lens and peepholes have no MXNet equivalent.")
    if im.attr("clip") is not None or im.attr("input_forget", 0):
        raise im.fail("clip and input_forget have no MXNet equivalent.")
    hidden = im.attr("hidden_size")
    dirs = 2 if im.attr("direction", "forward") == "bidirectional" else 1
    if im.attr("direction", "forward") == "reverse":
        raise im.fail("direction='reverse' has no MXNet equivalent.")
    mode = {"LSTM": "lstm", "GRU": "gru"}.get(op)
    acts = [a.decode() if isinstance(a, bytes) else a for a in im.attr("activations", [])]
    if op == "RNN":
        mode = "rnn_relu" if acts and acts[0] == "Relu" else "rnn_tanh"
    elif acts:
        raise im.fail("custom activations have no MXNet equivalent.")
    if op == "GRU" and not im.attr("linear_before_reset", 0):
        raise im.fail("linear_before_reset=0 differs from MXNet's GRU.")
    w, r = im.const(1), im.const(2)
    gh = _GATES[op] * hidden
    b = im.const(3, np.zeros((dirs, 2 * gh), w.dtype))
    weights = []
    for d in range(dirs):
        weights += [_mx_order(w[d], op, hidden).ravel(), _mx_order(r[d], op, hidden).ravel()]
    for d in range(dirs):
        weights += [_mx_order(b[d, :gh], op, hidden), _mx_order(b[d, gh:], op, hidden)]
    pname = im.name("_parameters")
    im.consts[pname] = np.concatenate(weights).astype(w.dtype)
    states = []
    for k in (5, 6) if op == "LSTM" else (5,):
        if ins[k]:
            states.append(im.x(k))
            continue
        shape = im.shape(0)
        if shape is None or shape[1] is None:
            raise im.fail("a missing initial state needs a static batch size.")
        states.append(im.sym.zeros(shape=(dirs, shape[1], hidden), name=im.name(f"_init{k}")))
    y = im.sym.RNN(
        im.x(0), im.get(pname), *states, state_size=hidden, num_layers=1,
        bidirectional=dirs == 2, mode=mode, state_outputs=True, name=im.name("_rnn"),
    )  # fmt: skip
    seq = im.sym.Reshape(y[0], shape=(0, 0, dirs, -1), name=im.name("_y4"))
    out = [im.sym.transpose(seq, axes=(0, 2, 1, 3), name=im.name()), y[1]]
    if op == "LSTM":
        out.append(y[2])
    return out
