"""``mx.misc``: MXNet's oldest learning-rate schedulers (``mx.lr_scheduler`` replaced them;
old scripts still import them from here). A scheduler is called with the iteration count and
returns the learning rate, from ``base_lr`` (0.01 unless set)."""

from __future__ import annotations

import logging
import math

__all__ = ["LearningRateScheduler", "FactorScheduler"]


class LearningRateScheduler:
    """Base class of learning rate scheduler."""

    def __init__(self) -> None:
        self.base_lr = 0.01

    def __call__(self, iteration: int) -> float:
        """The learning rate at ``iteration`` (the current iteration count)."""
        raise NotImplementedError("must override this")


class FactorScheduler(LearningRateScheduler):
    """Reduce learning rate in factor: ``base_lr * factor ** (iteration // step)``.

    Parameters
    ----------
    step : int
        Schedule learning rate after every round.
    factor : float, optional, default 0.1
        Reduce learning rate factor.
    """

    def __init__(self, step: int, factor: float = 0.1) -> None:
        super().__init__()
        if step < 1:
            raise ValueError("Schedule step must be greater or equal than 1 round")
        if factor >= 1.0:
            raise ValueError("Factor must be less than 1 to make lr reduce")
        self.step = step
        self.factor = factor
        self.old_lr = self.base_lr
        self.init = False

    def __call__(self, iteration: int) -> float:
        """The learning rate at ``iteration``; logs each change (MXNet's line, its spelling
        included)."""
        if not self.init:
            self.init = True
            self.old_lr = self.base_lr
        lr = self.base_lr * math.pow(self.factor, int(iteration / self.step))
        if lr != self.old_lr:
            self.old_lr = lr
            logging.info("At Iteration [%d]: Swith to new learning rate %.5f", iteration, lr)
        return lr
