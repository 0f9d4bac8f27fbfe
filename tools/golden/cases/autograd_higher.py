"""Higher-order gradients (tests/test_autograd_higher_order.py). For each unary case, y = f(x)
is recorded; g1 = grad(y, x, head_grads=hg, create_graph=True); then g1.backward(hgg) gives
x.grad (the second order); where MXNet can, one more level (grad of g1 with create_graph, then
backward) gives the third order. Cases MXNet refuses are left out. Each case keeps one flat
``value``: the gradient, then x.grad (see the test)."""

from __future__ import annotations

from typing import Any

import mxnet as mx
import numpy as np

FILE = "tests/golden/autograd_higher.npz"
SEED = 0

UNARY = [
    "sin", "cos", "tan", "log", "log2", "log10", "log1p", "exp", "expm1", "sigmoid", "tanh",
    "relu", "reciprocal", "abs", "sqrt", "cbrt", "rsqrt", "rcbrt", "square", "sinh", "cosh",
    "arcsin", "arccos", "arctan", "arcsinh", "arctanh",
]  # fmt: skip


def unary(f: str, x: np.ndarray, order: int) -> np.ndarray:
    nd, ag = mx.nd, mx.autograd
    xa = nd.array(x)
    xa.attach_grad()
    hg = nd.array(np.linspace(0.5, 1.5, x.size).reshape(x.shape))
    with ag.record():
        y = getattr(nd, f)(xa)
    g = ag.grad(y, [xa], head_grads=hg, create_graph=True, retain_graph=True)[0]
    for _ in range(order - 2):
        g = ag.grad(g, [xa], create_graph=True, retain_graph=True)[0]
    g.backward(nd.array(np.linspace(1.5, 0.5, x.size).reshape(x.shape)))
    return np.concatenate([g.asnumpy().ravel(), xa.grad.asnumpy().ravel()])


def record(golden: Any) -> None:
    out: dict[str, np.ndarray] = {}
    x = np.array([[0.3, 0.6, 0.9], [0.2, 0.5, 0.8]], dtype=np.float32)
    for f in UNARY:
        for order in (2, 3):
            try:
                out[f"{f}_{order}"] = unary(f, x, order)
            except mx.base.MXNetError:
                pass
    nd, ag = mx.nd, mx.autograd
    # binary: z = a*b + a/b - a*a (equal shapes, then broadcast), second order in both
    for key, sa, sb in (("binary", (2, 3), (2, 3)), ("binary_bc", (1, 3), (2, 1))):
        a = nd.array(np.linspace(0.5, 2.0, 6)[: int(np.prod(sa))].reshape(sa))
        b = nd.array(np.linspace(1.2, 0.7, 6)[: int(np.prod(sb))].reshape(sb))
        for v in (a, b):
            v.attach_grad()
        try:
            with ag.record():
                z = a * b + a / b - a * a
            ga, gb = ag.grad(z, [a, b], create_graph=True, retain_graph=True)
            with ag.record():
                h = ga * gb
            h.backward()
        except mx.base.MXNetError:
            continue
        out[key] = np.concatenate([t.asnumpy().ravel() for t in (ga, gb, a.grad, b.grad)])
    # MXNet's own example: z = exp(x) + x
    x1 = nd.ones((1,))
    x1.attach_grad()
    with ag.record():
        z = nd.elemwise_add(nd.exp(x1), x1)
    dx = ag.grad(z, [x1], create_graph=True)[0]
    dx.backward()
    out["exp_add"] = np.concatenate([dx.asnumpy(), x1.grad.asnumpy()])
    for key, value in out.items():
        golden.put(key, {}, value=value)
