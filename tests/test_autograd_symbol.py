"""autograd.get_symbol: the recorded graph as a Symbol, as MXNet 1.9.1 returns it."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

import mxlite as mx
from mxlite import autograd as ag
from mxlite.base import MXNetError

# MXNet 1.9.1's get_symbol(r).tojson() for the graph built in _build, in a fresh process
MXNET_JSON = (
    '{"nodes": [{"op": "null", "name": "var0", "inputs": []}, {"op": "exp", "name": "node_0", '
    '"inputs": [[0, 0, 0]]}, {"op": "null", "name": "var1", "inputs": []}, {"op": '
    '"broadcast_mul", "name": "node_1", "inputs": [[1, 0, 0], [2, 0, 0]]}, {"op": '
    '"_plus_scalar", "name": "node_2", "attrs": {"scalar": "1.0"}, "inputs": [[3, 0, 0]]}, '
    '{"op": "relu", "name": "node_3", "inputs": [[4, 0, 0]]}, {"op": "sum", "name": "node_4", '
    '"attrs": {"axis": "0", "keepdims": "True"}, "inputs": [[5, 0, 0]]}, {"op": "Activation", '
    '"name": "node_5", "attrs": {"act_type": "tanh"}, "inputs": [[6, 0, 0]]}], "arg_nodes": '
    '[0, 2], "node_row_ptr": [0, 1, 2, 3, 4, 5, 6, 7, 8], "heads": [[7, 0, 0]], "attrs": '
    '{"mxnet_version": ["int", 10901]}}'
)

BUILD = """
import mxlite as mx
from mxlite import autograd as ag
nd = mx.nd
x = nd.array([1., 2.]); w = nd.array([3., 4.])
x.attach_grad(); w.attach_grad()
with ag.record():
    r = nd.Activation(nd.sum(nd.relu(nd.exp(x) * w + 1), axis=0, keepdims=True),
                      act_type='tanh')
"""


def _renumber(doc: dict) -> dict:
    """Names with their process-wide numbers replaced by the order of first appearance."""
    seen: dict[str, str] = {}
    for node in doc["nodes"]:
        m = re.fullmatch(r"(var|null|node_)(\d+)", node["name"])
        assert m, node["name"]
        node["name"] = seen.setdefault(node["name"], f"{m.group(1)}#{len(seen)}")
    return doc


def test_matches_mxnet_json_in_a_fresh_process() -> None:
    code = BUILD + "print(ag.get_symbol(r).tojson())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == json.loads(MXNET_JSON)


def test_matches_mxnet_structure_and_arguments() -> None:
    scope: dict = {}
    exec(BUILD, scope)
    sym = ag.get_symbol(scope["r"])
    assert _renumber(json.loads(sym.tojson())) == _renumber(json.loads(MXNET_JSON))
    args = sym.list_arguments()
    assert len(args) == 2 and all(a.startswith("var") for a in args)
    assert int(args[1][3:]) == int(args[0][3:]) + 1
    assert sym.list_outputs() == [sym.get_internals().list_outputs()[-1]]


def test_constants_become_null_variables_and_symbol_runs() -> None:
    x, c = mx.nd.array([1.0, 2.0]), mx.nd.array([5.0, 6.0])
    x.attach_grad()
    with ag.record():
        y = x * c + 2
    sym = ag.get_symbol(y)
    args = sym.list_arguments()
    assert args[0].startswith("var") and args[1].startswith("null")
    ex = sym.bind(mx.cpu(), {args[0]: x, args[1]: c})
    np.testing.assert_allclose(ex.forward()[0].asnumpy(), y.asnumpy())


def test_multi_output_entry_and_params() -> None:
    x = mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    x.attach_grad()
    with ag.record():
        parts = mx.nd.split(x, num_outputs=3, axis=1)
    sym = ag.get_symbol(parts[2])
    doc = json.loads(sym.tojson())
    assert doc["nodes"][-1]["op"] == "SliceChannel"
    assert doc["nodes"][-1]["attrs"] == {"axis": "1", "num_outputs": "3"}
    assert doc["heads"] == [[1, 2, 0]]


def test_not_recorded_raises() -> None:
    with pytest.raises(MXNetError, match="get_symbol"):
        ag.get_symbol(mx.nd.ones((2,)))
    with pytest.raises(MXNetError, match="get_symbol"):
        ag.get_symbol(np.ones(2))


def test_cached_op_call_is_written_as_one_cached_op_node():
    # MXNet's test_inline: a hybridized block called under record() is one _CachedOp node
    net = mx.gluon.nn.HybridSequential()
    for _ in range(3):
        net.add(mx.gluon.nn.Dense(4))
    net.initialize()
    counts = []
    for limit in (3, 0):
        net.hybridize(inline_limit=limit)
        with ag.record():
            y = net(mx.nd.zeros((1, 4)))
        nodes = json.loads(ag.get_symbol(y).tojson())["nodes"]
        y.backward()
        counts.append(len(nodes))
    assert counts[0] == counts[1] + 2
    assert nodes[-1]["op"] == "_CachedOp" and len(nodes[-1]["inputs"]) == 7
    assert "attrs" not in nodes[-1]
