"""The executor bulks consecutive steps into one engine operator, as MXNet does with
MXNET_EXEC_BULK_EXEC_*, and gives the same results as running step by step."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.engine import Opr


def _mlp(layers: int = 10) -> mx.sym.Symbol:
    h = mx.sym.var("data")
    for i in range(layers):
        h = mx.sym.FullyConnected(h, num_hidden=8, name=f"fc{i}")
        h = mx.sym.Activation(h, act_type="tanh", name=f"act{i}")
    return h


def _bind(grad_req: str = "write") -> mx.executor.Executor:
    exe = _mlp().simple_bind(mx.cpu(), data=(3, 8), grad_req=grad_req)
    rng = np.random.default_rng(0)
    for arr in exe.arg_dict.values():
        arr[:] = rng.uniform(-0.5, 0.5, arr.shape)
    return exe


def _engine_oprs(exe, backward: bool, is_train: bool) -> list:
    plan = exe._oprs[(backward, is_train, False)]
    return [p for p in plan if type(p) is Opr]


def test_training_graph_runs_in_segments_of_15_steps():
    exe = _bind()
    exe.forward(is_train=True)
    exe.backward([mx.nd.ones((3, 8))])
    mx.nd.waitall()
    n_fwd = len(exe._graph.forward)
    assert len(_engine_oprs(exe, False, True)) == -(-n_fwd // 15)
    assert len(_engine_oprs(exe, True, True)) == -(-len(exe._graph.backward) // 15)


def test_inference_graph_is_one_engine_operator():
    exe = _bind("null")
    exe.forward()
    assert len(_engine_oprs(exe, False, False)) == 1


def test_bulk_size_follows_mxnet_settings(monkeypatch):
    monkeypatch.setenv("MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_FWD", "4")
    monkeypatch.setenv("MXNET_EXEC_BULK_EXEC_TRAIN", "1")
    exe = _bind()
    exe.forward(is_train=True)
    assert len(_engine_oprs(exe, False, True)) == -(-len(exe._graph.forward) // 4)
    monkeypatch.setenv("MXNET_EXEC_BULK_EXEC_TRAIN", "0")
    exe = _bind()
    exe.forward(is_train=True)
    assert len(_engine_oprs(exe, False, True)) == len(exe._graph.forward)


def test_bulked_results_equal_step_by_step_results():
    head = mx.nd.array(np.linspace(-1, 1, 24).reshape(3, 8))
    results = []
    for monitored in (False, True):
        exe = _bind()
        if monitored:  # a monitor makes every step its own operator
            exe.set_monitor_callback(lambda name, arr: None)
        exe.forward(is_train=True, data=mx.nd.ones((3, 8)) * 0.3)
        exe.backward([head])
        results.append([exe.outputs[0].asnumpy()] + [g.asnumpy() for g in exe.grad_arrays])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("bulk", ["0", "1"])
def test_forward_reads_the_latest_arguments_whether_bulked_or_not(monkeypatch, bulk):
    monkeypatch.setenv("MXNET_EXEC_BULK_EXEC_TRAIN", bulk)
    exe = _bind()
    outs = []
    for scale in (0.1, 0.7):
        exe.arg_dict["data"][:] = scale  # pushed before the forward; must be seen by it
        outs.append(exe.forward(is_train=True)[0].asnumpy().copy())
    assert not np.allclose(outs[0], outs[1])
