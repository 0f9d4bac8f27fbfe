"""Record global Pooling (every pool type, both layouts, 1-D to 3-D) and the gradients of the
slicing operators (slice, slice_axis, slice_like) from real MXNet 1.9.1 into
tests/operator/golden/nn_pool_global.npz, for tests/operator/test_nn_pool.py.

Run under the reference interpreter (never imported by mxlite)::

    /tmp/mxref/bin/python tools/make_golden_pool_global.py [OUT_FILE]

The file has the layout of ``nn_pool.npz`` (see ``make_golden_nn_pool.py``): for case ``i``,
``i_in{j}``, ``i_out0``, ``i_head0``, ``i_grad{j}`` and a JSON ``__cases__`` table. Max-pooling
data has distinct values, so no tie decides a gradient.
"""

from __future__ import annotations

import json
import os
import sys

import mxnet as mx
import numpy as np

OUT = os.path.join(
    os.path.dirname(__file__), "..", "tests", "operator", "golden", "nn_pool_global.npz"
)


def distinct(shape, dtype="float32", seed=0):
    rng = np.random.RandomState(seed)
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) * (4.0 / n) - 2.0).astype(dtype)


def normal(shape, dtype="float32", seed=0):
    return np.random.RandomState(seed).normal(size=shape).astype(dtype)


def positive(shape, dtype="float64", seed=0):
    return (np.abs(normal(shape, dtype, seed)) + 0.25).astype(dtype)


G = {"global_pool": True, "kernel": (1, 1)}
CASES = [
    ("Pooling", [distinct((2, 3, 5, 6))], {**G, "pool_type": "max"}, [0]),
    ("Pooling", [distinct((2, 5, 6, 3))], {**G, "pool_type": "max", "layout": "NHWC"}, [0]),
    ("Pooling", [normal((2, 5, 6, 3))], {**G, "pool_type": "avg", "layout": "NHWC"}, [0]),
    ("Pooling", [normal((2, 3, 5, 6), "float64")], {**G, "pool_type": "sum"}, [0]),
    ("Pooling", [normal((2, 3, 4, 4), "float16")], {**G, "pool_type": "avg"}, [0]),
    ("Pooling", [normal((2, 3, 4, 5), "float64")], {**G, "pool_type": "lp", "p_value": 1}, [0]),
    ("Pooling", [positive((2, 3, 4, 5))], {**G, "pool_type": "lp", "p_value": 2}, [0]),
    ("Pooling", [positive((2, 3, 4, 5))], {**G, "pool_type": "lp", "p_value": 3}, [0]),
    (
        "Pooling",
        [positive((2, 4, 5, 3))],
        {**G, "pool_type": "lp", "p_value": 2, "layout": "NHWC"},
        [0],
    ),
    ("Pooling", [distinct((2, 3, 7))], {"global_pool": True, "kernel": (1,)}, [0]),
    (
        "Pooling",
        [distinct((1, 2, 3, 4, 5))],
        {"global_pool": True, "kernel": (1, 1, 1), "pool_type": "max"},
        [0],
    ),
    (
        "Pooling",
        [normal((1, 3, 4, 5, 2))],
        {"global_pool": True, "kernel": (1, 1, 1), "pool_type": "avg", "layout": "NDHWC"},
        [0],
    ),
    # the slices, whose gradients write straight into the input's gradient
    ("slice", [normal((4, 5, 6))], {"begin": (1, None, 2), "end": (3, None, 6)}, [0]),
    ("slice", [normal((4, 5, 6))], {"begin": (3, 4), "end": (0, 0), "step": (-2, -3)}, [0]),
    ("slice_axis", [normal((4, 5, 6))], {"axis": 1, "begin": 1, "end": -1}, [0]),
    ("slice_like", [normal((4, 5, 6)), normal((2, 3, 6), seed=1)], {}, [0, 1]),
    ("slice_like", [normal((4, 5, 6)), normal((2, 3), seed=1)], {"axes": (0, 1)}, [0]),
]


def main(out: str) -> None:
    arrays: dict[str, np.ndarray] = {}
    table = []
    for i, (op, inputs, params, grads) in enumerate(CASES):
        nds = [mx.nd.array(x, dtype=x.dtype) for x in inputs]
        for j in grads:
            nds[j].attach_grad()
        with mx.autograd.record(train_mode=True):
            y = getattr(mx.nd, op)(*nds, **params)
        head = np.random.RandomState(100 + i).normal(size=y.shape).astype(y.dtype)
        y.backward(mx.nd.array(head, dtype=head.dtype))
        for j, x in enumerate(inputs):
            arrays[f"{i}_in{j}"] = x
        arrays[f"{i}_out0"] = y.asnumpy()
        arrays[f"{i}_head0"] = head
        for j in grads:
            arrays[f"{i}_grad{j}"] = nds[j].grad.asnumpy()
        table.append({"op": op, "params": params, "grad": grads})
    arrays["__cases__"] = np.array(json.dumps(table))
    np.savez_compressed(out, **arrays)
    print(f"wrote {len(table)} cases to {out} ({os.path.getsize(out)} bytes)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else OUT)
