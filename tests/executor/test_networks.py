"""Whole networks saved by real MXNet 1.9.1: JSON, inference, forward/backward, memory plan.

The golden files come from ``tools/golden/cases/networks.py`` (run under real MXNet): each
network's symbol JSON, a fixed batch and parameters, and MXNet's outputs (inference and
training), gradients for fixed head gradients, and auxiliary states after a training forward.
"""

import json
import os

import numpy as np
import pytest

import mxlite as mx
from mxlite.executor.bind import graph_names
from mxlite.executor.gradient import INTERNAL, build_graph
from mxlite.executor.plan_memory import plan_memory
from mxlite.operator.req import OpReq
from mxlite.symbol.infer import infer_shapes, infer_types
from tests.golden_file import load

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")
NETS = ["mlp", "lenet", "resnet", "inception", "lstm"]
_G = load("executor/golden/networks.npz")


def _meta(name):
    return _G.cases[name]


def _load(name):
    net = mx.sym.load(os.path.join(GOLDEN, f"{name}-symbol.json"))
    groups = {}
    for key, arr in _G.arrays(name).items():
        kind, _, rest = key.partition(":")
        groups.setdefault(kind, {})[rest] = mx.nd.array(arr, dtype=arr.dtype)
    return net, groups


def _numbered(group):
    return [group[str(i)] for i in range(len(group))]


def _bind(net, g):
    args = {**g["input"], **g["param"]}
    args = {k: v.copy() for k, v in args.items()}
    grads = {k: mx.nd.zeros(v.shape) for k, v in args.items()}
    aux = {k: v.copy() for k, v in g.get("aux", {}).items()}
    return net.bind(mx.cpu(), args=args, args_grad=grads, grad_req="write", aux_states=aux)


def _close(got, want, what, atol=1e-5):
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-4, atol=atol, err_msg=what)


@pytest.mark.parametrize("name", NETS)
def test_lists_and_inferred_shapes_match_mxnet(name):
    net, _ = _load(name)
    meta = _meta(name)
    assert net.list_arguments() == meta["arguments"]
    assert net.list_outputs() == meta["outputs"]
    assert net.list_auxiliary_states() == meta["auxiliary_states"]
    shapes = {k: tuple(v) for k, v in meta["input_shapes"].items()}
    arg_shapes, out_shapes, aux_shapes = net.infer_shape(**shapes)
    assert [list(s) for s in arg_shapes] == meta["arg_shapes"]
    assert [list(s) for s in out_shapes] == meta["out_shapes"]
    assert [list(s) for s in aux_shapes] == meta["aux_shapes"]


@pytest.mark.parametrize("name", NETS)
def test_json_written_here_rebuilds_the_same_graph(name):
    net, _ = _load(name)
    again = mx.sym.load_json(net.tojson())
    assert again.list_arguments() == net.list_arguments()
    assert again.list_auxiliary_states() == net.list_auxiliary_states()
    assert json.loads(again.tojson()) == json.loads(net.tojson())


@pytest.mark.parametrize("name", NETS)
def test_forward_backward_and_aux_match_mxnet(name):
    net, g = _load(name)
    exe = _bind(net, g)
    for i, (got, want) in enumerate(zip(exe.forward(is_train=False), _numbered(g["out_infer"]))):
        _close(got, want, f"{name}: inference output {i}")
    for n, a in exe.aux_dict.items():  # inference leaves the moving statistics alone
        _close(a, g["aux"][n], f"{name}: aux {n} after inference")
    outs = exe.forward(is_train=True)
    assert len(outs) == len(g["out_train"])
    for i, (got, want) in enumerate(zip(outs, _numbered(g["out_train"]))):
        _close(got, want, f"{name}: training output {i}")
    exe.backward(_numbered(g["head"]))
    assert sorted(exe.grad_dict) == sorted(g["grad"])
    for n, want in g["grad"].items():
        _close(exe.grad_dict[n], want, f"{name}: gradient of {n}", atol=1e-4)
    for n, want in g.get("aux_after", {}).items():
        _close(exe.aux_dict[n], want, f"{name}: aux {n} after training forward")


def _planned(net, shapes, grad_req, enable=None):
    """(planned bytes, naive bytes) of a bind, from the graph passes alone (no allocation)."""
    outputs = net._entries
    arg_nodes, aux_nodes, out_names = graph_names(outputs)
    by_name = {n.name: n for n in arg_nodes + aux_nodes}
    known = {(id(by_name[k])): tuple(v) for k, v in shapes.items()}
    dtypes = {id(n): np.dtype(np.float32) for n in arg_nodes}
    arg_names = [n.name for n in arg_nodes]
    reqs = dict.fromkeys(arg_names, OpReq.WRITE if grad_req == "write" else OpReq.NULL)
    graph = build_graph(
        outputs,
        infer_shapes(outputs, known),
        infer_types(outputs, dtypes),
        arg_names,
        [n.name for n in aux_nodes],
        reqs,
        out_names,
    )
    plan = plan_memory(graph, with_backward=bool(graph.backward), enable=enable)
    naive = sum(e.nbytes for e in graph.entries if e.kind == INTERNAL)
    return plan.total_bytes, naive


@pytest.mark.parametrize("name", NETS)
@pytest.mark.parametrize("mode", ["train", "infer"])
def test_memory_plan_beats_naive(name, mode):
    net, _ = _load(name)
    shapes = _meta(name)["plan_shapes"]
    planned, naive = _planned(net, shapes, "write" if mode == "train" else "null")
    assert planned < naive
    off, off_naive = _planned(net, shapes, "write" if mode == "train" else "null", enable=False)
    assert off == off_naive


# RNN's hidden 'reserve' output is a one-element token unless dropout needs its masks kept
# (backward recomputes the rest), so the LSTM plan is MXNet's size too.
@pytest.mark.parametrize("name", NETS)
@pytest.mark.parametrize("mode", ["train", "infer"])
def test_memory_plan_stays_near_mxnet(name, mode):
    net, _ = _load(name)
    meta = _meta(name)
    planned, _ = _planned(net, meta["plan_shapes"], "write" if mode == "train" else "null")
    # MXNet prints whole megabytes, rounded down: its plan is below (mb + 1) MB.
    mxnet_mb = meta[f"planned_mb_{mode}"]
    assert planned <= 1.1 * ((mxnet_mb + 1) << 20), (planned >> 20, mxnet_mb)


@pytest.mark.parametrize("name", NETS)
def test_results_unchanged_without_memory_sharing(name, monkeypatch):
    net, g = _load(name)
    monkeypatch.setenv("MXNET_EXEC_ENABLE_INPLACE", "false")
    exe = _bind(net, g)
    assert not exe._plan.inplace
    naive = sum(e.nbytes for e in exe._graph.entries if e.kind == INTERNAL)
    assert exe._plan.total_bytes == naive
    for i, (got, want) in enumerate(zip(exe.forward(is_train=False), _numbered(g["out_infer"]))):
        _close(got, want, f"{name}: inference output {i} (no sharing)")
    exe.forward(is_train=True)
    exe.backward(_numbered(g["head"]))
    for n, want in g["grad"].items():
        _close(exe.grad_dict[n], want, f"{name}: gradient of {n} (no sharing)", atol=1e-4)
    for n, want in g.get("aux_after", {}).items():
        _close(exe.aux_dict[n], want, f"{name}: aux {n} (no sharing)")


def test_monitor_shows_inputs_before_an_in_place_step_overwrites_them():
    # Found on the ResNet: relu runs in place over BatchNorm's output, and the monitor used
    # to show relu's input after relu had run. MXNet shows inputs before the step.
    net, g = _load("resnet")
    exe = _bind(net, g)
    seen = {}
    exe.set_monitor_callback(
        lambda n, a: seen.setdefault(n.decode(), mx.nd.NDArray(a).asnumpy().copy()), True
    )
    exe.forward(is_train=False)
    names = {e.name: i for i, e in enumerate(exe._graph.entries)}
    assert names["stage1_unit1_relu1_output"] in exe._plan.inplace
    bn_out = seen["stage1_unit1_bn1_output"]
    assert (bn_out < 0).any()  # relu would have zeroed these
    np.testing.assert_array_equal(seen["stage1_unit1_relu1_input0"], bn_out)
    np.testing.assert_array_equal(
        seen["stage1_unit1_conv1_data"], seen["stage1_unit1_relu1_output"]
    )
    assert "stage1_unit1_conv1_weight" in seen and "stage1_unit1_bn1_moving_mean" in seen
