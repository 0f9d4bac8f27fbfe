"""LARS, LBSGD and Test: their registry names, defaults and sparse paths (their update sequences
against MXNet 1.9.1 are cases of tests/optimizer/optimizer_cases.py, run by test_optimizer.py)."""

import numpy as np
import pytest

import mxlite as mx


def test_registered_under_mxnets_names():
    for name, cls in (("lars", mx.optimizer.LARS), ("lbsgd", mx.optimizer.LBSGD),
                      ("test", mx.optimizer.Test)):  # fmt: skip
        assert isinstance(mx.optimizer.create(name), cls)
        assert mx.optimizer.optimizer.LARS is mx.optimizer.LARS


def test_lars_gives_gamma_no_weight_decay_by_default():
    opt = mx.optimizer.LARS(param_idx2name={0: "bn_gamma", 1: "fc_weight"}, wd=0.1)
    assert opt._get_wds([0, 1]) == [0.0, pytest.approx(0.1)]


def test_lars_sparse_gradient_takes_the_per_weight_path():
    opt = mx.optimizer.LARS(learning_rate=0.1, momentum=0.9, eta=0.5,
                            param_idx2name={0: "emb_weight"})  # fmt: skip
    dense = mx.optimizer.LARS(learning_rate=0.1, momentum=0.9, eta=0.5,
                              param_idx2name={0: "emb_weight"})  # fmt: skip
    w = mx.nd.array(np.arange(12, dtype="float32").reshape(4, 3) / 10)
    g = mx.nd.array([[0, 0, 0], [1, 2, 3], [0, 0, 0], [-1, 0.5, 2]])
    w2 = w.copy()
    mx.optimizer.get_updater(opt)(0, g.tostype("row_sparse"), w)
    mx.optimizer.get_updater(dense)(0, g, w2)
    np.testing.assert_allclose(w.asnumpy(), w2.asnumpy(), rtol=1e-6)


def test_lbsgd_waits_for_batch_scale_gradients():
    opt = mx.optimizer.LBSGD(learning_rate=0.5, batch_scale=2, warmup_epochs=0)
    upd = mx.optimizer.get_updater(opt)
    w = mx.nd.ones((2,))
    upd(0, mx.nd.array([1.0, 2.0]), w)
    np.testing.assert_array_equal(w.asnumpy(), [1, 1])
    upd(0, mx.nd.array([3.0, 0.0]), w)
    # the mean of the two gradients, at lr 0.5 * batch_scale
    np.testing.assert_allclose(w.asnumpy(), [1 - 2.0, 1 - 1.0])


def test_test_optimizer_adds_the_gradient_and_copies_the_weight():
    opt = mx.optimizer.Test(rescale_grad=2.0)
    w, g = mx.nd.ones((3,)), mx.nd.array([1.0, 2.0, 3.0])
    state = opt.create_state(0, w)
    opt.update(0, w, g, state)
    np.testing.assert_array_equal(w.asnumpy(), [3, 5, 7])
    np.testing.assert_array_equal(state.asnumpy(), w.asnumpy())
