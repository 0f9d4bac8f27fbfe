"""mx.contrib.autograd (the old API), mx.contrib.svrg_optimization and mx.runtime.Features."""

import logging

import numpy as np
import pytest

import mxlite as mx
from mxlite.contrib import autograd as cag
from mxlite.contrib.svrg_optimization.svrg_module import SVRGModule
from mxlite.contrib.svrg_optimization.svrg_optimizer import _SVRGOptimizer


def test_old_autograd_grad_and_loss():
    f = cag.grad_and_loss(lambda x, y: (x * y).sum(), argnum=[1])
    x, y = mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 4.0])
    grads, loss = f(x, y)
    np.testing.assert_allclose(grads[0].asnumpy(), [1, 2])
    assert float(loss.asscalar()) == 11
    with cag.train_section():
        assert mx.autograd.is_training() and mx.autograd.is_recording()
        with cag.test_section():
            assert not mx.autograd.is_training()
    with pytest.raises(mx.base.MXNetError, match="NDArrays"):
        cag.grad(lambda x: x)(3.0)


def _linreg():
    rng = np.random.default_rng(0)
    x = rng.integers(1, 5, size=(200, 2)).astype(np.float32)
    y = x @ np.array([1.0, 2.0], np.float32)
    it = mx.io.NDArrayIter(x, y, batch_size=20, label_name="lin_reg_label")
    net = mx.sym.LinearRegressionOutput(
        mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=1, name="fc1"),
        mx.sym.var("lin_reg_label"), name="lro")  # fmt: skip
    return it, net


def test_svrg_module_trains_linear_regression():
    it, net = _linreg()
    mod = SVRGModule(net, data_names=["data"], label_names=["lin_reg_label"], update_freq=2,
                     logger=logging.getLogger("svrg-test"))  # fmt: skip
    mod.fit(it, num_epoch=10, optimizer="sgd", optimizer_params={"learning_rate": 0.02},
            eval_metric="mse", kvstore=None)  # fmt: skip
    w = mod.get_params()[0]["fc1_weight"].asnumpy()
    np.testing.assert_allclose(w, [[1.0, 2.0]], atol=0.25)
    assert mod._mod_aux.binded
    assert type(mod._optimizer).__name__ == "_SVRGOptimizer"


def test_svrg_setup_steps_are_the_module_family_s(caplog):
    """bind and init_optimizer go through BaseModule's steps: the snapshot module is bound
    for training, and a second init_optimizer is skipped (the full gradients are kept)."""
    it, net = _linreg()
    mod = SVRGModule(net, data_names=["data"], label_names=["lin_reg_label"], update_freq=2)
    mod.bind(it.provide_data, it.provide_label)
    assert mod._mod_aux.binded and mod._mod_aux.for_training
    mod.init_params()
    mod.init_optimizer(kvstore="local")
    mod.update_full_grads(it)
    full = [d.copy() for d in mod._param_dict]
    with caplog.at_level("WARNING"):
        mod.init_optimizer(kvstore="local")
    assert "optimizer already initialized, ignoring..." in caplog.text
    for before, after in zip(full, mod._param_dict):
        for name, value in before.items():
            np.testing.assert_array_equal(after[name].asnumpy(), value.asnumpy())
    with pytest.raises(mx.MXNetError, match="SVRGModule.init_optimizer: call bind"):
        SVRGModule(net, data_names=["data"], label_names=["lin_reg_label"], update_freq=2
                   ).init_optimizer()  # fmt: skip


def test_svrg_fit_refreshes_full_gradients_every_update_freq_epochs(caplog):
    """BaseModule's loop with SVRG's hooks: a full-gradient pass at epochs 0, 2, 4 for
    update_freq=2, every batch of every epoch, and (as MXNet's SVRGModule.fit does) the
    metric's local values logged at the end of an epoch."""
    it, net = _linreg()
    mod = SVRGModule(net, data_names=["data"], label_names=["lin_reg_label"], update_freq=2,
                     logger=logging.getLogger("svrg-hooks"))  # fmt: skip
    full_at, batches, last = [], [], {}
    refresh = mod.update_full_grads

    def spy(train_data):
        full_at.append(len(batches))
        refresh(train_data)

    def on_batch(param):
        batches.append((param.epoch, param.nbatch))
        if param.nbatch == 9:
            metric = param.eval_metric
            last[param.epoch] = (metric.get()[1], metric.get_global()[1])
        param.eval_metric.reset_local()  # local values then cover the next batch only

    mod.update_full_grads = spy
    with caplog.at_level(logging.INFO, logger="svrg-hooks"):
        mod.fit(it, num_epoch=5, optimizer="sgd", optimizer_params={"learning_rate": 0.02},
                eval_metric="mse", kvstore=None, batch_end_callback=on_batch)  # fmt: skip
    assert full_at == [0, 20, 40]  # before the batches of epochs 0, 2 and 4
    assert batches == [(e, b) for e in range(5) for b in range(10)]
    logged = [r.getMessage() for r in caplog.records if "Train-mse" in r.getMessage()]
    assert logged == [f"Epoch[{e}] Train-mse={last[e][0]:f}" for e in range(5)]
    assert all(local != total for local, total in last.values())


def test_svrg_module_checks_update_freq():
    _, net = _linreg()
    with pytest.raises(TypeError):
        SVRGModule(net, label_names=["lin_reg_label"], update_freq=None)
    with pytest.raises(ValueError):
        SVRGModule(net, label_names=["lin_reg_label"], update_freq=0)


def test_svrg_optimizer_dispatches_by_key_name():
    opt = _SVRGOptimizer(default_optimizer="sgd", learning_rate=1.0,
                         param_idx2name={0: "weight", 1: "weight_full"})  # fmt: skip
    w, full = mx.nd.zeros(3), mx.nd.ones(3)
    opt.update(0, w, mx.nd.ones(3), opt.create_state(0, w))
    opt.update(1, full, mx.nd.full(3, 2.0), opt.create_state(1, full))
    np.testing.assert_allclose(w.asnumpy(), -1)
    np.testing.assert_allclose(full.asnumpy(), 2)
    assert opt.default_opt.lr == 1.0


def test_features_is_a_singleton():
    assert mx.runtime.Features() is mx.runtime.Features()
    with pytest.raises(RuntimeError):
        mx.runtime.Features().is_enabled("no such feature")


@pytest.mark.parametrize("nctx", [1, 2])
def test_svrg_optimizer_names_every_index_and_the_full_gradient_keys(nctx):
    """As MXNet: ``index * num_device + device`` without a store, then one index per
    ``<name>_full`` key after the last; the gradient scale is 1 / batch_size."""
    it, net = _linreg()
    mod = SVRGModule(net, data_names=["data"], label_names=["lin_reg_label"], update_freq=2,
                     context=[mx.cpu(i) for i in range(nctx)])  # fmt: skip
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params()
    mod.init_optimizer(kvstore=None, optimizer="sgd")
    names = mod._exec_group.param_names
    want = {i * nctx + k: n for k in range(nctx) for i, n in enumerate(names)}
    n = len(want)
    want.update({n + j: f"{name}_full" for j, name in enumerate(mod._param_dict[0])})
    assert mod._optimizer.idx2name == want
    assert mod._optimizer.rescale_grad == pytest.approx(1 / 20)
