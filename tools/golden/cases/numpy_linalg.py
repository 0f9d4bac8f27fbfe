"""mx.np.linalg, mx.np.random and mx.np's NumPy fallbacks (tests/numpy/test_linalg_golden.py;
the expressions of tests/numpy/numpy_linalg_cases.py). Case ``v<k>`` (``table`` linalg or
fallback): the result's ``kind`` and per item its ``dtype`` and ``shape`` (an mx.np array) or
``type``, with the values ``item<j>``, or MXNet's ``error``; case ``g<k>``: the gradients ``gx``
(and ``gy``) of gradient case ``k``, or ``failed`` where MXNet fails on it; case ``r<k>``: a
sampler's ``dtype``, ``shape`` and ``kind``."""

from typing import Any

import mxnet as mx
import numpy as onp
from core import Golden, load_module

FILE = "tests/numpy/golden/numpy_linalg_cases.npz"


def _kind(res: Any) -> str:
    return "ndarray" if isinstance(res, mx.np.ndarray) else type(res).__name__


def record(golden: Golden) -> None:
    c = load_module("tests/numpy/numpy_linalg_cases.py")
    mx.npx.set_np()
    env = c.context(mx)
    for k, expr in enumerate(c.LINALG + c.FALLBACK):
        meta = {"expr": expr, "table": "linalg" if expr in c.LINALG else "fallback"}
        try:
            res = eval(expr, dict(env))
            items = c.flat(res)
            values = [a.asnumpy() if isinstance(a, mx.np.ndarray) else a for a in items]
        except Exception as exc:  # noqa: BLE001  (MXNet refuses it: the test expects a raise)
            golden.put(f"v{k}", {**meta, "error": type(exc).__name__})
            continue
        described = [{"dtype": str(a.dtype), "shape": list(a.shape)}
                     if isinstance(a, mx.np.ndarray) else {"type": type(a).__name__}
                     for a in items]  # fmt: skip
        arrays = {f"item{j}": onp.asarray(v) for j, v in enumerate(values)}
        golden.put(f"v{k}", {**meta, "kind": _kind(res), "items": described}, **arrays)
    for k in range(len(c.GRADS)):
        try:
            x, y = c.gradient(mx, k)
            grads = {"gx": x.grad.asnumpy()}
            grads.update({} if y is None else {"gy": y.grad.asnumpy()})
        except Exception as exc:  # noqa: BLE001  (MXNet fails on it: recorded, not compared)
            golden.put(f"g{k}", {"failed": str(exc).splitlines()[-1][:200]})
            continue
        golden.put(f"g{k}", {}, **grads)
    for k, expr in enumerate(c.RANDOM):
        res = eval(expr, dict(env))
        meta = {"expr": expr, "dtype": str(res.dtype), "shape": list(res.shape), "kind": _kind(res)}
        golden.put(f"r{k}", meta)
