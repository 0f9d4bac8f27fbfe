"""mx.np operators run imperatively and inside a hybridized HybridBlock (``F`` = ``mx.sym``),
evaluated the same way on MXNet 1.9.1 and on mxlite: ``tools/golden/cases/numpy_ops.py``
records MXNet's values, dtypes, shapes, gradients, the exceptions it raises for arguments it
refuses (the exception's class) and the JSON of a few symbols; ``test_ops_golden.py`` compares.
:data:`CONTEXT` is Python both sides execute (:func:`context`): the input arrays and ``run``,
which evaluates an expression over ``F`` and the named inputs in a HybridBlock (hybridized or
not) under autograd."""

from __future__ import annotations

from typing import Any

import numpy as onp

CONTEXT = """
r = onp.random.RandomState(3)
ARRAYS = {
    'f': np.array([[0.5, -1.5, 2.25], [3.0, -0.75, 1.0]]),
    'g': np.array([[2.0, 0.5, -1.25]]),
    'i': np.array([[7, -3, 9], [4, 5, -8]], dtype='int32'),
    'j': np.array([[2, 3, 4]], dtype='int32'),
    'h': np.array(r.uniform(0.0, 1.0, (2, 600)), dtype='float16'),
    'p': np.array([[1.0, 1.0], [4e-4, 4e-4], [4e-4, 4e-4], [4e-4, 4e-4], [-1.0, -1.0]],
                  dtype='float16'),
    'x': np.array(r.uniform(-1.0, 1.0, (3, 4)), dtype='float32'),
    'z': np.zeros((2, 0, 3)),
    'e': np.zeros((0,)),
    's': np.array(2.5),
    'a': np.arange(6.0),
    'm': np.array([1.0, 2.0]),
    'c': np.array([[2.0, 0.5], [0.5, 1.0]]),
}


class Fn(gluon.HybridBlock):
    def __init__(self, expr, names):
        super().__init__()
        self._expr = expr
        self._names = names

    def hybrid_forward(self, F, *args):
        return eval(self._expr, {'F': F, 'onp': onp, **dict(zip(self._names, args))})


def run(expr, names, hybrid, wrt=()):
    args = [ARRAYS[n].copy() for n in names]
    for k in wrt:
        args[k].attach_grad()
    block = Fn(expr, names)
    if hybrid:
        block.hybridize()
    with mx.autograd.record():
        out = block(*args)
    if wrt:
        out.backward()
    return out, [args[k].grad for k in wrt]
"""

# (expression over F and the inputs, input names): values, dtypes and shapes
VALUES = [
    ("F.np.remainder(f, g)", "fg"), ("F.np.remainder(i, j)", "ij"), ("F.np.mod(i, 4)", "i"),
    ("F.np.sum(h, axis=1)", "h"), ("F.np.sum(h, axis=1, dtype='float16')", "h"),
    ("F.np.mean(h, axis=1)", "h"), ("F.np.sum(p, axis=0)", "p"), ("p.mean(axis=0)", "p"),
    ("h.mean(axis=1, dtype='float32')", "h"),
    ("x.mean(axis=0, dtype='float16')", "x"), ("F.np.sum(x, axis=1, dtype='int32')", "x"),
    ("x.var(axis=0, ddof=1)", "x"), ("x.std(axis=1, dtype='float64')", "x"),
    ("x.cumsum(axis=1)", "x"), ("x.cumsum()", "x"), ("x.argmax(1)", "x"), ("x.argmin()", "x"),
    ("x.argsort()", "x"), ("F.np.sort(x, axis=None)", "x"), ("F.np.sort(x, axis=0)", "x"),
    ("x.clip(-0.25, None)", "x"), ("x.clip(None, 0.5)", "x"), ("x.round(1)", "x"),
    ("F.np.sort(z, axis=1)", "z"), ("F.np.argsort(z)", "z"), ("F.np.sort(e)", "e"),
    ("F.np.cumsum(z, axis=2)", "z"), ("F.np.cumsum(e)", "e"), ("s.argmax(0)", "s"),
    ("s.argmin(-1)", "s"), ("F.np.argmax(z, 0)", "z"), ("F.np.percentile(x, a[2], axis=1)", "xa"),
    ("F.np.percentile(x, 30.0, axis=0, interpolation='lower')", "x"),
]  # fmt: skip

# (expression, inputs, positions of the inputs to differentiate); the head is all ones
GRADS = [
    ("F.np.mod(i, j)", "ij", (0, 1)), ("F.np.remainder(f, g)", "fg", (0, 1)),
    ("F.np.mod(i, 4)", "i", (0,)), ("i.mean(axis=1)", "i", (0,)),
    ("x.mean(axis=0, dtype='float16')", "x", (0,)), ("F.np.sum(h, axis=0)", "h", (0,)),
    ("x.cumsum(axis=0)", "x", (0,)),
    ("F.np.sort(x, axis=1)", "x", (0,)), ("x.clip(-0.25, 0.5)", "x", (0,)),
]  # fmt: skip

# random draws (expression, inputs): the shape and dtype only
SHAPES = [
    ("F.np.random.choice(a, size=4, replace=False)", "a"),
    ("F.np.random.choice(a, size=(2, 2), replace=True, p=a / 15)", "a"),
    ("F.np.random.multivariate_normal(m, c, (2, 3))", "mc"),
    ("F.np.random.multivariate_normal(m, c)", "mc"),
    ("F.np.random.exponential(a)", "a"), ("F.np.random.lognormal(m, m, (4, 2))", "m"),
]  # fmt: skip

# imperative expressions over np/npx and the arrays: the class of the exception MXNet raises
ERRORS = [
    "np.add(f, g, where=False)", "np.add(f, g, subok=False)", "np.add(f, g, dtype=onp.int8)",
    "np.add(f, g, dtype='abcdefg')", "np.add(f, g, casting='safe')",
    "np.add(f, g, casting='mxnet')", "np.add(f, g, order='C')", "np.add(f, g, order='mxnet')",
    "np.add(f, g, foo=1)", "np.exp(f, where=False)", "np.exp(f, dtype='float32')",
    "np.exp(f, dtype='float')", "np.exp(f, casting='no')", "np.sqrt(f, subok=1)",
    "np.isnan(f, out=np.zeros((2, 3)))", "np.isinf(f, out=np.zeros((2, 3), dtype='int32'))",
    "np.random.exponential(scale=-1).asnumpy()", "np.random.lognormal(sigma=-1).asnumpy()",
    "np.random.normal(0, np.array([1.0, -1.0])).asnumpy()",
    "np.random.exponential(np.array([-2.0])).asnumpy()", "np.random.gumbel(0, -1).asnumpy()",
    "np.random.logistic(0, np.array([-1.0])).asnumpy()", "np.random.rayleigh(-1).asnumpy()",
    "np.random.multinomial(10, np.array([0.75, 0.5])).asnumpy()",
    "np.random.multinomial(10, [0.75, 0.5]).asnumpy()", "f.argmax(2)", "s.argmax(1)",
]  # fmt: skip

# expressions whose result is not an mx.np array: (expression, what to keep)
OTHERS = [
    "np.clip(0.7, None, 0.5)", "np.clip(3, 0, 2)", "np.add(f, g, where=True).shape",
    "np.exp(f, dtype=None, casting='same_kind', order='K', subok=True).shape",
    "[x.shape for x in np.nonzero(np.array(3.0))]", "[x.shape for x in np.nonzero(np.array(0))]",
    "np.random.rayleigh(0).item()", "np.random.normal(1.0, 0).item()",
    "int(np.random.multinomial(20, np.array([0.4, 0.3, 0.2, 0.1, 0.0])).sum())",
    "np.random.multinomial(20, [0.1, 0.2], size=(3, 0)).shape",
    "mx.nd.np._internal.resize_fallback(a, new_shape=(2, 4)).tolist()",
    "mx.nd.np._internal.unravel_index_fallback(np.array([5, 7], dtype='int64'), shape=(2, 4))"
    ".tolist()",
    "mx.nd.np._internal.empty_like_fallback(f, dtype='int32', order='C', subok=False, "
    "shape=None).dtype.name", "mx.nd.np._internal.mvn_fallback(m, c, size=3).shape",
    "mx.nd.Custom(a.as_nd_ndarray(), op_type='resize_fallback', new_shape=(3, 3)).asnumpy()"
    ".tolist()",
    "mx.nd.Custom(np.array([[1, 6], [2, 7]], dtype='int64').as_nd_ndarray(), "
    "op_type='unravel_index_fallback', shape=(2, 4)).asnumpy().tolist()",
    "mx.nd.Custom(f.as_nd_ndarray(), op_type='empty_like_fallback', dtype='float64', order='C', "
    "subok=False, shape=None).shape",
    "mx.nd.Custom(m.as_nd_ndarray(), c.as_nd_ndarray(), op_type='mvn_fallback', size=(4,)).shape",
]  # fmt: skip

# symbols whose JSON MXNet writes: (expression over mx, building the symbol)
SYMBOLS = [
    "mx.sym.np.random.multivariate_normal(mx.sym.var('m').as_np_ndarray(), "
    "mx.sym.var('c').as_np_ndarray(), size=(3,))",
    "mx.sym.np.random.choice(mx.sym.var('a').as_np_ndarray(), size=2, replace=False)",
    "mx.sym.var('x').as_np_ndarray().var(axis=1, ddof=1)",
    "mx.sym.np.remainder(mx.sym.var('x').as_np_ndarray(), 3)",
    "mx.sym.Custom(mx.sym.var('a'), op_type='resize_fallback', new_shape=(2, 4))",
]


def context(mx: Any) -> dict:
    """The names the expressions use, over ``mx`` (mxnet or mxlite, in NumPy mode)."""
    scope = {"mx": mx, "gluon": mx.gluon, "np": mx.np, "npx": mx.npx, "onp": onp}
    exec(CONTEXT, scope)
    return scope
