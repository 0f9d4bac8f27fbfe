"""The autograd cases of tests/test_autograd.py, written as functions of the ``mx`` module so
that the test runs them under mxlite and tools/golden/cases/autograd.py under MXNet 1.9.1 (it
records MXNet's gradients into tests/golden/autograd.npz). Nothing here imports either.

Each case gets float32 inputs from a seeded NumPy generator; the golden file stores them with
the head gradients, so the test never depends on a generator agreeing across versions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

STEPS = 20
LR = 0.1
BATCH = 8
N_SAMPLES = 32  # four batches, cycled
TRAIN_SHAPES = {
    "x": (N_SAMPLES, 4),
    "y": (N_SAMPLES, 3),
    "w1": (4, 5),
    "b1": (5,),
    "w2": (5, 3),
    "b2": (3,),
}


def _identity(t: Any) -> Any:
    return t


@dataclass
class Case:
    """One gradient check.

    ``fn(mx, xs, const)`` returns the heads; ``const(t)`` marks ``t`` as a constant (autograd
    runs pass ``detach``; the numeric check passes the value ``t`` had at the unperturbed
    point). ``prepare(mx, xs)`` runs in-place updates on the inputs before recording.
    """

    name: str
    shapes: list[tuple[int, ...]]
    fn: Callable[..., list[Any]]
    low: float = -1.0
    high: float = 1.0
    head_grads: bool = True
    prepare: Callable[..., None] | None = None
    needs: list[str] = field(default_factory=list)


def _broadcast(mx: Any, xs: list, const: Callable) -> list:
    a, b, c = xs  # (2, 3), (1, 3), (2, 1)
    nd = mx.nd
    y = nd.broadcast_mul(a, b) + nd.broadcast_sub(c, a) * nd.broadcast_div(b, c)
    return [y + a * b - c / b]  # the operators broadcast too


def _reuse(mx: Any, xs: list, const: Callable) -> list:
    (x,) = xs
    return [x * x + x]


def _scalars(mx: Any, xs: list, const: Callable) -> list:
    x, w = xs  # both (3, 2), values in [0.5, 1.5]
    y = (x * 3 - 1) / (x * x + 2) + 2**x - x**3 + 1.5 / w
    return [y + (x * 0.4) % 1.0 + x % w - w**x]  # away from the jumps of %


def _inplace_prep(mx: Any, xs: list) -> None:
    x, w = xs
    x += 1
    x *= 0.5
    w[:] = w * w - x
    x[1:3] = 0.25


def _inplace(mx: Any, xs: list, const: Callable) -> list:
    x, w = xs
    return [x * w + w * w * x]


def _detach(mx: Any, xs: list, const: Callable) -> list:
    x, w = xs
    t = x * w
    return [x * const(t * t) + const(w) * t]


def _heads(mx: Any, xs: list, const: Callable) -> list:
    a, b = xs  # (2, 3), (3,)
    t = a * b
    return [t * t, t + a, b * b - b]


def _sum_mean(mx: Any, xs: list, const: Callable) -> list:
    a, b = xs  # (2, 3), (2, 3)
    nd = mx.nd
    s = nd.sum(a * b, axis=1, keepdims=True)
    return [nd.broadcast_mul(s, a) + nd.mean(b * b), nd.sum(a, axis=0)]


def _dot(mx: Any, xs: list, const: Callable) -> list:
    a, b, c = xs  # (2, 3), (3, 4), (2, 4)
    nd = mx.nd
    return [nd.dot(a, b) * c + nd.dot(a, b * b), nd.dot(a, a, transpose_b=True)]


def _unary(mx: Any, xs: list, const: Callable) -> list:
    (x,) = xs
    nd = mx.nd
    return [nd.exp(x) * nd.tanh(x) + nd.log(x + 2) - nd.sigmoid(x * x) + nd.relu(x)]


def _function(mx: Any, xs: list, const: Callable) -> list:
    class Scaled(mx.autograd.Function):
        """y = a * b and z = a + 2 b, with a hand-written backward."""

        def forward(self, a: Any, b: Any) -> Any:
            self.save_for_backward(a, b)
            return a * b, a + b * 2

        def backward(self, dy: Any, dz: Any) -> Any:
            a, b = self.saved_tensors
            return dy * b + dz, dy * a + dz * 2

    a, b = xs
    if mx.autograd.is_recording():
        y, z = Scaled()(a, b)
    else:  # the numeric check evaluates the same function without autograd
        y, z = a * b, a + b * 2
    return [y * z + a]


def _shape(mx: Any, xs: list, const: Callable) -> list:
    (a,) = xs  # (2, 3)
    nd = mx.nd
    t = nd.transpose(nd.reshape(a, shape=(3, 2)))
    return [t * a + nd.expand_dims(a, axis=0) * 2]


def _slicing(mx: Any, xs: list, const: Callable) -> list:
    (a,) = xs  # (3, 4): first-axis slices and ints are views in MXNet, recorded as slices
    return [a[1:] * a[:2] + a[1:3], a[0] * a[2]]


def _fully_connected(mx: Any, xs: list, const: Callable) -> list:
    x, w, b = xs  # (2, 3), (4, 3), (4,)
    nd = mx.nd
    y = nd.FullyConnected(x, w, b, num_hidden=4)
    return [y * y + nd.FullyConnected(x * 2, w, num_hidden=4, no_bias=True)]


CASES = [
    Case("broadcast", [(2, 3), (1, 3), (2, 1)], _broadcast, low=0.5, high=1.5),
    Case("reuse", [(4,)], _reuse),
    Case("reuse_ones", [(4,)], _reuse, head_grads=False),
    Case("scalars", [(3, 2), (3, 2)], _scalars, low=0.5, high=1.5),
    Case("inplace", [(4,), (4,)], _inplace, prepare=_inplace_prep),
    Case("detach", [(3,), (3,)], _detach),
    Case("heads", [(2, 3), (3,)], _heads),
    Case("sum_mean", [(2, 3), (2, 3)], _sum_mean, needs=["sum", "mean"]),
    Case("dot", [(2, 3), (3, 4), (2, 4)], _dot, needs=["dot"]),
    Case("unary", [(5,)], _unary, needs=["exp", "tanh", "log", "sigmoid", "relu"]),
    Case("function", [(3,), (3,)], _function),
    Case("shape", [(2, 3)], _shape, needs=["reshape", "transpose", "expand_dims"]),
    Case("slicing", [(3, 4)], _slicing),
    Case("fully_connected", [(2, 3), (4, 3), (4,)], _fully_connected, needs=["FullyConnected"]),
]


def case_inputs(case: Case, seed: int) -> list[np.ndarray]:
    rng = np.random.RandomState(seed)
    return [rng.uniform(case.low, case.high, s).astype(np.float32) for s in case.shapes]


def head_shapes(mx: Any, case: Case, xs: list) -> list[tuple[int, ...]]:
    return [h.shape for h in case.fn(mx, xs, _identity)]


# ---- the network -----------------------------------------------------------------------------


def relu(mx: Any, x: Any) -> Any:
    """relu where the operator exists, else max(x, 0) (same values and, off 0, gradients)."""
    return mx.nd.relu(x) if hasattr(mx.nd, "relu") else mx.nd.maximum(x, 0.0)


def mlp_loss(mx: Any, params: list, x: Any, y: Any) -> Any:
    """Mean squared error of a 4-5-3 network: dense, relu, dense."""
    w1, b1, w2, b2 = params
    nd = mx.nd
    h = relu(mx, nd.broadcast_add(nd.dot(x, w1), b1))
    out = nd.broadcast_add(nd.dot(h, w2), b2)
    d = out - y
    return nd.sum(d * d) / (y.shape[0] * y.shape[1])


def train_data(seed: int = 7) -> dict[str, np.ndarray]:
    rng = np.random.RandomState(seed)
    scale = {"w1": 0.7, "w2": 0.7, "b1": 0.1, "b2": 0.1}
    return {
        k: (rng.uniform(-1, 1, s) * scale.get(k, 1.0)).astype(np.float32)
        for k, s in TRAIN_SHAPES.items()
    }


def train(mx: Any, data: dict[str, np.ndarray]) -> np.ndarray:
    """``STEPS`` steps of plain SGD with autograd; returns the loss before each update."""
    params = [mx.nd.array(data[k]) for k in ("w1", "b1", "w2", "b2")]
    for p in params:
        p.attach_grad()
    x_all, y_all = mx.nd.array(data["x"]), mx.nd.array(data["y"])
    losses = []
    for step in range(STEPS):
        lo = (step * BATCH) % N_SAMPLES
        xb, yb = x_all[lo : lo + BATCH], y_all[lo : lo + BATCH]
        with mx.autograd.record():
            loss = mlp_loss(mx, params, xb, yb)
        loss.backward()
        for p in params:
            p[:] = p - LR * p.grad  # outside recording: an in-place update of a variable
        losses.append(float(loss.asnumpy().reshape(-1)[0]))
    return np.array(losses, dtype=np.float64)


def run_case(mx: Any, case: Case, arrays: list[np.ndarray], hgs: list | None) -> list:
    """Gradients of ``case`` by autograd (each input a variable), as NumPy arrays."""
    xs = [mx.nd.array(a) for a in arrays]
    if case.prepare is not None:
        case.prepare(mx, xs)
    for x in xs:
        x.attach_grad()
    with mx.autograd.record():
        heads = case.fn(mx, xs, lambda t: t.detach())
    head_grads = None if hgs is None else [mx.nd.array(g) for g in hgs]
    mx.autograd.backward(heads, head_grads)
    return [x.grad.asnumpy() for x in xs]
