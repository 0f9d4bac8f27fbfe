"""Block: names, parameter files both ways with MXNet 1.9.1, hooks, apply, cast, summary,
share_parameters and the errors of load_parameters (mxlite/gluon/block.py)."""

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


@pytest.fixture
def fresh_names():
    old = getattr(mx.name.NameManager._current, "value", None)
    mx.name.NameManager._current.value = mx.name.NameManager()
    yield
    mx.name.NameManager._current.value = old


def test_parameter_names_match_mxnet(fresh_names):
    assert mlp_cases.block_names(mx) == load("gluon/golden/gluon.npz").cases["names"]


def test_collect_params_select_and_unregistered_container_warning():
    net = make_mlp()
    assert all(k.endswith("weight") for k in net.collect_params(".*weight"))
    assert len(net.collect_params(".*weight|.*bias")) == 4

    class Holder(gluon.Block):
        def __init__(self):
            super().__init__()
            self.layers = [nn.Dense(2)]

    with pytest.warns(UserWarning, match="unregistered container"):
        Holder().collect_params()


def test_load_parameters_saved_by_mxnet(fresh_names):
    io = load("gluon/golden/gluon.npz").arrays("mlp_io")
    for fname, method in (("mlp.params", "structural"), ("mlp_dict.params", "full")):
        mx.name.NameManager._current.value = mx.name.NameManager()
        net = make_mlp()
        if method == "structural":
            net.load_parameters(str(GOLDEN / fname))
        else:
            net.collect_params().load(str(GOLDEN / fname))
        np.testing.assert_allclose(net(mx.nd.array(io["x"])).asnumpy(), io["y"], rtol=1e-5)


def test_load_parameters_errors_name_the_parameter(tmp_path):
    net = make_mlp()
    net.initialize()
    net(mx.nd.ones((2, 5)))
    f = str(tmp_path / "net.params")
    net.save_parameters(f)
    assert sorted(mx.nd.load(f))[0] == "0.bias"
    small = nn.HybridSequential()
    with small.name_scope():
        small.add(nn.Dense(8, activation="relu"))
    with pytest.raises(ValueError, match="'1.gamma'.*ignore_extra"):
        small.load_parameters(f)
    small.load_parameters(f, ignore_extra=True)
    big = make_mlp()
    with big.name_scope():
        big.add(nn.Dense(2))
    with pytest.raises(AssertionError, match="'3.weight' is missing"):
        big.load_parameters(f)
    big.load_parameters(f, allow_missing=True, ignore_extra=True)
    wrong = nn.HybridSequential()
    with wrong.name_scope():
        wrong.add(nn.Dense(7), nn.BatchNorm(), nn.Dense(3))
    with pytest.raises(AssertionError, match="weight.*shape incompatible"):
        wrong.load_parameters(f)
    other = make_mlp()
    other.load_parameters(f)
    other.cast("float64")
    with pytest.raises(AssertionError, match="dtype incompatible"):
        other.load_parameters(f)
    other.load_parameters(f, cast_dtype=True)
    assert other[0].weight.data().dtype == np.float64
    other.load_parameters(f, cast_dtype=True, dtype_source="saved")
    assert other[0].weight.data().dtype == np.float32


def test_hooks_apply_and_cast():
    net = make_mlp()
    net.initialize()
    calls = []
    h = net[0].register_forward_hook(lambda b, i, o: calls.append(("post", o.shape)))
    p = net[0].register_forward_pre_hook(lambda b, i: calls.append(("pre", i[0].shape)))
    net(mx.nd.ones((2, 5)))
    assert calls == [("pre", (2, 5)), ("post", (2, 8))]
    h.detach()
    p.detach()
    net(mx.nd.ones((2, 5)))
    assert len(calls) == 2
    seen = []
    net.apply(lambda b: seen.append(type(b).__name__))
    assert seen[-1] == "HybridSequential" and seen.count("Dense") == 2
    net.cast("float64")
    assert net(mx.nd.ones((2, 5), dtype="float64")).dtype == np.float64


def test_summary_prints_layers_and_refuses_hybridized(capsys):
    net = make_mlp()
    net.initialize()
    net.summary(mx.nd.ones((2, 5)))
    out = capsys.readouterr().out
    assert "Dense-3" in out and "BatchNorm-4" in out and "Total params: 107" in out
    net.hybridize()
    with pytest.raises(AssertionError, match="hybridized"):
        net.summary(mx.nd.ones((2, 5)))


def test_share_parameters_and_params_argument():
    a = nn.Dense(4, in_units=3)
    b = nn.Dense(4, in_units=3, params=a.collect_params())
    assert b.weight is a.weight
    c = make_mlp()
    d = make_mlp()
    d.share_parameters(c._collect_params_with_prefix())
    assert d[0].weight is c[0].weight and d[2].bias is c[2].bias
    c.initialize()
    x = mx.nd.ones((2, 5))
    np.testing.assert_array_equal(c(x).asnumpy(), d(x).asnumpy())


def test_setattr_type_change_and_parameter_override_refused():
    net = make_mlp()
    blk = gluon.Block()
    blk.dense = nn.Dense(2)
    with pytest.raises(TypeError, match="Changing attribute type"):
        blk.dense = 3
    with pytest.raises(ValueError, match="Children of HybridBlock"):
        net.add(nn.Sequential())
    blk.w = gluon.Parameter("w", shape=(1,))
    with pytest.raises(AssertionError, match="Overriding Parameter"):
        blk.w = gluon.Parameter("v", shape=(1,))


def test_gradients_of_a_block_used_twice_add_up():
    for hybrid in (False, True):
        net = nn.Dense(3, in_units=4)
        net.initialize()
        if hybrid:
            net.hybridize()
        x = mx.nd.random.uniform(shape=(2, 4))
        with autograd.record():
            y = net(x) + net(2 * x)
        y.backward()
        np.testing.assert_allclose(
            net.weight.grad().asnumpy(), np.tile(3 * x.asnumpy().sum(0), (3, 1)), rtol=1e-5
        )
