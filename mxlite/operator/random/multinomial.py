"""``_sample_multinomial`` (draws from categorical distributions) and ``_shuffle``.

Design note
-----------
``_sample_multinomial`` treats the last axis of ``data`` as the probabilities of one
categorical distribution and draws ``prod(shape)`` indices from each, as MXNet does: the
cumulative sums in float32, then for each uniform draw ``u`` the first index whose cumulative
sum is ``>= u`` (``k``, one past the end, when a row sums to less than ``u``, as in MXNet). All
rows are searched at once by offsetting each row's cumulative sums so that one sorted
``searchsorted`` serves them all. With ``get_prob`` a second output holds the log probability
of each draw; its gradient (MXNet's ``_backward_sample_multinomial``) adds
``head / p[drawn]`` at the drawn index, which is what score-function estimators need; without
``get_prob`` the gradient is zero.

``_shuffle`` permutes the first axis (rows keep their contents) with one permutation drawn from
the device generator; it may run in place and has no gradient, as in MXNet.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import DTypeError, MXNetError, Shape, ShapeError
from ...context import Context
from ...resource import ResourceRequest
from ..param import Param, field
from ..registry import Operator, OperatorProperty, register
from ..req import OpReq, assign
from .sample import FLOAT_DTYPES

__all__ = ["SampleMultinomialParam"]


class SampleMultinomialParam(Param):
    shape: tuple[int, ...] = field(
        default=(), doc="Shape to be sampled from each random distribution."
    )
    get_prob: bool = field(
        default=False,
        doc="Whether to also return the log probability of sampled result. This is usually "
        "used for differentiating through stochastic variables, e.g. in reinforcement "
        "learning.",
    )
    dtype: str = field(
        default="int32",
        choices=("uint8", "int32", "float16", "float32", "float64"),
        doc="DType of the output in case this can't be inferred.",
    )


def _rows(data_shape: Shape, out_shape: Shape) -> tuple[int, int, int]:
    """(number of distributions N, outcomes K, draws per distribution M)."""
    k = data_shape[-1]
    n = int(np.prod(data_shape[:-1], dtype=np.int64))
    m = int(np.prod(out_shape, dtype=np.int64)) // max(n, 1)
    return n, k, m


class _MultinomialOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        xp, data = self.xp, in_data[0]
        n, k, m = _rows(data.shape, out_data[0].shape)
        if n * m == 0:
            return
        probs = data.reshape(n, k)
        cum = xp.cumsum(probs, axis=1, dtype=np.float64).astype(np.float32).astype(np.float64)
        u = op_ctx.requested[0].get_random().random((n, m), dtype=np.float32).astype(np.float64)
        # Lay the rows end to end on one increasing axis: row i lives in [i*stride, ...).
        lo = min(float(cum.min()), 0.0)
        stride = max(float(cum.max()), 1.0) - lo + 1.0
        offset = xp.arange(n, dtype=np.float64)[:, None] * stride - lo
        pos = xp.searchsorted((cum + offset).ravel(), (u + offset).ravel(), side="left")
        idx = pos.reshape(n, m) - xp.arange(n)[:, None] * k
        if req[0] != OpReq.NULL:
            assign(out_data[0], req[0], idx.reshape(out_data[0].shape))
        if len(out_data) > 1 and req[1] != OpReq.NULL:
            picked = xp.take_along_axis(probs, xp.minimum(idx, k - 1), axis=1)
            with np.errstate(divide="ignore"):
                logp = xp.where(idx < k, xp.log(picked), -np.inf)
            assign(out_data[1], req[1], logp.reshape(out_data[1].shape))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        if req[0] == OpReq.NULL:
            return
        xp, data, grad = self.xp, in_data[0], in_grad[0]
        if len(out_grad) < 2:
            assign(grad, req[0], 0)
            return
        n, k, m = _rows(data.shape, out_data[0].shape)
        probs = data.reshape(n, k)
        idx = out_data[0].reshape(n, m).astype(np.int64)
        valid = (idx >= 0) & (idx < k)
        safe = xp.where(valid, idx, 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            contrib = out_grad[1].reshape(n, m) / xp.take_along_axis(probs, safe, axis=1)
        flat = (safe + xp.arange(n)[:, None] * k)[valid]
        total = xp.bincount(flat, weights=contrib[valid].astype(np.float64), minlength=n * k)
        assign(grad, req[0], total.reshape(grad.shape).astype(grad.dtype, copy=False))


@register("_sample_multinomial", aliases=("sample_multinomial",))
class SampleMultinomialProp(OperatorProperty):
    """Concurrent sampling from multiple multinomial distributions.

    *data* is an *n* dimensional array whose last axis (of length *k*) holds the
    probabilities of the *k* outcomes of one distribution; *shape* samples are drawn from
    each (one when *shape* is empty). With *get_prob*, a second output holds the log
    likelihood of each draw. The input must be normalized along its last axis.
    """

    param_class = SampleMultinomialParam

    def list_outputs(self) -> list[str]:
        return ["output", "prob"] if self.param.get_prob else ["output"]

    def infer_shape(self, in_shape, out_shape=None):
        ishape = in_shape[0]
        if ishape is None or len(ishape) == 0:
            return None
        shape = tuple(self.param.shape)
        if len(ishape) == 1:
            oshape = shape if shape else (1,)
        else:
            oshape = tuple(ishape[:-1]) + shape
        return [ishape], [oshape] * self.num_outputs(), []

    def infer_type(self, in_type, out_type=None):
        t = in_type[0]
        if t is None:
            return None
        if np.dtype(t).name not in FLOAT_DTYPES:
            raise DTypeError(
                f"{self.where()}: input 'data' must have a floating point dtype "
                f"({', '.join(FLOAT_DTYPES)}), got {np.dtype(t).name}."
            )
        outs = [np.dtype(self.param.dtype)] + ([np.dtype(t)] if self.param.get_prob else [])
        return [t], outs, []

    def forward_resource(self, in_shape: list[Shape]) -> list[Any]:
        return [ResourceRequest.RANDOM]

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list[int]:
        if self.param.get_prob:
            return [out_grad[1], in_data[0], out_data[0]]
        return []

    def create_operator(self, ctx: Context) -> Operator:
        return _MultinomialOp(xp=ctx.xp)


class _ShuffleOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        if req[0] == OpReq.NULL:
            return
        if req[0] == OpReq.ADD:
            raise MXNetError("_shuffle: writing with req 'add' is not supported.")
        x = in_data[0]
        perm = op_ctx.requested[0].get_random().permutation(x.shape[0])
        assign(out_data[0], req[0], x[perm])

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        raise MXNetError("_shuffle: the operator is not differentiable (it has no gradient).")


@register("_shuffle", aliases=("shuffle", "_npi_shuffle"))
class ShuffleProp(OperatorProperty):
    """Randomly shuffle the elements along the first axis.

    The order of the elements within each subarray does not change: for a 2-D array the
    rows are permuted, each row keeping its contents.
    """

    def infer_shape(self, in_shape, out_shape=None):
        res = super().infer_shape(in_shape, out_shape)
        if res is not None and len(res[1][0]) == 0:
            raise ShapeError(f"{self.where()}: input 'data' must have at least one axis.")
        return res

    def forward_resource(self, in_shape: list[Shape]) -> list[Any]:
        return [ResourceRequest.RANDOM]

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list[int]:
        return []

    def forward_inplace_option(self, in_data, out_data) -> list[tuple]:
        return [(in_data[0], out_data[0])]

    def create_operator(self, ctx: Context) -> Operator:
        return _ShuffleOp()
