"""mx.gluon.rnn (tests/gluon/rnn/test_rnn.py; helpers in tests/gluon/rnn/rnn_cases.py): per case
``k`` (a constructor evaluated with ``rnn`` in scope, built in a fresh name scope), the
parameter names (``collect_params`` and ``save_parameters``), and, with every parameter filled
from a NumPy stream seeded by its structural name, the outputs, final states and the gradient
of the input of one forward pass (layers: ``layer(x, states)``, no gradient with a projection:
MXNet has none on CPU; cells: ``unroll`` with ``merge_outputs=True``, with and without
``valid_length``).
"""

import mxnet as mx
import numpy as np
from core import Golden, load_module

FILE = "tests/gluon/rnn/golden/rnn.npz"
c = load_module("tests/gluon/rnn/rnn_cases.py")


def record(golden: Golden) -> None:
    for k, (ctor, shape, kind) in enumerate(c.CASES):
        x = mx.nd.array(np.random.RandomState(k).uniform(-1, 1, shape).astype(np.float32))
        net = c.make(mx, ctor, x, kind == "layer")
        arrays, rows = c.runs(mx, net, x, ctor, kind == "layer")
        meta = {"ctor": ctor, "shape": list(shape), "kind": kind, "runs": rows,
                "params": list(net.collect_params().keys()),
                "structural": list(net._collect_params_with_prefix().keys())}  # fmt: skip
        golden.put(str(k), meta, x=x.asnumpy(), **arrays)
