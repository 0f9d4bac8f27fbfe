"""mx.np expressions and gradients, evaluated from the cases modules of tests/numpy:

- this file (tests/numpy/test_golden.py; tests/numpy/numpy_cases.py): case ``c<k>`` holds
  expression ``k``'s ``expr``, ``dtype``, ``shape`` and ``repr`` and its ``value``. Beside it:
  ``mxnet_npx_save.params`` (``npx.save`` of a few arrays) and ``mxnet_np_array.pickle``
  (``pickle.dumps`` of an ``mx.np.ndarray``);
- ``numpy_more_cases.npz`` (tests/numpy/test_golden_more.py; tests/numpy/numpy_more_cases.py,
  the functions of mxlite/numpy/functions_more.py): case ``c<k>`` holds ``expr``, whether it
  gave several arrays (``many``), and per array ``j`` its ``dtypes``/``shapes`` entries and
  ``value<j>``.

In both, case ``g<k>`` holds gradient case ``k``'s ``expr``, its head ``y`` and the ``grad`` of
``x``."""

import pickle
from typing import Any

import mxnet as mx
from core import Golden, load_module

FILE = "tests/numpy/golden/numpy_cases.npz"


def record_grads(golden: Golden, c: Any) -> None:
    for k, (expr, value) in enumerate(c.GRADS):
        y, x = c.gradient(mx, k)
        golden.put(f"g{k}", {"expr": expr, "x": value}, y=y.asnumpy(), grad=x.grad.asnumpy())


def record(golden: Golden) -> None:
    c = load_module("tests/numpy/numpy_cases.py")
    np = mx.np
    mx.npx.set_np()
    env = c.context(mx)
    for k, expr in enumerate(c.CASES):
        res = eval(expr, dict(env))
        meta = {"expr": expr, "dtype": str(res.dtype), "shape": list(res.shape), "repr": repr(res)}
        golden.put(f"c{k}", meta, value=res.asnumpy())
    record_grads(golden, c)
    out = golden.path.parent
    mx.npx.save(str(out / "mxnet_npx_save.params"),
                {"a": np.array([1.0, 2.0]), "s": np.array(3.0), "z": np.zeros((0, 2)),
                 "i": np.array([1, 2], dtype="int64")})  # fmt: skip
    (out / "mxnet_np_array.pickle").write_bytes(pickle.dumps(np.array([1.0, 2.0])))
    more = Golden("tests/numpy/golden/numpy_more_cases.npz", 0)
    c = load_module("tests/numpy/numpy_more_cases.py")
    env = c.context(mx)
    for k, expr in enumerate(c.CASES):
        res = eval(expr, dict(env))
        arrays = c.parts(res)
        meta = {"expr": expr, "many": isinstance(res, (list, tuple))}
        meta.update(dtypes=[str(a.dtype) for a in arrays], shapes=[list(a.shape) for a in arrays])
        more.put(f"c{k}", meta, **{f"value{j}": a.asnumpy() for j, a in enumerate(arrays)})
    record_grads(more, c)
    more.save()
