"""PythonModule and PythonLossModule: a loss written with NDArray operations trains a
SequentialModule exactly as the same loss as an operator (SoftmaxOutput) trains a Module."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import mxlite as mx


def _softmax_grad(scores: Any, labels: Any) -> Any:
    prob = mx.nd.softmax(scores, axis=-1)
    return prob - mx.nd.one_hot(labels, scores.shape[1])


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.RandomState(3)
    return rng.uniform(-1, 1, (8, 5)).astype("float32"), rng.randint(0, 3, 8).astype("float32")


def _fit(mod: Any) -> dict[str, np.ndarray]:
    x, y = _data()
    it = mx.io.NDArrayIter(x, y, batch_size=4)
    mx.random.seed(1)
    mod.fit(it, num_epoch=3, optimizer="sgd", eval_metric="acc",
            optimizer_params={"learning_rate": 0.5, "momentum": 0.9},
            initializer=mx.init.Xavier(rnd_type="gaussian"))  # fmt: skip
    return {k: v.asnumpy() for k, v in mod.get_params()[0].items()}


def test_a_python_loss_trains_as_the_operator_loss() -> None:
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    want = _fit(mx.mod.Module(mx.sym.SoftmaxOutput(fc, name="softmax")))
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(fc, label_names=[]))
    seq.add(mx.mod.PythonLossModule(grad_func=_softmax_grad), take_labels=True, auto_wiring=True)
    got = _fit(seq)
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-5, atol=1e-6)


def test_loss_module_passes_scores_through() -> None:
    loss = mx.mod.PythonLossModule(name="l", grad_func=lambda s, lab: np.ones(s.shape))
    loss.bind([("data", (2, 3))], [("softmax_label", (2,))])
    assert loss.output_shapes == [("l_output", (2, 3))] and loss.output_names == ["l_output"]
    scores = mx.nd.array([[1, 2, 3], [4, 5, 6]])
    loss.forward(mx.io.DataBatch([scores], [mx.nd.array([0, 1])]))
    assert loss.get_outputs()[0] is scores
    loss.backward()
    grad = loss.get_input_grads()[0]
    assert isinstance(grad, mx.nd.NDArray) and grad.asnumpy().sum() == 6
    metric = mx.metric.Accuracy()
    loss.update_metric(metric, [mx.nd.array([2, 0])])
    assert metric.get()[1] == 0.5
    assert loss.get_params() == ({}, {})


def test_bad_use_fails_with_a_clear_error() -> None:
    loss = mx.mod.PythonLossModule()
    with pytest.raises(mx.MXNetError, match="expects \\['data'\\]"):
        loss.bind([("x", (2, 3))], [("softmax_label", (2,))])
    with pytest.raises(mx.MXNetError, match="grad_req"):
        loss.bind([("data", (2, 3))], grad_req="add")
    loss.bind([("data", (2, 3))], [("softmax_label", (2,))])
    loss.forward(mx.io.DataBatch([mx.nd.ones((2, 3))], [mx.nd.ones((2,))]))
    with pytest.raises(NotImplementedError):
        loss.backward()  # no grad_func
    with pytest.raises(mx.MXNetError, match="out_grads should be None"):
        loss.backward(out_grads=[mx.nd.ones((2, 3))])
    with pytest.raises(mx.MXNetError, match="one input each"):
        mx.mod.PythonLossModule(data_names=("a", "b"))
    with pytest.raises(NotImplementedError):
        mx.mod.PythonModule(["data"], None, ["out"]).bind([("data", (1,))])


def test_bind_keeps_mxnet_s_python_module_rules() -> None:
    # as MXNet: never marked bound, bound again without force_rebind, and no check that
    # inputs_need_grad comes with for_training
    loss = mx.mod.PythonLossModule()
    loss.bind([("data", (2, 3))], None, for_training=False, inputs_need_grad=True)
    assert not loss.binded and not loss.for_training and loss.inputs_need_grad
    loss.bind([("data", (4, 3))], [("softmax_label", (4,))])
    assert loss.output_shapes == [("pyloss_output", (4, 3))]
    assert loss.label_shapes == [("softmax_label", (4,))]
