"""mx.np.linalg, the shapes and dtypes of mx.np.random's samplers and mx.np's NumPy fallbacks,
as expressions evaluated the same way on MXNet 1.9.1 and on mxlite (``mx`` is either):
``tools/golden/cases/numpy_linalg.py`` records what MXNet gives, ``test_linalg_golden.py``
compares. The expressions read the names that :data:`CONTEXT` defines."""

from __future__ import annotations

from typing import Any

import numpy as onp

CONTEXT = """
A = np.array([[4., 1., 0.5], [1., 3., 0.2], [0.5, 0.2, 2.]])
A3 = np.stack([A, A * 2 + np.eye(3)])
B = np.array([[1., -2., 3.], [4., 5., -6.5]])
C3 = np.arange(24, dtype='float32').reshape(2, 3, 4) - 10
v = np.array([1., -2., 0.5])
M = np.array([[1., 2.], [0., -1.], [3., 1.]])
T = (np.eye(4) + 0.1 * np.arange(16).reshape(4, 4)).reshape(4, 2, 2)
TA = (np.eye(6) + 0.05 * np.arange(36).reshape(6, 6)).reshape(2, 3, 6)
TB = np.array([[1., 2., 3.], [4., 5., 6.]])
f = np.array([3., 1., 2., 0.])
m = np.array([[1., 5., 2.], [0., 4., 3.]])
"""

LINALG = [
    "np.linalg.norm(B)", "np.linalg.norm(v)", "np.linalg.norm(B, 'fro')",
    "np.linalg.norm(B, 'nuc')", "np.linalg.norm(B, 2)", "np.linalg.norm(B, -2)",
    "np.linalg.norm(B, 1)", "np.linalg.norm(B, -1)", "np.linalg.norm(B, axis=1)",
    "np.linalg.norm(B, 3, axis=1)", "np.linalg.norm(B, 1, axis=0)",
    "np.linalg.norm(B, axis=(0, 1), keepdims=True)", "np.linalg.norm(C3, axis=(1, 2))",
    "np.linalg.norm(C3, 'nuc', axis=(1, 2))", "np.linalg.norm(C3, -2, axis=(1, 2))",
    "np.linalg.norm(C3, 1, axis=(1, 2))", "np.linalg.norm(C3, 'inf', axis=(1, 2))",
    "np.linalg.norm(v, 'inf')", "np.linalg.norm(v, '-inf')", "np.linalg.norm(v, 0)",
    "np.linalg.norm(v, 1)", "np.linalg.norm(C3, axis=2, keepdims=True)",
    "np.linalg.svd(B)", "np.linalg.svd(A3)", "np.linalg.cholesky(A)", "np.linalg.cholesky(A3)",
    "np.linalg.inv(A)", "np.linalg.inv(A3)", "np.linalg.det(A)", "np.linalg.det(A3)",
    "np.linalg.slogdet(A)", "np.linalg.slogdet(A3)", "np.linalg.solve(A, v)",
    "np.linalg.solve(A, M)", "np.linalg.solve(A3, np.stack([v, v]))",
    "np.linalg.tensorinv(T, ind=1)", "np.linalg.tensorsolve(TA, TB)", "np.linalg.pinv(B)",
    "np.linalg.pinv(A3, rcond=np.array([0.1, 0.2]))", "np.linalg.eigvals(A)",
    "np.linalg.eigvalsh(A)", "np.linalg.eigvalsh(A, 'U')", "np.linalg.eigh(A)",
    "np.linalg.eigh(A3)", "np.linalg.eig(A)",
    "np.linalg.cond(A)", "np.linalg.matrix_rank(A)", "np.linalg.qr(A)",
    "np.linalg.lstsq(M, v, rcond=None)", "np.linalg.matrix_power(A, 2)",
    "np.linalg.multi_dot([A, A, A])",
]  # fmt: skip

# gradients: (expression over x [and y], x, y or None); see gradient()
GRADS = [
    ("np.linalg.norm(x)", "B", None), ("np.linalg.norm(x, axis=1)", "B", None),
    ("np.linalg.norm(x, 3, axis=1)", "B", None), ("np.linalg.norm(x, 'nuc')", "B", None),
    ("np.linalg.norm(x, 2)", "B", None), ("np.linalg.norm(x, 1, axis=0)", "B", None),
    ("np.linalg.norm(x, 'fro')", "B", None), ("np.linalg.svd(x)", "B", None),
    ("np.linalg.cholesky(x)", "A", None), ("np.linalg.inv(x)", "A", None),
    ("np.linalg.det(x)", "A", None), ("np.linalg.slogdet(x)[1]", "A3", None),
    ("np.linalg.solve(x, y)", "A", "M"), ("np.linalg.solve(x, y)", "A", "v"),
    ("np.linalg.tensorinv(x, ind=1)", "T", None), ("np.linalg.tensorsolve(x, y)", "TA", "TB"),
    ("np.linalg.pinv(x)", "B", None), ("np.linalg.eigvalsh(x)", "A", None),
]  # fmt: skip

RANDOM = [
    "np.random.uniform()", "np.random.uniform(size=(2, 3))", "np.random.uniform(1, 2, 4)",
    "np.random.uniform(np.zeros((2, 1)), np.ones(3))", "np.random.uniform(dtype='float64')",
    "np.random.normal(size=(0, 2))", "np.random.normal(np.zeros(3), 1.0, size=(2, 3))",
    "np.random.lognormal(size=(2,))", "np.random.logistic(size=3)", "np.random.gumbel()",
    "np.random.gamma(2.0, size=(2,))", "np.random.gamma(np.ones(2), 2.0)",
    "np.random.exponential(size=(3,))", "np.random.exponential(np.ones((2, 2)))",
    "np.random.weibull(2.0, size=2)", "np.random.pareto(3.0, size=(1, 2))",
    "np.random.power(2.0, size=(4,))", "np.random.rayleigh(size=(2,))",
    "np.random.beta(2.0, 3.0, size=(2,))", "np.random.chisquare(3.0, size=(2,))",
    "np.random.randint(5)", "np.random.randint(1, 5, size=(2, 2))",
    "np.random.choice(5, 3)", "np.random.choice(5)",
    "np.random.choice(5, (2, 2), p=np.array([.1, .2, .3, .2, .2]))",
    "np.random.choice(np.array([1., 2., 3.]), 2)", "np.random.rand(2, 3)", "np.random.randn(2)",
    "np.random.multinomial(5, [0.2, 0.8], size=3)", "np.random.multinomial(5, [0.5, 0.5])",
    "np.random.multivariate_normal(np.zeros(2), np.eye(2), size=3)",
]  # fmt: skip

FALLBACK = [
    "np.argwhere(f > 1)", "np.count_nonzero(f)", "np.allclose(f, f)", "np.frexp(f)",
    "np.nanmax(f)", "np.cov(m)", "np.searchsorted(f[::-1].copy(), 2.5)", "np.unwrap(f)",
    "np.vander(f, 3)", "np.interp(2.5, np.array([1., 2., 3.]), f[:3])", "np.digitize(f, f[:2])",
    "np.ptp(m)", "np.isclose(f, f + 1e-9)", "np.heaviside(f - 2, 0.5)",
    "np.tril_indices_from(np.ones((3, 3)))", "np.take_along_axis(m, np.array([[0], [2]]), 1)",
    "np.polyadd(f, f)", "np.float_power(f, 2)", "np.corrcoef(m)", "np.partition(f, 1)",
    "np.argpartition(f, 1)", "np.lexsort((f, f))", "np.trim_zeros(f)", "np.union1d(f, f)",
    "np.flatnonzero(f)", "np.nancumsum(f)", "np.histogram_bin_edges(f, 2)",
    "np.array_equal(f, f)", "np.signbit(f - 1)", "np.modf(f / 2)", "np.real(f)",
    "np.rollaxis(m, 1)", "np.compress([True, False], m, axis=0)", "np.isin(f, f[:2])",
]  # fmt: skip


def context(mx: Any) -> dict:
    """The names the expressions read: ``np``, ``npx``, ``onp`` and those of :data:`CONTEXT`."""
    env = {"np": mx.np, "npx": mx.npx, "onp": onp}
    exec(CONTEXT, env)
    return env


def flat(res: Any) -> list:
    """The items of a (nested) tuple or list result, in order."""
    if isinstance(res, (tuple, list)):
        return [a for r in res for a in flat(r)]
    return [res]


def gradient(mx: Any, k: int) -> tuple[Any, Any]:
    """Gradient case ``k`` in float64, the head ``sum(out * weights)`` over the outputs
    (weights ``1 + 0.1 * arange(size)`` in each output's shape): ``x`` and ``y`` (or None)
    after the backward pass."""
    expr, xname, yname = GRADS[k]
    np, env = mx.np, context(mx)
    x = env[xname].astype("float64")
    y = env[yname].astype("float64") if yname else None
    for a in (x, y):
        if a is not None:
            a.attach_grad()
    with mx.autograd.record():
        res = eval(expr, {"np": np, "x": x, "y": y})
        head = None
        for o in flat(res):
            size = int(onp.prod(o.shape)) if o.shape else 1
            term = (o * (np.arange(size, dtype="float64") * 0.1 + 1).reshape(o.shape)).sum()
            head = term if head is None else head + term
    head.backward()
    return x, y
