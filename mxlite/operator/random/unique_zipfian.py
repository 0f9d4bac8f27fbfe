"""``_sample_unique_zipfian``: draws without replacement from an approximately Zipfian
(log-uniform) distribution over ``[0, range_max)``, one row of draws per batch entry.

Design note
-----------
A candidate is ``round(exp(u * log(range_max))) - 1`` for a uniform ``u``, as in MXNet; each
row keeps drawing until it holds ``num_sampled`` distinct classes (kept in the order they
first came) and reports how many candidates that took. Rather than one candidate at a time,
every row draws a block of candidates at once; a stable sort per row marks each candidate that
is the first of its value, and a running count of those marks shows where each row reached
``num_sampled``. Rows that fall short get another block appended (the block size doubles), so
the loop runs a handful of times whatever the batch size. The draws, and so the outputs and the
trial counts, follow the same distribution as MXNet's, from another generator.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base import ParamError, Shape
from ...context import Context
from ...resource import ResourceRequest
from ..param import Param, field
from ..registry import Operator, OperatorProperty, register, shape_assign, shape_is_known
from ..req import OpReq, assign

__all__ = ["SampleUniqueZipfianParam"]


class SampleUniqueZipfianParam(Param):
    range_max: int = field(doc="The number of possible classes.")
    shape: tuple[int, ...] = field(
        default=(),
        doc="2-D shape of the output, where shape[0] is the batch size, and shape[1] is the "
        "number of candidates to sample for each batch.",
    )


def _first_marks(xp: Any, cand: Any) -> Any:
    """Per row, True where a candidate's value has not appeared earlier in that row."""
    order = xp.argsort(cand, axis=1, kind="stable")
    sorted_vals = xp.take_along_axis(cand, order, axis=1)
    new = xp.ones(cand.shape, dtype=bool)
    new[:, 1:] = sorted_vals[:, 1:] != sorted_vals[:, :-1]
    marks = xp.empty_like(new)
    xp.put_along_axis(marks, order, new, axis=1)
    return marks


def sample_unique_zipfian(
    xp: Any, rng: Any, range_max: int, batch: int, num: int
) -> tuple[Any, Any]:
    """(samples of shape (batch, num), trials of shape (batch,)), both int64."""
    log_range = math.log(range_max)
    # about num * (1 + num / range_max) draws suffice in most rows; more blocks fill the rest
    block = max(16, int(num * (1.0 + 2.0 * num / range_max)) + 16)
    cand = xp.empty((batch, 0), dtype=np.int64)
    while True:
        u = rng.random((batch, block))
        more = xp.rint(xp.exp(u * log_range)).astype(np.int64) - 1
        cand = xp.concatenate([cand, more], axis=1)
        marks = _first_marks(xp, cand)
        count = xp.cumsum(marks, axis=1)
        if bool((count[:, -1] >= num).all()):
            break
        block *= 2
    keep = marks & (count <= num)
    samples = cand[keep].reshape(batch, num)
    # the trial that brought the num-th distinct class ends the row
    trials = xp.argmax(count >= num, axis=1).astype(np.int64) + 1
    return samples, trials


class _UniqueZipfianOp(Operator):
    def __init__(self, param: Any, xp: Any) -> None:
        self.range_max = param.range_max
        self.xp = xp

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        batch, num = out_data[0].shape
        if batch == 0:
            return
        if num == 0:
            if req[1] != OpReq.NULL:
                assign(out_data[1], req[1], 0)
            return
        rng = op_ctx.requested[0].get_random()
        samples, trials = sample_unique_zipfian(self.xp, rng, self.range_max, batch, num)
        if req[0] != OpReq.NULL:
            assign(out_data[0], req[0], samples)
        if req[1] != OpReq.NULL:
            assign(out_data[1], req[1], trials)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        return  # no inputs, nothing to differentiate


@register("_sample_unique_zipfian")
class SampleUniqueZipfianProp(OperatorProperty):
    """Draw random samples from an approximately log-uniform or Zipfian distribution
    without replacement.

    This operation takes a 2-D shape ``(batch_size, num_sampled)`` and draws *num_sampled*
    distinct integers from ``[0, range_max)`` for each instance in the batch, from

        P(class) = (log(class + 2) - log(class + 1)) / log(range_max + 1)

    It also returns the number of trials used to obtain the samples of each instance.

    Example::

       samples, trials = _sample_unique_zipfian(750000, shape=(4, 8192))
       unique(samples[0]) = 8192
       trials[0] = 16435
    """

    param_class = SampleUniqueZipfianParam

    def list_arguments(self) -> list[str]:
        return []

    def list_outputs(self) -> list[str]:
        return ["output0", "output1"]

    def infer_shape(self, in_shape, out_shape=None):
        shape = tuple(self.param.shape)
        given = out_shape[0] if out_shape else None
        if len(shape) != 2:
            if given is not None and len(given) == 2 and shape_is_known(given):
                shape = tuple(given)
            else:
                raise ParamError(
                    f"{self.where()}: argument 'shape' must have 2 dimensions "
                    f"(batch_size, num_sampled), got {shape}."
                )
        elif given is not None:
            shape = shape_assign(self, "output", "output0", given, shape)
        if shape[1] > self.param.range_max:
            raise ParamError(
                f"{self.where()}: argument 'shape' asks for {shape[1]} samples per row, more "
                f"than range_max={self.param.range_max} classes; sampling is without "
                "replacement."
            )
        if self.param.range_max < 1:
            raise ParamError(
                f"{self.where()}: argument 'range_max' must be >= 1, got {self.param.range_max}."
            )
        return [], [shape, (shape[0],)], []

    def infer_type(self, in_type, out_type=None):
        return [], [np.dtype(np.int64), np.dtype(np.int64)], []

    def forward_resource(self, in_shape: list[Shape]) -> list[Any]:
        return [ResourceRequest.RANDOM]

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list[int]:
        return []

    def create_operator(self, ctx: Context) -> Operator:
        return _UniqueZipfianOp(self.param, ctx.xp)
