"""Three helpers of MXNet's test_utils that compare graphs and blocks or time them:
``same_symbol_structure``, ``check_speed`` and ``check_gluon_hybridize_consistency``."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..context import Context, current_context
from .compare import assert_almost_equal


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


def check_gluon_hybridize_consistency(
    net_builder: Callable[..., Any],
    data_l: Sequence[Any],
    numpy_func: Callable[..., np.ndarray] | None = None,
    test_grad: bool = True,
    rtol: float = 1e-4,
    atol: float = 1e-4,
) -> None:
    """Check that a HybridBlock gives the same output (and input gradients) hybridized and not,
    with and without autograd recording, from the same initial parameters.

    Parameters
    ----------
    net_builder : callable
        Builds the block; called as ``net_builder(prefix='net_')``. It must not draw random
        numbers in its forward pass.
    data_l : list of NDArray
        The inputs.
    numpy_func : callable, optional
        The NumPy function the block computes: its output must agree too.
    test_grad : bool, default True
        Whether to compare the inputs' gradients (of ``out.backward(out)``).
    rtol, atol : float, default 1e-4
        Tolerances.
    """
    from .. import autograd
    from .. import initializer as init

    class _FromArrays(init.Initializer):
        """Every parameter from the arrays the first block was given."""

        def __init__(self, arrays: dict[str, np.ndarray]) -> None:
            super().__init__()
            self._arrays = arrays

        def _init_weight(self, name: Any, arr: Any) -> None:
            arr[:] = self._arrays[str(name)]

        _init_default = _init_bias = _init_gamma = _init_beta = _init_weight

    params: dict[str, np.ndarray] | None = None
    want_out: np.ndarray | None = None
    want_grads: list[np.ndarray] | None = None
    for hybridize in (False, True):
        for record in (False, True) if test_grad else (False,):
            net = net_builder(prefix="net_")
            if params is None:
                net.initialize()
            else:
                net.initialize(_FromArrays(params))
            if hybridize:
                net.hybridize()
            data = [x.copy() for x in data_l]
            if record:
                for x in data:
                    x.attach_grad()
                with autograd.record():
                    out = net(*data)
                out.backward(out)
            else:
                out = net(*data)
            if params is None:
                params = {k: v.data().asnumpy() for k, v in net.collect_params().items()}
            if want_out is None:
                want_out = out.asnumpy()
            else:
                assert_almost_equal(out.asnumpy(), want_out, rtol=rtol, atol=atol)
            if record:
                grads = [x.grad.asnumpy() for x in data]
                if want_grads is None:
                    want_grads = grads
                for got, want in zip(grads, want_grads):
                    assert_almost_equal(got, want, rtol=rtol, atol=atol)
    if numpy_func is not None:
        expected = numpy_func(*[x.asnumpy() for x in data_l])
        assert_almost_equal(want_out, expected, rtol=rtol, atol=atol)
