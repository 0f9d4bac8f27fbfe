"""mx.nd.contrib: the _contrib_* operators (filled in from the registry by mxlite.ndarray) and
MXNet's Python helpers of this module."""

from __future__ import annotations

import math

import numpy as np

from ..context import Context, current_context
from . import random as _random
from .ndarray import NDArray

__all__ = ["rand_zipfian", "isinf", "isfinite", "isnan"]


def isinf(data: NDArray) -> NDArray:
    """1 where ``data`` is +inf or -inf, else 0 (in ``data``'s dtype)."""
    return data.abs() == np.inf


def isfinite(data: NDArray) -> NDArray:
    """1 where ``data`` is neither infinite nor NaN, else 0."""
    return (data.abs() != np.inf) * (data == data)


def isnan(data: NDArray) -> NDArray:
    """1 where ``data`` is NaN, else 0."""
    return data != data


def rand_zipfian(
    true_classes: NDArray, num_sampled: int, range_max: int, ctx: Context | None = None
) -> tuple[NDArray, NDArray, NDArray]:
    """Draw random samples from an approximately log-uniform or Zipfian distribution.

    This operation samples *num_sampled* candidates from the range of integers
    [0, range_max), with replacement, from the base distribution

        P(class) = (log(class + 2) - log(class + 1)) / log(range_max + 1)

    which suits classes sorted by decreasing frequency (words of a lexicon, say). It also
    returns how often each true class and each sampled class is expected to occur.

    Parameters
    ----------
    true_classes : NDArray
        A 1-D NDArray of the target classes.
    num_sampled : int
        The number of classes to randomly sample.
    range_max : int
        The number of possible classes.
    ctx : Context
        Device context of output. Default is current context.

    Returns
    -------
    samples : NDArray
        The sampled candidate classes in 1-D `int64` dtype.
    expected_count_true : NDArray
        The expected count for true classes in 1-D `float64` dtype.
    expected_count_sample : NDArray
        The expected count for sampled candidates in 1-D `float64` dtype.

    Examples
    --------
    >>> true_cls = mx.nd.array([3])
    >>> samples, exp_count_true, exp_count_sample = mx.nd.contrib.rand_zipfian(true_cls, 4, 5)
    >>> samples.shape, exp_count_true.dtype
    ((4,), <class 'numpy.float64'>)
    """
    if ctx is None:
        ctx = current_context()
    log_range = math.log(range_max + 1)
    rand = _random.uniform(0, log_range, shape=(num_sampled,), dtype="float64", ctx=ctx)
    # the modulo keeps the rare draw at the very top of the range inside [0, range_max)
    sampled_classes = (rand.exp() - 1).astype("int64") % range_max
    true_cls = true_classes.as_in_context(ctx).astype("float64")
    expected_count_true = ((true_cls + 2.0) / (true_cls + 1.0)).log() / log_range * num_sampled
    sampled_f64 = sampled_classes.astype("float64")  # float, so the ratio is not truncated
    expected_prob_sampled = ((sampled_f64 + 2.0) / (sampled_f64 + 1.0)).log() / log_range
    return sampled_classes, expected_count_true, expected_prob_sampled * num_sampled
