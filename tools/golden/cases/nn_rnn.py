"""The fused RNN operator (tests/operator/test_nn_rnn.py): case ``k`` draws its inputs (shapes
from MXNet's shape inference) and its standard normal head gradients from a generator seeded
k + 7."""

import mxnet as mx
import numpy as np

FILE = "tests/operator/golden/nn_rnn.npz"


def rnn(mode: str, size: int, layers: int, bi: bool = False, states: bool = True) -> dict:
    """RNN's params: the state outputs unless ``states`` is False."""
    params = dict(mode=mode, state_size=size, num_layers=layers)
    return {**params, **({"bidirectional": True} if bi else {}),
            **({"state_outputs": True} if states else {})}  # fmt: skip


# (name, params, (T, N, I)); the dtype is float32 unless DTYPES says otherwise
CASES = [
    ("lstm_1", rnn("lstm", 4, 1), (3, 2, 3)),
    ("gru_1", rnn("gru", 4, 1), (3, 2, 3)),
    ("tanh_1", rnn("rnn_tanh", 4, 1), (3, 2, 3)),
    ("relu_1", rnn("rnn_relu", 4, 1), (3, 2, 3)),
    ("lstm_2bi", rnn("lstm", 3, 2, bi=True), (4, 2, 5)),
    ("gru_2bi", rnn("gru", 3, 2, bi=True), (4, 2, 5)),
    ("tanh_2bi", rnn("rnn_tanh", 3, 2, bi=True), (4, 2, 5)),
    ("relu_2", rnn("rnn_relu", 3, 2), (4, 2, 5)),
    ("lstm_nostate", rnn("lstm", 5, 2, states=False), (3, 3, 2)),
    ("gru_nostate_bi", rnn("gru", 5, 1, bi=True, states=False), (3, 3, 2)),
    ("lstm_3bi", rnn("lstm", 2, 3, bi=True), (2, 1, 2)),
]
DTYPES = {"gru_1": "float64", "lstm_2bi": "float64"}


def cases(rng: np.random.Generator):
    for k, (name, params, shape) in enumerate(CASES):
        dtype = DTYPES.get(name, "float32")
        rng = np.random.default_rng(k + 7)
        sym = mx.sym.RNN(mx.sym.var("data"), name="rnn", **params)
        arg_shapes = sym.infer_shape(data=shape)[0]
        ins = [rng.uniform(-1, 1, s).astype(dtype) for s in arg_shapes]
        yield name, "RNN", ins, params, {"head": "normal", "head_rng": rng, "dtype": dtype}
