"""mx.monitor.Monitor on an executor and through Module.fit; values recorded from MXNet 1.9.1
(a FullyConnected + relu with every argument 0.5: fc1_output is 1.5 everywhere)."""

import logging

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from mxlite.monitor import Monitor


def _exe():
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc1")
    out = mx.sym.Activation(fc, act_type="relu", name="relu1")
    exe = out.simple_bind(mx.cpu(), data=(2, 4))
    for a in exe.arg_arrays:
        a[:] = 0.5
    return exe


def _run(exe, mon):
    mon.tic()
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((2, 3)))
    return mon.toc()


def test_default_stat_outputs_and_arguments():
    exe = _exe()
    mon = Monitor(1)
    mon.install(exe)
    res = dict(((n, k), v) for n, k, v in _run(exe, mon))
    # values and texts as MXNet 1.9.1 prints them (norm / sqrt(size), then a tab)
    assert res[(1, "fc1_output")] == "1.5\t"
    assert res[(1, "relu1_output")] == "1.5\t"
    assert res[(1, "fc1_weight")] == "0.5\t"
    assert res[(1, "data")] == "0.5\t"
    assert mon.toc() == []  # nothing is collected outside tic/toc


def test_monitor_all_shows_inputs_and_pattern_filters():
    exe = _exe()
    mon = Monitor(1, pattern="fc1_.*", monitor_all=True)
    mon.install(exe)
    names = [k for _, k, _ in _run(exe, mon)]
    assert "fc1_data" in names and "fc1_output" in names
    assert all(k.startswith("fc1_") for k in names)
    assert "relu1_output" not in names


def test_interval_sort_and_custom_stat_list():
    exe = _exe()
    mon = Monitor(2, stat_func=lambda x: [x.sum(), x.max()], pattern=".*_weight$", sort=True)
    mon.install(exe)
    first = _run(exe, mon)
    assert first == [(1, "fc1_weight", "6.0\t0.5\t")]
    assert _run(exe, mon) == []  # batch 2 is skipped with interval=2
    assert [s for s, _, _ in _run(exe, mon)] == [3]
    mon2 = Monitor(1, stat_func=lambda x: x.asnumpy().mean(), pattern=".*weight")
    mon2.install(exe)
    with pytest.raises(MXNetError, match="Monitor.toc.*stat_func.*fc1_weight"):
        _run(exe, mon2)


def test_non_scalar_stat_prints_array():
    exe = _exe()
    mon = Monitor(1, stat_func=lambda x: mx.nd.array([1.0, 2.0]), pattern="data$")
    mon.install(exe)
    (res,) = {(k, v) for _, k, v in _run(exe, mon)}
    assert res == ("data", str(np.array([1.0, 2.0], np.float32)) + "\t")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"interval": 0}, "Monitor.*interval"),
        ({"interval": 1.5}, "Monitor.*interval"),
        ({"interval": 1, "stat_func": 3}, "Monitor.*stat_func"),
        ({"interval": 1, "pattern": "("}, "Monitor.*pattern"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(MXNetError, match=match):
        Monitor(**kwargs)


def test_module_fit_with_monitor_logs(caplog):
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=2, name="fc1")
    net = mx.sym.SoftmaxOutput(fc, name="softmax")
    rng = np.random.RandomState(0)
    it = mx.io.NDArrayIter(rng.randn(8, 3), rng.randint(0, 2, 8), batch_size=4)
    mod = mx.mod.Module(net, context=mx.cpu())
    mon = mx.monitor.Monitor(1, pattern=".*weight|.*output")
    assert mx.mon is mx.monitor
    with caplog.at_level(logging.INFO):
        mod.fit(it, num_epoch=1, monitor=mon, optimizer="sgd")
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Batch:")]
    assert any("fc1_weight" in m for m in lines)
    assert any("fc1_output" in m for m in lines)
    assert lines[0].startswith("Batch:       1 ")


# The names MXNet 1.9.1 reports for a Module's forward_backward (test_module.py's test_monitor):
# backward nodes show each output as ``<node>_backward_output<i>``, one per forward input, the
# gradients nobody asked for (data, label) included.
_MXNET_MODULE_NAMES = sorted(
    """act_0_backward_output act_0_output act_1_backward_output act_1_output data
    fc_0_backward_output0 fc_0_backward_output1 fc_0_backward_output2 fc_0_bias fc_0_output
    fc_0_weight fc_1_backward_output0 fc_1_backward_output1 fc_1_backward_output2 fc_1_bias
    fc_1_output fc_1_weight softmax_backward_output0 softmax_backward_output1 softmax_label
    softmax_output""".split()
)


def test_backward_outputs_have_mxnet_names():
    x = mx.sym.var("data")
    for i in range(2):
        x = mx.sym.FullyConnected(x, num_hidden=2, name=f"fc_{i}")
        x = mx.sym.Activation(x, act_type="sigmoid", name=f"act_{i}")
    x = mx.sym.LinearRegressionOutput(x, name="softmax", grad_scale=2)
    it = mx.io.NDArrayIter(mx.nd.array([[0.05, 0.1]]), mx.nd.array([[0.01, 0.99]]), batch_size=1)
    mod = mx.mod.Module(x)
    mod.bind(it.provide_data, label_shapes=it.provide_label)
    mon = Monitor(1, stat_func=lambda a: a.abs().mean(), sort=True)
    mod.install_monitor(mon)
    mod.init_params()
    mon.tic()
    mod.forward_backward(next(iter(it)))
    assert [k for _, k, _ in mon.toc()] == _MXNET_MODULE_NAMES
