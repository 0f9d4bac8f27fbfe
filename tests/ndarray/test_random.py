"""mx.nd.random and mx.sym.random: both generated from one description of the distributions."""

from __future__ import annotations

import inspect

import pytest

import mxlite as mx
from mxlite.ndarray.random import DISTRIBUTIONS


@pytest.mark.parametrize("func", sorted(DISTRIBUTIONS))
def test_signatures_are_mxnets(func: str) -> None:
    nd = list(inspect.signature(getattr(mx.nd.random, func)).parameters)
    sym = list(inspect.signature(getattr(mx.sym.random, func)).parameters)
    assert nd[-5:] == ["shape", "dtype", "ctx", "out", "kwargs"]
    assert sym[-3:] == ["shape", "dtype", "kwargs"]
    assert nd[:-5] == sym[:-3]
    assert getattr(mx.nd.random, func).__name__ == getattr(mx.sym.random, func).__name__ == func
    assert "NDArray" in getattr(mx.nd.random, func).__doc__
    assert "Symbol" in getattr(mx.sym.random, func).__doc__


def test_positional_and_keyword_arguments_bind_as_a_def_would() -> None:
    assert mx.nd.random.uniform(0, 1, (2, 3)).shape == (2, 3)
    assert mx.nd.random.normal(loc=1, scale=1e-9, shape=(2,)).asnumpy().round(3).tolist() == [1, 1]
    assert mx.nd.random.randint(5, 6, shape=3).asnumpy().tolist() == [5, 5, 5]
    out = mx.nd.zeros((4,), dtype="float64")
    mx.nd.random.uniform(2, 2, (4,), "float64", mx.cpu(), out)
    assert out.asnumpy().tolist() == [2.0] * 4
    sym = mx.sym.random.gamma(mx.sym.var("a"), mx.sym.var("b"), shape=(2,))
    assert sym.list_arguments() == ["a", "b"]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: mx.nd.random.randint(1), "randint: missing required argument 'high'"),
        (lambda: mx.nd.random.uniform(0, low=1), "uniform: got multiple values for argument"),
        (lambda: mx.sym.random.poisson(1, 2, 3, 4), "poisson: takes 3 positional arguments"),
    ],
)
def test_bad_calls_name_the_function(call, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        call()


def test_errors_name_the_front_end() -> None:
    with pytest.raises(mx.MXNetError, match="mx.sym.random.randn: argument 'loc'.*a Symbol"):
        mx.sym.random.randn(2, loc="x")
    with pytest.raises(mx.MXNetError, match="mx.nd.random.randn: argument 'loc'.*an NDArray"):
        mx.nd.random.randn(2, loc="x")
    with pytest.raises(mx.MXNetError, match="mx.nd.random.uniform: .*same type"):
        mx.nd.random.uniform(0, mx.nd.ones((1,)))
