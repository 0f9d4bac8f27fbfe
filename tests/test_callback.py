"""Tests of mx.callback: MXNet 1.9.1's log line formats (captured with caplog), the batch and
epoch bookkeeping, and the checkpoint callbacks (with a stand-in for mx.model)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

import mxlite as mx
from mxlite.callback import BatchEndParam


class FakeClock:
    """Stands in for the ``time`` module: each call to time() advances by ``step`` seconds."""

    def __init__(self, step: float) -> None:
        self.now = 100.0
        self.step = step

    def time(self) -> float:
        self.now += self.step
        return self.now


def _metric() -> Any:
    metric = mx.metric.create(["acc", "ce"])
    metric.update([mx.nd.array([0, 1])], [mx.nd.array([[0.9, 0.1], [0.2, 0.8]])])
    return metric


def _messages(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records]


def test_batch_end_param_is_mxnets_namedtuple() -> None:
    param = BatchEndParam(epoch=0, nbatch=1, eval_metric=None, locals=None)
    assert repr(param) == "BatchEndParams(epoch=0, nbatch=1, eval_metric=None, locals=None)"


def test_speedometer_format_with_auto_reset(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mx.callback, "time", FakeClock(step=0.5))
    metric = _metric()
    speedometer = mx.callback.Speedometer(batch_size=4, frequent=2)
    with caplog.at_level(logging.INFO):
        for nbatch in range(5):
            speedometer(BatchEndParam(3, nbatch, metric, None))
    # 2 batches of 4 samples in 0.5 s (one clock tick between the timings).
    assert _messages(caplog) == [
        "Epoch[3] Batch [0-2]\tSpeed: 16.00 samples/sec\taccuracy=1.000000\tcross-entropy=0.164252",
        "Epoch[3] Batch [2-4]\tSpeed: 16.00 samples/sec\taccuracy=nan\tcross-entropy=nan",
    ]
    assert metric.get_global()[1][0] == 1.0  # auto_reset clears only the local numbers


def test_speedometer_without_auto_reset_and_without_metric(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mx.callback, "time", FakeClock(step=2.0))
    metric = _metric()
    keep = mx.callback.Speedometer(10, frequent=3, auto_reset=False)
    bare = mx.callback.Speedometer(10, frequent=3)
    with caplog.at_level(logging.INFO):
        for nbatch in range(4):
            keep(BatchEndParam(0, nbatch, metric, None))
        for nbatch in range(4):
            bare(BatchEndParam(0, nbatch, None, None))
    # 3 batches of 10 samples in 2 s each time.
    assert _messages(caplog) == [
        "Epoch[0] Batch [0-3]\tSpeed: 15.00 samples/sec\taccuracy=1.000000\tcross-entropy=0.164252",
        "Iter[0] Batch [3]\tSpeed: 15.00 samples/sec",
    ]
    assert metric.metrics[0].num_inst == 2  # not reset


def test_speedometer_restarts_timing_on_a_new_epoch(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mx.callback, "time", FakeClock(step=1.0))
    speedometer = mx.callback.Speedometer(1, frequent=1)
    with caplog.at_level(logging.INFO):
        for epoch, nbatch in ((0, 0), (0, 1), (1, 0), (1, 1)):
            speedometer(BatchEndParam(epoch, nbatch, None, None))
    # Batch 0 of each epoch only starts the clock.
    assert _messages(caplog) == [
        "Iter[0] Batch [1]\tSpeed: 1.00 samples/sec",
        "Iter[1] Batch [1]\tSpeed: 1.00 samples/sec",
    ]


def test_log_train_metric_every_period(caplog: pytest.LogCaptureFixture) -> None:
    metric = _metric()
    callback = mx.callback.log_train_metric(2, auto_reset=True)
    with caplog.at_level(logging.INFO):
        callback(BatchEndParam(1, 1, metric, None))
        callback(BatchEndParam(1, 2, metric, None))
    assert _messages(caplog) == [
        "Iter[1] Batch[2] Train-accuracy=1.000000",
        "Iter[1] Batch[2] Train-cross-entropy=0.164252",
    ]
    assert metric.metrics[0].num_inst == 0


def test_progress_bar_and_validation_log(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO):
        mx.callback.ProgressBar(total=3, length=10)(BatchEndParam(0, 2, None, None))
        mx.callback.LogValidationMetricsCallback()(BatchEndParam(4, 9, _metric(), None))
        mx.callback.LogValidationMetricsCallback()(BatchEndParam(4, 9, None, None))
    assert _messages(caplog) == [
        "[=======---] 67%\r",
        "Epoch[4] Validation-accuracy=1.000000",
        "Epoch[4] Validation-cross-entropy=0.164252",
    ]


def test_do_checkpoint_calls_model_save_checkpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    monkeypatch.setattr(mx.callback, "save_checkpoint", lambda *args: calls.append(args))
    callback = mx.callback.do_checkpoint("prefix", period=2)
    for epoch in range(4):
        callback(epoch, "sym", {"a": 1}, {"b": 2})
    assert calls == [
        ("prefix", 2, "sym", {"a": 1}, {"b": 2}),
        ("prefix", 4, "sym", {"a": 1}, {"b": 2}),
    ]


def test_module_checkpoint_calls_the_module() -> None:
    calls = []

    class FakeModule:
        def save_checkpoint(self, prefix: str, epoch: int, save_states: bool) -> None:
            calls.append((prefix, epoch, save_states))

    callback = mx.callback.module_checkpoint(
        FakeModule(), "m", period=0, save_optimizer_states=True
    )
    callback(0)
    callback(1, None, None, None)
    assert calls == [("m", 1, True), ("m", 2, True)]


def test_bad_arguments_name_the_callback() -> None:
    with pytest.raises(mx.base.ParamError, match="Speedometer.*frequent"):
        mx.callback.Speedometer(8, frequent=0)
    with pytest.raises(mx.base.ParamError, match="ProgressBar.*total"):
        mx.callback.ProgressBar(total=0)
