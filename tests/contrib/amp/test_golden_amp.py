"""``amp.convert_model`` against MXNet 1.9.1 (tools/golden/cases/amp.py): the converted JSON,
the parameters' dtypes, the float16 model's outputs and the bfloat16 model's outputs (MXNet's
CPU target); MXNet's saved float16 and bfloat16 checkpoints load and run here, and those saved
here load in MXNet."""

from __future__ import annotations

import importlib
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from mxlite.contrib import amp
from tests.golden_file import load

from . import amp_cases

HERE = Path(__file__).resolve().parent
MXREF = Path("/tmp/mxref/bin/python")
TOOL = HERE / "mxnet_check.py"  # run under real MXNet
GOLDEN = load("contrib/amp/golden/amp.npz")
CASES = sorted(c for c in GOLDEN.cases if not c.startswith(("casting-", "block", "lists")))


def _graph_json(text: str) -> dict:
    """The parts of a symbol JSON that say what the graph is (not MXNet's version tag)."""
    g = json.loads(text)
    nodes = [{"op": n["op"], "name": n["name"], "attrs": n.get("attrs", {}),
              "inputs": [list(i[:2]) for i in n["inputs"]]} for n in g["nodes"]]  # fmt: skip
    return {"nodes": nodes, "arg_nodes": g["arg_nodes"], "heads": [h[:2] for h in g["heads"]]}


def _convert(case: str):
    meta = GOLDEN.cases[case]
    arrays = GOLDEN.arrays(case)
    sym = amp_cases.GRAPHS[meta["graph"]](mx)
    args = {k[4:]: mx.nd.array(v) for k, v in arrays.items() if k.startswith("arg:")}
    aux = {k[4:]: mx.nd.array(v) for k, v in arrays.items() if k.startswith("aux:")}
    kwargs = dict(meta["kwargs"])
    if "conditional_fp32_ops" in kwargs:
        kwargs["conditional_fp32_ops"] = [tuple(c) for c in kwargs["conditional_fp32_ops"]]
    return meta, arrays, sym, args, aux, kwargs


@pytest.mark.parametrize("case", CASES)
def test_converted_json_matches_mxnet(case: str) -> None:
    meta, _, sym, args, aux, kwargs = _convert(case)
    converted = amp.convert_symbol(
        sym,
        meta["target"],
        data_names=sorted(set(sym.list_inputs()) - set(args) - set(aux)),
        **kwargs,
    )
    assert _graph_json(converted.tojson(remove_amp_cast=False)) == _graph_json(meta["json"])
    # tojson's default leaves the casts out, as MXNet's does
    assert _graph_json(converted.tojson()) == _graph_json(meta["json_plain"])


FLOAT16 = [c for c in CASES if c.endswith("-float16")]


def _run_float16(case: str, ctx: mx.Context) -> tuple[list, list]:
    meta, arrays, sym, args, aux, kwargs = _convert(case)
    conv, cargs, caux = amp.convert_model(sym, args, aux, target_dtype="float16", **kwargs)
    assert {k: np.dtype(v.dtype).name for k, v in {**cargs, **caux}.items()} == meta["dtypes"]
    data = {k[5:]: mx.nd.array(v, ctx=ctx) for k, v in arrays.items() if k.startswith("data:")}
    feed = {**data, **{k: v.as_in_context(ctx) for k, v in cargs.items()}}
    aux_states = {k: v.as_in_context(ctx) for k, v in caux.items()}
    exe = conv.bind(ctx, feed, aux_states=aux_states, grad_req="null")
    outs = [o.asnumpy() for o in exe.forward(is_train=False)]
    return outs, GOLDEN.series(case, "ref")


@pytest.mark.parametrize("case", FLOAT16)
def test_float16_model_on_cpu_refuses_as_mxnet(case: str) -> None:
    # MXNet's CPU build has no float16 FullyConnected/Convolution (the golden file keeps its
    # message); mxlite's refuses them on CPU too, naming the operator
    assert "skipped" in GOLDEN.cases[case]
    with pytest.raises(MXNetError, match="float16"):
        _run_float16(case, mx.cpu())


@pytest.mark.gpu
@pytest.mark.parametrize("case", FLOAT16)
def test_float16_model_on_gpu_close_to_float32(case: str) -> None:
    pytest.importorskip("cupy")
    if mx.context.num_gpus() == 0:
        pytest.skip("no GPU")
    outs, refs = _run_float16(case, mx.gpu(0))
    assert len(outs) == len(refs)
    for out, ref in zip(outs, refs):
        assert out.dtype == np.float32  # outputs are cast back to float32
        np.testing.assert_allclose(out, ref, rtol=2e-2, atol=2e-2)


BFLOAT16 = [c for c in CASES if c.endswith("-bfloat16")]
# MXNet's bfloat16 kernels round some results differently (its mshadow ones truncate, its
# oneDNN ones round to nearest even, mxlite rounds every result to nearest even): outputs agree
# within a few bfloat16 roundings of the last layers (bfloat16 has 8 significant bits)
BF16_TOL = {"rtol": 2**-5, "atol": 2**-6}


def _run_bfloat16(case: str) -> list[np.ndarray]:
    _, arrays, sym, args, aux, kwargs = _convert(case)
    conv, cargs, caux = amp.convert_model(sym, args, aux, target_dtype="bfloat16", **kwargs)
    data = {k[5:]: mx.nd.array(v) for k, v in arrays.items() if k.startswith("data:")}
    exe = conv.bind(mx.cpu(), {**data, **cargs}, aux_states=caux, grad_req="null")
    return [mx.nd.amp_cast(o, dtype="float32").asnumpy() for o in exe.forward(is_train=False)]


@pytest.mark.parametrize("case", BFLOAT16)
def test_bfloat16_model_runs_as_mxnet(case: str) -> None:
    meta = GOLDEN.cases[case]
    _, _, sym, args, aux, kwargs = _convert(case)
    _, cargs, caux = amp.convert_model(sym, args, aux, target_dtype="bfloat16", **kwargs)
    got = {k: "bfloat16" if v.dtype == amp.amp.bfloat16 else np.dtype(v.dtype).name
           for k, v in {**cargs, **caux}.items()}  # fmt: skip
    assert got == meta["dtypes"]
    outs = _run_bfloat16(case)
    want = GOLDEN.series(case, "out")
    assert len(outs) == len(want)
    for out, ref in zip(outs, want):
        assert out.dtype == np.float32
        np.testing.assert_allclose(out, ref, **BF16_TOL)


@pytest.mark.parametrize(("case", "target"), [("mlp", "float16"), ("convnet_optional", "float16"),
                                              ("mlp", "bfloat16"),
                                              ("convnet_optional", "bfloat16")])  # fmt: skip
def test_mxnet_checkpoint_loads_as_converted_here(case: str, target: str) -> None:
    tag = "" if target == "float16" else "_bf16"
    sym, args, aux = mx.model.load_checkpoint(str(HERE / "golden" / f"mxnet_{case}{tag}"), 0)
    meta = GOLDEN.cases[f"{case}-{target}"]
    assert _graph_json(sym.tojson(remove_amp_cast=False)) == _graph_json(meta["json"])
    _, _, _, want_args, want_aux, kwargs = _convert(f"{case}-{target}")
    _, want_args, want_aux = amp.convert_model(
        amp_cases.GRAPHS[meta["graph"]](mx), want_args, want_aux, target, **kwargs
    )
    got, want = {**args, **aux}, {**want_args, **want_aux}
    assert sorted(got) == sorted(want)
    for name, value in want.items():
        assert got[name].dtype == value.dtype, name
        np.testing.assert_array_equal(got[name].asnumpy(), value.asnumpy())


def test_mxnet_bfloat16_checkpoint_runs_here() -> None:
    case = "convnet_optional-bfloat16"
    sym, args, aux = mx.model.load_checkpoint(
        str(HERE / "golden" / "mxnet_convnet_optional_bf16"), 0
    )
    arrays = GOLDEN.arrays(case)
    data = {k[5:]: mx.nd.array(v) for k, v in arrays.items() if k.startswith("data:")}
    exe = sym.bind(mx.cpu(), {**data, **args}, aux_states=aux, grad_req="null")
    out = mx.nd.amp_cast(exe.forward(is_train=False)[0], dtype="float32").asnumpy()
    np.testing.assert_allclose(out, arrays["out0"], **BF16_TOL)


@pytest.mark.skipif(not MXREF.exists(), reason="real MXNet 1.9.1 (/tmp/mxref) is absent")
@pytest.mark.parametrize("target", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", ["mlp_optional", "convnet_optional", "convnet_conv_only"])
def test_checkpoint_saved_here_loads_in_mxnet(case: str, target: str, tmp_path: Path) -> None:
    meta, _, sym, args, aux, kwargs = _convert(f"{case}-{target}")
    conv, cargs, caux = amp.convert_model(sym, args, aux, target, **kwargs)
    prefix = str(tmp_path / case)
    mx.model.save_checkpoint(prefix, 0, conv, cargs, caux, remove_amp_cast=False)
    done = subprocess.run(
        [str(MXREF), str(TOOL), prefix, case, target], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]


@pytest.mark.parametrize("target", ["float16", "bfloat16"])
def test_casting_graphs_match_mxnet(target: str) -> None:
    # MXNet's test_bf16_casting / test_fp16_casting graphs: the __dtype__ that
    # cast_optional_params gives the inputs that feed casts
    want = GOLDEN.cases[f"casting-{target}"]["json"]
    got = amp_cases.converted_casting_graphs(mx, amp, target)
    assert sorted(got) == sorted(want)
    for name, text in got.items():
        assert _graph_json(text) == _graph_json(want[name]), name


BLOCKS = sorted(c for c in GOLDEN.cases if c.startswith("block"))


@pytest.mark.parametrize("case", BLOCKS)
def test_convert_hybrid_block_matches_mxnet(case: str) -> None:
    meta, arrays = GOLDEN.cases[case], GOLDEN.arrays(case)
    target = case.rsplit("-", 1)[1]
    net = amp_cases.block(mx)
    np.testing.assert_allclose(
        amp_cases.block_output(mx, net), arrays["ref0"], rtol=1e-5, atol=1e-5
    )
    conv = amp.convert_hybrid_block(net, target, ctx=mx.cpu(), **meta["kwargs"])
    graph = conv._cached_graph[1].tojson(remove_amp_cast=False)
    assert _graph_json(graph) == _graph_json(meta["json"])
    assert amp_cases.dtype_names(amp, conv.collect_params()) == meta["dtypes"]
    if target == "bfloat16":  # MXNet runs it on the CPU
        np.testing.assert_allclose(amp_cases.block_output(mx, conv), arrays["out0"], **BF16_TOL)


def test_operator_lists_are_mxnets() -> None:
    # mxlite/contrib/amp/lists holds MXNet 1.9.1's lists, every name and entry in its order
    for tag, want in GOLDEN.cases["lists"].items():
        mod = importlib.import_module(f"mxlite.contrib.amp.lists.symbol_{tag}")
        got = {k: v for k, v in vars(mod).items() if k.isupper()}
        assert json.loads(json.dumps(got)) == want, tag


def test_mxnet_exported_bfloat16_block_runs_here() -> None:
    prefix = str(HERE / "golden" / "mxnet_block_bf16")
    net = mx.gluon.SymbolBlock.imports(f"{prefix}-symbol.json", ["data"], f"{prefix}-0000.params")
    want = GOLDEN.cases["block_optional-bfloat16"]["dtypes"]
    assert amp_cases.dtype_names(amp, net.collect_params()) == want
    want = GOLDEN.arrays("block_optional-bfloat16")["out0"]
    np.testing.assert_allclose(amp_cases.block_output(mx, net), want, **BF16_TOL)


_IMPORT_IN_MXNET = """
import sys, numpy as np, mxnet as mx
net = mx.gluon.SymbolBlock.imports(sys.argv[1] + "-symbol.json", ["data"],
                                   sys.argv[1] + "-0000.params")
x = mx.nd.array(np.load(sys.argv[2]))
np.save(sys.argv[3], mx.nd.amp_cast(net(x), dtype="float32").asnumpy())
"""


@pytest.mark.skipif(not MXREF.exists(), reason="real MXNet 1.9.1 (/tmp/mxref) is absent")
def test_bfloat16_block_exported_here_runs_in_mxnet(tmp_path: Path) -> None:
    net = amp_cases.block(mx)
    conv = amp.convert_hybrid_block(net, "bfloat16", ctx=mx.cpu(), cast_optional_params=True)
    x = amp_cases.block_input()
    mine = mx.nd.amp_cast(conv(mx.nd.array(x)), dtype="float32").asnumpy()
    conv.export(str(tmp_path / "blk"), remove_amp_cast=False)  # as MXNet needs it, see above
    np.save(tmp_path / "x.npy", x)
    done = subprocess.run(
        [str(MXREF), "-c", _IMPORT_IN_MXNET, str(tmp_path / "blk"), str(tmp_path / "x.npy"),
         str(tmp_path / "out.npy")], capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), mine, **BF16_TOL)
