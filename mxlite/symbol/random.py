"""``mx.sym.random``: random sampling with numbers or Symbols as distribution parameters.

The dispatch is ``mx.nd.random``'s (one helper serves both): numbers go to ``_random_X`` (one
distribution, ``shape`` samples), Symbols to ``_sample_X`` (one distribution per element;
output shape ``params.shape + shape``). Unlike ``mx.nd.random`` a missing ``shape`` is left
to the operator, and ``multinomial`` returns the log likelihood by default, as in MXNet
1.9.1. The ``*_like`` functions come from the registry when ``mxlite.symbol`` fills this
module in.
"""

from __future__ import annotations

from typing import Any

from ..base import MXNetError
from ..ndarray.random import _OPERATORS, _Null, pick_operator
from . import _internal
from .symbol import Symbol

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


def _helper(func: str, params: list[Any], shape: Any, dtype: Any, kwargs: dict) -> Symbol:
    name, is_array = pick_operator("mx.sym.random", func, params, Symbol)
    if shape is not _Null:
        kwargs["shape"] = shape
    if dtype is not _Null:
        kwargs["dtype"] = dtype
    op = getattr(_internal, name)
    if is_array:
        return op(*params, **kwargs)
    return op(**dict(zip(_OPERATORS[func][2], params)), **kwargs)


def uniform(low: Any = 0, high: Any = 1, shape: Any = _Null, dtype: Any = _Null,
            **kwargs: Any) -> Symbol:  # fmt: skip
    """Samples from a uniform distribution on *[low, high)*.

    Parameters
    ----------
    low, high : float or Symbol, optional
        Boundaries of the interval; default 0 and 1.
    shape : int or tuple of ints, optional
        Samples per distribution (output shape ``low.shape + shape`` for Symbols).
    dtype : {'float16', 'float32', 'float64'}, optional
        Data type of the samples; default 'float32'.

    Returns
    -------
    Symbol
    """
    return _helper("uniform", [low, high], shape, dtype, kwargs)


def normal(loc: Any = 0, scale: Any = 1, shape: Any = _Null, dtype: Any = _Null,
           **kwargs: Any) -> Symbol:  # fmt: skip
    """Samples from a normal distribution with mean *loc* and standard deviation *scale*.

    Parameters are as for :func:`uniform`.
    """
    return _helper("normal", [loc, scale], shape, dtype, kwargs)


def randn(*shape: int, **kwargs: Any) -> Symbol:
    """Samples from a normal distribution; the positional arguments are the shape
    (``loc``, ``scale`` and ``dtype`` go by keyword)."""
    loc = kwargs.pop("loc", 0)
    scale = kwargs.pop("scale", 1)
    dtype = kwargs.pop("dtype", _Null)
    for name, value in (("loc", loc), ("scale", scale)):
        if not isinstance(value, (int, float, Symbol)):
            raise MXNetError(
                f"mx.sym.random.randn: argument {name!r} must be a number or a Symbol, "
                f"got {type(value).__name__}."
            )
    return _helper("randn", [loc, scale], shape, dtype, kwargs)


def poisson(lam: Any = 1, shape: Any = _Null, dtype: Any = _Null, **kwargs: Any) -> Symbol:
    """Samples from a Poisson distribution with rate *lam*."""
    return _helper("poisson", [lam], shape, dtype, kwargs)


def exponential(scale: Any = 1, shape: Any = _Null, dtype: Any = _Null,
                **kwargs: Any) -> Symbol:  # fmt: skip
    """Samples from an exponential distribution with scale *scale* (rate ``1/scale``)."""
    return _helper("exponential", [1.0 / scale], shape, dtype, kwargs)


def gamma(alpha: Any = 1, beta: Any = 1, shape: Any = _Null, dtype: Any = _Null,
          **kwargs: Any) -> Symbol:  # fmt: skip
    """Samples from a gamma distribution with shape *alpha* and scale *beta*."""
    return _helper("gamma", [alpha, beta], shape, dtype, kwargs)


def negative_binomial(k: Any = 1, p: Any = 1, shape: Any = _Null, dtype: Any = _Null,
                      **kwargs: Any) -> Symbol:  # fmt: skip
    """Samples from a negative binomial distribution (*k* failures, failure probability
    *p*)."""
    return _helper("negative_binomial", [k, p], shape, dtype, kwargs)


def generalized_negative_binomial(mu: Any = 1, alpha: Any = 1, shape: Any = _Null,
                                  dtype: Any = _Null, **kwargs: Any) -> Symbol:  # fmt: skip
    """Samples from a generalized negative binomial distribution (mean *mu*, dispersion
    *alpha*)."""
    return _helper("generalized_negative_binomial", [mu, alpha], shape, dtype, kwargs)


def randint(low: int, high: int, shape: Any = _Null, dtype: Any = _Null,
            **kwargs: Any) -> Symbol:  # fmt: skip
    """Samples from a discrete uniform distribution on *[low, high)*; numbers only."""
    return _helper("randint", [low, high], shape, dtype, kwargs)


def multinomial(data: Symbol, shape: Any = _Null, get_prob: bool = True, dtype: Any = "int32",
                **kwargs: Any) -> Symbol:  # fmt: skip
    """Samples from the multinomial distributions along the last axis of `data`.

    Parameters
    ----------
    data : Symbol
        Probabilities, summing to 1 along the last axis.
    shape : int or tuple of ints, optional
        Samples per distribution.
    get_prob : bool, optional
        Also output the log likelihood of the samples; default True.
    dtype : str, optional
        Data type of the samples; default 'int32'.
    """
    if shape is not _Null:
        kwargs["shape"] = shape
    return _internal._sample_multinomial(data, get_prob=get_prob, dtype=dtype, **kwargs)


def shuffle(data: Symbol, **kwargs: Any) -> Symbol:
    """Shuffles the elements of `data` along its first axis."""
    return _internal._shuffle(data, **kwargs)
