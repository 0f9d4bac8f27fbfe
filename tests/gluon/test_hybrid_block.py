"""HybridBlock and SymbolBlock: hybridize through CachedOp, autograd through it, export and
import both ways with MXNet 1.9.1 (mxlite/gluon/hybrid_block.py, executor/cached_op.py)."""

import gc
import weakref
from pathlib import Path

import numpy as np
import pytest

import mxlite as mx
from mxlite import autograd, gluon
from mxlite.gluon import nn
from tests.gluon import mlp_cases
from tests.golden_file import load

GOLDEN = Path(__file__).parent / "golden"


def make_mlp():
    return mlp_cases.make_mlp(mx)


def test_imports_what_mxnet_exported():
    io = load("gluon/golden/gluon.npz").arrays("mlp_io")
    block = gluon.SymbolBlock.imports(
        str(GOLDEN / "exported-symbol.json"), ["data"], str(GOLDEN / "exported-0000.params")
    )
    np.testing.assert_allclose(block(mx.nd.array(io["x"])).asnumpy(), io["y"], rtol=1e-5)
    x = mx.nd.array(io["x"])
    x.attach_grad()
    with autograd.record():
        y = block(x)
    y.backward()
    assert x.grad.shape == x.shape and np.abs(x.grad.asnumpy()).sum() > 0


def test_export_needs_a_hybridized_call_and_writes_mxnet_names(tmp_path):
    net = make_mlp()
    net.initialize()
    with pytest.raises(RuntimeError, match="hybridize"):
        net.export(str(tmp_path / "m"))
    net.hybridize()
    net(mx.nd.ones((2, 5)))
    sym_file, params_file = net.export(str(tmp_path / "m"), epoch=3)
    assert params_file.endswith("m-0003.params")
    keys = sorted(mx.nd.load(params_file))
    assert "aux:hybridsequential0_batchnorm0_running_mean" in keys or any(
        k.startswith("aux:") and k.endswith("running_mean") for k in keys
    )
    assert all(k.startswith(("arg:", "aux:")) for k in keys)
    back = gluon.SymbolBlock.imports(sym_file, "data", params_file)
    x = mx.nd.random.uniform(shape=(2, 5))
    np.testing.assert_allclose(back(x).asnumpy(), net(x).asnumpy(), rtol=1e-5)


class _TwoInTwoOut(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense = nn.Dense(2)

    def hybrid_forward(self, F, x, pair):
        a, b = pair
        return self.dense(x), [a + b, F.relu(b)]


def test_nested_inputs_and_outputs_hybridized_match_imperative():
    net = _TwoInTwoOut()
    net.initialize()
    x, a, b = (mx.nd.random.uniform(-1, 1, shape=(3, 4)) for _ in range(3))
    want = net(x, [a, b])
    net.hybridize()
    got = net(x, [a, b])
    assert isinstance(got[1], list) and len(got[1]) == 2
    np.testing.assert_allclose(got[0].asnumpy(), want[0].asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(got[1][1].asnumpy(), want[1][1].asnumpy())
    with pytest.raises(ValueError, match="argument structure"):
        net(x, a)


def test_hybridized_results_survive_the_next_call_and_shapes_rebind():
    net = make_mlp()
    net.initialize()
    net.hybridize()
    first = net(mx.nd.ones((2, 5)))
    kept = first.asnumpy().copy()
    net(mx.nd.zeros((2, 5)))
    np.testing.assert_array_equal(first.asnumpy(), kept)
    assert net(mx.nd.ones((7, 5))).shape == (7, 3)


def test_deferred_shapes_are_inferred_on_the_first_hybridized_call():
    net = make_mlp()
    net.initialize()
    net.hybridize()
    net(mx.nd.ones((2, 6)))
    assert net[0].weight.shape == (8, 6) and net[1].gamma.shape == (8,)
    other = make_mlp()
    other.infer_shape(mx.nd.ones((2, 4)))
    assert other[0].weight.shape == (8, 4)


def test_mixed_inputs_are_refused():
    net = nn.Dense(2)
    net.initialize()
    with pytest.raises(ValueError, match="mixed NDArrays and Symbols"):
        net(mx.nd.ones((1, 2)), mx.sym.var("a"))
    with pytest.raises(ValueError, match="must be one NDArray or one Symbol"):
        net(None)


def test_symbol_call_composes_and_symbol_block_wraps_internals():
    net = make_mlp()
    out = net(mx.sym.var("data"))
    assert out.list_arguments()[0] == "data"
    inner = out.get_internals()[net[0].name + "_relu_fwd_output"]
    feat = gluon.SymbolBlock(inner, mx.sym.var("data"), params=net.collect_params())
    net.initialize()
    x = mx.nd.ones((2, 5))
    net(x)
    assert feat(x).shape == (2, 8)


def test_op_hook_sees_mxnet_names():
    model = nn.HybridSequential(prefix="pool_")
    with model.name_scope():
        model.add(nn.AvgPool1D())
    model.initialize()
    model.hybridize()
    seen = []
    model.register_op_hook(lambda name, op, arr: seen.append((name, op)), monitor_all=True)
    model(mx.nd.ones((2, 3, 4)))
    assert seen == [(b"pool_pool0_fwd_data", b"Pooling"), (b"pool_pool0_fwd_output", b"Pooling")]


def test_a_dropped_hybridized_block_is_freed_without_the_cycle_collector():
    # a block's name scope held the block, and the container check a closure of its
    # children: dropped blocks (a hybridized one with its executors' planned memory) lived
    # until the cycle collector ran, 1.3 GB each in MXNet's test_slice_pooling2d_slice_pooling2d
    class Net(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense = mx.gluon.nn.Dense(3)
                self.pool = mx.gluon.nn.MaxPool1D()

        def hybrid_forward(self, F, x):
            return self.dense(self.pool(x))

    gc.disable()
    try:
        net = Net()
        net.initialize()
        net.hybridize()
        x = mx.nd.ones((2, 4, 6))
        x.attach_grad()
        with mx.autograd.record():
            y = net(x)
        y.backward()
        mx.nd.waitall()
        refs = [weakref.ref(net), weakref.ref(net.dense)]
        del net, y
        assert [r() for r in refs] == [None, None]
    finally:
        gc.enable()
