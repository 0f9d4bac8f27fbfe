"""Golden files for tests/kvstore, made by real MXNet 1.9.1 (run with /tmp/mxref/bin/python).

- ``kvstore.npz``: a 'device' store with 2-bit compression (threshold 0.5) on two CPU
  contexts, pushed three times; the pulled values after each push.
- ``kvstore_adam.states``: the optimizer states of a 'local' store with Adam after three
  pushes of two keys, as ``save_optimizer_states`` writes them; ``kvstore.npz`` also holds the
  weights after those pushes (``adam_w*``) and after three more from the loaded states
  (``adam_more_w*``).
"""

from __future__ import annotations

import os
import sys

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "kvstore", "golden")
SHAPE = (5, 7)


def grads(step: int, dev: int) -> np.ndarray:
    """Deterministic gradients: a ramp that differs per step and device."""
    x = np.arange(np.prod(SHAPE), dtype=np.float32).reshape(SHAPE)
    return np.sin(x * 0.37 + step * 1.3 + dev * 0.7).astype(np.float32) * 0.9


def adam_store() -> mx.kv.KVStore:
    kv = mx.kv.create("local")
    kv.set_optimizer(mx.optimizer.Adam(learning_rate=0.1, wd=0.01))
    kv.init(["w0", "w1"], [mx.nd.ones(SHAPE), mx.nd.ones(SHAPE) * 2])
    return kv


def push_adam(kv: mx.kv.KVStore, steps: range) -> list:
    out = [mx.nd.zeros(SHAPE), mx.nd.zeros(SHAPE)]
    for s in steps:
        kv.push(["w0", "w1"], [mx.nd.array(grads(s, 0)), mx.nd.array(grads(s, 1))])
    kv.pull(["w0", "w1"], out=out)
    return [o.asnumpy() for o in out]


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    res = {}
    kv = mx.kv.create("device")
    kv.set_gradient_compression({"type": "2bit", "threshold": 0.5})
    kv.init(9, mx.nd.zeros(SHAPE))
    ctxs = [mx.cpu(0), mx.cpu(1)]
    for s in range(3):
        kv.push(9, [mx.nd.array(grads(s, d), ctx=c) for d, c in enumerate(ctxs)])
        out = mx.nd.zeros(SHAPE)
        kv.pull(9, out=out)
        res[f"compressed_{s}"] = out.asnumpy()
    kv = adam_store()
    res["adam_w0"], res["adam_w1"] = push_adam(kv, range(3))
    states = os.path.join(OUT, "kvstore_adam.states")
    kv.save_optimizer_states(states)
    # a new store, from the weights the first one reached, continues from the loaded states
    kv2 = mx.kv.create("local")
    kv2.set_optimizer(mx.optimizer.Adam(learning_rate=0.1, wd=0.01))
    kv2.init(["w0", "w1"], [mx.nd.array(res["adam_w0"]), mx.nd.array(res["adam_w1"])])
    kv2.load_optimizer_states(states)
    res["adam_more_w0"], res["adam_more_w1"] = push_adam(kv2, range(3, 6))
    np.savez(os.path.join(OUT, "kvstore.npz"), **res)
    print("wrote", sorted(res), file=sys.stderr)


if __name__ == "__main__":
    main()
