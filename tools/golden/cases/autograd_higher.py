"""Higher-order gradients (tests/test_autograd_higher_order.py; the cases of
tests/autograd_higher_cases.py): each unary function at the second and third order where MXNet
can (cases it refuses are left out), z = a*b + a/b - a*a at the second, and MXNet's own example
exp(x) + x. Each case keeps one flat ``value``: the gradient, then x.grad (see the test).
Cases ``fc_flatten`` and ``fc_no_flatten``: FullyConnected at the second order, its inputs and
head gradients and what ``fc_second_order`` of the cases module computes."""

import mxnet as mx
import numpy as np
from core import Golden, load_module

FILE = "tests/golden/autograd_higher.npz"
c = load_module("tests/autograd_higher_cases.py")


def record(golden: Golden) -> None:
    for f in c.UNARY:
        for order in (2, 3):
            try:
                golden.put(f"{f}_{order}", {}, value=c.unary(mx, f, c.X, order))
            except mx.base.MXNetError:
                pass
    nd, ag = mx.nd, mx.autograd
    # binary: z = a*b + a/b - a*a, second order in both
    for key, shapes in c.BINARY.items():
        a, b = (nd.array(v) for v in c.binary_inputs(*shapes))
        for v in (a, b):
            v.attach_grad()
        try:
            with ag.record():
                z = a * b + a / b - a * a
            ga, gb = ag.grad(z, [a, b], create_graph=True, retain_graph=True)
            with ag.record():
                h = ga * gb
            h.backward()
        except mx.base.MXNetError:
            continue
        value = np.concatenate([t.asnumpy().ravel() for t in (ga, gb, a.grad, b.grad)])
        golden.put(key, {}, value=value)
    # MXNet's own example: z = exp(x) + x
    x1 = nd.ones((1,))
    x1.attach_grad()
    with ag.record():
        z = nd.elemwise_add(nd.exp(x1), x1)
    dx = ag.grad(z, [x1], create_graph=True)[0]
    dx.backward()
    golden.put("exp_add", {}, value=np.concatenate([dx.asnumpy(), x1.grad.asnumpy()]))
    for k, (name, xs, ws, flatten) in enumerate(c.FC):
        rng = np.random.default_rng(300 + k)
        v = {n: rng.uniform(-1, 1, s).astype(np.float32) for n, s in (("x", xs), ("w", ws),
                                                                      ("b", ws[:1]))}  # fmt: skip
        v["hg"] = rng.normal(size=(xs[0], ws[0]) if flatten else (*xs[:-1], ws[0]))
        v["hx"], v["hw"] = rng.normal(size=xs), rng.normal(size=ws)
        v = {n: a.astype(np.float32) for n, a in v.items()}
        golden.put(name, {"flatten": flatten}, **v, **c.fc_second_order(mx, v, flatten))
