"""Higher-order gradients computed the same way on MXNet 1.9.1 and on mxlite (``mx`` is
either): ``tools/golden/cases/autograd_higher.py`` records MXNet's values,
``test_autograd_higher_order.py`` compares and checks analytic derivatives."""

from __future__ import annotations

from typing import Any

import numpy as np

X = np.array([[0.3, 0.6, 0.9], [0.2, 0.5, 0.8]], dtype=np.float32)
# every operator MXNet 1.9.1 differentiates twice (its FGradient of the backward node)
UNARY = [
    "sin", "cos", "tan", "log", "log2", "log10", "log1p", "exp", "expm1", "sigmoid", "tanh",
    "relu", "reciprocal", "abs", "sqrt", "cbrt", "rsqrt", "rcbrt", "square", "sinh", "cosh",
    "arcsin", "arccos", "arctan", "arcsinh", "arctanh",
]  # fmt: skip
# the shapes of a and b in z = a*b + a/b - a*a: equal, then broadcast
BINARY = {"binary": ((2, 3), (2, 3)), "binary_bc": ((1, 3), (2, 1))}


def unary(mx: Any, f: str, x: np.ndarray, order: int) -> np.ndarray:
    """y = f(x); g1 = grad(y, x, head_grads, create_graph=True), ``order - 2`` more grads with
    create_graph, then backward: the last gradient and x.grad, flat."""
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


def binary_inputs(sa: tuple, sb: tuple) -> tuple[np.ndarray, np.ndarray]:
    a = np.linspace(0.5, 2.0, 6)[: int(np.prod(sa))].reshape(sa)
    b = np.linspace(1.2, 0.7, 6)[: int(np.prod(sb))].reshape(sb)
    return a, b
