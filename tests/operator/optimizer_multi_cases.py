"""The in-place steps of the fused multi-SGD operators, run the same way on MXNet 1.9.1 and on
mxlite (``mx`` is either): tools/golden/cases/optimizer_multi.py records MXNet's,
tests/operator/test_optimizer_multi.py compares mxlite's."""

from __future__ import annotations

from typing import Any


def multi_sgd_steps(mx: Any, op: str, dtype: str, params: dict, n: int, value: Any,
                    steps: int = 3) -> dict:  # fmt: skip
    """``steps`` in-place calls (``out=`` the weights) of ``mx.nd.<op>`` on ``n`` weights of
    ``dtype``, with float32 momenta and master weights for the mixed-precision ones. Every
    array the run reads comes from ``value(key, i, dtype)`` (``key``: ``weight_<i>``,
    ``mom_<i>``, ``step<s>/grad_<i>``); returns those and, after each step ``s``, the weights
    and states the operator left (``step<s>/out_weight_<i>``, ``step<s>/out_mom_<i>``,
    ``step<s>/out_weight32_<i>``), by key."""
    fn, mp = getattr(mx.nd, op), "_mp_" in op
    arrays: dict = {}
    weights, states, groups = [], [], []  # per weight: [weight, grad, mom?, weight32?]
    for i in range(n):
        w = arrays[f"weight_{i}"] = value(f"weight_{i}", i, dtype)
        weights.append(mx.nd.array(w, dtype=dtype))
        group = [weights[-1], None]
        if "mom" in op:  # float32 momenta with the float32 master weights
            mom_dtype = "float32" if mp else dtype
            m = arrays[f"mom_{i}"] = value(f"mom_{i}", i, mom_dtype)
            group.append(mx.nd.array(m, dtype=mom_dtype))
            states.append((f"mom_{i}", group[-1]))
        if mp:
            group.append(mx.nd.array(w.astype("float32"), dtype="float32"))
            states.append((f"weight32_{i}", group[-1]))
        groups.append(group)
    out = weights if n > 1 else weights[0]
    for step in range(steps):
        flat = []
        for i, group in enumerate(groups):
            g = arrays[f"step{step}/grad_{i}"] = value(f"step{step}/grad_{i}", i, dtype)
            group[1] = mx.nd.array(g, dtype=dtype)
            flat += group
        assert fn(*flat, out=out, **params) is out
        arrays.update({f"step{step}/out_weight_{i}": w.asnumpy() for i, w in enumerate(weights)})
        arrays.update({f"step{step}/out_{name}": s.asnumpy() for name, s in states})
    return arrays
