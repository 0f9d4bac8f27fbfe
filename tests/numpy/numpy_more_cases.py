"""The mx.np/mx.npx functions of numpy/functions_more.py and their companions (insert, delete,
unique, nonzero, pad, ediff1d, histogram, the windows, ...) at the edges (zero-dim, zero-size,
int/bool dtypes), and gradients of zero-dim heads, evaluated the same way on MXNet 1.9.1 and on
mxlite (``mx`` is either): ``tools/golden/cases/numpy_exprs.py`` records MXNet's values, dtypes
and shapes, ``test_golden_more.py`` compares. Each case is a Python expression over the names
that :data:`CONTEXT` defines, giving one array or a list/tuple of them.
(MXNet 1.9.1 fails on some calls NumPy answers, left out here: a scalar inserted along an axis
of a 2-D array, a pad_width of one pair for a 1-D array.)"""

from __future__ import annotations

from typing import Any

import numpy as onp

CONTEXT = """
f = np.array([[1., 2., 2.], [3., 1., 0.]])
i = np.array([[1, 2, 2], [3, 1, 0]], dtype='int32')
v = np.array([3., 1., 2., 3.])
z = np.zeros((0, 3))
s = np.array(2.0)
b = np.array([True, True], dtype=bool)
"""

CASES = [
    "np.insert(i, 1, 5)", "np.insert(v, 1, 7.5)", "np.insert(v, -1, 7.5, axis=0)",
    "np.insert(f, slice(0, 2), np.array([[9.], [8.]]), axis=1)",
    "np.insert(v, np.array([0, 2], dtype='int64'), np.array([7., 8.]))",
    "np.insert(f, np.array([1], dtype='int64'), np.array([5., 6., 7.]), axis=0)",
    "np.insert(i, 0, np.array([9, 8, 7], dtype='int32'), axis=0)",
    "np.insert(z, 0, np.array([1., 2., 3.]), axis=0)",
    "np.insert(s, 0, 4.0)",
    "np.delete(f, 1)", "np.delete(f, 1, axis=1)", "np.delete(f, slice(0, 3, 2), axis=1)",
    "np.delete(v, np.array([0, 2, 7]))", "np.delete(i, -1, axis=0)", "np.delete(z, 1, axis=1)",
    "np.delete(v, np.array([-1, 1], dtype='int64'))",
    "np.unique(v)", "np.unique(i, True, False, True)", "np.unique(f, axis=0)",
    "np.unique(f, False, True, False, axis=1)", "np.unique(z)", "np.unique(s)",
    "np.unique(np.array([2, 2, 1], dtype='int8'), True, False, True)",
    "npx.nonzero(f)", "npx.nonzero(s)", "npx.nonzero(z)", "npx.nonzero(b)", "npx.nonzero(i)",
    "np.diag_indices_from(np.ones((3, 3)))", "np.diag_indices_from(np.ones((2, 2, 2)))",
    "np.unravel_index(i, (2, 3))", "np.unravel_index(np.array([5, 7], dtype='int64'), (3, 4))",
    "np.unravel_index(np.array([[3]], dtype='uint8'), 10)",
    "np.ediff1d(v)", "np.ediff1d(f, to_begin=np.array([1., 2.]), to_end=np.array([9.]))",
    "np.ediff1d(v, to_begin=-1, to_end=5)", "np.ediff1d(z)", "np.ediff1d(i)", "np.ediff1d(s)",
    "np.ediff1d(v, to_end=np.array([[1., 2.]]))",
    "np.histogram(f, bins=3, range=(0, 3))", "np.histogram(f, bins=np.array([0., 0.5, 2., 4.]))",
    "np.histogram(z, bins=2, range=(0, 1))", "np.histogram(i, bins=3, range=(0, 3))",
    "np.histogram(s, bins=4, range=(0, 4))",
    "np.pad(f, ((1, 0), (2, 1)))", "np.pad(i, ((1, 1), (1, 1)), mode='edge')",
    "np.pad(f, ((2, 1), (1, 2)), mode='reflect')", "np.pad(f, ((1, 1), (2, 2)), mode='symmetric')",
    "np.pad(f, ((1, 2), (0, 1)), mode='maximum')", "np.pad(f, ((2, 1), (1, 1)), mode='minimum')",
    "np.pad(i, ((0, 1), (1, 0)), mode='maximum')",
    "np.resize(f, (3, 4))", "np.resize(i, 4)", "np.resize(s, (2, 2))", "np.resize(z, (2, 2))",
    "np.resize(v, ())",
    "np.sometrue(b)", "np.sometrue(f, axis=0)", "np.sometrue(z)",
    "np.indices((2, 3))", "np.indices((2, 0), dtype='float32')", "np.indices((3,), dtype='int64')",
    "np.logspace(0, 2, 5)", "np.logspace(1, 3, 4, endpoint=False, base=2.0, dtype='float64')",
    "np.logspace(0, 1, 0)", "np.logspace(2, 0, 3, base=3)",
    "np.hanning(5)", "np.hamming(6, dtype='float64')", "np.blackman(1)", "np.blackman(-2)",
    "np.hanning(0)", "np.blackman(7)",
    "np.broadcast_arrays(v, np.ones((2, 1)))", "np.broadcast_arrays(s, z)",
    "np.broadcast_arrays(v, v)", "np.meshgrid(v, np.array([1., 2.]))",
    "np.meshgrid(v, np.array([1., 2.]), indexing='ij')", "np.meshgrid(v)",
    "npx.erf(v)", "npx.erfinv(v / 4)", "npx.gamma(v)", "npx.gammaln(v)", "npx.erf(s)",
    "npx.gamma(z)", "npx.constraint_check(b, 'msg')",
]  # fmt: skip

# (expression computing a zero-dim head from x, x's value)
GRADS = [
    ("(np.pad(x.reshape(1, 3), ((0, 1), (1, 2))) * np.arange(12.0).reshape(2, 6)).sum()",
     [1.0, 2.0, 3.0]),
    ("(np.pad(x.reshape(2, 2), ((1, 0), (0, 1)), mode='constant') * np.arange(9.0)"
     ".reshape(3, 3)).sum()", [1.0, 2.0, 3.0, 4.0]),
    ("(np.ediff1d(x, to_begin=np.array([1.0]), to_end=2) * np.array([1., 2., 3., 4.])).sum()",
     [1.0, 4.0, 2.0]),
    ("(np.ediff1d(x.reshape(2, 2)) * np.array([1., -2., 3.])).sum()", [1.0, 4.0, 2.0, 8.0]),
    ("(npx.erf(x) + npx.gamma(x) + npx.gammaln(x)).sum()", [0.5, 1.5]),
    ("npx.erfinv(x).sum()", [0.1, -0.3]),
]  # fmt: skip


def context(mx: Any) -> dict:
    """The names the expressions read: ``np``, ``npx``, ``onp`` and those of :data:`CONTEXT`."""
    env = {"np": mx.np, "npx": mx.npx, "onp": onp}
    exec(CONTEXT, env)
    return env


def parts(res: Any) -> list:
    """An expression's arrays: the list or tuple it gave, or the one array."""
    return list(res) if isinstance(res, (list, tuple)) else [res]


def gradient(mx: Any, k: int) -> tuple[Any, Any]:
    """Gradient case ``k``: its head ``y`` and ``x`` after ``y.backward()``."""
    expr, value = GRADS[k]
    x = mx.np.array(value)
    x.attach_grad()
    with mx.autograd.record():
        y = eval(expr, {"np": mx.np, "npx": mx.npx, "x": x})
    y.backward()
    return y, x
