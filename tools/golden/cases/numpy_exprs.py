"""mx.np expressions and gradients (tests/numpy/test_golden.py; the cases of
tests/numpy/numpy_cases.py): case ``c<k>`` holds expression ``k``'s ``expr``, ``dtype``,
``shape`` and ``repr`` and its ``value``; case ``g<k>`` gradient case ``k``'s ``expr``, its head
``y`` and the ``grad`` of ``x``. Beside the file: ``mxnet_npx_save.params`` (``npx.save`` of a
few arrays) and ``mxnet_np_array.pickle`` (``pickle.dumps`` of an ``mx.np.ndarray``)."""

from __future__ import annotations

import pickle
from typing import Any

import mxnet as mx
from core import load_module

FILE = "tests/numpy/golden/numpy_cases.npz"
SEED = 0


def record(golden: Any) -> None:
    c = load_module("tests/numpy/numpy_cases.py")
    np = mx.np
    mx.npx.set_np()
    env = c.context(mx)
    for k, expr in enumerate(c.CASES):
        res = eval(expr, dict(env))
        meta = {"expr": expr, "dtype": str(res.dtype), "shape": list(res.shape), "repr": repr(res)}
        golden.put(f"c{k}", meta, value=res.asnumpy())
    for k, (expr, value) in enumerate(c.GRADS):
        y, x = c.gradient(mx, k)
        golden.put(f"g{k}", {"expr": expr, "x": value}, y=y.asnumpy(), grad=x.grad.asnumpy())
    out = golden.path.parent
    mx.npx.save(str(out / "mxnet_npx_save.params"),
                {"a": np.array([1.0, 2.0]), "s": np.array(3.0), "z": np.zeros((0, 2)),
                 "i": np.array([1, 2], dtype="int64")})  # fmt: skip
    (out / "mxnet_np_array.pickle").write_bytes(pickle.dumps(np.array([1.0, 2.0])))
