"""``amp.convert_model`` against MXNet 1.9.1 (tools/golden/cases/amp.py): the converted JSON,
the parameters' dtypes, and the float16 model's outputs; MXNet's saved float16 checkpoints
load and run here."""

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


@pytest.mark.parametrize("case", ["mlp", "convnet_optional"])
def test_mxnet_checkpoint_loads_as_converted_here(case: str) -> None:
    sym, args, aux = mx.model.load_checkpoint(str(HERE / "golden" / f"mxnet_{case}"), 0)
    meta = GOLDEN.cases[f"{case}-float16"]
    assert _graph_json(sym.tojson(remove_amp_cast=False)) == _graph_json(meta["json"])
    _, _, _, want_args, want_aux, kwargs = _convert(f"{case}-float16")
    _, want_args, want_aux = amp.convert_model(
        amp_cases.GRAPHS[meta["graph"]](mx), want_args, want_aux, "float16", **kwargs
    )
    got, want = {**args, **aux}, {**want_args, **want_aux}
    assert sorted(got) == sorted(want)
    for name, value in want.items():
        assert got[name].dtype == value.dtype, name
        np.testing.assert_array_equal(got[name].asnumpy(), value.asnumpy())


@pytest.mark.skipif(not MXREF.exists(), reason="real MXNet 1.9.1 (/tmp/mxref) is absent")
@pytest.mark.parametrize("case", ["mlp_optional", "convnet_optional", "convnet_conv_only"])
def test_checkpoint_saved_here_loads_in_mxnet(case: str, tmp_path: Path) -> None:
    meta, _, sym, args, aux, kwargs = _convert(f"{case}-float16")
    conv, cargs, caux = amp.convert_model(sym, args, aux, "float16", **kwargs)
    prefix = str(tmp_path / case)
    mx.model.save_checkpoint(prefix, 0, conv, cargs, caux, remove_amp_cast=False)
    done = subprocess.run(
        [str(MXREF), str(TOOL), prefix, case, "float16"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]


@pytest.mark.parametrize("target", ["float16", "bfloat16"])
def test_casting_graphs_match_mxnet(target: str) -> None:
    # MXNet's test_bf16_casting / test_fp16_casting graphs: the __dtype__ that
    # cast_optional_params gives the inputs that feed casts
    want = GOLDEN.cases[f"casting-{target}"]["json"]
    low = amp.amp.bfloat16 if target == "bfloat16" else np.float16
    for name, sym, kwargs in amp_cases.casting_graphs(mx, low):
        conv = amp.convert_symbol(sym, target_dtype=target, **kwargs)
        assert _graph_json(conv.tojson(remove_amp_cast=False)) == _graph_json(want[name]), name


BLOCKS = sorted(c for c in GOLDEN.cases if c.startswith("block"))


@pytest.mark.parametrize("case", BLOCKS)
def test_convert_hybrid_block_matches_mxnet(case: str) -> None:
    meta, arrays = GOLDEN.cases[case], GOLDEN.arrays(case)
    target = case.rsplit("-", 1)[1]
    net = amp_cases.block(mx)
    x = mx.nd.array(amp_cases.block_input())
    np.testing.assert_allclose(net(x).asnumpy(), arrays["ref0"], rtol=1e-5, atol=1e-5)
    if target == "bfloat16" and meta.get("kwargs", {}).get("cast_optional_params"):
        with pytest.raises(MXNetError, match="bfloat16"):  # no bfloat16 parameters here
            amp.convert_hybrid_block(net, target, ctx=mx.cpu(), **meta["kwargs"])
        return
    conv = amp.convert_hybrid_block(net, target, ctx=mx.cpu(), **meta["kwargs"])
    graph = conv._cached_graph[1].tojson(remove_amp_cast=False)
    assert _graph_json(graph) == _graph_json(meta["json"])
    got = {k: np.dtype(p.dtype).name for k, p in conv.collect_params().items()}
    assert got == meta["dtypes"]


def test_operator_lists_are_mxnets() -> None:
    # mxlite/contrib/amp/lists holds MXNet 1.9.1's lists, every name and entry in its order
    for tag, want in GOLDEN.cases["lists"].items():
        mod = importlib.import_module(f"mxlite.contrib.amp.lists.symbol_{tag}")
        got = {k: v for k, v in vars(mod).items() if k.isupper()}
        assert json.loads(json.dumps(got)) == want, tag
