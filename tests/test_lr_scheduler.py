"""Learning-rate schedules against MXNet 1.9.1 (tools/golden/cases/optimizer.py; the schedules of
tests/optimizer/optimizer_cases.py)."""

import pytest

import mxlite as mx
from mxlite.base import ParamError

from .golden_file import load
from .optimizer.optimizer_cases import SCHEDULES, schedule, values

SCHED = load("optimizer/golden/optimizer.npz").cases["setup"]["schedules"]
F = mx.lr_scheduler


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_schedule_matches_mxnet(name):
    got = values(schedule(mx, SCHEDULES[name]))
    assert got == pytest.approx(SCHED[name], rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: F.FactorScheduler(step=0), "FactorScheduler.*step"),
        (lambda: F.FactorScheduler(step=2, factor=1.5), "FactorScheduler.*factor"),
        (lambda: F.MultiFactorScheduler(step=[3, 2]), "MultiFactorScheduler.*increasing"),
        (lambda: F.MultiFactorScheduler(step=5), "MultiFactorScheduler.*list"),
        (lambda: F.PolyScheduler(max_update=0), "PolyScheduler.*max_update"),
        (lambda: F.CosineScheduler(max_update=5, warmup_mode="exp"), "warmup_mode"),
        (lambda: F.CosineScheduler(max_update=5, base_lr=0.1, warmup_begin_lr=0.5),
         "warmup_begin_lr"),
        (lambda: F.FactorScheduler(step=2, warmup_steps=-1), "warmup_steps"),
    ],
)  # fmt: skip
def test_bad_arguments(make, match):
    with pytest.raises(ParamError, match=match):
        make()


def test_optimizer_uses_scheduler():
    opt = mx.optimizer.SGD(learning_rate=0.4, lr_scheduler=F.FactorScheduler(step=1, factor=0.5))
    assert opt.lr_scheduler.base_lr == 0.4
    opt.num_update = 3
    assert opt.learning_rate == pytest.approx(0.1)
