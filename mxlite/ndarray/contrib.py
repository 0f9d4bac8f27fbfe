"""mx.nd.contrib: the _contrib_* operators (filled in from the registry by mxlite.ndarray) and
MXNet's Python helpers of this module."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..base import NO_BACKWARD_OPS as _NO_BACKWARD
from ..base import absent_names as _absent_names
from ..context import Context, current_context
from . import _internal
from . import random as _random
from .control_flow import cond as cond
from .control_flow import foreach as foreach
from .control_flow import while_loop as while_loop
from .creation import array as _nd_array
from .ndarray import NDArray

__all__ = [
    "rand_zipfian",
    "isinf",
    "isfinite",
    "isnan",
    "adamw_update",
    "mp_adamw_update",
    "multi_adamw_update",
    "multi_mp_adamw_update",
    "multi_lamb_update",
    "multi_mp_lamb_update",
    "foreach",
    "while_loop",
    "cond",
]


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
    return _zipfian_counts(rand, true_classes.as_in_context(ctx), num_sampled, range_max)


def _zipfian_counts(rand: Any, true_classes: Any, num_sampled: int, range_max: int) -> tuple:
    """The samples and expected counts of :func:`rand_zipfian` from ``rand``, uniform in
    [0, log(range_max + 1)); written once for NDArrays and Symbols (``mx.sym.contrib``)."""
    log_range = math.log(range_max + 1)
    # the modulo keeps the rare draw at the very top of the range inside [0, range_max)
    sampled_classes = (rand.exp() - 1).astype("int64") % range_max
    true_cls = true_classes.astype("float64")
    expected_count_true = ((true_cls + 2.0) / (true_cls + 1.0)).log() / log_range * num_sampled
    sampled_f64 = sampled_classes.astype("float64")  # float, so the ratio is not truncated
    expected_prob_sampled = ((sampled_f64 + 2.0) / (sampled_f64 + 1.0)).log() / log_range
    return sampled_classes, expected_count_true, expected_prob_sampled * num_sampled


# ---- AdamW: rescale_grad may be a number or an NDArray ------------------------------------------


def _get_rescale_grad(rescale_grad: Any, ctx: Context | None = None) -> NDArray:
    if isinstance(rescale_grad, NDArray):
        return rescale_grad
    return _nd_array([rescale_grad], ctx=ctx)


def adamw_update(
    weight: NDArray,
    grad: NDArray,
    mean: NDArray,
    var: NDArray,
    rescale_grad: Any,
    lr: float,
    eta: float,
    beta1: float = 0.9,
    beta2: float = 0.999,
    epsilon: float = 1e-8,
    wd: float = 0,
    clip_gradient: float = -1,
    out: NDArray | None = None,
    name: str | None = None,
    **kwargs: Any,
) -> NDArray:
    """Update function for AdamW optimizer (``w -= eta * (lr * m / (sqrt(v) + epsilon) + wd *
    w)``); ``mean`` and ``var`` are updated in place. The update is skipped when
    ``rescale_grad`` is NaN, Inf or 0."""
    rescale_grad = _get_rescale_grad(rescale_grad, ctx=weight.context)
    return _internal._adamw_update(
        weight, grad, mean, var, rescale_grad, lr=lr, eta=eta, beta1=beta1, beta2=beta2,
        epsilon=epsilon, wd=wd, clip_gradient=clip_gradient, out=out, name=name, **kwargs,
    )  # fmt: skip


def mp_adamw_update(
    weight: NDArray,
    grad: NDArray,
    mean: NDArray,
    var: NDArray,
    weight32: NDArray,
    rescale_grad: Any,
    lr: float,
    eta: float,
    beta1: float = 0.9,
    beta2: float = 0.999,
    epsilon: float = 1e-8,
    wd: float = 0,
    clip_gradient: float = -1,
    out: NDArray | None = None,
    name: str | None = None,
    **kwargs: Any,
) -> NDArray:
    """Multi-precision AdamW update: the float32 master ``weight32`` is updated and cast into
    ``weight``'s dtype."""
    rescale_grad = _get_rescale_grad(rescale_grad, ctx=weight.context)
    return _internal._mp_adamw_update(
        weight, grad, mean, var, weight32, rescale_grad, lr=lr, eta=eta, beta1=beta1,
        beta2=beta2, epsilon=epsilon, wd=wd, clip_gradient=clip_gradient, out=out, name=name,
        **kwargs,
    )  # fmt: skip


def _interleave(*lists: Any) -> list[NDArray]:
    return [a for group in zip(*lists) for a in group]


def multi_adamw_update(
    weights: list[NDArray],
    grads: list[NDArray],
    mean: list[NDArray],
    var: list[NDArray],
    rescale_grad: Any,
    lrs: Any,
    wds: Any,
    etas: Any,
    out: Any = None,
    name: str | None = None,
    size: int = 0,
    **kwargs: Any,
) -> Any:
    """AdamW update of several weights at once (lists of weights, gradients and states)."""
    size = size or len(weights)
    rescale_grad = _get_rescale_grad(rescale_grad, ctx=weights[0].context)
    data = _interleave(weights, grads, mean, var) + [rescale_grad]
    return _internal._multi_adamw_update(
        *data, out=out, num_weights=size, lrs=lrs, wds=wds, etas=etas, name=name, **kwargs
    )


def multi_mp_adamw_update(
    weights: list[NDArray],
    grads: list[NDArray],
    mean: list[NDArray],
    var: list[NDArray],
    weights32: list[NDArray],
    rescale_grad: Any,
    lrs: Any,
    wds: Any,
    etas: Any,
    out: Any = None,
    name: str | None = None,
    size: int = 0,
    **kwargs: Any,
) -> Any:
    """Multi-precision AdamW update of several weights at once."""
    size = size or len(weights)
    rescale_grad = _get_rescale_grad(rescale_grad, ctx=weights[0].context)
    data = _interleave(weights, grads, mean, var, weights32) + [rescale_grad]
    return _internal._multi_mp_adamw_update(
        *data, out=out, num_weights=size, lrs=lrs, wds=wds, etas=etas, name=name, **kwargs
    )


def multi_lamb_update(
    weights: list[NDArray],
    grads: list[NDArray],
    mean: list[NDArray],
    var: list[NDArray],
    step_count: Any,
    lrs: Any,
    wds: Any,
    out: Any = None,
    num_tensors: int = 0,
    **kwargs: Any,
) -> Any:
    """Given a list of gradients, update weights, mean and variance of multiple tensors
    following LAMB Optimizer implementation.

    Parameters
    ----------
    weights : List of NDArrays containing the input weights of multiple tensors
    grads : List of NDArrays containing input gradients
    mean : List of NDArrays containing mean of multiple tensors to be updated
    var : List of NDArrays containing variance of multiple tensors to be updated
    step_count : List of scalars with the number of update step for each tensor
    lrs : List of learning rates (one for each tensor)
    wds : List of weight decays (one for each tensor)
    out: List of NDArrays where the updated weights will be stored
    num_tensors : Number of NDArrays/tensors in the list
    """
    data = _interleave(weights, grads, mean, var)
    return _internal._multi_lamb_update(
        *data, out=out, num_tensors=num_tensors or len(weights), step_count=step_count,
        learning_rates=lrs, wds=wds, **kwargs,
    )  # fmt: skip


def multi_mp_lamb_update(
    weights: list[NDArray],
    grads: list[NDArray],
    mean: list[NDArray],
    var: list[NDArray],
    weights32: list[NDArray],
    step_count: Any,
    lrs: Any,
    wds: Any,
    out: Any = None,
    num_tensors: int = 0,
    **kwargs: Any,
) -> Any:
    """Given a list of gradients, update weights, mean and variance of multiple tensors
    following LAMB Optimizer implementation, and using Mixed-Precision.

    Parameters
    ----------
    weights : List of NDArrays containing the input weights of multiple tensors
    grads : List of NDArrays containing input gradients
    mean : List of NDArrays containing mean of multiple tensors to be updated
    var : List of NDArrays containing variance of multiple tensors to be updated
    weights32 : Master copy of weights in FP32
    step_count : List of scalars with the number of update step for each tensor
    lrs : List of learning rates (one for each tensor)
    wds : List of weight decays (one for each tensor)
    out: List of NDArrays where the updated weights will be stored
    num_tensors : Number of NDArrays/tensors in the list
    """
    data = _interleave(weights, grads, mean, var, weights32)
    return _internal._multi_mp_lamb_update(
        *data, out=out, num_tensors=num_tensors or len(weights), step_count=step_count,
        learning_rates=lrs, wds=wds, **kwargs,
    )  # fmt: skip


# MXNet's names here that mxlite lacks, and why (tests/test_mxnet_names.py)
__getattr__ = _absent_names(
    "mxnet.ndarray.contrib",
    {
        "backward_gradientmultiplier": _NO_BACKWARD,
        "backward_hawkesll": _NO_BACKWARD,
        "backward_index_copy": _NO_BACKWARD,
        "backward_quadratic": _NO_BACKWARD,
    },
)
