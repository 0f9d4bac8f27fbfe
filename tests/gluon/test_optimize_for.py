"""HybridBlock.optimize_for / hybridize(backend=...) and Symbol.optimize_for on MXNet 1.9.1's
CPU subgraph backends: the cached graph is the fused one, it computes what the unfused graph
does, and export writes it (MXNet writes ``_sg_mkldnn_*`` nodes for the same blocks)."""

import json

import numpy as np
import pytest

import mxlite as mx
from mxlite.gluon import nn


def _conv_net() -> nn.HybridSequential:
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3, in_channels=3), nn.BatchNorm(), nn.Activation("relu"))
    net.initialize()
    return net


def _ops(path: str) -> list[str]:
    with open(path) as f:
        return [n["op"] for n in json.load(f)["nodes"] if n["op"] != "null"]


def test_optimize_for_fuses_the_cached_graph_and_export_writes_it(tmp_path) -> None:
    net = _conv_net()
    x = mx.nd.random.uniform(shape=(2, 3, 8, 8))
    want = net(x).asnumpy()
    assert net.optimize_for(x, backend="MKLDNN") is None  # builds, does not run
    got = net(x).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    prefix = str(tmp_path / "fused")
    net.export(prefix)
    assert _ops(prefix + "-symbol.json") == ["_sg_mkldnn_conv"]  # as MXNet 1.9.1 exports it
    back = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
    np.testing.assert_allclose(back(x).asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_hybridize_with_a_backend_partitions_at_the_first_call(tmp_path) -> None:
    net = nn.HybridSequential()
    net.add(nn.Dense(3, in_units=4))
    net.initialize()
    x = mx.nd.ones((2, 4))
    want = net(x).asnumpy()
    net.hybridize(backend="MKLDNN")
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-6)
    net.export(str(tmp_path / "fc"))
    assert _ops(str(tmp_path / "fc-symbol.json")) == ["_sg_mkldnn_fully_connected"]


def test_symbol_optimize_for_is_the_backend_symbol() -> None:
    data = mx.sym.var("data")
    conv = mx.sym.Convolution(data, num_filter=2, kernel=(3, 3), name="c")
    sym = mx.sym.Activation(conv, act_type="relu")
    fused = sym.optimize_for("MKLDNN", args={}, aux={}, ctx=mx.cpu())
    assert fused.tojson() == sym.get_backend_symbol("MKLDNN").tojson()
    assert [n["op"] for n in json.loads(fused.tojson())["nodes"] if n["op"] != "null"] == [
        "_sg_mkldnn_conv"
    ]
    assert fused.list_arguments() == sym.list_arguments()


def test_an_unknown_backend_is_refused_where_it_is_named() -> None:
    net = _conv_net()
    with pytest.raises(mx.base.MXNetError, match="hybridize: backend must be one of MKLDNN"):
        net.optimize_for(mx.nd.ones((1, 3, 8, 8)), backend="TensorRT")
    with pytest.raises(mx.base.MXNetError, match="Symbol.optimize_for: backend must be one"):
        mx.sym.var("x").optimize_for("FOO")
    with pytest.raises(mx.base.MXNetError, match='Must specify "backend"'):
        net.optimize_for(mx.nd.ones((1, 3, 8, 8)))
