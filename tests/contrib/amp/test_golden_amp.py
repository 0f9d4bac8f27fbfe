"""``amp.convert_model`` against MXNet 1.9.1 (tools/golden/cases/amp.py): the converted JSON,
the parameters' dtypes, and the float16 model's outputs; MXNet's saved float16 checkpoints
load and run here."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import mxlite as mx
from mxlite.contrib import amp
from tests.golden_file import load

from . import amp_cases

HERE = Path(__file__).resolve().parent
GOLDEN = load("contrib/amp/golden/amp.npz")
CASES = sorted(GOLDEN.cases)


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


@pytest.mark.parametrize("case", [c for c in CASES if c.endswith("float16")
                                  and not c.endswith("bfloat16")])  # fmt: skip
def test_float16_model_runs_close_to_float32(case: str) -> None:
    meta, arrays, sym, args, aux, kwargs = _convert(case)
    conv, cargs, caux = amp.convert_model(sym, args, aux, target_dtype="float16", **kwargs)
    assert {k: np.dtype(v.dtype).name for k, v in {**cargs, **caux}.items()} == meta["dtypes"]
    data = {k[5:]: mx.nd.array(v) for k, v in arrays.items() if k.startswith("data:")}
    exe = conv.bind(mx.cpu(), {**data, **cargs}, aux_states=caux, grad_req="null")
    outs = exe.forward(is_train=False)
    refs = GOLDEN.series(case, "ref")
    assert len(outs) == len(refs)
    for out, ref in zip(outs, refs):
        assert out.dtype == np.float32  # outputs are cast back to float32
        np.testing.assert_allclose(out.asnumpy(), ref, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("case", ["mlp", "convnet_optional"])
def test_mxnet_checkpoint_loads_and_runs(case: str) -> None:
    sym, args, aux = mx.model.load_checkpoint(str(HERE / "golden" / f"mxnet_{case}"), 0)
    meta, arrays = GOLDEN.cases[f"{case}-float16"], GOLDEN.arrays(f"{case}-float16")
    assert _graph_json(sym.tojson(remove_amp_cast=False)) == _graph_json(meta["json"])
    assert {k: np.dtype(v.dtype).name for k, v in {**args, **aux}.items()} == meta["dtypes"]
    data = {k[5:]: mx.nd.array(v) for k, v in arrays.items() if k.startswith("data:")}
    outs = sym.bind(mx.cpu(), {**data, **args}, aux_states=aux, grad_req="null").forward()
    np.testing.assert_allclose(outs[0].asnumpy(), arrays["ref0"], rtol=2e-2, atol=2e-2)
