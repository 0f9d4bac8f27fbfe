"""A hybridized block's backward fills its parameters' ``.grad`` buffers as the imperative run
does, also where a buffer takes more than one gradient (``grad_req='add'``, a parameter used by
two calls) or none (``autograd.grad``), and writes a buffer that takes one gradient in place: no
copy per parameter afterwards. Each test runs with kept executors and with per-call ones (the
executor of a signature at or above ``KEEP_BELOW`` bytes)."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite import autograd
from mxlite.autograd import backprop
from mxlite.executor import cached_op
from mxlite.gluon import nn


class _Residual(nn.HybridBlock):
    """conv-BN-relu-conv plus the data, then relu: the data feeds two consumers."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        with self.name_scope():
            self.c1 = nn.Conv2D(4, 3, padding=1)
            self.bn = nn.BatchNorm()
            self.c2 = nn.Conv2D(4, 3, padding=1)

    def hybrid_forward(self, F, x):
        return F.relu(self.c2(F.relu(self.bn(self.c1(x)))) + x)


@pytest.fixture(params=["kept", "per_call"], autouse=True)
def executors(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Kept executors (small signatures), or a fresh executor per call (``KEEP_BELOW`` 0)."""
    if request.param == "per_call":
        monkeypatch.setattr(cached_op, "KEEP_BELOW", 0)
    return request.param


@pytest.fixture
def copies(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the ``_grad_sum`` passes autograd pushes into ``.grad`` buffers."""
    count = [0]
    real = backprop._sum_into

    def counting(dst, ps, add):
        count[0] += 1
        return real(dst, ps, add)

    monkeypatch.setattr(backprop, "_sum_into", counting)
    return count


def _net() -> tuple[_Residual, mx.nd.NDArray]:
    mx.random.seed(0)
    net = _Residual()
    net.initialize(mx.init.Xavier())
    x = mx.nd.random.uniform(-1, 1, shape=(2, 4, 5, 5))
    net(x)
    return net, x


def _grads(net: _Residual) -> dict[str, np.ndarray]:
    return {
        k: p.grad().asnumpy().copy()
        for k, p in net.collect_params().items()
        if p.grad_req != "null"
    }


def _step(net: _Residual, x: mx.nd.NDArray, calls: int = 1) -> None:
    with autograd.record():
        loss = sum((net(x) * (i + 1)).sum() for i in range(calls))
    loss.backward()


def _close(a: dict, b: dict) -> None:
    for k in a:
        np.testing.assert_allclose(a[k], b[k], rtol=1e-5, atol=1e-5, err_msg=k)


@pytest.mark.parametrize("calls", [1, 2])
def test_hybridized_backward_gives_the_imperative_gradients(calls: int, copies: list[int]) -> None:
    net, x = _net()
    _step(net, x, calls)
    want = _grads(net)
    # imperative: each operator writes its parameter's gradient; used twice, one sum each
    imperative = copies[0]
    assert imperative == (0 if calls == 1 else len(want))
    net.hybridize()
    for _ in range(2):
        _step(net, x, calls)
        _close(_grads(net), want)
    # a parameter's one gradient is written into .grad by the executor (no pass of its own);
    # two gradients are summed into .grad in one pass, as in the imperative run
    assert copies[0] == 3 * imperative


def test_grad_req_add_accumulates(copies: list[int]) -> None:
    net, x = _net()
    _step(net, x)
    once = _grads(net)
    net.hybridize()
    _step(net, x)  # binds with the 'write' buffers
    net.collect_params().setattr("grad_req", "add")  # new buffers, zeroed
    _step(net, x)
    _step(net, x)
    _close(_grads(net), {k: 2 * v for k, v in once.items()})


def test_autograd_grad_leaves_grad_buffers_alone() -> None:
    net, x = _net()
    _step(net, x)
    want = _grads(net)
    net.hybridize()
    _step(net, x)
    params = [p for p in net.collect_params().values() if p.grad_req != "null"]
    for p in params:
        p.grad()[:] = 7.0
    with autograd.record():
        loss = net(x).sum()
    got = autograd.grad(loss, [p.data() for p in params])
    for p, g in zip(params, got):
        np.testing.assert_allclose(g.asnumpy(), want[p.name], rtol=1e-5, atol=1e-5)
        assert (p.grad().asnumpy() == 7.0).all(), p.name


def test_retained_graph_backward_then_autograd_grad() -> None:
    """A backward that wrote the .grad buffers, then autograd.grad on the same graph: the
    buffers are left alone. (The values of such a second backward of a hybridized graph differ
    from the first's, also before the buffers were shared: not checked here.)"""
    net, x = _net()
    _step(net, x)
    want = _grads(net)
    net.hybridize()
    params = [p for p in net.collect_params().values() if p.grad_req != "null"]
    with autograd.record():
        loss = net(x).sum()
    loss.backward(retain_graph=True)
    _close(_grads(net), want)
    for p in params:
        p.grad()[:] = 7.0
    autograd.grad(loss, [p.data() for p in params], retain_graph=True)
    for p in params:
        assert (p.grad().asnumpy() == 7.0).all(), p.name
