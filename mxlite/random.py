"""Random number interface of mxlite (``mx.random``), as MXNet's ``mxnet.random``: ``seed`` and
the sampling functions of ``mx.nd.random``."""

from __future__ import annotations

from . import resource
from .base import ParamError, integer_types
from .context import Context
from .ndarray.random import exponential as exponential
from .ndarray.random import gamma as gamma
from .ndarray.random import generalized_negative_binomial as generalized_negative_binomial
from .ndarray.random import multinomial as multinomial
from .ndarray.random import negative_binomial as negative_binomial
from .ndarray.random import normal as normal
from .ndarray.random import poisson as poisson
from .ndarray.random import randint as randint
from .ndarray.random import randn as randn
from .ndarray.random import shuffle as shuffle
from .ndarray.random import uniform as uniform

__all__ = [
    "seed",
    "exponential",
    "gamma",
    "generalized_negative_binomial",
    "multinomial",
    "negative_binomial",
    "normal",
    "poisson",
    "randint",
    "randn",
    "shuffle",
    "uniform",
]


def seed(seed_state: int, ctx: Context | str = "all") -> None:
    """Seeds the random number generators in MXNet.

    This affects the behavior of modules in MXNet that uses random number generators,
    like the dropout operator and `NDArray`'s random sampling operators.

    Parameters
    ----------
    seed_state : int
        The random number seed.

    ctx : Context
        The device context of the generator. The default is "all" which means seeding random
        number generators of all devices.

    Notes
    -----
    Random number generators are device specific: ``mx.random.seed(seed_state)`` sets each
    device's generator from ``seed_state`` and the device id, so different devices draw
    different numbers even with the same seed.

    To draw the same sequence on every device of a kind (``gpu(0)`` and ``gpu(1)``, say), seed
    each one with the ``ctx`` argument. CPU and GPU generators use different algorithms, so
    their sequences differ anyway. The same seed gives the same numbers on every run.

    Examples
    --------
    >>> import mxlite as mx
    >>> mx.random.seed(128)
    >>> mx.random.seed(128, ctx=mx.cpu(0))
    """
    if not isinstance(seed_state, integer_types):
        raise ParamError(
            f"mx.random.seed: argument 'seed_state' must be an int, got {seed_state!r}."
        )
    if not (isinstance(ctx, Context) or (isinstance(ctx, str) and ctx == "all")):
        raise ParamError(f"mx.random.seed: argument 'ctx' must be 'all' or a Context, got {ctx!r}.")
    resource.seed(int(seed_state), ctx)
