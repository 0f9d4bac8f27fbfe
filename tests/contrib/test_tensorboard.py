"""mx.contrib.tensorboard.LogMetricsCallback: each metric written as a scalar at the epoch
(through a stand-in SummaryWriter), and a clear error without a writer library."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

import mxlite as mx


class _Writer:
    made: list = []

    def __init__(self, logdir: str) -> None:
        self.logdir, self.scalars = logdir, []
        _Writer.made.append(self)

    def add_scalar(self, tag: str, value: float, global_step: int) -> None:
        self.scalars.append((tag, value, global_step))


def _param(epoch: int) -> Any:
    metric = mx.metric.CompositeEvalMetric([mx.metric.Accuracy(), mx.metric.MSE()])
    metric.update([mx.nd.array([0, 1])], [mx.nd.array([[0.9, 0.1], [0.2, 0.8]])])
    return mx.model.BatchEndParam(epoch=epoch, nbatch=1, eval_metric=metric, locals=None)


def test_metrics_become_scalars(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("tensorboardX")
    fake.SummaryWriter = _Writer
    monkeypatch.setitem(sys.modules, "tensorboardX", fake)
    cb = mx.contrib.tensorboard.LogMetricsCallback("logs/eval", prefix="eval")
    cb(_param(3))
    cb(mx.model.BatchEndParam(epoch=4, nbatch=0, eval_metric=None, locals=None))
    writer = _Writer.made[-1]
    assert writer.logdir == "logs/eval"
    assert [(t, s) for t, _, s in writer.scalars] == [("eval-accuracy", 3), ("eval-mse", 3)]
    assert writer.scalars[0][1] == 1.0


def test_without_a_writer_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("tensorboardX", "torch", "torch.utils", "torch.utils.tensorboard"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r"mxlite\[tensorboard\]"):
        mx.contrib.tensorboard.LogMetricsCallback("logs")
