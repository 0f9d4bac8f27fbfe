"""The mx.np/mx.npx functions of mxlite/numpy/functions_more.py and their companions
(tests/numpy/test_golden_more.py; the cases of tests/numpy/numpy_more_cases.py): case ``c<k>``
holds expression ``k``'s ``expr``, whether it gave several arrays (``many``), and per array
``j`` its ``dtypes``/``shapes`` entries and ``value<j>``; case ``g<k>`` gradient case ``k``'s
``expr``, its head ``y`` and the ``grad`` of ``x``."""

from __future__ import annotations

from typing import Any

import mxnet as mx
from core import load_module

FILE = "tests/numpy/golden/numpy_more_cases.npz"
SEED = 0


def record(golden: Any) -> None:
    c = load_module("tests/numpy/numpy_more_cases.py")
    mx.npx.set_np()
    env = c.context(mx)
    for k, expr in enumerate(c.CASES):
        res = eval(expr, dict(env))
        arrays = c.parts(res)
        meta = {"expr": expr, "many": isinstance(res, (list, tuple)),
                "dtypes": [str(a.dtype) for a in arrays],
                "shapes": [list(a.shape) for a in arrays]}  # fmt: skip
        golden.put(f"c{k}", meta, **{f"value{j}": a.asnumpy() for j, a in enumerate(arrays)})
    for k, (expr, value) in enumerate(c.GRADS):
        y, x = c.gradient(mx, k)
        golden.put(f"g{k}", {"expr": expr, "x": value}, y=y.asnumpy(), grad=x.grad.asnumpy())
