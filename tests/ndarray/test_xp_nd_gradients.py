"""Second-order gradients through FullyConnected and Dropout (create_graph=True), as MXNet's
test_higher_order_grad checks them."""

import numpy as np
import pytest

import mxlite as mx
from mxlite import autograd as ag


@pytest.mark.parametrize("flatten", [True, False])
def test_fully_connected_second_order(flatten):
    rng = np.random.default_rng(0)
    x = mx.nd.array(rng.normal(size=(2, 3, 4)))
    w = mx.nd.array(rng.normal(size=(5, 12 if flatten else 4)))
    b = mx.nd.zeros(5)
    x.attach_grad()
    w.attach_grad()
    with ag.record():
        y = mx.nd.FullyConnected(x, w, b, num_hidden=5, flatten=flatten)
        oy = mx.nd.array(rng.normal(size=y.shape))
        xg = ag.grad(y, [x], head_grads=oy, create_graph=True, retain_graph=True)[0]
        ox = mx.nd.array(rng.normal(size=x.shape))
        wgg = ag.grad(xg, [w], head_grads=ox, create_graph=False)[0]
    oy2 = oy.asnumpy().reshape(-1, 5) if not flatten else oy.asnumpy()
    ox2 = ox.asnumpy().reshape(oy2.shape[0], -1)
    np.testing.assert_allclose(xg.asnumpy().reshape(ox2.shape), oy2 @ w.asnumpy(), rtol=1e-5)
    np.testing.assert_allclose(wgg.asnumpy(), oy2.T @ ox2, rtol=1e-5, atol=1e-5)


def test_dropout_second_order_is_zero():
    x = mx.nd.ones((3, 4))
    x.attach_grad()
    with ag.record():
        y = mx.nd.Dropout(x, p=0.5)
        g = ag.grad(y, [x], head_grads=mx.nd.ones((3, 4)), create_graph=True, retain_graph=True)
        gg = ag.grad(g[0], [x], head_grads=mx.nd.ones((3, 4)))[0]
    np.testing.assert_array_equal(g[0].asnumpy(), y.asnumpy())  # mask * 1 == dropout(1)
    np.testing.assert_array_equal(gg.asnumpy(), 0)
