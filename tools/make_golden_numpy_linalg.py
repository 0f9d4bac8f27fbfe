"""Write tests/numpy/golden/numpy_linalg_cases.{json,npz}: from real MXNet 1.9.1, the values
(and dtypes, shapes) of ``mx.np.linalg`` functions, their gradients, the shapes and dtypes of
``mx.np.random`` samplers, and what ``mx.np``'s NumPy fallbacks return (type, dtype, value).

Run with MXNet's Python: ``/tmp/mxref/bin/python tools/make_golden_numpy_linalg.py``.
tests/numpy/test_linalg_golden.py evaluates the same expressions under mxlite.
"""

from __future__ import annotations

import json
import os

import numpy as onp

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "numpy", "golden")

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

# gradients: (expression over x [and y], x, y or None); the head is sum(out * weights) over
# the outputs, weights 1 + 0.1 * arange(size) of each output's shape
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


def _kind(res):
    import mxnet as mx

    if isinstance(res, mx.np.ndarray):
        return "ndarray"
    if isinstance(res, (tuple, list)):
        return type(res).__name__
    return type(res).__name__


def _arrays(res):
    import mxnet as mx

    if isinstance(res, (tuple, list)):
        return [a for r in res for a in _arrays(r)]
    if isinstance(res, mx.np.ndarray):
        return [res]
    return [res]


def _weights(np, shape):
    size = int(onp.prod(shape)) if shape else 1
    return (np.arange(size, dtype="float64") * 0.1 + 1).reshape(shape)


def main() -> None:
    import mxnet as mx
    from mxnet import autograd, np, npx

    npx.set_np()
    env = {"np": np, "npx": npx, "onp": onp}
    exec(CONTEXT, env)
    meta = {"context": CONTEXT, "linalg": {}, "grads": [], "random": {}, "fallback": {}}
    data = {}
    for k, expr in enumerate(LINALG + FALLBACK):
        table = "linalg" if expr in LINALG else "fallback"
        try:
            res = eval(expr, dict(env))
            arrays = [a.asnumpy() if isinstance(a, mx.np.ndarray) else a for a in _arrays(res)]
        except Exception as exc:  # noqa: BLE001  (MXNet refuses it: the test expects a raise)
            meta[table][expr] = {"error": type(exc).__name__}
            continue
        items = []
        for j, (a, value) in enumerate(zip(_arrays(res), arrays)):
            key = f"v{k}_{j}"
            if isinstance(a, mx.np.ndarray):
                data[key] = value
                items.append({"key": key, "dtype": str(a.dtype), "shape": list(a.shape)})
            else:
                data[key] = onp.asarray(a)
                items.append({"key": key, "type": type(a).__name__})
        meta[table][expr] = {"kind": _kind(res), "items": items}
    for k, (expr, xname, yname) in enumerate(GRADS):
        meta["grads"].append([expr, xname, yname])
        x = env[xname].astype("float64")
        y = env[yname].astype("float64") if yname else None
        x.attach_grad()
        if y is not None:
            y.attach_grad()
        try:
            with autograd.record():
                res = eval(expr, {"np": np, "x": x, "y": y})
                outs = list(res) if isinstance(res, (tuple, list)) else [res]
                head = sum((o * _weights(np, o.shape)).sum() for o in outs)
            head.backward()
            gx = x.grad.asnumpy()
            gy = y.grad.asnumpy() if y is not None else None
        except Exception as exc:  # noqa: BLE001  (MXNet fails on it: recorded, not compared)
            print("gradient failed in MXNet:", expr, xname, yname, str(exc).splitlines()[-1])
            continue
        data[f"gx{k}"] = gx
        if gy is not None:
            data[f"gy{k}"] = gy
    for expr in RANDOM:
        res = eval(expr, dict(env))
        meta["random"][expr] = {"dtype": str(res.dtype), "shape": list(res.shape),
                                "kind": _kind(res)}  # fmt: skip
    os.makedirs(OUT, exist_ok=True)
    onp.savez(os.path.join(OUT, "numpy_linalg_cases.npz"), **data)
    with open(os.path.join(OUT, "numpy_linalg_cases.json"), "w") as fh:
        json.dump(meta, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
