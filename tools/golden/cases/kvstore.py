"""KVStore (tests/kvstore/test_kvstore.py): the entry ``compressed`` holds what a 'device'
store with 2-bit compression (threshold 0.5) on two CPU contexts pulls after each of three
pushes (``<push>``); ``adam`` the weights of a 'local' store with Adam after three pushes of two
keys (``w0``, ``w1``), whose optimizer states go to tests/kvstore/golden/kvstore_adam.states as
``save_optimizer_states`` writes them, and after three more from the loaded states
(``more_w0``, ``more_w1``)."""

from __future__ import annotations

from typing import Any

import mxnet as mx
import numpy as np

FILE = "tests/kvstore/golden/kvstore.npz"
SEED = 0
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


def record(golden: Any) -> None:
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
    states = str(golden.path.parent / "kvstore_adam.states")
    kv.save_optimizer_states(states)
    # a new store, from the weights the first one reached, continues from the loaded states
    kv2 = mx.kv.create("local")
    kv2.set_optimizer(mx.optimizer.Adam(learning_rate=0.1, wd=0.01))
    kv2.init(["w0", "w1"], [mx.nd.array(res["adam_w0"]), mx.nd.array(res["adam_w1"])])
    kv2.load_optimizer_states(states)
    res["adam_more_w0"], res["adam_more_w1"] = push_adam(kv2, range(3, 6))
    golden.put("compressed", {}, **{str(s): res[f"compressed_{s}"] for s in range(3)})
    adam = {k: res[f"adam_{k}"] for k in ("w0", "w1", "more_w0", "more_w1")}
    golden.put("adam", {}, **adam)
