"""Symbol JSON against files real MXNet 1.9.1 wrote (tools/golden/cases/symbol.py)."""

import hashlib
import json
import os
import subprocess

import pytest

import mxlite as mx
from mxlite.operator import registry

from ..golden_file import load, mxnet_file
from .json_cases import built, summary

_CASES = load("symbol/golden/symbols.npz").cases
G = {
    "legacy": _CASES.pop("legacy"),
    "save_000800": _CASES.pop("save_000800"),
    "snippets": {k: c.pop("snippet") for k, c in _CASES.items()},
    "cases": _CASES,
}

NEEDS = {
    "mlp": ["FullyConnected", "SoftmaxOutput"],
    "lenet": ["Convolution", "FullyConnected", "SoftmaxOutput"],
    "resnet": ["Convolution", "BatchNorm", "FullyConnected", "SoftmaxOutput"],
    "inception": ["Convolution", "BatchNorm"],
    "lstm": ["RNN", "FullyConnected"],
    "pool_softmax": ["SoftmaxOutput"],
}


def _skip_missing(case):
    missing = [op for op in NEEDS.get(case, []) if registry.find(op) is None]
    if missing:
        pytest.skip(f"operators not registered yet: {', '.join(missing)}")


def _same_json(ours, theirs):
    """Equal text, except node_row_ptr, which counts each operator's outputs: MXNet builds
    with MKLDNN give max Pooling a second (workspace) output that mxlite does not have."""
    a, b = json.loads(ours), json.loads(theirs)
    a.pop("node_row_ptr"), b.pop("node_row_ptr")
    assert a == b
    if "Pooling" not in ours and "RNN" not in ours:
        assert ours == theirs


def _check(sym, rec):
    """Everything :func:`json_cases.summary` asks but the JSON (compared by _same_json)."""
    got = summary(sym, {k: tuple(v) for k, v in rec["shapes"].items()})
    for key, value in json.loads(json.dumps(got)).items():  # tuples as lists, as recorded
        assert key == "json" or value == rec[key], key


@pytest.mark.parametrize("case", sorted(G["cases"]))
def test_construction_writes_mxnet_json(case):
    _skip_missing(case)
    net, _ = built(mx, G["snippets"][case])
    _same_json(net.tojson(), G["cases"][case]["json"])
    _check(net, G["cases"][case])


@pytest.mark.parametrize("case", sorted(G["cases"]))
def test_load_mxnet_json_round_trip(case):
    _skip_missing(case)
    rec = G["cases"][case]
    sym = mx.sym.load_json(rec["json"])
    _check(sym, rec)
    _same_json(sym.tojson(), rec["json"])


def test_legacy_json_is_upgraded_like_mxnet():
    rec = G["legacy"]
    sym = mx.sym.load_json(rec["input"])
    if registry.find("FullyConnected") is None:
        pytest.skip("operators not registered yet: FullyConnected")
    _same_json(sym.tojson(), rec["json"])
    _check(sym, rec)


def test_mxnet_0_8_file_gets_the_attributes_mxnet_gives():
    # MXNet's own 0.8 file (not copied here); tools/golden/cases/symbol.py recorded its hash and
    # the attr_dict() MXNet 1.9.1 gives, with BatchNorm's moving statistics' __init__
    data = mxnet_file("tests/python/unittest/save_000800.json")
    if data is None:
        pytest.skip("needs MXNet's sources: set MXNET_REPO to a git dir of apache/mxnet")
    text = data.decode()
    want = G["save_000800"]
    assert hashlib.sha256(text.encode()).hexdigest() == want["sha256"]
    got = mx.sym.load_json(text).attr_dict()
    assert got["batchnorm0_moving_mean"]["__init__"] == '["zero", {}]'
    assert got["batchnorm0_moving_var"]["__init__"] == '["one", {}]'
    assert got == want["attr_dict"]


def test_operators_give_their_input_variables_mxnet_initializers():
    # MXNet 1.9.1's FSetInputVarAttrOnCompose, on variables created by the operator or given
    d = mx.sym.var("data")
    bn = mx.sym.BatchNorm(d, name="bn").attr_dict()
    assert bn["bn_moving_mean"] == {"__init__": '["zero", {}]'}
    assert bn["bn_moving_var"] == {"__init__": '["one", {}]'}
    up = mx.sym.UpSampling(d, scale=2, sample_type="bilinear", num_filter=3, name="up")
    assert up.list_arguments() == ["data", "up_weight"]  # num_args=1 counts the data only
    assert up.attr_dict()["up_weight"]["__init__"] == '["bilinear", {}]'
    w = mx.sym.var("w", init=mx.init.Constant(0.5))
    prelu = mx.sym.LeakyReLU(d, gamma=w, act_type="prelu", name="p").attr_dict()
    assert prelu["w"]["__init__"] == '["constant", {"value": 0.5}]'  # one given is kept


def test_save_and_load_file(tmp_path):
    a = mx.sym.var("a", shape=(2, 3))
    net = mx.sym.relu(a * 3, name="r")
    path = tmp_path / "net-symbol.json"
    net.save(str(path))
    assert [p.name for p in tmp_path.iterdir()] == ["net-symbol.json"]
    back = mx.sym.load(str(path))
    assert back.tojson() == net.tojson()
    assert back.infer_shape()[1] == [(2, 3)]


def test_json_layout_of_long_arrays_and_escapes():
    vs = [mx.sym.var(f"v{i}") for i in range(11)]
    cat = mx.sym.Concat(*vs, dim=0, name="cc")
    text = cat.tojson()
    assert '"inputs": [\n        [0, 0, 0], \n' in text
    assert '"arg_nodes": [\n    0, \n' in text
    q = mx.sym.var("q", __note__='say "hi"\n')
    assert '"__note__": "say \\"hi\\"\\n"' in q.tojson()
    assert mx.sym.load_json(q.tojson()).attr("__note__") == 'say "hi"\n'


def test_load_errors_name_the_problem():
    with pytest.raises(mx.MXNetError, match="not valid JSON"):
        mx.sym.load_json("{nodes")
    bad = json.dumps(
        {"nodes": [{"op": "NoSuchOp", "name": "n1", "inputs": []}], "heads": [[0, 0, 0]]}
    )
    with pytest.raises(mx.MXNetError, match="n1.*NoSuchOp"):
        mx.sym.load_json(bad)
    bad = json.dumps(
        {
            "nodes": [
                {"op": "null", "name": "x", "inputs": []},
                {
                    "op": "Activation",
                    "name": "act",
                    "attrs": {"act_type": "nope"},
                    "inputs": [[0, 0, 0]],
                },
            ],
            "heads": [[1, 0, 0]],
            "attrs": {"mxnet_version": ["int", 10901]},
        }
    )
    with pytest.raises(mx.MXNetError, match="act_type"):
        mx.sym.load_json(bad)


def test_pickle_round_trip():
    import pickle

    net = mx.sym.Activation(mx.sym.var("x"), act_type="relu", name="a")
    back = pickle.loads(pickle.dumps(net))
    assert back.tojson() == net.tojson()


MXREF = "/tmp/mxref/bin/python"


@pytest.mark.skipif(not os.path.exists(MXREF), reason="real MXNet (/tmp/mxref) is absent")
def test_real_mxnet_loads_what_mxlite_writes(tmp_path):

    texts = {}
    for case in sorted(G["cases"]):
        if any(registry.find(op) is None for op in NEEDS.get(case, [])):
            continue
        env = {"mx": mx}
        with mx.name.NameManager():
            exec(G["snippets"][case], env)
        texts[case] = env["net"].tojson()
    src = tmp_path / "ours.json"
    src.write_text(json.dumps(texts))
    script = (
        "import json, sys, mxnet as mx\n"
        "t = json.load(open(sys.argv[1]))\n"
        "print(json.dumps({k: [mx.sym.load_json(v).tojson(), "
        "mx.sym.load_json(v).list_arguments()] for k, v in t.items()}))\n"
    )
    out = subprocess.run(
        [MXREF, "-c", script, str(src)], capture_output=True, text=True, check=True
    ).stdout
    theirs = json.loads(out.strip().splitlines()[-1])
    for case, (text, args) in theirs.items():
        assert text == G["cases"][case]["json"], case
        assert args == G["cases"][case]["arguments"], case
