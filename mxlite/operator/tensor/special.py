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

__all__ = ["erf", "erf32", "gelu32", "gelu_grad32", "erfc", "erfinv", "gamma", "gammaln", "digamma"]

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
    """The error function, element-wise: float32 NumPy arrays by :func:`erf32`, others in
    float64 (the caller casts back)."""
    if xp is np and isinstance(x, np.ndarray) and x.dtype == np.float32:
        return erf32(x)
    sp = _backend(xp)
    return sp.erf(_f64(xp, x)) if sp is not None else _erf_fallback(xp, x)


# ---- erf in float32 -------------------------------------------------------------------------

# |x| <= 1: erf(x) = x P(x^2); 1 < |x| < 4: erfc(x) = exp(-x^2) Q(1/x); beyond, erf is +-1 in
# float32. P (degree 5) and Q (degree 8) are least-squares fits at Chebyshev points against
# math.erf/erfc, made on first use: relative errors 4.4e-8 and 1.0e-7 in float64 (the second
# is erfc's, at most 1.6e-8 of erf).
_ERF32_A = 5
_ERF32_B = 8
# elements per block: 2^15 to 2^18 ran alike on one thread (68-74 ms for (4096, 3072)); on two
# threads the shorter calls pass the GIL back and forth (72 ms at 2^15, 40 at 2^18)
_ERF32_BLOCK = 1 << 18
_fits: dict[str, Any] = {}


def _fit(name: str) -> Any:
    """Power-series coefficients (float32, highest first), fitted on first use: ``"P"``,
    erf(x)/x in u = 2x^2 - 1; ``"Q"``, erfc(x) exp(x^2) in s = (1/x - 0.625) / 0.375; ``"R"``,
    erfc(a) exp(a^2) on a in [0, 4] in s = 6 / (2 + a) - 2 (degree 8, relative error 3e-8);
    every variable in [-1, 1]. (Threads that fit at once store the same values.)"""
    coef = _fits.get(name)
    if coef is None:
        cheb = np.polynomial.chebyshev
        nodes = np.cos(np.linspace(0.0, math.pi, 256))
        if name == "P":
            x2 = 0.5 + 0.5 * nodes
            f = [math.erf(math.sqrt(v)) / math.sqrt(v) if v else _TWO_OVER_SQRT_PI for v in x2]
            degree = _ERF32_A
        else:
            x = 1.0 / (0.625 + 0.375 * nodes) if name == "Q" else 6.0 / (nodes + 2.0) - 2.0
            f = [math.erfc(v) * math.exp(v * v) for v in x]
            degree = _ERF32_B
        coef = cheb.cheb2poly(cheb.chebfit(nodes, f, degree))[::-1].astype(np.float32)
        _fits[name] = coef
    return coef


def _horner(coef: Any, v: Any, out: Any) -> Any:
    """``out = sum(coef[i] * v ** (d - i))`` (``out`` is not ``v``; degree >= 1)."""
    np.multiply(v, coef[0], out=out)
    for c in coef[1:-1]:
        out += c
        out *= v
    out += coef[-1]
    return out


def _erf32_block(x: Any, out: Any) -> None:
    pa, pb = _fit("P"), _fit("Q")
    a = np.abs(x)
    v, lo, ec = np.empty_like(a), np.empty_like(a), np.empty_like(a)
    # each branch's variable is clamped to its range, so that neither overflows elsewhere
    xc = np.clip(x, -1, 1)
    np.multiply(xc, xc, out=v)
    v *= 2
    v -= 1
    _horner(pa, v, lo)
    lo *= xc  # erf where |x| <= 1, sign included
    np.multiply(a, a, out=ec)
    np.negative(ec, out=ec)
    np.exp(ec, out=ec)  # exp(-x^2)
    np.maximum(a, 1, out=v)
    np.divide(1, v, out=v)
    v -= 0.625
    v /= 0.375
    ec *= _horner(pb, v, out)  # erfc where 1 < |x| < 4; past 4 it is below float32's reach
    np.subtract(1, ec, out=ec)
    # the sign of x onto 1 - erfc, as bits; then each branch where it holds, as a sum of
    # exact products by 0 and 1 (NaN stays NaN)
    bits = ec.view(np.uint32)
    bits |= x.view(np.uint32) & np.uint32(0x80000000)
    small = np.less_equal(a, 1, out=v)  # (v as float 0.0 / 1.0)
    lo *= small
    np.subtract(1, small, out=small)
    np.multiply(ec, small, out=out)
    out += lo


def erf32(x: Any) -> Any:
    """erf of a float32 NumPy array, in float32: within ~2.3 float32 ulps of SciPy's float64
    erf; (4096, 3072) in 40 ms on two threads against SciPy's 130 (cast included) and the
    float64 fallback's 5 s."""
    _fit("P"), _fit("Q")  # before the threads start
    return _blocks32(_erf32_block, x)


def _one_plus_erf(xb: Any, ob: Any) -> tuple[Any, Any]:
    """``ob = 1 + erf(xb / sqrt(2))`` of a float32 block, as ``erfc(|z|)`` for z < 0 and
    ``2 - erfc(|z|)`` otherwise, erfc from the fit ``R``; returns ``z`` and ``exp(-z^2)``
    (blocks of xb's size)."""
    coef = _fit("R")
    z = xb / np.float32(math.sqrt(2.0))
    a = np.abs(z)
    s, e = np.add(a, 2), np.multiply(a, a)
    np.divide(6, s, out=s)
    s -= 2
    _horner(coef, s, ob)
    np.negative(e, out=e)
    np.exp(e, out=e)
    ob *= e  # erfc(|z|) (0 past float32's range)
    up = np.greater_equal(z, 0, out=s)  # 1.0 where 1 + erf(z) = 2 - erfc(|z|)
    np.multiply(ob, -2, out=a)
    a += 2
    a *= up
    ob += a
    return z, e


def gelu32(x: Any) -> Any:
    """MXNet's GELU ``0.5 x (1 + erf(x / sqrt(2)))`` of a float32 NumPy array, in blocks
    (:func:`_one_plus_erf`: where MXNet's ``1 + erff(z)`` cancels, this keeps float32's
    relative precision). (4096, 3072): 244 -> 27 ms."""
    _fit("R")

    def block(xb: Any, ob: Any) -> None:
        z, _ = _one_plus_erf(xb, ob)
        np.multiply(xb, 0.5, out=z)
        ob *= z

    return _blocks32(block, x)


def gelu_grad32(x: Any, g: Any) -> Any:
    """``g * d GELU(x) / dx = g * 0.5 (1 + erf(z) + x exp(-z^2) * 2 / sqrt(2 pi))`` (z =
    x / sqrt(2)), MXNet's gradient, for float32 NumPy arrays of one shape, in blocks."""
    _fit("R")
    slope = np.float32(2.0 / math.sqrt(2.0 * math.pi))

    def block(xb: Any, gb: Any, ob: Any) -> None:
        z, e = _one_plus_erf(xb, ob)
        np.multiply(xb, e, out=z)
        z *= slope
        ob += z
        ob *= 0.5
        ob *= gb

    return _blocks32(block, x, g)


def _blocks32(kernel: Any, *arrays: Any) -> Any:
    """``kernel(*blocks, out_block)`` over blocks of ``_ERF32_BLOCK`` elements of the float32
    ``arrays`` (of one shape), spread over the kernel threads; the new output array."""
    from .. import parallel  # noqa: PLC0415  (operator.parallel imports the engine)

    flat = [np.ascontiguousarray(a, dtype=np.float32).reshape(-1) for a in arrays]
    out = np.empty(arrays[0].shape, np.float32)

    def blocks(*parts: Any) -> None:
        with np.errstate(all="ignore"):
            for i in range(0, len(parts[0]), _ERF32_BLOCK):
                kernel(*[p[i : i + _ERF32_BLOCK] for p in parts])

    n = out.size
    parallel.over_rows(blocks, n, 16 * n, *flat, out.reshape(-1))
    return out


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
