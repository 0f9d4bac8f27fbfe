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
# FullyConnected at the second order: (case, x shape, weight shape, flatten)
FC = [("fc_flatten", (2, 3, 4), (5, 12), True), ("fc_no_flatten", (2, 3, 4), (5, 4), False)]
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


def exp_plus_x(mx: Any) -> tuple[Any, Any]:
    """MXNet's own example: z = exp(x) + x at x = 1; dx = grad(z, x, create_graph=True), then
    the backward of dx: ``dx`` and ``x`` (its ``grad`` d2z/dx2)."""
    x = mx.nd.ones((1,))
    x.attach_grad()
    with mx.autograd.record():
        z = mx.nd.elemwise_add(mx.nd.exp(x), x)
    dx = mx.autograd.grad(z, [x], create_graph=True)[0]
    dx.backward()
    return dx, x


def fc_second_order(mx: Any, v: dict, flatten: bool) -> dict[str, np.ndarray]:
    """y = FC(x, w, b); (gx, gw) = grad(y, (x, w), head_grads=hg, create_graph=True); then the
    backward of (gx, gw) with heads (hx, hw): ``gx``, ``gw`` and the second-order gradients
    ``grad_x``, ``grad_w``, ``grad_hg`` (``v`` holds x, w, b, hg, hx, hw)."""
    ag = mx.autograd
    x, w, b, hg = (mx.nd.array(v[n]) for n in ("x", "w", "b", "hg"))
    for a in (x, w, b, hg):
        a.attach_grad()
    with ag.record():
        y = mx.nd.FullyConnected(x, w, b, num_hidden=w.shape[0], flatten=flatten)
    with ag.record():
        gx, gw = ag.grad(y, [x, w], head_grads=hg, create_graph=True, retain_graph=True)
    ag.backward([gx, gw], [mx.nd.array(v["hx"]), mx.nd.array(v["hw"])])
    out = {"gx": gx, "gw": gw, "grad_x": x.grad, "grad_w": w.grad, "grad_hg": hg.grad}
    return {k: a.asnumpy() for k, a in out.items()}
