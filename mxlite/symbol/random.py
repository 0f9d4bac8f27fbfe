"""``mx.sym.random``: random sampling with numbers or Symbols as distribution parameters.

The sampling functions are generated from ``mx.nd.random``'s description and dispatch as
its own: numbers go to ``_random_X`` (one distribution, ``shape`` samples), Symbols to
``_sample_X`` (one distribution per element; output shape ``params.shape + shape``).
Unlike ``mx.nd.random`` a missing ``shape`` is left to the operator, and ``multinomial``
returns the log likelihood by default, as in MXNet 1.9.1. The ``*_like`` functions come
from the registry when ``mxlite.symbol`` fills this module in.
"""

from __future__ import annotations

from typing import Any

from ..ndarray.random import (
    RANDN,
    Distribution,
    SamplerKind,
    _Null,
    make_samplers,
    pick_operator,
    randn_args,
)
from ..ndarray.random import __all__ as _NDARRAY_RANDOM
from . import _internal
from .symbol import Symbol

__all__ = list(_NDARRAY_RANDOM)  # the same functions as mx.nd.random


def _sym_call(
    dist: Distribution, params: list[Any], shape: Any, dtype: Any, kwargs: dict[str, Any]
) -> Symbol:
    name, is_array = pick_operator("mx.sym.random", dist, params, Symbol)
    if shape is not _Null:
        kwargs["shape"] = shape
    if dtype is not _Null:
        kwargs["dtype"] = dtype
    op = getattr(_internal, name)
    if is_array:
        return op(*params, **kwargs)
    return op(**dict(zip(dist.op_args, params)), **kwargs)


_SYM = SamplerKind(
    api="mx.sym.random",
    array_type=Symbol,
    extra_args=(),
    extra_types={},
    call=_sym_call,
    examples=False,
)

(uniform, normal, poisson, exponential, gamma, negative_binomial,
 generalized_negative_binomial, randint) = make_samplers(_SYM, __name__)  # fmt: skip


def randn(*shape: int, **kwargs: Any) -> Symbol:
    """Samples from a normal distribution; the positional arguments are the shape
    (``loc``, ``scale`` and ``dtype`` go by keyword)."""
    loc, scale, dtype = randn_args("mx.sym.random", kwargs, Symbol)
    return _sym_call(RANDN, [loc, scale], shape, dtype, kwargs)


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
