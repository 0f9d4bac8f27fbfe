"""The gradient graph, built on hand-made nodes."""

import numpy as np
import pytest

import mxlite as mx
from mxlite.executor import bind
from mxlite.executor.bind import graph_names
from mxlite.executor.gradient import build_graph
from mxlite.operator.req import OpReq
from mxlite.symbol.graph import Node


def _graph(outputs, reqs, shape=(3,)):
    args, aux, names = graph_names(outputs)
    shapes, dtypes = {}, {}
    from mxlite.symbol.infer import infer_shapes, infer_types

    shapes = infer_shapes(outputs, {id(a): shape for a in args})
    dtypes = infer_types(outputs, {id(a): np.float32 for a in args})
    return build_graph(outputs, shapes, dtypes, [a.name for a in args], [], reqs, names)


def test_reused_entry_gradients_are_summed_into_one_array():
    x = Node(None, "x")
    s = Node("sigmoid", "s", {}, [(x, 0)])
    a = Node("elemwise_add", "a", {}, [(s, 0), (x, 0)])
    g = _graph([(a, 0)], {"x": OpReq.WRITE})
    writes = [
        (st.name, r) for st in g.backward for e, r in zip(st.outputs, st.req) if e == g.grad_eids[0]
    ]
    assert [r for _, r in writes] == [OpReq.WRITE, OpReq.ADD]


def test_backward_reads_only_declared_dependencies():
    x = Node(None, "x")
    s = Node("sigmoid", "s", {}, [(x, 0)])  # gradient needs the output, not the input
    g = _graph([(s, 0)], {"x": OpReq.WRITE})
    (b,) = g.backward
    assert b.in_data == [-1]
    assert b.out_data == [g.output_eids[0]]


def test_block_grad_gives_zero_gradient():
    x = Node(None, "x")
    bg = Node("BlockGrad", "bg", {}, [(x, 0)])
    g = _graph([(bg, 0)], {"x": OpReq.WRITE})
    assert [st.kind for st in g.backward] == ["zeros"]
    xa, gx = mx.nd.ones((3,)), mx.nd.ones((3,))
    exe = bind([(bg, 0)], mx.cpu(), [xa], [gx])
    exe.forward(is_train=True)
    exe.backward()  # no head gradient is needed
    assert (gx.asnumpy() == 0).all()


def test_null_request_prunes_backward_steps():
    x, y = Node(None, "x"), Node(None, "y")
    sx = Node("sigmoid", "sx", {}, [(x, 0)])
    m = Node("elemwise_mul", "m", {}, [(sx, 0), (y, 0)])
    g = _graph([(m, 0)], {"x": OpReq.NULL, "y": OpReq.WRITE})
    assert [st.name for st in g.backward] == ["m_backward"]
    assert g.backward[0].outputs[0] == -1


def test_no_gradient_requested_builds_no_backward():
    x = Node(None, "x")
    s = Node("sigmoid", "s", {}, [(x, 0)])
    g = _graph([(s, 0)], {"x": OpReq.NULL})
    assert g.backward == [] and g.head_grad_eids == [-1]


def test_same_input_twice_in_one_step():
    x = Node(None, "x")
    m = Node("elemwise_mul", "m", {}, [(x, 0), (x, 0)])
    xa, gx = mx.nd.array(np.array([1.0, 2.0, -3.0])), mx.nd.zeros((3,))
    exe = bind([(m, 0)], mx.cpu(), [xa], [gx])
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((3,)))
    np.testing.assert_allclose(gx.asnumpy(), [2.0, 4.0, -6.0])


def test_missing_head_gradient_raises():
    x = Node(None, "x")
    s = Node("sigmoid", "s", {}, [(x, 0)])
    exe = bind([(s, 0)], mx.cpu(), [mx.nd.ones((3,))], [mx.nd.zeros((3,))])
    exe.forward(is_train=True)
    with pytest.raises(mx.base.MXNetError, match="head gradient 0.*MakeLoss"):
        exe.backward()


def test_non_differentiable_operator_fails_at_bind():
    x, idx = mx.sym.Variable("x"), mx.sym.Variable("idx")
    y = mx.sym.batch_take(x, idx)
    types = {"x": np.float32, "idx": np.int32}
    exe = mx.sym.stop_gradient(y).simple_bind(mx.cpu(), x=(4, 3), idx=(4,), type_dict=types)
    exe.forward()
    exe.backward()
    with pytest.raises(mx.base.MXNetError, match="batch_take.*non-differentiable"):
        y.simple_bind(mx.cpu(), x=(4, 3), idx=(4,), type_dict=types)
