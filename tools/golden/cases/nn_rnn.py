"""The fused RNN operator (tests/operator/test_nn_rnn.py): case ``k`` draws its inputs (shapes
from MXNet's shape inference) and its standard normal head gradients from a generator seeded
k + 7."""

import mxnet as mx
import numpy as np

FILE = "tests/operator/golden/nn_rnn.npz"

# (name, params, (T, N, I)); the dtype is float32 unless DTYPES says otherwise
# fmt: off
CASES = [
    ("lstm_1", dict(mode="lstm", state_size=4, num_layers=1, state_outputs=True), (3, 2, 3)),
    ("gru_1", dict(mode="gru", state_size=4, num_layers=1, state_outputs=True), (3, 2, 3)),
    ("tanh_1", dict(mode="rnn_tanh", state_size=4, num_layers=1, state_outputs=True), (3, 2, 3)),
    ("relu_1", dict(mode="rnn_relu", state_size=4, num_layers=1, state_outputs=True), (3, 2, 3)),
    ("lstm_2bi",
     dict(mode="lstm", state_size=3, num_layers=2, bidirectional=True, state_outputs=True),
     (4, 2, 5)),
    ("gru_2bi",
     dict(mode="gru", state_size=3, num_layers=2, bidirectional=True, state_outputs=True),
     (4, 2, 5)),
    ("tanh_2bi",
     dict(mode="rnn_tanh", state_size=3, num_layers=2, bidirectional=True, state_outputs=True),
     (4, 2, 5)),
    ("relu_2", dict(mode="rnn_relu", state_size=3, num_layers=2, state_outputs=True), (4, 2, 5)),
    ("lstm_nostate", dict(mode="lstm", state_size=5, num_layers=2), (3, 3, 2)),
    ("gru_nostate_bi", dict(mode="gru", state_size=5, num_layers=1, bidirectional=True), (3, 3, 2)),
    ("lstm_3bi",
     dict(mode="lstm", state_size=2, num_layers=3, bidirectional=True, state_outputs=True),
     (2, 1, 2)),
]
# fmt: on
DTYPES = {"gru_1": "float64", "lstm_2bi": "float64"}


def cases(rng: np.random.Generator):
    for k, (name, params, shape) in enumerate(CASES):
        dtype = DTYPES.get(name, "float32")
        rng = np.random.default_rng(k + 7)
        sym = mx.sym.RNN(mx.sym.var("data"), name="rnn", **params)
        arg_shapes = sym.infer_shape(data=shape)[0]
        ins = [rng.uniform(-1, 1, s).astype(dtype) for s in arg_shapes]
        yield name, "RNN", ins, params, {"head": "normal", "head_rng": rng, "dtype": dtype}
