"""``mx.np.random``: MXNet 1.9.1's 20 samplers (and ``seed``), with NumPy's ``size`` (None: one
zero-dim sample, or the broadcast shape of array parameters) and MXNet's defaults (float32,
the current context).

Each runs its ``_npi_*`` sampling operator (mxlite/operator/numpy/random.py): a number is a
scalar parameter of the operator, an array an input it broadcasts (and, for normal,
exponential, weibull, pareto, rayleigh, gumbel and logistic, differentiates through).
``lognormal``, ``beta``, ``chisquare`` and ``multivariate_normal`` are composed of those, as in
MXNet. ``seed`` is ``mx.random.seed``.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from .. import random as _mx_random
from ..base import MXNetError
from ..context import Context, current_context
from ..ndarray import NDArray
from ..symbol import Symbol
from ..symbol.numpy import np_symbol_call
from .creation import array
from .multiarray import call, ndarray

__all__ = [
    "randint", "uniform", "normal", "choice", "rand", "multinomial", "multivariate_normal",
    "logistic", "gumbel", "shuffle", "randn", "gamma", "beta", "chisquare", "exponential",
    "lognormal", "weibull", "pareto", "power", "rayleigh", "seed",
]  # fmt: skip


def seed(seed: int, ctx: Any = "all") -> None:  # noqa: A001  (NumPy's name)
    """Seed the random number generators (of every context by default)."""
    _mx_random.seed(seed, ctx)


def _size(size: Any) -> tuple[int, ...] | None:
    if size is None:
        return None
    return (int(size),) if isinstance(size, (int, np.integer)) else tuple(int(d) for d in size)


def _into(res: ndarray, out: Any) -> ndarray:
    if out is None:
        return res
    out[...] = res
    return out


def _dtype(dtype: Any) -> str:
    return "float32" if dtype is None else np.dtype(dtype).name


class Sampler:
    """The samplers, composed with ``call``: ``mx.np.random`` runs them on arrays
    (:func:`.multiarray.call`), ``mx.sym.np.random`` composes the same operators into symbols."""

    def __init__(self, call: Any) -> None:
        self._call = call

    def _draw(self, op: str, params: dict[str, Any], size: Any, ctx: Context | None,
              out: Any = None, **extra: Any) -> ndarray:  # fmt: skip
        """Run sampler ``op``: array parameters become its inputs (in order), numbers its scalar
        parameters."""
        inputs, scalars = [], {}
        for name, value in params.items():
            if isinstance(value, (list, tuple, np.ndarray)):
                value = array(value, ctx=ctx)
            if isinstance(value, (NDArray, Symbol)):
                inputs.append(value)
            else:
                scalars[name] = float(value)
        run_ctx = None if inputs else (ctx or current_context())
        res = self._call(op, *inputs, ctx=run_ctx, size=_size(size), **scalars, **extra)
        return _into(res, out)

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None, dtype: Any = None,
                ctx: Context | None = None, out: Any = None) -> ndarray:  # fmt: skip
        """Samples from the uniform distribution on [low, high) (float32 by default)."""
        return self._draw(
            "_npi_uniform", {"low": low, "high": high}, size, ctx, out, dtype=_dtype(dtype)
        )

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None, dtype: Any = None,
               ctx: Context | None = None, out: Any = None) -> ndarray:  # fmt: skip
        """Samples from the normal distribution N(loc, scale**2) (float32 by default)."""
        return self._draw(
            "_npi_normal", {"loc": loc, "scale": scale}, size, ctx, out, dtype=_dtype(dtype)
        )

    def lognormal(self, mean: Any = 0.0, sigma: Any = 1.0, size: Any = None, dtype: Any = None,
                  ctx: Context | None = None, out: Any = None) -> ndarray:  # fmt: skip
        """Samples of exp(N(mean, sigma**2))."""
        return _into(self._call("_npi_exp", self.normal(mean, sigma, size, dtype, ctx)), out)

    def logistic(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
                 ctx: Context | None = None, out: Any = None) -> ndarray:  # fmt: skip
        """Samples from the logistic distribution."""
        return self._draw("_npi_logistic", {"loc": loc, "scale": scale}, size, ctx, out)

    def gumbel(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None, ctx: Context | None = None,
               out: Any = None) -> ndarray:  # fmt: skip
        """Samples from the Gumbel distribution."""
        return self._draw("_npi_gumbel", {"loc": loc, "scale": scale}, size, ctx, out)

    def rayleigh(self, scale: Any = 1.0, size: Any = None, ctx: Context | None = None,
                 out: Any = None) -> ndarray:  # fmt: skip
        """Samples from the Rayleigh distribution."""
        return self._draw("_npi_rayleigh", {"scale": scale}, size, ctx, out)

    def exponential(self, scale: Any = 1.0, size: Any = None, ctx: Context | None = None,
                    out: Any = None) -> ndarray:  # fmt: skip
        """Samples from the exponential distribution with mean ``scale``."""
        return self._draw("_npi_exponential", {"scale": scale}, size, ctx, out)

    def weibull(
        self, a: Any, size: Any = None, ctx: Context | None = None, out: Any = None
    ) -> ndarray:
        """Samples from the Weibull distribution with shape ``a``."""
        return self._draw("_npi_weibull", {"a": a}, size, ctx, out)

    def pareto(
        self, a: Any, size: Any = None, ctx: Context | None = None, out: Any = None
    ) -> ndarray:
        """Samples from the Pareto II (Lomax) distribution with shape ``a``."""
        return self._draw("_npi_pareto", {"a": a}, size, ctx, out)

    def power(self, a: Any, size: Any = None) -> ndarray:
        """Samples in [0, 1] from the power distribution with exponent ``a - 1``."""
        return self._draw("_npi_powerd", {"a": a}, size, None)

    def gamma(self, shape: Any, scale: Any = 1.0, size: Any = None, dtype: Any = None,
              ctx: Context | None = None, out: Any = None) -> ndarray:  # fmt: skip
        """Samples from the gamma distribution with ``shape`` and ``scale``."""
        params = {"shape": shape, "scale": scale}
        return self._draw("_npi_gamma", params, size, ctx, out, dtype=_dtype(dtype))

    def beta(self, a: Any, b: Any, size: Any = None, dtype: Any = None,
             ctx: Context | None = None) -> ndarray:  # fmt: skip
        """Samples from the beta distribution: X / (X + Y) of two gamma draws."""
        x = self.gamma(a, 1.0, size, "float64", ctx)
        y = self.gamma(b, 1.0, size, "float64", ctx)
        return (x / (x + y)).astype(_dtype(dtype))

    def chisquare(self, df: Any, size: Any = None, dtype: Any = None,
                  ctx: Context | None = None) -> ndarray:  # fmt: skip
        """Samples from the chi-square distribution with ``df`` degrees of freedom."""
        if isinstance(df, (NDArray, Symbol)):
            return self.gamma(df / 2, 2.0, size, dtype, ctx)
        return self.gamma(float(df) / 2, 2.0, size, dtype, ctx)

    def randint(self, low: int, high: int | None = None, size: Any = None, dtype: Any = None,
                ctx: Context | None = None, out: Any = None) -> ndarray:  # fmt: skip
        """Random integers in [low, high) (int64 by default); ``randint(n)`` draws from [0, n)."""
        if high is None:
            low, high = 0, low
        if high <= low:
            raise MXNetError(f"randint: argument 'high' ({high}) must be > 'low' ({low}).")
        shape = _size(size) or ()
        ctx = ctx or current_context()
        dt = np.dtype(dtype or np.int64).name
        if not shape or 0 in shape:  # the legacy sampler makes no zero-dim or zero-size arrays
            res = self._call("_npi_random_randint", ctx=ctx, shape=(1,), dtype=dt, low=int(low),
                       high=int(high))  # fmt: skip
            res = (
                res.reshape(())
                if not shape
                else self._call("_npi_zeros", ctx=ctx, shape=shape, dtype=dt)
            )
        else:
            res = self._call("_npi_random_randint", ctx=ctx, shape=shape, dtype=dt, low=int(low),
                       high=int(high))  # fmt: skip
        return _into(res, out)

    def rand(self, *size: int, **kwargs: Any) -> ndarray:
        """Uniform samples on [0, 1) of shape ``size``."""
        return self.uniform(size=size, **kwargs)

    def randn(self, *size: int, **kwargs: Any) -> ndarray:
        """Standard normal samples of shape ``size``."""
        return self.normal(size=size, **kwargs)

    def choice(self, a: Any, size: Any = None, replace: bool = True, p: Any = None,
               ctx: Context | None = None, out: Any = None) -> ndarray:  # fmt: skip
        """Samples from ``a`` (an int n: from arange(n); else a 1-D array), with or without
        replacement, with probabilities ``p``."""
        ctx = ctx or current_context()
        tensors = (NDArray, Symbol)
        if not isinstance(a, (int, np.integer, *tensors)):
            a = array(a, ctx=ctx)
        weights = []
        if p is not None:
            weights = [p if isinstance(p, tensors) else array(p, ctx=ctx)]
        params = {"size": _size(size), "replace": bool(replace), "weighted": p is not None}
        if isinstance(a, (int, np.integer)):
            run_ctx = None if weights else ctx
            return _into(self._call("_npi_choice", *weights, ctx=run_ctx, a=int(a), **params), out)
        # an array: indices drawn from its size, then taken from it (as MXNet composes it)
        idx = self._call("_npi_choice", a, *weights, **params)
        return _into(self._call("_npi_take", a, idx, axis=0, mode="clip"), out)

    def multinomial(self, n: int, pvals: Any, size: Any = None, **kwargs: Any) -> ndarray:
        """Counts of ``n`` experiments over ``len(pvals)`` outcomes, ``size`` times (int64)."""
        if kwargs:
            raise MXNetError(f"multinomial: unsupported arguments {sorted(kwargs)}.")
        if isinstance(pvals, NDArray):
            return self._call("_npi_multinomial", pvals, n=int(n), size=_size(size))
        probs = tuple(float(v) for v in np.asarray(pvals, dtype=np.float64).ravel())
        if sum(probs[:-1]) > 1.0 + 1e-12:
            raise ValueError("multinomial: sum(pvals[:-1]) > 1.0")
        return self._call("_npi_multinomial", ctx=current_context(), n=int(n), pvals=probs,
                    size=_size(size))  # fmt: skip

    def uniform_n(self, low: Any = 0.0, high: Any = 1.0, batch_shape: Any = None,
                  dtype: Any = None, ctx: Context | None = None) -> ndarray:  # fmt: skip
        """``npx.random.uniform_n``: ``batch_shape`` prepended to the parameters' shape."""
        params = {"low": low, "high": high}
        return self._draw("_npi_uniform_n", params, batch_shape, ctx, dtype=_dtype(dtype))

    def normal_n(self, loc: Any = 0.0, scale: Any = 1.0, batch_shape: Any = None,
                 dtype: Any = None, ctx: Context | None = None) -> ndarray:  # fmt: skip
        """``npx.random.normal_n``: ``batch_shape`` prepended to the parameters' shape."""
        params = {"loc": loc, "scale": scale}
        return self._draw("_npi_normal_n", params, batch_shape, ctx, dtype=_dtype(dtype))

    def bernoulli(self, prob: Any = None, logit: Any = None, size: Any = None, dtype: Any = None,
                  ctx: Context | None = None, out: Any = None) -> ndarray:  # fmt: skip
        """``npx.random.bernoulli``: 1 with probability ``prob`` (or sigmoid(``logit``)); exactly
        one of them is given."""
        if (prob is None) == (logit is None):
            raise ValueError("bernoulli: exactly one of 'prob' and 'logit' must be given.")
        params = {"prob": prob} if logit is None else {"logit": logit}
        is_logit = logit is not None
        return self._draw("_npi_bernoulli", params, size, ctx, out, dtype=_dtype(dtype),
                          is_logit=is_logit)  # fmt: skip

    def multivariate_normal(self, mean: Any, cov: Any, size: Any = None, check_valid: Any = None,
                            tol: Any = None) -> ndarray:  # fmt: skip
        """Samples of N(mean, cov): ``mean + L z`` with ``L`` the Cholesky factor of ``cov``;
        shape ``size + broadcast(mean.shape, cov.shape[:-1])``. MXNet's custom operator
        ``mvn_fallback`` (mxlite/numpy_op_fallback.py) draws them."""
        if check_valid is not None or tol is not None:
            raise NotImplementedError("multivariate_normal: 'check_valid' and 'tol' are not "
                                      "supported.")  # fmt: skip
        tensors = (NDArray, Symbol)
        mean = mean if isinstance(mean, tensors) else array(mean)
        cov = cov if isinstance(cov, tensors) else array(cov)
        return self._call("Custom", mean, cov, op_type="mvn_fallback", size=_size(size))


def shuffle(x: ndarray) -> None:
    """Shuffle ``x`` along its first axis, in place."""
    call("_npi_shuffle", x, out=x)


def _compose(op: str, *inputs: Any, ctx: Any = None, out: Any = None, **params: Any) -> Any:
    return np_symbol_call(op, *inputs, **params)


_ARRAYS = Sampler(call)
randint = _ARRAYS.randint
uniform = _ARRAYS.uniform
normal = _ARRAYS.normal
choice = _ARRAYS.choice
rand = _ARRAYS.rand
multinomial = _ARRAYS.multinomial
multivariate_normal = _ARRAYS.multivariate_normal
logistic = _ARRAYS.logistic
gumbel = _ARRAYS.gumbel
randn = _ARRAYS.randn
gamma = _ARRAYS.gamma
beta = _ARRAYS.beta
chisquare = _ARRAYS.chisquare
exponential = _ARRAYS.exponential
lognormal = _ARRAYS.lognormal
weibull = _ARRAYS.weibull
pareto = _ARRAYS.pareto
power = _ARRAYS.power
rayleigh = _ARRAYS.rayleigh

# mx.sym.np.random: the same samplers composing symbols
symbolic = types.ModuleType("mxlite.symbol.numpy.random", "mx.sym.np.random: " + (__doc__ or ""))
_SYMBOLS = Sampler(_compose)
for _name in __all__:
    setattr(symbolic, _name, getattr(_SYMBOLS, _name, None) or globals()[_name])
del _name
