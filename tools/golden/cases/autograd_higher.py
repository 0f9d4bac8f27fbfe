"""Higher-order gradients (tests/test_autograd_higher_order.py; the cases of
tests/autograd_higher_cases.py): each unary function at the second and third order where MXNet
can (cases it refuses are left out; it refuses z = a*b + a/b - a*a at the second, which the test
checks against the analytic values), and MXNet's own example exp(x) + x. Each case keeps one
flat ``value``: the gradient, then x.grad (see the test).
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
    dx, x1 = c.exp_plus_x(mx)  # MXNet's own example
    golden.put("exp_add", {}, value=np.concatenate([dx.asnumpy(), x1.grad.asnumpy()]))
    for k, (name, xs, ws, flatten) in enumerate(c.FC):
        rng = np.random.default_rng(300 + k)
        v = {n: rng.uniform(-1, 1, s).astype(np.float32) for n, s in (("x", xs), ("w", ws),
                                                                      ("b", ws[:1]))}  # fmt: skip
        v["hg"] = rng.normal(size=(xs[0], ws[0]) if flatten else (*xs[:-1], ws[0]))
        v["hx"], v["hw"] = rng.normal(size=xs), rng.normal(size=ws)
        v = {n: a.astype(np.float32) for n, a in v.items()}
        golden.put(name, {"flatten": flatten}, **v, **c.fc_second_order(mx, v, flatten))
