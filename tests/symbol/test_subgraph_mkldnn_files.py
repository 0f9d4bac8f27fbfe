"""Quantized models with MXNet's fused CPU nodes, both ways: a checkpoint real MXNet 1.9.1 saved
(``tools/golden/cases/mkldnn_backend.py``) runs in mxlite through ``mx.model.load_checkpoint``
and ``SymbolBlock.imports``; one mxlite saves runs in real MXNet (when /tmp/mxref has it)."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap

import numpy as np
import pytest

import mxlite as mx
from mxlite.symbol.graph import Node, topo_order
from tests.golden_file import TESTS, GoldenFile

GOLDEN = TESTS / "symbol/golden/mkldnn_backend.npz"
PREFIX = TESTS / "symbol/golden/mxnet_quantized"
MXREF = os.environ.get("MXREF_PYTHON", "/tmp/mxref/bin/python")


@pytest.fixture(scope="module")
def golden() -> GoldenFile:
    if not GOLDEN.exists() or not os.path.exists(f"{PREFIX}-symbol.json"):
        pytest.skip("golden files missing: run tools/golden/run.py mkldnn_backend")
    return GoldenFile(GOLDEN)


def _step(want: np.ndarray) -> float:
    """One level of the int8 range the last quantized layer's output spans."""
    return float(np.abs(want).max()) / 127


def test_load_checkpoint_of_mxnet_quantized_model(golden: GoldenFile) -> None:
    sym, args, aux = mx.model.load_checkpoint(str(PREFIX), 0)
    assert {np.dtype(a.dtype) for a in args.values()} >= {np.dtype(np.int8), np.dtype(np.float32)}
    assert set(aux) == set(sym.list_auxiliary_states())
    data = golden.arrays("float")["data"]
    exe = sym.bind(mx.cpu(), {"data": mx.nd.array(data), **args}, aux_states=aux, grad_req="null")
    got = exe.forward(is_train=False)[0].asnumpy()
    want = golden.arrays("quant")["out"]
    np.testing.assert_allclose(got, want, rtol=0, atol=_step(want))


def test_symbol_block_imports_mxnet_quantized_model(golden: GoldenFile) -> None:
    net = mx.gluon.SymbolBlock.imports(f"{PREFIX}-symbol.json", ["data"], f"{PREFIX}-0000.params")
    data = golden.arrays("float")["data"]
    want = golden.arrays("quant")["out"]
    np.testing.assert_allclose(net(mx.nd.array(data)).asnumpy(), want, rtol=0, atol=_step(want))
    net.hybridize()
    np.testing.assert_allclose(net(mx.nd.array(data)).asnumpy(), want, rtol=0, atol=_step(want))


def test_mxlite_checkpoint_is_mxnets(golden: GoldenFile, tmp_path) -> None:
    """mxlite saves the model it read as MXNet saved it: the same symbol file, the same
    arrays."""
    sym, args, aux = mx.model.load_checkpoint(str(PREFIX), 0)
    prefix = str(tmp_path / "q")
    mx.model.save_checkpoint(prefix, 0, sym, args, aux)
    with open(f"{prefix}-symbol.json") as f, open(f"{PREFIX}-symbol.json") as g:
        assert json.load(f) == json.load(g)
    again = mx.nd.load(f"{prefix}-0000.params")
    theirs = mx.nd.load(f"{PREFIX}-0000.params")
    assert sorted(again) == sorted(theirs)
    for k in theirs:
        assert again[k].dtype == theirs[k].dtype
        np.testing.assert_array_equal(again[k].asnumpy(), theirs[k].asnumpy())


@pytest.mark.skipif(not os.path.exists(MXREF), reason="real MXNet 1.9.1 not installed")
def test_mxnet_runs_a_model_mxlite_partitioned(golden: GoldenFile, tmp_path) -> None:
    """The float graph partitioned by mxlite's MKLDNN backend, saved by mxlite, gives real
    MXNet's outputs in real MXNet."""
    case, arrays = golden.cases["float"], golden.arrays("float")
    sym = mx.sym.load_json(case["json"]).get_backend_symbol("MKLDNN")
    args = {k[4:]: mx.nd.array(v) for k, v in arrays.items() if k.startswith("arg:")}
    aux = {k[4:]: mx.nd.array(v) for k, v in arrays.items() if k.startswith("aux:")}
    prefix = str(tmp_path / "f")
    mx.model.save_checkpoint(prefix, 0, sym, args, aux)
    np.save(tmp_path / "data.npy", arrays["data"])
    script = textwrap.dedent(f"""
        import mxnet as mx, numpy as np
        sym, args, aux = mx.model.load_checkpoint({prefix!r}, 0)
        assert any(n["op"] == "_sg_mkldnn_conv" for n in __import__("json").loads(
            sym.tojson())["nodes"])
        data = mx.nd.array(np.load({str(tmp_path / "data.npy")!r}))
        exe = sym.bind(mx.cpu(), {{"data": data, **args}}, aux_states=aux, grad_req="null")
        np.save({str(tmp_path / "out.npy")!r}, exe.forward(is_train=False)[0].asnumpy())
    """)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    res = subprocess.run([MXREF, "-c", script], capture_output=True, text=True, env=env,
                         timeout=300, check=False)  # fmt: skip
    assert res.returncode == 0, res.stderr[-2000:]
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), arrays["ref"], rtol=1e-4, atol=1e-5)


def test_quantized_conv_checks_its_input_dtype() -> None:
    """A quantized fused convolution alone: int8/uint8 data in, its output types out."""
    sym, _, _ = mx.model.load_checkpoint(str(PREFIX), 0)
    node = next(n for n in topo_order(sym._entries) if n.op == "_sg_mkldnn_conv")
    names = node.prop().list_arguments()
    fused = Node(node.op, node.name, node.attrs, [(Node(None, k), 0) for k in names],
                 node.subgraphs)  # fmt: skip
    alone = mx.sym.Symbol([(fused, 0), (fused, 1), (fused, 2)])
    with pytest.raises(mx.MXNetError, match="_sg_mkldnn_conv.*'data' must be int8 or uint8"):
        alone.infer_type(data=np.float32)
    _, outs, _ = alone.infer_type(data=np.uint8)
    assert [np.dtype(t) for t in outs] == [np.uint8, np.float32, np.float32]
    _, oshapes, _ = alone.infer_shape(data=(2, 8, 8, 8))
    assert oshapes == [(2, 8, 8, 8), (1,), (1,)]
