"""``mx.model.FeedForward`` against MXNet 1.9.1 (tools/golden/cases/feedforward.py): fit on one
and two contexts, with and without a KVStore, epoch_size, predict, score, and checkpoints both
ways; plus the executor manager it trains through."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import mxlite as mx

from . import feedforward_cases
from .golden_file import load

GOLDEN = Path(__file__).parent / "golden"
DATA = load("golden/feedforward.npz")
SETUP = DATA.arrays("setup")
RUNS = [k for k in DATA.cases if k != "setup"]
# every FeedForward warns that it is deprecated (one test checks that it does), and, as
# MXNet's, initializes its parameters by name (which the initializer calls deprecated)
pytestmark = [
    pytest.mark.filterwarnings("ignore:.*FeedForward has been deprecated"),
    pytest.mark.filterwarnings("ignore:Calling initializer with init\\(str"),
]


def _network() -> Any:
    return feedforward_cases.network(mx)


def _params(kind: str) -> dict[str, Any]:
    return feedforward_cases.params(mx, SETUP, kind)


def _model(**kwargs: Any) -> Any:
    return feedforward_cases.model(mx, SETUP, **kwargs)


@pytest.mark.parametrize("case", RUNS)
def test_fit_predict_score_match_mxnet(case: str) -> None:
    meta, want = DATA.cases[case], DATA.arrays(case)
    model = feedforward_cases.fit(mx, SETUP, meta["kwargs"], meta["fit"], meta["n_ctx"])
    xe, ye = SETUP["xe"], SETUP["ye"]
    for kind, params in (("arg", model.arg_params), ("aux", model.aux_params)):
        for name, value in params.items():
            np.testing.assert_allclose(value.asnumpy(), want[f"{kind}:{name}"], rtol=1e-4,
                                       atol=1e-5, err_msg=f"{case}: {kind} {name}")  # fmt: skip
    np.testing.assert_allclose(model.predict(xe), want["predict"], rtol=1e-4, atol=1e-5)
    assert model.score(mx.io.NDArrayIter(xe, ye, 3)) == pytest.approx(meta["score"])


def test_loads_mxnets_checkpoint_and_predicts_as_mxnet() -> None:
    with pytest.warns(DeprecationWarning, match="FeedForward has been deprecated"):
        model = mx.model.FeedForward.load(str(GOLDEN / "feedforward"), 2)
    assert model.begin_epoch == 2
    want = DATA.arrays("sgd_mom")["predict"]
    np.testing.assert_allclose(model.predict(SETUP["xe"]), want, rtol=1e-5, atol=1e-6)


def test_save_writes_mxnets_checkpoint_files(tmp_path: Path) -> None:
    model = _model(num_epoch=3)
    model.fit(mx.io.NDArrayIter(SETUP["x"], SETUP["y"], 4), kvstore=None)
    model.save(str(tmp_path / "ff"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ff-0003.params", "ff-symbol.json"]
    saved = mx.nd.load(str(tmp_path / "ff-0003.params"))
    assert set(saved) == {f"arg:{k}" for k in model.arg_params} | {
        f"aux:{k}" for k in model.aux_params}  # fmt: skip
    again = mx.model.FeedForward.load(str(tmp_path / "ff"), 3)
    np.testing.assert_allclose(again.predict(SETUP["xe"]), model.predict(SETUP["xe"]))


def test_create_fits_from_numpy_and_callbacks_run(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    model = mx.model.FeedForward.create(
        _network(), SETUP["x"], SETUP["y"], num_epoch=2, numpy_batch_size=6,
        batch_end_callback=lambda p: seen.append((p.epoch, p.nbatch)),
        epoch_end_callback=mx.callback.do_checkpoint(str(tmp_path / "cb")),
    )  # fmt: skip
    assert seen == [(0, 1), (0, 2), (1, 1), (1, 2)]
    assert (tmp_path / "cb-0002.params").exists() and (tmp_path / "cb-symbol.json").exists()
    assert model.predict(SETUP["xe"]).shape == (8, 3)
    out, data, label = model.predict(mx.io.NDArrayIter(SETUP["xe"], SETUP["ye"], 3),
                                     return_data=True)  # fmt: skip
    assert out.shape == (8, 3) and np.array_equal(data, SETUP["xe"])
    assert np.array_equal(label, SETUP["ye"])


def test_pickles_without_its_predictor() -> None:
    model = _model(num_epoch=1)
    model.predict(SETUP["xe"])
    again = pickle.loads(pickle.dumps(model))
    assert again._pred_exec is None
    np.testing.assert_allclose(again.predict(SETUP["xe"]), model.predict(SETUP["xe"]))


def test_bad_input_fails_at_the_call() -> None:
    model = _model(num_epoch=1)
    with pytest.raises(ValueError, match="y must be specified"):
        model.fit(SETUP["x"])
    with pytest.raises(ValueError, match="not equal"):
        model.fit(SETUP["x"], SETUP["y"][:3])
    with pytest.raises(TypeError, match="X must be DataIter"):
        model.fit([[1, 2]], [1])
    with pytest.raises(TypeError, match="symbol"):
        mx.model.FeedForward("not a symbol")
    dup = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    dup = mx.sym.FullyConnected(dup, num_hidden=2, name="fc")
    with pytest.raises(ValueError, match='duplicated argument name "fc_weight"'):
        _ = mx.model.FeedForward(dup)


def test_executor_manager_splits_the_batch_over_contexts() -> None:
    net = _network()
    it = mx.io.NDArrayIter(SETUP["x"], SETUP["y"], 4)
    params = ["fc1_weight", "fc1_bias", "bn1_gamma", "bn1_beta", "fc2_weight", "fc2_bias"]
    mgr = mx.executor_manager.DataParallelExecutorManager(
        net, [mx.cpu(0), mx.cpu(1)], it, net.list_arguments(), params,
        net.list_auxiliary_states(), work_load_list=[1, 3],
    )  # fmt: skip
    assert mgr.slices == [slice(0, 1), slice(1, 4)]
    assert [e.arg_dict["data"].shape for e in mgr.execgrp.train_execs] == [(1, 5), (3, 5)]
    mgr.set_params(_params("arg"), _params("aux"))
    mgr.load_data_batch(next(iter(it)))
    mgr.forward(is_train=True)
    mgr.backward()
    metric = mx.metric.Accuracy()
    mgr.update_metric(metric, [mx.nd.array(SETUP["y"][:4])])
    assert metric.num_inst == 4
    args, aux = _params("arg"), _params("aux")
    mgr.copy_to(args, aux)
    np.testing.assert_allclose(args["fc1_weight"].asnumpy(), SETUP["arg:fc1_weight"])
    with pytest.raises(mx.MXNetError, match="work_load_list"):
        mx.executor_manager.DataParallelExecutorManager(
            net, [mx.cpu()], it, net.list_arguments(), params, [], work_load_list=[1, 1]
        )


def test_predict_internal_features_with_extra_params(tmp_path: Path) -> None:
    # as MXNet's tests/python/train/test_mlp.py: a trained model's parameters feed a model of
    # an inner output, the extra ones dropped; every way back to the model predicts the same
    model = _model(ctx=[mx.cpu(0), mx.cpu(1)], num_epoch=2, learning_rate=0.1)
    model.fit(mx.io.NDArrayIter(SETUP["x"], SETUP["y"], 4),
              eval_metric=mx.metric.np(lambda label, pred: float(np.mean(
                  pred.argmax(axis=1) == label))),
              epoch_end_callback=mx.callback.do_checkpoint(str(tmp_path / "mlp")))  # fmt: skip
    inner = _network().get_internals()["relu1_output"]
    feat = mx.model.FeedForward(symbol=inner, arg_params=model.arg_params,
                                aux_params=model.aux_params, allow_extra_params=True)  # fmt: skip
    assert set(feat.arg_params) == {"fc1_weight", "fc1_bias"} and feat.aux_params == {}
    assert feat.predict(SETUP["xe"]).shape == (8, 6)
    prob = model.predict(SETUP["xe"])
    loaded = mx.model.FeedForward.load(str(tmp_path / "mlp"), 2)
    assert np.array_equal(loaded.predict(SETUP["xe"]), prob)
