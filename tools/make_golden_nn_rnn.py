"""Record golden values of the fused RNN operator from real MXNet 1.9.1.

Run under real MXNet: /tmp/mxref/bin/python tools/make_golden_nn_rnn.py
Writes tests/operator/golden/nn_rnn.npz (inputs, forward outputs, input gradients) and
nn_rnn.json (the case list with parameters).
"""

import json
from pathlib import Path

import mxnet as mx
import numpy as np

OUT = Path(__file__).resolve().parent.parent / "tests" / "operator" / "golden"

# (name, params, (T, N, I), dtype)
CASES = [
    ("lstm_1", dict(mode="lstm", state_size=4, num_layers=1, state_outputs=True), (3, 2, 3)),
    ("gru_1", dict(mode="gru", state_size=4, num_layers=1, state_outputs=True), (3, 2, 3)),
    ("tanh_1", dict(mode="rnn_tanh", state_size=4, num_layers=1, state_outputs=True), (3, 2, 3)),
    ("relu_1", dict(mode="rnn_relu", state_size=4, num_layers=1, state_outputs=True), (3, 2, 3)),
    (
        "lstm_2bi",
        dict(mode="lstm", state_size=3, num_layers=2, bidirectional=True, state_outputs=True),
        (4, 2, 5),
    ),
    (
        "gru_2bi",
        dict(mode="gru", state_size=3, num_layers=2, bidirectional=True, state_outputs=True),
        (4, 2, 5),
    ),
    (
        "tanh_2bi",
        dict(mode="rnn_tanh", state_size=3, num_layers=2, bidirectional=True, state_outputs=True),
        (4, 2, 5),
    ),
    ("relu_2", dict(mode="rnn_relu", state_size=3, num_layers=2, state_outputs=True), (4, 2, 5)),
    ("lstm_nostate", dict(mode="lstm", state_size=5, num_layers=2), (3, 3, 2)),
    ("gru_nostate_bi", dict(mode="gru", state_size=5, num_layers=1, bidirectional=True), (3, 3, 2)),
    (
        "lstm_3bi",
        dict(mode="lstm", state_size=2, num_layers=3, bidirectional=True, state_outputs=True),
        (2, 1, 2),
    ),
]
DTYPES = {"gru_1": "float64", "lstm_2bi": "float64"}


def main() -> None:
    arrays = {}
    meta = []
    for name, params, shape in CASES:
        dtype = DTYPES.get(name, "float32")
        rng = np.random.default_rng(len(meta) + 7)
        sym = mx.sym.RNN(mx.sym.var("data"), name="rnn", **params)
        arg_shapes, out_shapes, _ = sym.infer_shape(data=shape)
        ins = [mx.nd.array(rng.uniform(-1, 1, s), dtype=dtype) for s in arg_shapes]
        for x in ins:
            x.attach_grad()
        with mx.autograd.record(train_mode=True):
            outs = mx.nd.RNN(*ins, **params)
        outs = outs if isinstance(outs, list) else [outs]
        heads = [mx.nd.array(rng.standard_normal(o.shape), dtype=dtype) for o in outs]
        mx.autograd.backward(outs, heads)
        for i, x in enumerate(ins):
            arrays[f"{name}/in{i}"] = x.asnumpy()
            arrays[f"{name}/grad{i}"] = x.grad.asnumpy()
        for i, (o, h) in enumerate(zip(outs, heads)):
            arrays[f"{name}/out{i}"] = o.asnumpy()
            arrays[f"{name}/head{i}"] = h.asnumpy()
        meta.append(
            {"name": name, "params": params, "n_in": len(ins), "n_out": len(outs), "dtype": dtype}
        )
    OUT.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT / "nn_rnn.npz", **arrays)
    (OUT / "nn_rnn.json").write_text(json.dumps(meta, indent=1) + "\n")


if __name__ == "__main__":
    main()
