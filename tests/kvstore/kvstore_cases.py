"""KVStore runs, made the same way on MXNet 1.9.1 and on mxlite (``mx`` is either):
``tools/golden/cases/kvstore.py`` records what MXNet's stores pull, ``test_kvstore.py``
compares."""

from __future__ import annotations

from typing import Any

import numpy as np

SHAPE = (5, 7)


def grads(step: int, dev: int) -> np.ndarray:
    """Deterministic gradients: a ramp that differs per step and device."""
    x = np.arange(np.prod(SHAPE), dtype=np.float32).reshape(SHAPE)
    return np.sin(x * 0.37 + step * 1.3 + dev * 0.7).astype(np.float32) * 0.9


def compressed(mx: Any) -> list[np.ndarray]:
    """What a 'device' store with 2-bit compression (threshold 0.5) on two CPU contexts pulls
    after each of three pushes."""
    kv = mx.kv.create("device")
    kv.set_gradient_compression({"type": "2bit", "threshold": 0.5})
    kv.init(9, mx.nd.zeros(SHAPE))
    pulled = []
    for s in range(3):
        kv.push(9, [mx.nd.array(grads(s, d), ctx=mx.cpu(d)) for d in range(2)])
        out = mx.nd.zeros(SHAPE)
        kv.pull(9, out=out)
        pulled.append(out.asnumpy())
    return pulled


def adam_store(mx: Any, w0: np.ndarray, w1: np.ndarray) -> Any:
    """A 'local' store with Adam holding keys ``w0`` and ``w1``."""
    kv = mx.kv.create("local")
    kv.set_optimizer(mx.optimizer.Adam(learning_rate=0.1, wd=0.01))
    kv.init(["w0", "w1"], [mx.nd.array(w0), mx.nd.array(w1)])
    return kv


def push_adam(mx: Any, kv: Any, steps: range) -> list[np.ndarray]:
    """The weights after pushing the gradients of ``steps`` to both keys."""
    for s in steps:
        kv.push(["w0", "w1"], [mx.nd.array(grads(s, 0)), mx.nd.array(grads(s, 1))])
    out = [mx.nd.zeros(SHAPE), mx.nd.zeros(SHAPE)]
    kv.pull(["w0", "w1"], out=out)
    return [o.asnumpy() for o in out]
