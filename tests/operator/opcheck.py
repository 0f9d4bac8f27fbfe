"""Run one registered operator directly on NumPy arrays: forward, backward, numeric gradient,
and comparison with golden values recorded from real MXNet 1.9.1.

Every operator test goes through these few functions, so all of them exercise the registry
entry (parameters, inference, requests) the way mx.nd, mx.sym and autograd do.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import mxlite  # noqa: F401  (registers every operator)
from mxlite.context import cpu
from mxlite.operator import registry
from mxlite.operator.registry import OpContext
from mxlite.operator.req import OpReq

from ..golden_file import GoldenFile, load

GOLDEN = Path(__file__).parent / "golden"


class _Res:
    """Stand-in resources for direct operator calls: a seeded generator and scratch space."""

    def __init__(self, seed: int = 0) -> None:
        self._rng = np.random.default_rng(seed)

    def get_random(self) -> np.random.Generator:
        return self._rng

    def get_space(self, shape: Any, dtype: Any = np.float32) -> np.ndarray:
        return np.empty(shape, dtype)


def prop_of(name: str, **params: Any) -> registry.OperatorProperty:
    return registry.get(name).get_prop(params)


def _alloc(prop: registry.OperatorProperty, inputs: list[np.ndarray]):
    n_aux = len(prop.list_auxiliary_states())
    args = inputs[: len(inputs) - n_aux] if n_aux else inputs
    aux = [a.copy() for a in inputs[len(inputs) - n_aux :]] if n_aux else []
    shapes, dtypes, _, _ = prop.infer_imperative(
        tuple(a.shape for a in args), tuple(a.dtype for a in args)
    )
    outs = [np.zeros(s, t) for s, t in zip(shapes, dtypes)]
    return args, aux, outs


def forward(
    name: str,
    inputs: list[np.ndarray],
    is_train: bool = False,
    req: OpReq = OpReq.WRITE,
    out_init: list[np.ndarray] | None = None,
    **params: Any,
) -> list[np.ndarray]:
    """All outputs of ``name`` on ``inputs`` (arguments then aux states)."""
    prop = prop_of(name, **params)
    args, aux, outs = _alloc(prop, [np.asarray(a) for a in inputs])
    if out_init is not None:
        outs = [o.copy() for o in out_init]
    requested = [_Res() for _ in prop.forward_resource([a.shape for a in args])]
    op = prop.create_operator(cpu())
    op.forward(OpContext(is_train, None, requested), args, [req] * len(outs), outs, aux)
    return outs


def backward(
    name: str,
    inputs: list[np.ndarray],
    out_grads: list[np.ndarray] | None = None,
    is_train: bool = True,
    req: OpReq = OpReq.WRITE,
    grad_init: list[np.ndarray] | None = None,
    **params: Any,
) -> list[np.ndarray]:
    """Input gradients of ``name`` (head gradients default to ones)."""
    prop = prop_of(name, **params)
    args, aux, outs = _alloc(prop, [np.asarray(a) for a in inputs])
    requested = [_Res() for _ in prop.forward_resource([a.shape for a in args])]
    op = prop.create_operator(cpu())
    op.forward(OpContext(is_train, None, requested), args, [OpReq.WRITE] * len(outs), outs, aux)
    if out_grads is None:
        out_grads = [np.ones_like(o) for o in outs]
    grads = (
        [g.copy() for g in grad_init] if grad_init is not None else [np.zeros_like(a) for a in args]
    )
    requested = [_Res() for _ in prop.backward_resource([a.shape for a in args])]
    op.backward(
        OpContext(is_train, None, requested), out_grads, args, outs, [req] * len(grads), grads, aux
    )
    return grads


def numeric_grad(
    name: str,
    inputs: list[np.ndarray],
    out_grads: list[np.ndarray] | None = None,
    eps: float = 1e-4,
    **params: Any,
) -> list[np.ndarray]:
    """Central finite differences of sum(out_grad * output) in float64 (only for
    arguments, not aux states; deterministic operators only)."""
    prop = prop_of(name, **params)
    n_args = len(inputs) - len(prop.list_auxiliary_states())
    x = [
        np.asarray(a, dtype=np.float64)
        if i < n_args and np.issubdtype(np.asarray(a).dtype, np.floating)
        else np.asarray(a)
        for i, a in enumerate(inputs)
    ]
    outs = forward(name, x, is_train=True, **params)
    heads = out_grads if out_grads is not None else [np.ones_like(o) for o in outs]
    nvis = prop.num_visible_outputs()

    def f() -> float:
        ys = forward(name, x, is_train=True, **params)
        return float(sum(np.sum(y.astype(np.float64) * h) for y, h in zip(ys[:nvis], heads[:nvis])))

    grads = []
    for i in range(n_args):
        if not np.issubdtype(x[i].dtype, np.floating):
            grads.append(None)
            continue
        g = np.zeros_like(x[i])
        flat, gflat = x[i].reshape(-1), g.reshape(-1)
        for j in range(flat.size):
            old = flat[j]
            flat[j] = old + eps
            hi = f()
            flat[j] = old - eps
            lo = f()
            flat[j] = old
            gflat[j] = (hi - lo) / (2 * eps)
        grads.append(g)
    return grads


def golden(family: str) -> GoldenFile:
    """The golden file tools/golden/cases/<family>.py recorded from real MXNet 1.9.1."""
    return load(f"operator/golden/{family}.npz")
