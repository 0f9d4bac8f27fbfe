"""Common subexpression elimination at bind (MXNET_ELIMINATE_COMMON_EXPR)."""

import numpy as np
import pytest

import mxlite as mx
from mxlite.test_utils import environment


def _bind(sym, on, **shapes):
    with environment({"MXNET_ELIMINATE_COMMON_EXPR": "1" if on else "0"}):
        return sym.simple_bind(ctx=mx.cpu(), grad_req="write", **shapes)


def _savings(sym, **shapes):
    plain = _bind(sym, False, **shapes).get_optimized_symbol().get_internals()
    merged = _bind(sym, True, **shapes).get_optimized_symbol().get_internals()
    return len(plain) - len(merged)


a, b, c = mx.sym.Variable("a"), mx.sym.Variable("b"), mx.sym.Variable("c")
d = a + 1


@pytest.mark.parametrize(
    "sym, saved",
    [
        ((a + 1) + (a + 2), 0),
        ((a + b) + (a + b), 1),
        (((a + b) + c) + ((a + b) + c), 2),
        (mx.sym.Group([a * d, a * d]), 0),  # merged, then a _copy output
        (mx.sym.Group([a * d + b, a * d + b]), 1),
        (mx.sym.Group([a * (a + 1), a * (a + 1)]), 1),
        (mx.sym.Dropout(a, p=0.5) + mx.sym.Dropout(a, p=0.5), 0),  # random: never merged
    ],
)
def test_savings_match_mxnet(sym, saved):
    shapes = {n: (3, 4) for n in sym.list_inputs()}
    assert _savings(sym, **shapes) == saved


def test_results_and_gradients_unchanged():
    sym = mx.sym.Group([(a * b) + (a * b), mx.sym.sin(a * b)])
    data = {"a": mx.nd.array(np.arange(6).reshape(2, 3)), "b": mx.nd.ones((2, 3)) * 3}
    res = []
    for on in (False, True):
        exe = _bind(sym, on, a=(2, 3), b=(2, 3))
        outs = exe.forward(is_train=True, **data)
        exe.backward([mx.nd.ones((2, 3)), mx.nd.ones((2, 3))])
        res.append([o.asnumpy() for o in outs] + [g.asnumpy() for g in exe.grad_arrays])
    for x, y in zip(*res):
        np.testing.assert_allclose(x, y, rtol=1e-6)


def test_duplicated_outputs_get_their_own_arrays():
    exe = _bind(mx.sym.Group([a + b, a + b]), True, a=(2,), b=(2,))
    outs = exe.forward(a=mx.nd.ones((2,)), b=mx.nd.ones((2,)))
    assert outs[0] is not outs[1]
    assert outs[1].asnumpy().tolist() == [2.0, 2.0]
    names = exe.get_optimized_symbol().list_outputs()
    assert names[1].endswith("_0_copy_output")


def test_user_symbol_is_not_changed():
    sym = (a + b) + (a + b)
    before = sym.tojson()
    _bind(sym, True, a=(2,), b=(2,))
    assert sym.tojson() == before
    assert len(sym.get_internals()) == 5
