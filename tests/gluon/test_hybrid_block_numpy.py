"""HybridBlock in NumPy-array mode: traced with mx.sym.np symbols, mx.np outputs."""

from __future__ import annotations

import pytest

import mxlite as mx
from mxlite import np
from mxlite.gluon import HybridBlock
from mxlite.util import use_np


@use_np
class _AddScale(HybridBlock):
    def hybrid_forward(self, F, x, y):
        return x + 2 * y, F.np.zeros(shape=()), x > y


@pytest.mark.parametrize("hybridize", [False, True])
def test_outputs_are_np_arrays_with_numpy_semantics(hybridize: bool) -> None:
    net = _AddScale()
    if hybridize:
        net.hybridize()
    with mx.np_shape(True):
        out, zero, cmp = net(np.ones((2, 3)), np.ones(3))
        assert type(out) is np.ndarray and out.tolist() == [[3.0] * 3] * 2
        assert zero.shape == () and cmp.dtype == bool
        empty, _, _ = net(np.ones((0, 3)), np.ones(3))
        assert empty.shape == (0, 3)


def test_mixed_classic_and_np_outputs_are_refused() -> None:
    @use_np
    class Mixed(HybridBlock):
        def hybrid_forward(self, F, x):
            return x.as_nd_ndarray() + 1, x * 2

    net = Mixed()
    with pytest.raises(TypeError, match="mx.np"):
        net(np.ones(2))
    net.hybridize()
    with pytest.raises(TypeError, match="mx.sym.np"):
        net(np.ones(2))


@use_np
class _Functions(HybridBlock):
    def hybrid_forward(self, F, x, y):
        return (
            F.np.concatenate([x, y]),
            F.np.sum(x, axis=0),
            F.np.exp(y),
            F.np.dot(x, y.T),
            F.np.split(x, 2)[1],
            F.np.where(x > 0, x, y),
            x.reshape(3, 2).sum(),
            F.npx.relu(x - 2),
            F.np.linalg.norm(x),
        )


def test_np_functions_give_the_same_results_traced_and_imperative() -> None:
    x, y = np.arange(6).reshape(2, 3), np.ones((2, 3))
    eager = _Functions()(x, y)
    net = _Functions()
    net.hybridize()
    traced = net(x, y)
    assert len(eager) == len(traced)
    for a, b in zip(eager, traced):
        assert type(b) is np.ndarray and a.shape == b.shape
        assert (abs(a - b) < 1e-5).all()
