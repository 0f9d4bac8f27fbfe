"""Write tests/numpy/golden/numpy_cases.npz: values, dtypes and shapes of mx.np expressions
(zero-dim, zero-size, broadcasting, int/bool dtypes) and gradients, from real MXNet 1.9.1,
plus an ``npx.save`` file written by MXNet.

Run with MXNet's Python: ``/tmp/mxref/bin/python tools/make_golden_numpy.py``. Each case is a
Python expression over the names defined in ``CONTEXT`` below; tests/numpy/test_golden.py
evaluates the same expressions under mxlite and compares.
"""

from __future__ import annotations

import json
import os
import pickle

import numpy as onp

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "numpy", "golden")

CONTEXT = """
f = np.array([1., 2., 3.])
i = np.array([1, 2, 3], dtype='int32')
i64 = np.array([1, 2, 3], dtype='int64')
b = np.array([True, False, True], dtype=bool)
m = np.arange(12).reshape(3, 4)
h = np.ones(3, dtype='float16')
"""

CASES = [
    "f + 1", "1 - f", "f * 2.5", "f / 2", "2 / f", "f ** 2", "2 ** f", "f % 2", "-f",
    "i + 1", "i + 1.5", "i / 2", "i * 2", "i - True", "i % 2", "i + i64", "i + f", "b + i",
    "b + b", "b * f", "h + f", "h + i", "h + 1.0", "f - True",
    "f > 1", "f == 2", "i == 2.5", "3 == m", "b == 1", "m != 4",
    "np.exp(i)", "np.sqrt(i)", "np.abs(np.array([-1], dtype='int8'))", "np.exp(f)",
    "np.log(f)", "np.tanh(f)", "np.square(i)", "np.logical_not(b)", "np.sign(f - 2)",
    "f.sum()", "i.sum()", "b.sum()", "i.mean()", "b.mean()", "m.sum(axis=0)",
    "m.max(axis=1, keepdims=True)", "m.argmax()", "np.argmax(m, axis=1)", "f.std()",
    "np.var(f, axis=0)", "np.prod(i)", "np.sum(i, dtype='float64')", "np.zeros((0,)).sum()",
    "np.zeros((2, 0)).sum(axis=1)", "np.sum(i, axis=())", "f.mean(dtype='float64')",
    "np.array([1, 2])", "np.array([1, 2.5])", "np.array(onp.array([1, 2]))",
    "np.array(onp.float64(3))", "np.array(3)", "np.zeros((2,))", "np.ones((2, 0))",
    "np.zeros(())", "np.arange(5)", "np.arange(2, 5)", "np.arange(5, dtype=int)",
    "np.arange(0, 1, 0.25)", "np.linspace(0, 1, 5)", "np.eye(2, 3, k=1)", "np.identity(2)",
    "np.full((2,), 3)", "np.full((2,), True)", "np.zeros_like(i)", "np.ones_like(b)",
    "np.dot(f, f)", "np.dot(np.ones((2, 3)), f)", "np.dot(np.ones(()), f)", "f @ f",
    "np.matmul(np.ones(3), np.ones((3, 2)))", "np.tensordot(np.ones((2, 3)), np.ones((2, 3)))",
    "np.tensordot(m, m, axes=([1], [1]))", "m[1]", "m[1, 2]", "m[None]", "m[..., 1]",
    "m[[0, 2]]", "m[m > 5]", "m[[0, 1], [1, 2]]", "m[1:, ::2]", "m[:, [0, 2]]",
    "m[np.array([0, 1]), :]", "f[b]", "m.T", "m.reshape(-1)", "m.reshape((4, 3))",
    "np.transpose(np.ones((2, 3, 4)), (2, 0, 1))", "np.swapaxes(m, 0, 1)",
    "np.expand_dims(f, 0)", "np.squeeze(np.ones((1, 3, 1)))", "np.concatenate([f, f])",
    "np.stack([f, f], axis=1)", "np.tile(f, 2)", "np.repeat(f, 2)", "np.flip(m, 0)",
    "np.broadcast_to(f, (2, 3))", "np.where(f > 1, f, 0)", "np.where(b, f, f * 2)",
    "np.clip(f, 1.5, 2.5)", "np.clip(i, 1, 2)", "np.maximum(f, 2)", "np.minimum(i, 2)",
    "np.linalg.norm(f)", "np.linalg.norm(np.ones((2, 2)), axis=1)", "np.ones((3, 1)) + f",
    "np.zeros((0, 3)) + f", "npx.relu(f - 2)", "npx.sigmoid(f)", "npx.softmax(f)",
    "npx.log_softmax(f)", "npx.one_hot(np.array([0, 1]), 3)",
    "npx.pick(np.ones((2, 3)), np.array([0, 1]))", "npx.reshape(np.ones((2, 3, 4)), (-2, -1))",
    "npx.reshape(np.ones((2, 3, 4)), (-4,))", "np.split(np.arange(6), 2)[1]",
    "np.split(np.arange(6), [2, 3])[2]", "np.vstack([f, f])", "np.hstack([f, f])",
    "np.tril(m)", "np.tril(m, 1)", "np.tril(f)", "np.diff(m)", "np.diff(m, n=2, axis=0)",
    "np.diff(i)", "np.roll(m, 1)", "np.roll(m, (1, -1), axis=(0, 1))", "np.rot90(m)",
    "np.rot90(m, 2, (1, 0))", "np.diag(m)", "np.diag(m, -1)", "np.diag(f, 1)",
    "np.diagonal(m, 1)", "np.diagflat(f, -1)", "np.trace(m)", "np.trace(m, 1)",
    "np.polyval(f, np.array([0.5, 2.0]))", "np.nan_to_num(np.array([onp.nan, onp.inf, 1.0]))",
    "np.nan_to_num(np.array([onp.nan, -onp.inf]), nan=1.0, neginf=-5.0)",
    "np.column_stack([f, f])", "np.row_stack([f, f])", "np.dstack([m, m])",
    "np.hsplit(m, 2)[1]", "np.vsplit(m, 3)[0]", "np.dsplit(np.ones((1, 2, 4)), 2)[0]",
    "np.flipud(m)", "np.fliplr(m)", "np.append(f, f)", "np.append(m, m, axis=0)",
    "np.vdot(f, f)", "np.round_(f / 3, 2)", "np.fabs(-f)", "np.atleast_1d(np.array(3.0))",
    "np.atleast_2d(f)", "np.atleast_3d(m)", "onp.sum(m, axis=0)", "onp.add(f, 1)",
    "onp.concatenate([f, f])", "onp.exp(f)", "onp.tril(m)", "np.copysign(f, -1)",
    "np.copysign(f, f - 2)", "np.copysign(2, f - 2)", "np.ldexp(f, 2)", "np.ldexp(f, f)",
    "np.ldexp(2.0, f)", "np.lcm(i, 4)", "np.lcm(i, i + 1)", "np.percentile(m, 30)",
    "np.percentile(m, 50, axis=1)", "np.percentile(m, np.array([10.0, 90.0]), axis=0)",
    "np.quantile(m, 0.25, interpolation='lower')", "np.average(m)", "np.average(f, weights=f)",
    "np.average(m, axis=1, weights=np.array([1.0, 2.0, 3.0, 4.0]))", "np.bincount(i)",
    "np.bincount(i, weights=f, minlength=5)", "np.einsum('ij,jk->ik', m, m.T)",
    "np.einsum('ii', np.ones((3, 3)))", "np.einsum('i,i', f, f)", "np.einsum('...i->...', m)",
]  # fmt: skip

# (expression computing a zero-dim head from x, x's value)
GRADS = [
    ("(x ** 2).sum()", [1.0, 2.0, 3.0]),
    ("(x * x).mean()", [1.0, 2.0, 3.0]),
    ("np.exp(x).sum()", [0.5, -0.5]),
    ("np.dot(x, x)", [1.0, 2.0]),
    ("(x / (x + 1)).sum()", [1.0, 2.0]),
    ("x.max()", [1.0, 3.0, 2.0]),
    ("np.tanh(x).sum()", [0.1, 0.2]),
    ("(x.reshape(2, 2) @ x.reshape(2, 2)).sum()", [1.0, 2.0, 3.0, 4.0]),
    ("(x[1:] * 3).sum() + x[0]", [1.0, 2.0, 3.0]),
    ("np.where(x > 1, x, 2 * x).sum()", [1.0, 2.0]),
    ("x.std()", [1.0, 2.0, 4.0]),
    ("np.linalg.norm(x)", [3.0, 4.0]),
    ("(1 - x).sum() + (2 ** x).sum()", [1.0, 2.0]),
    ("np.concatenate([x, x * 2]).sum()", [1.0, 2.0]),
    ("npx.relu(x).sum() + npx.sigmoid(x).sum()", [-1.0, 1.0]),
    ("(np.tril(x.reshape(2, 2)) * 3).sum()", [1.0, 2.0, 3.0, 4.0]),
    ("(np.diff(x, n=2) * np.array([1.0, 2.0])).sum()", [1.0, 4.0, 2.0, 8.0]),
    ("(np.roll(x, 1) * np.array([1.0, 2.0, 3.0])).sum()", [1.0, 2.0, 3.0]),
    # k=2 only: MXNet 1.9.1's rot90 backward rotates by +k (k=1 gives rot90(dy), not the
    # gradient rot90(dy, -1) that mxlite keeps, checked numerically by the registry cases)
    (
        "(np.rot90(x.reshape(2, 2), 2) * np.array([[1.0, 2.0], [3.0, 4.0]])).sum()",
        [1.0, 2.0, 3.0, 4.0],
    ),
    ("(np.diag(x.reshape(2, 2)) * np.array([2.0, 3.0])).sum()", [1.0, 2.0, 3.0, 4.0]),
    ("np.trace(x.reshape(2, 2) * x.reshape(2, 2))", [1.0, 2.0, 3.0, 4.0]),
    ("np.polyval(x, np.array([2.0, 3.0])).sum()", [1.0, 2.0, 3.0]),
    ("np.nan_to_num(x * 2).sum()", [1.0, 2.0]),
    ("(np.copysign(x, np.array([-1.0, 1.0])) + np.ldexp(x, x)).sum()", [1.0, -2.0]),
    ("(np.diagflat(x) * np.arange(4.0).reshape(2, 2)).sum()", [1.0, 2.0]),
    ("np.average(x, weights=x * x)", [1.0, 2.0, 3.0]),
    ("np.einsum('i,j->', x, x * x)", [1.0, 2.0]),
]


def main() -> None:
    import mxnet as mx
    from mxnet import autograd, np, npx

    npx.set_np()
    env = {"np": np, "npx": npx, "onp": onp}
    exec(CONTEXT, env)
    arrays, meta = {}, {}
    for k, expr in enumerate(CASES):
        res = eval(expr, dict(env))
        meta[expr] = {"key": f"c{k}", "dtype": str(res.dtype), "shape": list(res.shape),
                      "repr": repr(res)}  # fmt: skip
        arrays[f"c{k}"] = res.asnumpy()
    for k, (expr, value) in enumerate(GRADS):
        x = np.array(value)
        x.attach_grad()
        with autograd.record():
            y = eval(expr, {"np": np, "npx": npx, "x": x})
        y.backward()
        arrays[f"g{k}"] = x.grad.asnumpy()
        arrays[f"y{k}"] = y.asnumpy()
    os.makedirs(OUT, exist_ok=True)
    onp.savez(os.path.join(OUT, "numpy_cases.npz"), **arrays)
    with open(os.path.join(OUT, "numpy_cases.json"), "w") as fh:
        json.dump({"context": CONTEXT, "cases": meta, "grads": GRADS}, fh, indent=1)
    npx.save(os.path.join(OUT, "mxnet_npx_save.params"),
             {"a": np.array([1.0, 2.0]), "s": np.array(3.0), "z": np.zeros((0, 2)),
              "i": np.array([1, 2], dtype="int64")})  # fmt: skip
    with open(os.path.join(OUT, "mxnet_np_array.pickle"), "wb") as fh:
        pickle.dump(np.array([1.0, 2.0]), fh)
    print(f"wrote {len(CASES)} cases, {len(GRADS)} gradients to {OUT} (mxnet {mx.__version__})")


if __name__ == "__main__":
    main()
