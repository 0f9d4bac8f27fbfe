"""Statistical and linear-algebra helpers of ``mx.test_utils``.

Checks for random generators (mean, variance, chi-square) and generators of well-conditioned
test matrices, all on plain NumPy. SciPy is needed only by the chi-square checks and is imported
when they run, so ``import mxlite`` works without it.

Example::

    buckets, probs = gen_buckets_probs_with_ppf(lambda q: scipy.stats.norm.ppf(q), 5)
    p, observed, expected = chi_square_check(lambda n: np.random.normal(size=n), buckets, probs)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..base import ParamError, ShapeError, fill_doc

Generator = Callable[[int], Any]

# the parts of the checks' documentation that they share, written once
_doc = fill_doc(
    generator="""generator : function
    ``generator(N)`` returns N i.i.d. samples.""",
    sigma_nsamples="""sigma : float
    Expected standard deviation.
nsamples : int
    Number of samples to draw.

Returns
-------
bool""",
)


def gen_buckets_probs_with_ppf(
    ppf: Callable[[float], float], nbuckets: int
) -> tuple[list[tuple[float, float]], list[float]]:
    """Split a distribution into ``nbuckets`` equally likely buckets using its quantile function.

    Parameters
    ----------
    ppf : function
        The quantile function (inverse of the cdf), mapping a probability to a value.
    nbuckets : int
        Number of buckets.

    Returns
    -------
    buckets : list of tuple
        ``(low, high)`` of each bucket.
    probs : list
        The probability of each bucket (all ``1 / nbuckets``).
    """
    if nbuckets <= 0:
        raise ParamError(f"gen_buckets_probs_with_ppf: 'nbuckets' must be > 0, got {nbuckets}.")
    probs = [1.0 / nbuckets] * nbuckets
    buckets = [(ppf(i / nbuckets), ppf((i + 1) / nbuckets)) for i in range(nbuckets)]
    return buckets, probs


@_doc
def mean_check(generator: Generator, mu: float, sigma: float, nsamples: int = 1000000) -> bool:
    """Check that the sample mean lies within ``mu +- 3 * sigma / sqrt(nsamples)``.

    Parameters
    ----------
    {generator}
    mu : float
        Expected mean.
    {sigma_nsamples}
        Whether the mean test succeeds.
    """
    mean = np.asarray(_as_numpy(generator(nsamples))).mean()
    half_width = 3 * sigma / np.sqrt(nsamples)
    return bool(mu - half_width < mean < mu + half_width)


@_doc
def var_check(generator: Generator, sigma: float, nsamples: int = 1000000) -> bool:
    """Check that the sample variance lies within ``sigma^2 +- 3 * sqrt(2 sigma^4 / (n - 1))``.

    Parameters
    ----------
    {generator}
    {sigma_nsamples}
        Whether the variance test succeeds.
    """
    var = np.asarray(_as_numpy(generator(nsamples))).var(ddof=1)
    half_width = 3 * np.sqrt(2 * sigma**4 / (nsamples - 1))
    return bool(sigma**2 - half_width < var < sigma**2 + half_width)


@_doc
def chi_square_check(
    generator: Generator,
    buckets: list[Any],
    probs: Sequence[float],
    nsamples: int = 1000000,
) -> tuple[float, np.ndarray, np.ndarray]:
    """Run Pearson's chi-square test on samples of ``generator``.

    Parameters
    ----------
    {generator}
    buckets : list of tuple or list of number
        For a continuous distribution, ascending non-overlapping ``(low, high)`` ranges that
        cover its support; for a discrete one, every value it can take.
    probs : list or tuple
        The true probability of each bucket.
    nsamples : int
        Number of samples to draw.

    Returns
    -------
    p : float
        The p-value; a small value means the samples do not follow ``probs``.
    obs_freq : numpy.ndarray
        Observed count per bucket.
    expected_freq : numpy.ndarray
        Expected count per bucket.
    """
    try:
        import scipy.stats  # noqa: PLC0415  (optional: only these checks need it)
    except ImportError:
        raise ImportError(
            "chi_square_check: scipy is not available. Please check if the scipy python "
            "bindings are installed."
        ) from None
    if not isinstance(buckets, list) or not buckets:
        raise ParamError(
            f"chi_square_check: 'buckets' must be a non-empty list, got {type(buckets).__name__}."
        )
    if len(probs) != len(buckets):
        raise ParamError(
            f"chi_square_check: 'probs' has {len(probs)} entries; 'buckets' has {len(buckets)}."
        )
    samples = np.asarray(_as_numpy(generator(nsamples))).reshape(-1)
    expected_freq = (nsamples * np.array(probs, dtype=np.float32)).astype(np.int32)
    obs_freq = np.zeros(len(buckets), dtype=np.int64)
    if isinstance(buckets[0], (list, tuple)):
        edges = np.zeros(len(buckets) * 2, dtype=np.float32)
        for i, (low, high) in enumerate(buckets):
            if low > high or (i + 1 < len(buckets) and high > buckets[i + 1][0]):
                raise ParamError(
                    f"chi_square_check: bucket {i} {buckets[i]} is not ascending and disjoint "
                    "from the next."
                )
            edges[2 * i], edges[2 * i + 1] = low, high
        # A sample in bucket i lands between edges 2i and 2i+1, so it gets insertion index 2i+1.
        ids = np.searchsorted(edges, samples, side="right") // 2
        for i in range(len(buckets)):
            obs_freq[i] = np.count_nonzero(ids == i)
    else:
        for i, value in enumerate(buckets):
            obs_freq[i] = np.count_nonzero(samples == value)
    _, p = scipy.stats.chisquare(f_obs=obs_freq, f_exp=expected_freq)
    return p, obs_freq, expected_freq


@_doc
def verify_generator(
    generator: Generator,
    buckets: list[Any],
    probs: Sequence[float],
    nsamples: int = 1000000,
    nrepeat: int = 5,
    success_rate: float = 0.2,
    alpha: float = 0.05,
) -> list[float]:
    """Repeat :func:`chi_square_check` and require enough p-values above ``alpha``.

    Parameters
    ----------
    {generator}
    buckets : list of tuple or list of number
        As for :func:`chi_square_check`.
    probs : list or tuple
        The true probability of each bucket.
    nsamples : int
        Samples per repetition.
    nrepeat : int
        Number of repetitions.
    success_rate : float
        Fraction of repetitions that must pass.
    alpha : float
        A repetition passes when its p-value is above ``alpha``.

    Returns
    -------
    list of float
        The p-values of the repetitions.
    """
    p_values, observed, expected = [], [], []
    for _ in range(nrepeat):
        p, obs, exp = chi_square_check(generator, buckets, probs, nsamples=nsamples)
        p_values.append(p)
        observed.append(obs)
        expected.append(exp)
    if (np.array(p_values) > alpha).sum() < nrepeat * success_rate:
        raise AssertionError(
            f"Generator test fails, Chi-square p={p_values}, obs_freq={observed}, "
            f"expected_freq={expected}.\nbuckets={buckets}, probs={probs}"
        )
    return p_values


def collapse_sum_like(a: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """Sum ``a`` over the axes that ``shape`` broadcasts, giving an array of ``shape``.

    Parameters
    ----------
    a : numpy.ndarray
        The broadcast result.
    shape : tuple of int
        A shape that broadcasts to ``a.shape``.

    Returns
    -------
    numpy.ndarray
        ``a`` summed down to ``shape``.
    """
    a = np.asarray(_as_numpy(a))
    shape = tuple(shape)
    lead = a.ndim - len(shape)
    bad = lead < 0 or any(s not in (1, d) for s, d in zip(shape, a.shape[max(lead, 0) :]))
    if bad:
        raise ShapeError(f"collapse_sum_like: shape {shape} does not broadcast to {a.shape}.")
    if np.prod(shape) == 0 or a.size == 0:
        return np.zeros(shape, dtype=a.dtype)
    axes = list(range(lead)) + [lead + i for i, s in enumerate(shape) if s != a.shape[lead + i]]
    return np.sum(a, axis=tuple(axes)).reshape(shape)


def new_matrix_with_real_eigvals_2d(n: int) -> np.ndarray:
    """Return a well-conditioned n x n matrix with real eigenvalues in [-10, 10]."""
    while True:
        # A Householder reflection times a diagonal: condition number = max|d| / min|d|.
        v = np.random.uniform(-1.0, 1.0, (n, 1))
        v /= np.linalg.norm(v, axis=0, keepdims=True)
        q = (np.eye(n) - 2 * v @ v.T) @ np.diag(np.random.uniform(-1.0, 1.0, n))
        if np.linalg.cond(q, 2) < 3:
            break
    d = np.diag(np.random.uniform(-10.0, 10.0, n))
    return np.linalg.inv(q) @ d @ q


def new_matrix_with_real_eigvals_nd(shape: Sequence[int]) -> np.ndarray:
    """Return a batch of :func:`new_matrix_with_real_eigvals_2d` matrices of ``shape``."""
    count = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    mats = [new_matrix_with_real_eigvals_2d(shape[-1]) for _ in range(count)]
    return np.array(mats).reshape(shape)


def new_orthonormal_matrix_2d(n: int) -> np.ndarray:
    """Return a random n x n orthonormal matrix."""
    x = np.random.randn(n, n)
    return np.linalg.qr(x.T @ x)[0]


def new_sym_matrix_with_real_eigvals_2d(n: int) -> np.ndarray:
    """Return a random symmetric n x n matrix with eigenvalues in [-10, 10]."""
    q = new_orthonormal_matrix_2d(n)
    return q.T @ np.diag(np.random.uniform(-10.0, 10.0, n)) @ q


def new_sym_matrix_with_real_eigvals_nd(shape: Sequence[int]) -> np.ndarray:
    """Return a batch of :func:`new_sym_matrix_with_real_eigvals_2d` matrices of ``shape``."""
    count = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    mats = [new_sym_matrix_with_real_eigvals_2d(shape[-1]) for _ in range(count)]
    return np.array(mats).reshape(shape)


def _as_numpy(x: Any) -> Any:
    return x.asnumpy() if hasattr(x, "asnumpy") else x
