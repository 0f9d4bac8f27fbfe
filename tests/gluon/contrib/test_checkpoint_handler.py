"""CheckpointHandler against MXNet 1.9.1 (tools/golden/cases/checkpoint_handler.py): the files
it leaves (names, max_checkpoints, save_best, the symbol of a hybridized network), resuming
from the newest checkpoint by epochs and by batches, and the parameters the runs end with."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import mxlite as mx
from mxlite.gluon.contrib.estimator import CheckpointHandler

from ...golden_file import load
from . import checkpoint_cases

DATA = load("gluon/contrib/golden/checkpoint_handler.npz")
SETUP = DATA.arrays("setup")
SCENARIOS = [k for k in DATA.cases if k != "setup"]
pytestmark = pytest.mark.filterwarnings("ignore")


def _fit(folder: str, fit_kwargs: dict, handler_kwargs: dict, hybridize: bool) -> tuple:
    return checkpoint_cases.fit(mx, folder, SETUP, fit_kwargs, handler_kwargs, hybridize)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_runs_leave_mxnets_files_and_parameters(scenario: str, tmp_path: Path) -> None:
    meta, want = DATA.cases[scenario], DATA.arrays(scenario)
    for fit_kwargs, handler_kwargs in meta["fits"]:
        net, est, handler = _fit(str(tmp_path), fit_kwargs, handler_kwargs,
                                 scenario == "hybridized")  # fmt: skip
    assert sorted(os.listdir(tmp_path)) == meta["files"]
    assert (est.max_epoch, est.max_batch) == (meta["max_epoch"], meta["max_batch"])
    assert handler.saved_checkpoints == meta["saved_checkpoints"]
    for k, p in net.collect_params().items():
        np.testing.assert_allclose(p.data().asnumpy(), want[k], rtol=1e-5, atol=1e-6)


def test_resume_logs_where_it_starts(tmp_path: Path, capsys: Any) -> None:
    _fit(str(tmp_path), {"epochs": 1}, {"resume_from_checkpoint": True}, False)
    assert "No checkpoint found, training from scratch for 1 epochs" in capsys.readouterr().out
    _fit(str(tmp_path), {"epochs": 3}, {"resume_from_checkpoint": True}, False)
    # no checkpoint was found, so the first run named its file after batch 3 - 1
    out = capsys.readouterr().out
    assert "Checkpoint resumed from epoch 0 batch 2, continue to train for 2 epochs" in out


def test_bad_settings_fail_clearly(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="monitor"):
        CheckpointHandler(str(tmp_path), save_best=True)
    with pytest.raises(ValueError, match="same type of period"):
        _fit(str(tmp_path), {"batches": 2}, {"resume_from_checkpoint": True}, False)
    _fit(str(tmp_path), {"epochs": 2}, {}, False)
    with pytest.raises(ValueError, match="maximum number of epoch 2 reached"):
        _fit(str(tmp_path), {"epochs": 2}, {"resume_from_checkpoint": True}, False)
    (tmp_path / "model-epoch1batch6.states").unlink()
    with pytest.raises(mx.MXNetError, match="model-epoch1batch6.states does not exist"):
        _fit(str(tmp_path), {"epochs": 4}, {"resume_from_checkpoint": True}, False)
    (tmp_path / "model-epochXbatch1.params").write_bytes(b"")
    with pytest.raises(ValueError, match="Error parsing checkpoint file"):
        _fit(str(tmp_path), {"epochs": 4}, {"resume_from_checkpoint": True}, False)


def test_resuming_past_the_last_batch_names_the_trained_batch(tmp_path: Path) -> None:
    # MXNet's batch message names the checkpoint's batch (the epoch one names the maximum)
    _fit(str(tmp_path), {"batches": 4}, {"batch_period": 1, "epoch_period": None}, False)
    with pytest.raises(ValueError, match="maximum number of batch 3 reached"):
        _fit(str(tmp_path), {"batches": 2},
             {"batch_period": 1, "epoch_period": None, "resume_from_checkpoint": True},
             False)  # fmt: skip
