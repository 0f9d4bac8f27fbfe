"""Learning-rate schedules (``mx.lr_scheduler``), as MXNet 1.9.1.

Design note
-----------
A scheduler is called with the optimizer's update count and returns the learning rate.
Factor and MultiFactor schedulers keep state (they decay ``base_lr`` as the count passes their
steps), so like MXNet's they expect non-decreasing counts. The attribute names are MXNet's,
because schedulers are pickled inside optimizer state files that both libraries read.
Bad arguments raise :class:`~mxlite.base.ParamError` (a ``ValueError``, as MXNet raises).

Example::

    sched = FactorScheduler(step=10, factor=0.5, base_lr=0.1)
    sched(25)   # 0.025
"""

from __future__ import annotations

import logging
from math import cos, pi

from .base import ParamError, fill_doc
from .fileio import allow

__all__ = [
    "LRScheduler",
    "FactorScheduler",
    "MultiFactorScheduler",
    "PolyScheduler",
    "CosineScheduler",
]


class LRScheduler:
    """Base class of learning rate schedulers.

    Parameters
    ----------
    base_lr : float, default 0.01
        The base learning rate.
    warmup_steps : int, default 0
        Number of warmup steps.
    warmup_begin_lr : float, default 0
        The learning rate at the start of warmup.
    warmup_mode : {'linear', 'constant'}, default 'linear'
        Linear warmup rises from ``warmup_begin_lr`` to ``base_lr``; constant stays at
        ``warmup_begin_lr``.
    """

    def __init__(
        self,
        base_lr: float = 0.01,
        warmup_steps: int = 0,
        warmup_begin_lr: float = 0,
        warmup_mode: str = "linear",
    ) -> None:
        where = type(self).__name__
        self.base_lr = base_lr
        if not isinstance(warmup_steps, int):
            raise ParamError(f"{where}: warmup_steps must be an int, got {warmup_steps!r}.")
        self.warmup_steps = warmup_steps
        self.warmup_final_lr = base_lr
        self.warmup_begin_lr = warmup_begin_lr
        if self.warmup_begin_lr > self.warmup_final_lr:
            raise ParamError(
                f"{where}: base_lr ({base_lr}) must be at least warmup_begin_lr "
                f"({warmup_begin_lr})."
            )
        if self.warmup_steps < 0:
            raise ParamError(f"{where}: warmup_steps must be >= 0, got {warmup_steps}.")
        if warmup_mode not in ("linear", "constant"):
            raise ParamError(
                f"{where}: warmup_mode must be 'linear' or 'constant', got {warmup_mode!r}."
            )
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update: int) -> float:
        """The learning rate during warmup (``num_update < warmup_steps``)."""
        if self.warmup_mode == "linear":
            increase = (
                (self.warmup_final_lr - self.warmup_begin_lr)
                * float(num_update)
                / float(self.warmup_steps)
            )
            return self.warmup_begin_lr + increase
        return self.warmup_begin_lr

    def __call__(self, num_update: int) -> float:
        raise NotImplementedError("must override this")


class FactorScheduler(LRScheduler):
    """Multiply the learning rate by ``factor`` every ``step`` updates, down to
    ``stop_factor_lr``.

    Parameters
    ----------
    step : int
        Changes the learning rate every ``step`` updates.
    factor : float, default 1
        The factor to change the learning rate by.
    stop_factor_lr : float, default 1e-8
        Stop decaying below this learning rate.
    base_lr, warmup_steps, warmup_begin_lr, warmup_mode
        As :class:`LRScheduler`.
    """

    def __init__(
        self,
        step: int,
        factor: float = 1,
        stop_factor_lr: float = 1e-8,
        base_lr: float = 0.01,
        warmup_steps: int = 0,
        warmup_begin_lr: float = 0,
        warmup_mode: str = "linear",
    ) -> None:
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if step < 1:
            raise ParamError(f"FactorScheduler: step must be >= 1, got {step}.")
        if factor > 1.0:
            raise ParamError(f"FactorScheduler: factor must be <= 1 to reduce lr, got {factor}.")
        self.step = step
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.count = 0

    def __call__(self, num_update: int) -> float:
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr *= self.factor
            if self.base_lr < self.stop_factor_lr:
                self.base_lr = self.stop_factor_lr
                logging.info(
                    "Update[%d]: now learning rate arrived at %0.5e, will not change in the future",
                    num_update,
                    self.base_lr,
                )
            else:
                logging.info("Update[%d]: Change learning rate to %0.5e", num_update, self.base_lr)
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """Multiply the learning rate by ``factor`` as the update count passes each of ``step``.

    Parameters
    ----------
    step : list of int
        Increasing update counts at which the learning rate changes.
    factor : float, default 1
        The factor to change the learning rate by.
    base_lr, warmup_steps, warmup_begin_lr, warmup_mode
        As :class:`LRScheduler`.
    """

    def __init__(
        self,
        step: list[int],
        factor: float = 1,
        base_lr: float = 0.01,
        warmup_steps: int = 0,
        warmup_begin_lr: float = 0,
        warmup_mode: str = "linear",
    ) -> None:
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(step, list) or len(step) < 1:
            raise ParamError(f"MultiFactorScheduler: step must be a non-empty list, got {step!r}.")
        for i, s in enumerate(step):
            if i != 0 and step[i] <= step[i - 1]:
                raise ParamError(f"MultiFactorScheduler: step must be increasing, got {step}.")
            if s < 1:
                raise ParamError(f"MultiFactorScheduler: each step must be >= 1, got {step}.")
        if factor > 1.0:
            raise ParamError(
                f"MultiFactorScheduler: factor must be <= 1 to reduce lr, got {factor}."
            )
        self.step = step
        self.cur_step_ind = 0
        self.factor = factor
        self.count = 0

    def __call__(self, num_update: int) -> float:
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while self.cur_step_ind <= len(self.step) - 1:
            if num_update > self.step[self.cur_step_ind]:
                self.count = self.step[self.cur_step_ind]
                self.cur_step_ind += 1
                self.base_lr *= self.factor
                logging.info("Update[%d]: Change learning rate to %0.5e", num_update, self.base_lr)
            else:
                return self.base_lr
        return self.base_lr


# The parameters PolyScheduler and CosineScheduler document alike.
_decay_doc = fill_doc(
    decay_from="""max_update : int
    The number of updates after which the learning rate stays at ``final_lr``.
base_lr : float, default 0.01
    The base learning rate.""",
    decay_to="""final_lr : float, default 0
    The final learning rate.
warmup_steps, warmup_begin_lr, warmup_mode
    As :class:`LRScheduler`.""",
)


class _DecayScheduler(LRScheduler):
    """Poly and Cosine: after the warmup, ``base_lr`` goes from ``base_lr_orig`` to
    ``final_lr`` over ``max_steps`` updates, following the class's ``_decay`` (1 to 0)."""

    def _init_decay(self, where: str, max_update: int, final_lr: float) -> None:
        if not isinstance(max_update, int) or max_update < 1:
            raise ParamError(f"{where}: max_update must be an int >= 1, got {max_update!r}.")
        self.base_lr_orig = self.base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.max_steps = self.max_update - self.warmup_steps

    def _decay(self, done: int) -> float:
        raise NotImplementedError

    def __call__(self, num_update: int) -> float:
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            done = num_update - self.warmup_steps
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * self._decay(done)
        return self.base_lr


@_decay_doc
class PolyScheduler(_DecayScheduler):
    """Polynomial decay from ``base_lr`` to ``final_lr`` over ``max_update`` updates.

    Parameters
    ----------
    {decay_from}
    pwr : int, default 2
        The power of the decay term.
    {decay_to}
    """

    def __init__(
        self,
        max_update: int,
        base_lr: float = 0.01,
        pwr: float = 2,
        final_lr: float = 0,
        warmup_steps: int = 0,
        warmup_begin_lr: float = 0,
        warmup_mode: str = "linear",
    ) -> None:
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        self.power = pwr
        self._init_decay("PolyScheduler", max_update, final_lr)

    def _decay(self, done: int) -> float:
        return pow(1 - float(done) / float(self.max_steps), self.power)


@_decay_doc
class CosineScheduler(_DecayScheduler):
    """Cosine decay from ``base_lr`` to ``final_lr`` over ``max_update`` updates.

    Parameters
    ----------
    {decay_from}
    {decay_to}
    """

    def __init__(
        self,
        max_update: int,
        base_lr: float = 0.01,
        final_lr: float = 0,
        warmup_steps: int = 0,
        warmup_begin_lr: float = 0,
        warmup_mode: str = "linear",
    ) -> None:
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        self._init_decay("CosineScheduler", max_update, final_lr)

    def _decay(self, done: int) -> float:
        return (1 + cos(pi * done / self.max_steps)) / 2


# Schedulers are pickled inside optimizer states files, under MXNet's module path.
for _cls in (LRScheduler, FactorScheduler, MultiFactorScheduler, PolyScheduler, CosineScheduler):
    allow(_cls, f"mxnet.lr_scheduler.{_cls.__name__}")
