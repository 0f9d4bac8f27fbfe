"""boolean_mask, the operator whose output shape depends on values: imperative, symbolic and in
hybridized blocks (MXNet's test_dynamic_shape.py), forward and backward."""

import numpy as np
import pytest

import mxlite as mx
from mxlite import gluon


class _Masked(gluon.HybridBlock):
    """More operators than CachedOp's inline limit, around the dynamic node."""

    def hybrid_forward(self, F, data, index):
        return F.contrib.boolean_mask(F.relu(data) * 2, index) + 1


def _inputs():
    data = mx.nd.array([[1, -2, 3], [4, 5, -6], [7, 8, 9]])
    return data, mx.nd.array([0, 1, 1])


@pytest.mark.parametrize("hybridize", [False, True])
def test_boolean_mask_block_forward_and_backward(hybridize):
    block = _Masked()
    if hybridize:
        block.hybridize()
    data, index = _inputs()
    data.attach_grad()
    with mx.autograd.record():
        out = block(data, index)
    out.backward(mx.nd.array([[1, 2, 3], [4, 5, 6]]))
    np.testing.assert_array_equal(out.asnumpy(), [[9, 11, 1], [15, 17, 19]])
    np.testing.assert_array_equal(data.grad.asnumpy(), [[0, 0, 0], [2, 4, 0], [8, 10, 12]])
    # a new mask gives a new output shape through the same cached graph, outside autograd
    np.testing.assert_array_equal(block(data, mx.nd.array([1, 0, 0])).asnumpy(), [[3, 1, 7]])
    assert block(data, mx.nd.zeros(3)).shape == (0, 3)


def test_mxnet_dynamic_shape_case():
    class Block(gluon.HybridBlock):
        def hybrid_forward(self, F, data, index):
            return F.contrib.boolean_mask(data, index)

    block = Block()
    block.hybridize()
    data, index = _inputs()
    data.attach_grad()
    with mx.autograd.record():
        out = block(data, index)
    out.backward()
    np.testing.assert_array_equal(out.asnumpy(), [[4, 5, -6], [7, 8, 9]])
    np.testing.assert_array_equal(data.grad.asnumpy(), [[0, 0, 0], [1, 1, 1], [1, 1, 1]])


def test_boolean_mask_axis_and_req_add():
    data = mx.nd.array(np.arange(12).reshape(3, 4))
    index = mx.nd.array([1, 0, 0, 1])
    np.testing.assert_array_equal(
        mx.nd.contrib.boolean_mask(data, index, axis=1).asnumpy(), [[0, 3], [4, 7], [8, 11]]
    )
    data.attach_grad(grad_req="add")
    for _ in range(2):
        with mx.autograd.record():
            out = mx.nd.contrib.boolean_mask(data, index, axis=-1)
        out.backward()
    np.testing.assert_array_equal(data.grad.asnumpy(), np.tile([2, 0, 0, 2], (3, 1)))


def test_boolean_mask_symbol():
    sym = mx.sym.contrib.boolean_mask(mx.sym.var("data"), mx.sym.var("index"))
    assert '"op": "_contrib_boolean_mask"' in sym.tojson()
    args, outs, _ = sym.infer_shape_partial(data=(3, 4))
    assert args == [(3, 4), (3,)] and outs == [(0, 4)]  # the row count is known only at run time
    loaded = mx.sym.load_json(sym.tojson())
    assert loaded.tojson() == sym.tojson()
    block = gluon.SymbolBlock(loaded, [mx.sym.var("data"), mx.sym.var("index")])
    out = block(mx.nd.ones((3, 4)), mx.nd.array([1, 0, 1]))
    assert out.shape == (2, 4)


def test_boolean_mask_bad_index():
    with pytest.raises(mx.base.ShapeError, match="index must be 1-D"):
        mx.nd.contrib.boolean_mask(mx.nd.ones((3, 2)), mx.nd.ones((2,)))
    with pytest.raises(mx.base.ShapeError, match="axis 2 is out of range"):
        mx.nd.contrib.boolean_mask(mx.nd.ones((3, 2)), mx.nd.ones((3,)), axis=2)


def test_boolean_mask_onnx_export(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    sym = mx.sym.contrib.boolean_mask(mx.sym.var("data"), mx.sym.var("index")) * 2
    path = str(tmp_path / "mask.onnx")
    mx.onnx.export_model(sym, {}, [(3, 4), (3,)], [np.float32, np.float32], path)
    sess = ort.InferenceSession(path)
    assert isinstance(sess.get_outputs()[0].shape[0], str)  # the row count is symbolic
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    (got,) = sess.run(None, {"data": data, "index": np.array([1, 0, 1], np.float32)})
    np.testing.assert_array_equal(got, data[[0, 2]] * 2)


def test_bind_of_a_dynamic_shape_graph_says_why_it_cannot():
    sym = mx.sym.contrib.boolean_mask(mx.sym.var("a"), mx.sym.var("i")) + 1
    with pytest.raises(mx.base.MXNetError, match="depends on the values of its inputs"):
        sym.simple_bind(mx.cpu(), a=(3, 4), i=(3,))
