"""Three helpers of MXNet's test_utils that compare graphs and blocks or time them:
``same_symbol_structure`` and ``check_speed``."""

from __future__ import annotations

import json
import time
from typing import Any

import numpy as np

from ..context import Context, current_context


def same_symbol_structure(sym1: Any, sym2: Any) -> bool:
    """Whether the two symbols' graphs have the same operator at every node position (as
    MXNet compares them: node names and attributes do not matter)."""
    nodes1 = json.loads(sym1.tojson())["nodes"]
    nodes2 = json.loads(sym2.tojson())["nodes"]
    return all(a["op"] == b["op"] for a, b in zip(nodes1, nodes2))


def check_speed(
    sym: Any,
    location: dict[str, np.ndarray] | None = None,
    ctx: Context | None = None,
    N: int = 20,  # noqa: N803  (MXNet's name)
    grad_req: Any = None,
    typ: str = "whole",
    **kwargs: Any,
) -> float:
    """Seconds per run of ``sym`` bound on ``ctx``, averaged over ``N`` runs after one warm-up.

    Parameters
    ----------
    sym : Symbol
        Symbol to time.
    location : dict of str to np.ndarray, optional
        Input values; without it, ``kwargs`` give the shapes and the values are drawn from
        N(0, 1).
    ctx : Context, optional
        Where to run, default the current context.
    N : int, default 20
        Number of timed runs.
    grad_req : str, list or dict, default 'write'
        Gradient requirements.
    typ : str, default 'whole'
        'whole' times forward and backward, 'forward' the forward pass only.
    """
    from .. import ndarray as nd

    if typ not in ("whole", "forward"):
        raise ValueError('typ can only be "whole" or "forward".')
    ctx = ctx if ctx is not None else current_context()
    grad_req = "write" if grad_req is None else grad_req
    if location is None:
        exe = sym.simple_bind(grad_req=grad_req, ctx=ctx, **kwargs)
        location = {k: np.random.normal(size=a.shape) for k, a in exe.arg_dict.items()}
    else:
        if not isinstance(location, dict):
            raise TypeError(f'check_speed: expect dict, get "location"={location}')
        shapes = {k: v.shape for k, v in location.items()}
        exe = sym.simple_bind(grad_req=grad_req, ctx=ctx, **shapes)
    for name, value in location.items():
        exe.arg_dict[name][:] = value.astype(exe.arg_dict[name].dtype)
    train = typ == "whole"

    def run() -> None:
        exe.forward(is_train=train)
        if train:
            exe.backward(out_grads=exe.outputs)

    run()
    nd.waitall()
    start = time.time()
    for _ in range(N):
        run()
    nd.waitall()
    return (time.time() - start) / N
