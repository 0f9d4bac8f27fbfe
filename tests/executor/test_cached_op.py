"""mx.nd.CachedOp (mxlite/executor/cached_op.py): a symbol called like an operator, one
executor per input signature, recorded by autograd as one node (or inlined, for small graphs
without static_alloc, as MXNet 1.9.1)."""

import numpy as np

import mxlite as mx
from mxlite import autograd
from mxlite.gluon import nn


def test_cached_op_is_public_and_records_one_node():
    data, w = mx.sym.var("data"), mx.sym.var("w")
    sym = mx.sym.FullyConnected(data, w, num_hidden=2, no_bias=True)
    op = mx.nd.CachedOp(sym, [("data_indices", [0]), ("param_indices", [1])])
    x = mx.nd.random.uniform(shape=(3, 4))
    weight = mx.nd.random.uniform(shape=(2, 4))
    weight.attach_grad()
    with autograd.record():
        y = op(x, weight)
    y.backward()
    np.testing.assert_allclose(y.asnumpy(), x.asnumpy() @ weight.asnumpy().T, rtol=1e-6)
    np.testing.assert_allclose(weight.grad.asnumpy(), np.tile(x.asnumpy().sum(0), (2, 1)))


def test_small_graphs_are_inlined_while_recording_as_mxnet():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(3), nn.Dense(3))
    net.initialize()
    x = mx.nd.ones((1, 3))
    for limit, inlined in ((2, True), (0, False)):
        net.hybridize(inline_limit=limit)
        with autograd.record():
            y = net(x)
        assert (y._ag[0].function is None) is inlined
        y.backward()
        assert net[0].weight.grad().abs().sum().asscalar() > 0


def test_pending_backward_gets_its_own_executor():
    data, w = mx.sym.var("data"), mx.sym.var("w")
    sym = mx.sym.relu(mx.sym.FullyConnected(data, w, num_hidden=2, no_bias=True))
    op = mx.nd.CachedOp(sym, [("param_indices", [1]), ("static_alloc", True)])
    weight = mx.nd.random.uniform(shape=(2, 3))
    weight.attach_grad()
    a, b = mx.nd.ones((1, 3)), 2 * mx.nd.ones((1, 3))
    with autograd.record():
        total = op(a, weight) + op(b, weight)  # two pending calls of one signature
    total.backward()
    np.testing.assert_allclose(weight.grad.asnumpy(), np.full((2, 3), 3.0), rtol=1e-6)
    assert sum(len(v) for v in op._cache.values()) == 2


def _two_calls_and_grads(net, x):
    x.attach_grad()
    with autograd.record():
        y = net(x) + 2 * net(x * 2)  # one signature, two pending calls
    y.backward()
    return net(x).asnumpy(), y.asnumpy(), x.grad.asnumpy(), net[0].weight.grad().asnumpy()


def test_large_signatures_run_a_fresh_executor_per_call(monkeypatch):
    from mxlite.executor import cached_op

    mx.random.seed(3)
    net = nn.HybridSequential()
    net.add(nn.Dense(5, activation="tanh"), nn.Dense(4), nn.Dense(3))
    net.initialize()
    net.hybridize()
    x = mx.nd.random.uniform(shape=(6, 7))
    kept = _two_calls_and_grads(net, x)
    assert all(type(b) is cached_op._Bound for v in net._cached_op._cache.values() for b in v)
    monkeypatch.setattr(cached_op, "KEEP_BELOW", 0)  # every signature counts as large
    net.hybridize()  # a new CachedOp
    fresh = _two_calls_and_grads(net, x.copy())
    entries = [b for v in net._cached_op._cache.values() for b in v]
    assert entries and all(type(b) is cached_op._Template for b in entries)
    assert all(b.spare is None for b in entries)  # no executor (nor its memory) left behind
    for a, b in zip(kept, fresh):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_a_retained_graph_gives_the_same_gradients_twice() -> None:
    # the first backward must not reuse the blocks of forward values the second one reads
    net = nn.HybridSequential()
    net.add(nn.Dense(4, in_units=4, activation="relu"), nn.Dense(4, in_units=4))
    net.add(nn.Dense(3, in_units=4))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (2, 4)))
    params = [p for p in net.collect_params().values() if p.grad_req != "null"]
    with mx.autograd.record():
        loss = (net(x) * net(x)).sum()
    loss.backward(retain_graph=True)
    first = [p.grad().asnumpy().copy() for p in params]
    again = mx.autograd.grad(loss, [p.data() for p in params], retain_graph=True)
    loss.backward()
    for a, b, p in zip(first, again, params):
        np.testing.assert_allclose(b.asnumpy(), a, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(p.grad().asnumpy(), a, rtol=1e-6, atol=1e-6)
