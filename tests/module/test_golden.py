"""Module against MXNet 1.9.1: loss curve, fit, and checkpoints in both directions.

The golden files come from tools/golden/cases/module.py (same network, data and starting
parameters as tests/module/lenet.py); checkpoint_check.py checks our
checkpoints in real MXNet and is skipped when /tmp/mxref is absent.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mxlite as mx
from tests.golden_file import load

from .lenet import (
    BATCH,
    GOLDEN,
    N_TEST,
    OPT_PARAMS,
    fit_ce,
    make_data,
    train,
)

MXREF = Path("/tmp/mxref/bin/python")
TOOL = Path(__file__).parent / "checkpoint_check.py"
RECORD = load("module/golden/module.npz").cases["train"]


def _trained_module(steps: int = 20) -> tuple[mx.mod.Module, list[float]]:
    return train(mx, steps)


def _one_step_outputs(mod: mx.mod.Module, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    mod.forward_backward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)]))
    mod.update()
    mod.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=False)
    return mod.get_outputs()[0].asnumpy()


def test_loss_curve_matches_mxnet_over_20_steps() -> None:
    _, losses = _trained_module()
    assert len(losses) == 20
    np.testing.assert_allclose(losses, RECORD["loss"], rtol=1e-4, atol=1e-5)
    assert losses[-1] < losses[0] * 0.5  # it did learn


def test_fit_train_metric_matches_mxnet() -> None:
    np.testing.assert_allclose(fit_ce(mx), RECORD["fit_ce"], rtol=1e-4, atol=1e-5)


def test_checkpoint_from_mxnet_predicts_the_same() -> None:
    mod = mx.mod.Module.load(str(GOLDEN / "lenet"), 1)
    tx, ty = make_data(N_TEST, 1000)
    mod.bind(
        data_shapes=[("data", (BATCH, 1, 8, 8))],
        label_shapes=[("softmax_label", (BATCH,))],
        for_training=False,
    )
    pred = mod.predict(mx.io.NDArrayIter(tx, None, batch_size=BATCH)).asnumpy()
    want = np.array(RECORD["predict"])
    assert pred.shape == want.shape == (N_TEST, 4)
    np.testing.assert_array_equal(pred.argmax(1), want.argmax(1))
    np.testing.assert_allclose(pred, want, atol=1e-5)
    score = mod.score(mx.io.NDArrayIter(tx, ty, batch_size=BATCH), "acc")
    assert score[0][0] == "accuracy"
    assert score[0][1] == pytest.approx(RECORD["score"][0][1])


def test_load_checkpoint_splits_arg_and_aux() -> None:
    sym, args, auxs = mx.model.load_checkpoint(str(GOLDEN / "lenet"), 1)
    assert sorted(auxs) == ["bn1_moving_mean", "bn1_moving_var"]
    assert set(args) == set(sym.list_arguments()) - {"data", "softmax_label"}
    assert args["conv1_weight"].shape == (4, 1, 3, 3)


def test_optimizer_states_from_mxnet_continue_training_the_same() -> None:
    x, y = make_data(BATCH, 0)
    here, _ = _trained_module()
    want = _one_step_outputs(here, x, y)
    loaded = mx.mod.Module.load(str(GOLDEN / "lenet"), 1, load_optimizer_states=True)
    loaded.bind(data_shapes=[("data", x.shape)], label_shapes=[("softmax_label", y.shape)])
    loaded.init_optimizer(optimizer="sgd", optimizer_params=OPT_PARAMS)
    got = _one_step_outputs(loaded, x, y)
    np.testing.assert_allclose(got, want, atol=2e-5)


def test_checkpoint_saved_here_round_trips(tmp_path: Path) -> None:
    mod, _ = _trained_module(4)
    prefix = str(tmp_path / "net")
    mod.save_checkpoint(prefix, 3, save_optimizer_states=True)
    assert (tmp_path / "net-symbol.json").exists()
    assert b"mxnet.ndarray.ndarray" in (tmp_path / "net-0003.states").read_bytes()
    again = mx.mod.Module.load(prefix, 3, load_optimizer_states=True)
    x, y = make_data(BATCH, 5)
    again.bind(data_shapes=[("data", x.shape)], label_shapes=[("softmax_label", y.shape)])
    again.init_optimizer(optimizer="sgd", optimizer_params=OPT_PARAMS)
    np.testing.assert_allclose(
        _one_step_outputs(again, x, y), _one_step_outputs(mod, x, y), atol=1e-6
    )


@pytest.mark.skipif(not MXREF.exists(), reason="real MXNet 1.9.1 (/tmp/mxref) is absent")
def test_checkpoint_saved_here_loads_in_mxnet(tmp_path: Path) -> None:
    mod, _ = _trained_module(12)
    prefix = str(tmp_path / "lenet")
    mod.save_checkpoint(prefix, 2, save_optimizer_states=True)
    x, y = make_data(BATCH, 40)
    pred = mod.predict(mx.io.NDArrayIter(x, None, batch_size=BATCH)).asnumpy()
    after = _one_step_outputs(mod, x, y)
    check = tmp_path / "check.npz"
    np.savez(check, data=x, label=y, predict=pred, after_step=after, opt=json.dumps(OPT_PARAMS))
    res = subprocess.run(
        [str(MXREF), str(TOOL), prefix, "2", str(check)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    sys.stdout.write(res.stdout)
    assert res.returncode == 0, res.stdout + res.stderr[-2000:]
