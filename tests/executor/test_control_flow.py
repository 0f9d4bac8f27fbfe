"""Control flow: mx.nd.contrib loops under autograd, mx.sym.contrib nodes (inference, backward
against finite differences, nesting, cond, JSON round trip) and their errors."""

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError


def test_nd_foreach_under_autograd():
    x = mx.nd.array(np.arange(6).reshape(3, 2))
    s = mx.nd.ones((2,))
    x.attach_grad()
    with mx.autograd.record():
        outs, states = mx.nd.contrib.foreach(lambda d, st: (d * st[0], [d * st[0]]), x, [s])
        loss = outs.sum() + states[0].sum()
    loss.backward()
    want = [np.ones(2)]
    for t in range(3):
        want.append(want[-1] * np.arange(6).reshape(3, 2)[t])
    np.testing.assert_allclose(outs.asnumpy(), np.stack(want[1:]))
    assert x.grad.shape == (3, 2)


def test_nd_while_loop_pads_and_cond_branches():
    outs, (i, s) = mx.nd.contrib.while_loop(
        lambda i, s: i < 3, lambda i, s: ([s * 2], [i + 1, s + 1]),
        [mx.nd.array([0]), mx.nd.ones((2,))], max_iterations=5)  # fmt: skip
    assert outs[0].shape == (5, 2) and float(i.asscalar()) == 3
    np.testing.assert_allclose(outs[0].asnumpy()[:3], [[2, 2], [4, 4], [6, 6]])
    np.testing.assert_allclose(outs[0].asnumpy()[3:], 0)
    r = mx.nd.contrib.cond(mx.nd.array([0]), lambda: s * 3, lambda: s - 1)
    np.testing.assert_allclose(r.asnumpy(), s.asnumpy() - 1)
    with pytest.raises(ValueError, match="max_iterations"):
        mx.nd.contrib.while_loop(lambda i: i < 1, lambda i: ([], [i]), [mx.nd.ones(1)])


def _fd(net, args, heads, name, eps=1e-3):
    base = {k: v.asnumpy().astype(np.float64) for k, v in args.items()}

    def loss(vals):
        outs = net.bind(mx.cpu(), {k: mx.nd.array(v) for k, v in vals.items()}).forward()
        return sum(float((o.asnumpy() * h).sum()) for o, h in zip(outs, heads))

    num = np.zeros_like(base[name])
    for idx in np.ndindex(num.shape):
        up, down = dict(base), dict(base)
        up[name], down[name] = base[name].copy(), base[name].copy()
        up[name][idx] += eps
        down[name][idx] -= eps
        num[idx] = (loss(up) - loss(down)) / (2 * eps)
    return num


def _check_grads(net, shapes, seed=0):
    rng = np.random.default_rng(seed)
    args = {n: mx.nd.array(rng.uniform(0.2, 1.0, shapes[n])) for n in net.list_arguments()}
    grads = {n: mx.nd.zeros(a.shape) for n, a in args.items()}
    exe = net.bind(mx.cpu(), args, args_grad=grads)
    outs = exe.forward(is_train=True)
    heads = [rng.normal(size=o.shape) for o in outs]
    exe.backward([mx.nd.array(h) for h in heads])
    for n in args:
        np.testing.assert_allclose(grads[n].asnumpy(), _fd(net, args, heads, n), rtol=2e-2,
                                   atol=2e-2)  # fmt: skip
    return outs


def test_sym_foreach_with_free_variable_and_two_states():
    x, s, t, w = (mx.sym.var(n) for n in "xstw")

    def body(d, st):
        o = mx.sym.tanh(d * st[0] + w)
        return [o, d * 2], [o, st[1] * d]

    outs, states = mx.sym.contrib.foreach(body, x, [s, t])
    net = mx.sym.Group(outs + states)
    assert net.list_arguments() == ["x", "s", "t", "w"]
    _, out_shapes, _ = net.infer_shape(x=(4, 3), s=(3,), t=(3,), w=(3,))
    assert out_shapes == [(4, 3), (4, 3), (3,), (3,)]
    _check_grads(net, dict(x=(4, 3), s=(3,), t=(3,), w=(3,)))


def test_sym_while_loop_and_cond_gradients():
    i, s, w = mx.sym.var("i"), mx.sym.var("s"), mx.sym.var("w")
    outs, vars_ = mx.sym.contrib.while_loop(
        lambda i, s: mx.sym.sum(s) < 3, lambda i, s: ([s * w], [i + 1, s + w * 0.5]),
        [i, s], max_iterations=8)  # fmt: skip
    net = mx.sym.Group(outs + vars_)
    _check_grads(net, dict(i=(1,), s=(2,), w=(2,)))
    a, b = mx.sym.var("a"), mx.sym.var("b")
    c = mx.sym.contrib.cond(mx.sym.sum(a) > 1, lambda: a * b, lambda: a - b)
    _check_grads(c, dict(a=(2, 2), b=(2, 2)))


def test_nested_foreach_json_round_trip_and_run():
    x, s = mx.sym.var("x"), mx.sym.var("s")

    def outer(d, st):
        inner, st2 = mx.sym.contrib.foreach(lambda e, q: (e * q[0], [q[0] + e]), d, [st[0]])
        return inner, st2

    outs, states = mx.sym.contrib.foreach(outer, x, [s])
    net = mx.sym.Group([outs] + states)
    text = net.tojson()
    again = mx.sym.load_json(text)
    assert again.tojson() == text
    _check_grads(again, dict(x=(2, 3, 2), s=(2,)))


def test_sym_foreach_errors():
    x, s = mx.sym.var("x"), mx.sym.var("s")
    with pytest.raises(AssertionError, match="state arrays"):
        mx.sym.contrib.foreach(lambda d, st: (d, [d]), x, [s])
    with pytest.raises(MXNetError, match="format"):
        mx.sym.contrib.foreach(lambda d, st: (d, [st[0], st[0]]), x, [s])
    with pytest.raises(MXNetError, match="built by"):
        mx.nd._internal._foreach(mx.nd.ones(2), num_args=2, num_outputs=1, num_out_data=1,
                                 in_state_locs=(), in_data_locs=(0,), remain_locs=())  # fmt: skip
