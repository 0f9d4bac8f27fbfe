"""``mx.nd.random``: random sampling with numbers or NDArrays as distribution parameters.

Each function dispatches as MXNet 1.9.1's does: numbers go to the ``_random_X`` operator
(one distribution, ``shape`` samples; ``shape`` defaults to 1), NDArrays to ``_sample_X``
(one distribution per element; output shape ``params.shape + shape``). The ``*_like``
functions come from the registry (``_random_X_like``) when ``mxlite.ndarray`` fills this
module in.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import MXNetError, numeric_types
from ..context import Context, current_context
from . import _internal
from .ndarray import NDArray

__all__ = [
    "uniform",
    "normal",
    "randn",
    "poisson",
    "exponential",
    "gamma",
    "multinomial",
    "negative_binomial",
    "generalized_negative_binomial",
    "shuffle",
    "randint",
]


class _NullType:
    """Marks an argument the caller did not give (MXNet's ``_Null``)."""

    def __repr__(self) -> str:
        return "_Null"


_Null: Any = _NullType()


# function -> (operator for numbers, operator for NDArrays, parameter names of the first)
_OPERATORS: dict[str, tuple[str, str | None, tuple[str, ...]]] = {
    "uniform": ("_random_uniform", "_sample_uniform", ("low", "high")),
    "normal": ("_random_normal", "_sample_normal", ("loc", "scale")),
    "randn": ("_random_normal", "_sample_normal", ("loc", "scale")),
    "poisson": ("_random_poisson", "_sample_poisson", ("lam",)),
    "exponential": ("_random_exponential", "_sample_exponential", ("lam",)),
    "gamma": ("_random_gamma", "_sample_gamma", ("alpha", "beta")),
    "negative_binomial": ("_random_negative_binomial", "_sample_negative_binomial", ("k", "p")),
    "generalized_negative_binomial": (
        "_random_generalized_negative_binomial",
        "_sample_generalized_negative_binomial",
        ("mu", "alpha"),
    ),
    "randint": ("_random_randint", None, ("low", "high")),
}


def _random_helper(
    func: str,
    params: list[Any],
    shape: Any,
    dtype: Any,
    ctx: Context | None,
    out: NDArray | None,
    kwargs: dict[str, Any],
) -> Any:
    """Call ``_random_X`` with scalar ``params`` or ``_sample_X`` with NDArray ``params``."""
    if dtype is not _Null:
        # MXNet's front end passes np.dtype(dtype).name, so dtype=None means float64 there
        kwargs["dtype"] = dtype if isinstance(dtype, str) else np.dtype(dtype).name
    if shape is not _Null:
        kwargs["shape"] = shape
    if out is not None and "dtype" not in kwargs:
        # MXNet infers the dtype that is not given from ``out``.
        kwargs["dtype"] = np.dtype(out.dtype).name
    name, is_array = pick_operator("mx.nd.random", func, params, NDArray)
    if is_array:
        return getattr(_internal, name)(*params, out=out, **kwargs)
    # MXNet takes a shape that is not given from ``out``, else draws one sample.
    kwargs.setdefault("shape", out.shape if out is not None else 1)
    scalars = dict(zip(_OPERATORS[func][2], params))
    ctx = current_context() if ctx is None else ctx
    return getattr(_internal, name)(ctx=ctx, out=out, **scalars, **kwargs)


def pick_operator(api: str, func: str, params: list[Any], array_type: type) -> tuple[str, bool]:
    """The operator for ``func`` with distribution parameters ``params``: ``_sample_X`` when
    they are all ``array_type`` (NDArray or Symbol), ``_random_X`` when all are numbers;
    the bool says which. Shared by ``mx.nd.random`` and ``mx.sym.random`` (``api``)."""
    random, sampler, names = _OPERATORS[func]
    first = params[0]
    kind = array_type if isinstance(first, array_type) else numeric_types
    if kind is numeric_types and not isinstance(first, numeric_types):
        raise MXNetError(
            f"{api}.{func}: distribution parameters must be either {array_type.__name__} or "
            f"numbers, but got {type(first).__name__}."
        )
    for p in params[1:]:
        if not isinstance(p, kind):
            raise MXNetError(
                f"{api}.{func}: distribution parameters must all have the same type, but got "
                f"both {type(first).__name__} and {type(p).__name__}."
            )
    if kind is numeric_types:
        return random, False
    if sampler is None:
        raise MXNetError(
            f"{api}.{func}: arguments {', '.join(map(repr, names))} must be numbers, got "
            f"{array_type.__name__}."
        )
    return sampler, True


def uniform(
    low: Any = 0,
    high: Any = 1,
    shape: Any = _Null,
    dtype: Any = _Null,
    ctx: Context | None = None,
    out: NDArray | None = None,
    **kwargs: Any,
) -> NDArray:
    """Draw random samples from a uniform distribution on the half-open interval *[low, high)*.

    Parameters
    ----------
    low : float or NDArray, optional
        Lower boundary of the output interval. The default value is 0.
    high : float or NDArray, optional
        Upper boundary of the output interval. The default value is 1.0.
    shape : int or tuple of ints, optional
        The number of samples to draw. With scalar `low` and `high` and shape `(m, n)` the
        output has shape `(m, n)`; with NDArrays of shape `(x, y)` it has shape
        `(x, y, m, n)`: `m*n` samples for each `[low, high)` pair.
    dtype : {'float16', 'float32', 'float64'}, optional
        Data type of output samples. Default is 'float32'.
    ctx : Context, optional
        Device context of output. Default is current context. Overridden by `low.context`
        when `low` is an NDArray.
    out : NDArray, optional
        Store output to an existing NDArray.

    Returns
    -------
    NDArray
        The samples.

    Examples
    --------
    >>> mx.nd.random.uniform(-1, 1, shape=(2,)).shape
    (2,)
    """
    return _random_helper("uniform", [low, high], shape, dtype, ctx, out, kwargs)


def normal(
    loc: Any = 0,
    scale: Any = 1,
    shape: Any = _Null,
    dtype: Any = _Null,
    ctx: Context | None = None,
    out: NDArray | None = None,
    **kwargs: Any,
) -> NDArray:
    """Draw random samples from a normal (Gaussian) distribution with mean *loc* and standard
    deviation *scale*.

    Parameters
    ----------
    loc : float or NDArray, optional
        Mean (centre) of the distribution.
    scale : float or NDArray, optional
        Standard deviation (spread or width) of the distribution.
    shape : int or tuple of ints, optional
        The number of samples to draw (per `(loc, scale)` pair when they are NDArrays; the
        output then has shape `loc.shape + shape`).
    dtype : {'float16', 'float32', 'float64'}, optional
        Data type of output samples. Default is 'float32'.
    ctx : Context, optional
        Device context of output. Default is current context. Overridden by `loc.context`
        when `loc` is an NDArray.
    out : NDArray, optional
        Store output to an existing NDArray.

    Returns
    -------
    NDArray
        The samples.
    """
    return _random_helper("normal", [loc, scale], shape, dtype, ctx, out, kwargs)


def randn(*shape: int, **kwargs: Any) -> NDArray:
    """Draw random samples from a normal (Gaussian) distribution; the positional arguments
    are the shape.

    Parameters
    ----------
    *shape : int
        The shape of the output (per `(loc, scale)` pair when they are NDArrays).
    loc : float or NDArray, optional
        Mean (centre) of the distribution; default 0.
    scale : float or NDArray, optional
        Standard deviation of the distribution; default 1.
    dtype : {'float16', 'float32', 'float64'}, optional
        Data type of output samples. Default is 'float32'.
    ctx : Context, optional
        Device context of output. Default is current context.
    out : NDArray, optional
        Store output to an existing NDArray.

    Returns
    -------
    NDArray
        The samples.

    Examples
    --------
    >>> mx.nd.random.randn(2, 3, loc=5, scale=1).shape
    (2, 3)
    """
    loc = kwargs.pop("loc", 0)
    scale = kwargs.pop("scale", 1)
    dtype = kwargs.pop("dtype", _Null)
    ctx = kwargs.pop("ctx", None)
    out = kwargs.pop("out", None)
    for name, value in (("loc", loc), ("scale", scale)):
        if not isinstance(value, (int, float, NDArray)):
            raise MXNetError(
                f"mx.nd.random.randn: argument {name!r} must be a number or an NDArray, "
                f"got {type(value).__name__}."
            )
    return _random_helper("randn", [loc, scale], shape, dtype, ctx, out, kwargs)


def poisson(
    lam: Any = 1,
    shape: Any = _Null,
    dtype: Any = _Null,
    ctx: Context | None = None,
    out: NDArray | None = None,
    **kwargs: Any,
) -> NDArray:
    """Draw random samples from a Poisson distribution with rate *lam*; the samples have a
    floating point data type.

    Parameters
    ----------
    lam : float or NDArray, optional
        Expectation of interval, should be >= 0.
    shape : int or tuple of ints, optional
        The number of samples to draw (per entry of `lam` when it is an NDArray; the output
        then has shape `lam.shape + shape`).
    dtype : {'float16', 'float32', 'float64'}, optional
        Data type of output samples. Default is 'float32'.
    ctx : Context, optional
        Device context of output. Default is current context. Overridden by `lam.context`
        when `lam` is an NDArray.
    out : NDArray, optional
        Store output to an existing NDArray.

    Returns
    -------
    NDArray
        The samples.
    """
    return _random_helper("poisson", [lam], shape, dtype, ctx, out, kwargs)


def exponential(
    scale: Any = 1,
    shape: Any = _Null,
    dtype: Any = _Null,
    ctx: Context | None = None,
    out: NDArray | None = None,
    **kwargs: Any,
) -> NDArray:
    r"""Draw samples from an exponential distribution with scale *scale* (rate 1/scale).

    Its probability density function is :math:`f(x) = \frac{1}{\beta} \exp(-x/\beta)` for
    x > 0 and 0 elsewhere, where :math:`\beta` is the scale.

    Parameters
    ----------
    scale : float or NDArray, optional
        The scale parameter, \beta = 1/\lambda.
    shape : int or tuple of ints, optional
        The number of samples to draw (per entry of `scale` when it is an NDArray; the output
        then has shape `scale.shape + shape`).
    dtype : {'float16', 'float32', 'float64'}, optional
        Data type of output samples. Default is 'float32'.
    ctx : Context, optional
        Device context of output. Default is current context. Overridden by `scale.context`
        when `scale` is an NDArray.
    out : NDArray, optional
        Store output to an existing NDArray.

    Returns
    -------
    NDArray
        The samples.
    """
    return _random_helper("exponential", [1.0 / scale], shape, dtype, ctx, out, kwargs)


def gamma(
    alpha: Any = 1,
    beta: Any = 1,
    shape: Any = _Null,
    dtype: Any = _Null,
    ctx: Context | None = None,
    out: NDArray | None = None,
    **kwargs: Any,
) -> NDArray:
    """Draw random samples from a gamma distribution with shape *alpha* and scale *beta*.

    Parameters
    ----------
    alpha : float or NDArray, optional
        The shape of the gamma distribution. Should be greater than zero.
    beta : float or NDArray, optional
        The scale of the gamma distribution. Should be greater than zero. Default is 1.
    shape : int or tuple of ints, optional
        The number of samples to draw (per `(alpha, beta)` pair when they are NDArrays; the
        output then has shape `alpha.shape + shape`).
    dtype : {'float16', 'float32', 'float64'}, optional
        Data type of output samples. Default is 'float32'.
    ctx : Context, optional
        Device context of output. Default is current context. Overridden by `alpha.context`
        when `alpha` is an NDArray.
    out : NDArray, optional
        Store output to an existing NDArray.

    Returns
    -------
    NDArray
        The samples.
    """
    return _random_helper("gamma", [alpha, beta], shape, dtype, ctx, out, kwargs)


def negative_binomial(
    k: Any = 1,
    p: Any = 1,
    shape: Any = _Null,
    dtype: Any = _Null,
    ctx: Context | None = None,
    out: NDArray | None = None,
    **kwargs: Any,
) -> NDArray:
    """Draw random samples from a negative binomial distribution with *k* (limit of
    unsuccessful experiments) and *p* (failure probability in each experiment); the samples
    have a floating point data type.

    Parameters
    ----------
    k : float or NDArray, optional
        Limit of unsuccessful experiments, > 0.
    p : float or NDArray, optional
        Failure probability in each experiment, >= 0 and <=1.
    shape : int or tuple of ints, optional
        The number of samples to draw (per `(k, p)` pair when they are NDArrays; the output
        then has shape `k.shape + shape`).
    dtype : {'float16', 'float32', 'float64'}, optional
        Data type of output samples. Default is 'float32'.
    ctx : Context, optional
        Device context of output. Default is current context. Overridden by `k.context`
        when `k` is an NDArray.
    out : NDArray, optional
        Store output to an existing NDArray.

    Returns
    -------
    NDArray
        The samples.
    """
    return _random_helper("negative_binomial", [k, p], shape, dtype, ctx, out, kwargs)


def generalized_negative_binomial(
    mu: Any = 1,
    alpha: Any = 1,
    shape: Any = _Null,
    dtype: Any = _Null,
    ctx: Context | None = None,
    out: NDArray | None = None,
    **kwargs: Any,
) -> NDArray:
    """Draw random samples from a generalized negative binomial distribution with mean *mu*
    and dispersion *alpha* (*1/k*, *k* the failure limit generalized to real numbers); the
    samples have a floating point data type.

    Parameters
    ----------
    mu : float or NDArray, optional
        Mean of the negative binomial distribution.
    alpha : float or NDArray, optional
        Alpha (dispersion) parameter of the negative binomial distribution.
    shape : int or tuple of ints, optional
        The number of samples to draw (per `(mu, alpha)` pair when they are NDArrays; the
        output then has shape `mu.shape + shape`).
    dtype : {'float16', 'float32', 'float64'}, optional
        Data type of output samples. Default is 'float32'.
    ctx : Context, optional
        Device context of output. Default is current context. Overridden by `mu.context`
        when `mu` is an NDArray.
    out : NDArray, optional
        Store output to an existing NDArray.

    Returns
    -------
    NDArray
        The samples.
    """
    return _random_helper(
        "generalized_negative_binomial", [mu, alpha], shape, dtype, ctx, out, kwargs
    )


def multinomial(
    data: NDArray,
    shape: Any = _Null,
    get_prob: bool = False,
    out: NDArray | None = None,
    dtype: Any = "int32",
    **kwargs: Any,
) -> Any:
    """Concurrent sampling from multiple multinomial distributions.

    `data` must sum to 1 along its last axis.

    Parameters
    ----------
    data : NDArray
        An *n* dimensional array whose last dimension has length `k`, the number of possible
        outcomes of each multinomial distribution: shape `(m, n, k)` holds `m*n`
        distributions.
    shape : int or tuple of ints, optional
        The number of samples to draw from each distribution (one when empty).
    get_prob : bool, optional
        If true, a second array holding the log likelihood of the drawn samples is also
        returned (its gradient serves score-function estimators, as in reinforcement
        learning).
    out : NDArray, optional
        Store output to an existing NDArray.
    dtype : str or numpy.dtype, optional
        Data type of the sample output array. The default is int32. The log likelihood array
        has the dtype of `data`.

    Returns
    -------
    NDArray or list of NDArray
        Samples of shape `data.shape[:-1] + shape` (`shape`, or `(1,)`, for 1-D `data`), and,
        with `get_prob`, their log likelihood.
    """
    if shape is not _Null:
        kwargs["shape"] = shape
    if not isinstance(dtype, str):
        dtype = np.dtype(dtype).name
    return _internal._sample_multinomial(data, get_prob=get_prob, out=out, dtype=dtype, **kwargs)


def shuffle(data: NDArray, **kwargs: Any) -> NDArray:
    """Shuffle the elements randomly along the first axis.

    The order of the elements in each subarray does not change: for a 2-D array the order
    of the rows changes, each row keeping its contents. `data` itself is not modified.

    Parameters
    ----------
    data : NDArray
        Input data array.
    out : NDArray, optional
        Array to store the result.

    Returns
    -------
    NDArray
        A new NDArray of the shape and type of `data`, its first axis shuffled.
    """
    return _internal._shuffle(data, **kwargs)


def randint(
    low: int,
    high: int,
    shape: Any = _Null,
    dtype: Any = _Null,
    ctx: Context | None = None,
    out: NDArray | None = None,
    **kwargs: Any,
) -> NDArray:
    """Draw random samples from a discrete uniform distribution on the half-open interval
    *[low, high)*.

    Parameters
    ----------
    low : int, required
        Lower boundary of the output interval.
    high : int, required
        Upper boundary of the output interval (excluded); must be greater than `low`.
    shape : int or tuple of ints, optional
        The shape of the output.
    dtype : {'int32', 'int64'}, optional
        Data type of output samples. Default is 'int32'.
    ctx : Context, optional
        Device context of output. Default is current context.
    out : NDArray, optional
        Store output to an existing NDArray.

    Returns
    -------
    NDArray
        Samples from `[low, high)`.

    Examples
    --------
    >>> mx.nd.random.randint(-10, 10, shape=(2,)).dtype
    <class 'numpy.int32'>
    """
    return _random_helper("randint", [low, high], shape, dtype, ctx, out, kwargs)
