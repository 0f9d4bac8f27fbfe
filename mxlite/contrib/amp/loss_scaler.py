"""Dynamic loss scaling for AMP: the scale starts at 2**16, halves after a step whose gradients
are not all finite (that step's update is skipped) and doubles after 2000 steps in a row
without overflow, up to 2**24, as MXNet 1.9.1 does."""

from __future__ import annotations

import logging
from typing import Any

from ... import autograd
from ...ndarray import multi_all_finite
from ...ndarray import ndarray as nd

__all__ = ["LossScaler"]

_CHUNK = 200  # arrays per multi_all_finite call


class LossScaler:
    """Dynamic loss scaler for AMP.

    Properties
    ----------
    loss_scale : float
        The current loss scale
    """

    def __init__(self) -> None:
        self._loss_scale = 2.0**16
        self._next_loss_scale = self._loss_scale
        self._max_loss_scale = 2.0**24
        self._scale_seq_len = 2000
        self._unskipped = 0

    @property
    def loss_scale(self) -> float:
        return self._loss_scale

    def has_overflow(self, params: list[Any]) -> bool:
        """Check gradients for overflow (a value that is inf or nan), and move the loss scale
        for the next step: down after an overflow, up after a long run without one."""
        with autograd.pause():
            grads = [p._grad[0] for p in params if p._grad is not None]
            flag = nd.ones((1,), ctx=grads[0].context)
            for start in range(0, len(grads), _CHUNK):
                chunk = grads[start : start + _CHUNK]
                multi_all_finite(*chunk, num_arrays=len(chunk), init_output=False, out=flag)
        overflow = not bool(flag.asnumpy())
        self._loss_scale = self._next_loss_scale
        if overflow:
            self._next_loss_scale = self._loss_scale / 2.0
            self._unskipped = 0
            logging.info("AMP: decreasing loss scale to %f", self._next_loss_scale)
        else:
            self._unskipped += 1
        if self._unskipped == self._scale_seq_len:
            self._unskipped = 0
            self._next_loss_scale = min(self._max_loss_scale, self._loss_scale * 2.0)
            logging.info("AMP: increasing loss scale to %f", self._next_loss_scale)
        return overflow
