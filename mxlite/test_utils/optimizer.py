"""mx.test_utils.compare_optimizer: run two optimizers on the same data and compare."""

from __future__ import annotations

import copy
from typing import Any

from .. import random as _random
from ..base import MXNetError
from .common import default_context, rand_ndarray
from .compare import assert_almost_equal, compare_ndarray_tuple

__all__ = ["compare_optimizer"]


def _pair(shape: Any, dtype: Any, stype: str, weight: bool) -> tuple[Any, Any]:
    """(dense copy for opt1, array of ``stype`` for opt2), as MXNet's compare_optimizer makes
    them: a sparse weight stores every row, a sparse gradient some."""
    if stype == "default":
        second = _random.uniform(shape=shape, ctx=default_context(), dtype=dtype)
        return second.copyto(default_context()), second
    if stype not in ("row_sparse", "csr"):
        raise MXNetError(f"compare_optimizer: unknown storage type {stype!r}.")
    second = rand_ndarray(shape, stype, density=1 if weight else None, dtype=dtype)
    return second.copyto(default_context()).tostype("default"), second


def compare_optimizer(
    opt1: Any,
    opt2: Any,
    shape: Any,
    dtype: Any,
    w_stype: str = "default",
    g_stype: str = "default",
    rtol: float = 1e-4,
    atol: float = 1e-5,
    compare_states: bool = True,
    ntensors: int = 1,
) -> None:
    """Apply one update of ``opt1`` and of ``opt2`` to the same random weight and gradient and
    check that states and weights agree. With a list of ``shape``s, ``opt2`` updates all
    ``ntensors`` tensors in one multi-tensor call and ``opt1`` one tensor at a time."""
    if not isinstance(shape, list):
        if ntensors != 1:
            raise MXNetError("compare_optimizer: ntensors must be 1 for a single shape.")
        w1, w2 = _pair(shape, dtype, w_stype, True)
        g1, g2 = _pair(shape, dtype, g_stype, False)
        state1 = opt1.create_state_multi_precision(0, w1)
        state2 = opt2.create_state_multi_precision(0, w2)
        if compare_states:
            compare_ndarray_tuple(state1, state2)
        opt1.update_multi_precision(0, w1, g1, state1)
        opt2.update_multi_precision(0, w2, g2, state2)
        if compare_states:
            compare_ndarray_tuple(state1, state2, rtol=rtol, atol=atol)
        assert_almost_equal(w1, w2, rtol=rtol, atol=atol)
        return
    ctx = default_context()
    w1 = tuple(_random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    g1 = tuple(_random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    w2, g2 = copy.deepcopy(w1), copy.deepcopy(g1)
    state2 = [opt2.create_state_multi_precision(0, w2[i]) for i in range(ntensors)]
    opt2.update_multi_precision(list(range(ntensors)), w2, g2, state2)
    for i in range(ntensors):
        state1 = opt1.create_state_multi_precision(i, w1[i])
        opt1.update_multi_precision(i, w1[i], g1[i], state1)
        if compare_states:
            compare_ndarray_tuple(state1, state2[i], rtol, atol)
        compare_ndarray_tuple(w1[i], w2[i], rtol, atol)
