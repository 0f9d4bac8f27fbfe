"""Special functions for the unary operators: erf, erfc, erfinv, gamma, gammaln, digamma.

Design note
-----------
NumPy is the only hard dependency. When SciPy imports (``cupyx.scipy.special`` for CuPy
arrays), its functions are used; otherwise vectorised fallbacks written with ``xp`` alone
compute in float64 to about 1e-13 relative error (near the zeros of ``gammaln`` the error is
absolute):

- erf: a series with only positive terms, ``erf(x) = 2/sqrt(pi) exp(-x^2) sum (2x^2)^n x /
  (2n+1)!!``, for ``|x| < 3``; a continued fraction for erfc beyond (no cancellation in either).
- erfinv: Winitzki's closed-form guess refined by Newton steps on erf (on erfc near +-1).
- gamma, gammaln: the Lanczos approximation (g=7, 9 terms) with the reflection formula.
- digamma: the recurrence up to x >= 10, then the asymptotic series; reflection below 1/2.

Edge values follow C's ``tgamma``/``lgamma`` as MXNet does: gamma is nan at negative integers
and +-inf at +-0; gammaln is +inf at non-positive integers.

``_SCIPY`` holds the SciPy module or None; tests set it to None to exercise the fallbacks.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["erf", "erfc", "erfinv", "gamma", "gammaln", "digamma"]

try:
    import scipy.special as _scipy_special
except ImportError:  # pragma: no cover - exercised by monkeypatching _SCIPY
    _scipy_special = None

_SCIPY: Any = _scipy_special

_SQRT_PI = math.sqrt(math.pi)
_TWO_OVER_SQRT_PI = 2.0 / _SQRT_PI
_ERF_SPLIT = 3.0
_ERF_TERMS = 64
_ERFC_DEPTH = 60
_LANCZOS_G = 7.0
_LANCZOS = (
    0.99999999999980993,
    676.5203681218851,
    -1259.1392167224028,
    771.32342877765313,
    -176.61502916214059,
    12.507343278686905,
    -0.13857109526572012,
    9.9843695780195716e-6,
    1.5056327351493116e-7,
)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_FACTORIALS = np.array([float(math.factorial(n)) for n in range(171)])  # Gamma(n + 1)


def _backend(xp: Any) -> Any:
    """The SciPy-like module for ``xp``, or None to use the fallbacks."""
    if xp is np:
        return _SCIPY
    if _SCIPY is None:
        return None
    try:
        import cupyx.scipy.special as cs  # noqa: PLC0415  (only on GPU)
    except ImportError:
        return None
    return cs


def _f64(xp: Any, x: Any) -> Any:
    return xp.asarray(x, dtype=np.float64)


# ---- erf / erfc ---------------------------------------------------------------------------


def _erf_series(xp: Any, ax: Any) -> Any:
    """erf for 0 <= ax < ~3 (other entries must be finite; their result is unused)."""
    x2 = 2.0 * ax * ax
    term = ax.copy()
    total = ax.copy()
    for n in range(1, _ERF_TERMS):
        term = term * x2 / (2 * n + 1)
        total += term
    return _TWO_OVER_SQRT_PI * xp.exp(-ax * ax) * total


def _erfc_cf(xp: Any, ax: Any) -> Any:
    """erfc for ax >= ~3 by its continued fraction, evaluated from the tail."""
    f = ax.copy()
    for k in range(_ERFC_DEPTH, 0, -1):
        f = ax + (0.5 * k) / f
    return xp.exp(-ax * ax) / (_SQRT_PI * f)


def _erfc_pos(xp: Any, ax: Any) -> Any:
    small = ax < _ERF_SPLIT
    lo = 1.0 - _erf_series(xp, xp.where(small, ax, 0.0))
    hi = _erfc_cf(xp, xp.where(small, _ERF_SPLIT, ax))
    return xp.where(small, lo, hi)


def _erf_fallback(xp: Any, x: Any) -> Any:
    x = _f64(xp, x)
    ax = xp.abs(x)
    small = ax < _ERF_SPLIT
    with np.errstate(over="ignore", invalid="ignore"):
        lo = _erf_series(xp, xp.where(small, ax, 0.0))
        hi = 1.0 - _erfc_cf(xp, xp.where(small | xp.isnan(ax), _ERF_SPLIT, ax))
    out = xp.copysign(xp.where(small, lo, hi), x)
    return xp.where(xp.isnan(x), x, out)


def erf(xp: Any, x: Any) -> Any:
    """The error function, element-wise, in float64 (the caller casts back)."""
    sp = _backend(xp)
    return sp.erf(_f64(xp, x)) if sp is not None else _erf_fallback(xp, x)


def erfc(xp: Any, x: Any) -> Any:
    """The complementary error function 1 - erf(x), element-wise, in float64."""
    sp = _backend(xp)
    if sp is not None:
        return sp.erfc(_f64(xp, x))
    x = _f64(xp, x)
    with np.errstate(over="ignore", invalid="ignore"):
        pos = _erfc_pos(xp, xp.where(xp.isnan(x), 0.0, xp.abs(x)))
    out = xp.where(x < 0, 2.0 - pos, pos)
    return xp.where(xp.isnan(x), x, out)


# ---- erfinv -------------------------------------------------------------------------------


def _erfinv_fallback(xp: Any, y: Any) -> Any:
    y = _f64(xp, y)
    ay = xp.abs(y)
    inside = ay < 1.0
    a = xp.where(inside, ay, 0.5)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ln = xp.log((1.0 - a) * (1.0 + a))  # log(1 - y^2), exact enough for a first guess
        t = 2.0 / (math.pi * 0.147) + 0.5 * ln
        x = xp.sqrt(xp.sqrt(t * t - ln / 0.147) - t)
        near_one = a > 0.5
        rest = 1.0 - a  # exact for a in [0.5, 1]
        for _ in range(5):
            slope = _TWO_OVER_SQRT_PI * xp.exp(-x * x)
            # erf(x) - a, computed as rest - erfc(x) near 1 where erf(x) has no digits left
            err = xp.where(near_one, rest - _erfc_pos(xp, x), _erf_series(xp, x) - a)
            x = x - err / slope
    out = xp.where(inside, x, xp.where(ay == 1.0, np.inf, np.nan))
    out = xp.copysign(out, y)
    return xp.where(xp.isnan(y), y, out)


def erfinv(xp: Any, y: Any) -> Any:
    """The inverse error function, element-wise, in float64 (+-inf at +-1, nan outside)."""
    sp = _backend(xp)
    return sp.erfinv(_f64(xp, y)) if sp is not None else _erfinv_fallback(xp, y)


# ---- gamma, gammaln, digamma ---------------------------------------------------------------


def _lanczos_sum(z: Any) -> Any:
    acc = _LANCZOS[0] + 0.0 * z
    for i in range(1, len(_LANCZOS)):
        acc = acc + _LANCZOS[i] / (z + i)
    return acc


def _gamma_pos(xp: Any, x: Any) -> Any:
    """Gamma for x >= 0.5."""
    z = x - 1.0
    t = z + _LANCZOS_G + 0.5
    half = xp.power(t, 0.5 * (z + 0.5))  # split the power so that it overflows only with gamma
    return math.sqrt(2.0 * math.pi) * half * xp.exp(-t) * half * _lanczos_sum(z)


def _lgamma_pos(xp: Any, x: Any) -> Any:
    """log(Gamma) for x >= 0.5."""
    z = x - 1.0
    t = z + _LANCZOS_G + 0.5
    return _HALF_LOG_2PI + (z + 0.5) * xp.log(t) - t + xp.log(_lanczos_sum(z))


def _is_nonpos_int(xp: Any, x: Any) -> Any:
    return (x <= 0) & (xp.floor(x) == x)


def _gamma_fallback(xp: Any, x: Any) -> Any:
    x = _f64(xp, x)
    refl = x < 0.5
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        pos = _gamma_pos(xp, xp.where(refl, 1.0 - x, x))
        out = xp.where(refl, math.pi / (xp.sin(math.pi * x) * pos), pos)
        # exact factorials at positive integers, as libm gives (integer inputs truncate)
        whole = (x >= 1) & (x <= len(_FACTORIALS)) & (xp.floor(x) == x)
        idx = xp.where(whole, x, 1.0).astype(np.int64) - 1
        out = xp.where(whole, xp.asarray(_FACTORIALS)[idx], out)
    return out


def _lgamma_fallback(xp: Any, x: Any) -> Any:
    x = _f64(xp, x)
    refl = x < 0.5
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        pos = _lgamma_pos(xp, xp.where(refl, 1.0 - x, x))
        s = xp.abs(xp.sin(math.pi * x))
        out = xp.where(refl, math.log(math.pi) - xp.log(s) - pos, pos)
    return out


def _digamma_fallback(xp: Any, x: Any) -> Any:
    x = _f64(xp, x)
    refl = x < 0.5
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        cot_term = xp.where(refl, math.pi / xp.tan(math.pi * x), 0.0)
        z = xp.where(refl, 1.0 - x, x)
        z = xp.where(xp.isfinite(z), z, 10.0)
        acc = xp.zeros_like(z)
        for _ in range(10):  # z >= 0.5 reaches 10 within ten steps
            low = z < 10.0
            acc = acc - xp.where(low, 1.0 / z, 0.0)
            z = xp.where(low, z + 1.0, z)
        w = 1.0 / (z * z)
        series = w * (
            1 / 12
            - w
            * (1 / 120 - w * (1 / 252 - w * (1 / 240 - w * (1 / 132 - w * (691 / 32760 - w / 12)))))
        )
        out = xp.log(z) - 0.5 / z - series + acc - cot_term
    out = xp.where((xp.isinf(x) & (x > 0)) | _is_nonpos_int(xp, x), np.inf, out)
    return xp.where(xp.isnan(x) | (xp.isinf(x) & (x < 0)), np.nan, out)


def gamma(xp: Any, x: Any) -> Any:
    """Gamma, element-wise, in float64, with C tgamma's values at the poles."""
    x = _f64(xp, x)
    sp = _backend(xp)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        out = sp.gamma(x) if sp is not None else _gamma_fallback(xp, x)
    out = xp.where((x == 0) | (x == np.inf), xp.copysign(np.inf, x), out)
    return xp.where(_is_nonpos_int(xp, x) & (x != 0), np.nan, out)


def gammaln(xp: Any, x: Any) -> Any:
    """log|Gamma|, element-wise, in float64 (+inf at non-positive integers, as C lgamma)."""
    x = _f64(xp, x)
    sp = _backend(xp)
    if xp is np and sp is not None:
        # SciPy's poles are +inf already; only its -inf at -inf differs from lgamma's +inf
        out = sp.gammaln(x)
        if out.ndim:
            out[x == -np.inf] = np.inf
            return out
        return np.asarray(np.inf if x == -np.inf else out)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        out = sp.gammaln(x) if sp is not None else _lgamma_fallback(xp, x)
    out = xp.where(xp.isinf(x), np.inf, out)
    return xp.where(_is_nonpos_int(xp, x), np.inf, out)


def digamma(xp: Any, x: Any) -> Any:
    """The digamma function psi = d/dx log Gamma, element-wise, in float64."""
    sp = _backend(xp)
    if sp is None:
        return _digamma_fallback(xp, x)
    x = _f64(xp, x)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        # +inf at the poles, as MXNet's digamma (gammaln's gradient there is +inf)
        return xp.where(_is_nonpos_int(xp, x), np.inf, sp.psi(x))
