"""Trainer: loss curves against MXNet 1.9.1 (SGD with momentum, Adam; hybridized and not),
states files both ways, contexts, learning rate (mxlite/gluon/trainer.py)."""

from pathlib import Path

import numpy as np
import pytest

import mxlite as mx
from mxlite import autograd, gluon
from tests.gluon import mlp_cases
from tests.golden_file import load

GOLDEN = Path(__file__).parent / "golden"
OPTIMIZERS = mlp_cases.OPTIMIZERS


def make_mlp():
    return mlp_cases.make_mlp(mx)


def _train(opt, hybrid):
    data = load("gluon/golden/gluon.npz").arrays("train")
    params = str(GOLDEN / "train_init.params")
    net, trainer, values = mlp_cases.train(mx, params, data["x"], data["label"], opt, hybrid)
    return net, trainer, np.array(values), data


@pytest.mark.parametrize("hybrid", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("opt", ["sgd", "adam"])
def test_loss_curve_matches_mxnet(opt, hybrid):
    _, _, values, data = _train(opt, hybrid)
    np.testing.assert_allclose(values, data[f"{opt}_{int(hybrid)}"], rtol=1e-4, atol=1e-5)


def test_states_from_mxnet_continue_training(tmp_path):
    net, trainer, _, data = _train("sgd", False)
    ref = make_mlp()
    ref.load_parameters(str(GOLDEN / "train_sgd_after.params"))
    for a, b in zip(net.collect_params().values(), ref.collect_params().values()):
        np.testing.assert_allclose(a.data().asnumpy(), b.data().asnumpy(), rtol=1e-4, atol=1e-5)
    fresh = make_mlp()
    fresh.load_parameters(str(GOLDEN / "train_sgd_after.params"))
    t2 = gluon.Trainer(fresh.collect_params(), "sgd", OPTIMIZERS["sgd"])
    t2.load_states(str(GOLDEN / "train_sgd.states"))
    assert t2.learning_rate == 0.1 and t2._optimizer.momentum == 0.9
    ours = tmp_path / "ours.states"
    trainer.save_states(str(ours))
    theirs = t2._updaters[0].states
    t2.load_states(str(ours))
    mine = t2._updaters[0].states
    assert sorted(theirs) == sorted(mine)
    for k in theirs:
        np.testing.assert_allclose(mine[k].asnumpy(), theirs[k].asnumpy(), rtol=1e-4, atol=1e-5)


def test_several_contexts_sum_gradients_and_stay_equal():
    x = gluon.Parameter("x", shape=(10,))
    x.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init="zeros")
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0, "momentum": 0.5})
    with autograd.record():
        for w in x.list_data():
            (w + 1).backward()
    trainer.step(1)
    assert (x.data(mx.cpu(1)).asnumpy() == -2).all()
    x.lr_mult = 0.5
    with autograd.record():
        for w in x.list_data():
            (w + 1).backward()
    trainer.step(1)
    assert (x.data(mx.cpu(0)).asnumpy() == -4).all()
    y = gluon.Parameter("y", shape=(3,))
    y.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init="zeros")
    t2 = gluon.Trainer([y], "sgd", update_on_kvstore=False)
    with autograd.record():
        for i, w in enumerate(y.list_data()):
            (w * (i + 1)).backward()
    t2.allreduce_grads()
    assert (y.grad(mx.cpu(0)).asnumpy() == 3).all() and (y.grad(mx.cpu(1)).asnumpy() == 3).all()


def test_learning_rate_stale_gradients_and_bad_arguments():
    p = gluon.Parameter("p", shape=(2,))
    p.initialize()
    trainer = gluon.Trainer([p], "sgd", {"learning_rate": 0.5})
    assert trainer.learning_rate == 0.5
    trainer.set_learning_rate(0.25)
    assert trainer.optimizer.learning_rate == 0.25
    with pytest.raises(UserWarning, match="`p`.*has not been updated"):
        trainer.step(1)
    trainer.step(1, ignore_stale_grad=True)
    with pytest.raises(ValueError, match="list or dict of Parameters"):
        gluon.Trainer(p, "sgd")
    with pytest.raises(AssertionError, match="optimizer_params must be None"):
        gluon.Trainer([p], mx.optimizer.SGD(), {"learning_rate": 1})


def test_row_sparse_weight_is_updated_on_the_kvstore():
    # MXNet's test_trainer_sparse_save_load: a row_sparse weight trains through the kvstore
    x = gluon.Parameter("x", shape=(10, 1), stype="row_sparse", grad_stype="row_sparse")
    x.initialize(ctx=[mx.cpu(0)], init="zeros")
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 0.1})
    rows = mx.nd.arange(0, 10)
    with autograd.record():
        for w in x.list_row_sparse_data(rows):
            (w * 1).backward()
    trainer.step(1)
    assert trainer._update_on_kvstore
    np.testing.assert_allclose(x.row_sparse_data(rows).asnumpy(), np.full((10, 1), -0.1))


def test_step_and_update_document_their_parameters_alike():
    text = (
        "batch_size : int\n            Batch size of data processed. Gradient will be normalized"
        " by `1/batch_size`.\n"
    )
    for method in (mx.gluon.Trainer.step, mx.gluon.Trainer.update):
        assert text in method.__doc__
        assert "ignore_stale_grad : bool, optional, default=False" in method.__doc__
        assert "{" not in method.__doc__
