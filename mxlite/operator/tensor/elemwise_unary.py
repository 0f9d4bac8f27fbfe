"""Unary element-wise operators (abs, exp, sin, relu, erf, Cast, smooth_l1, ...) via SimpleOp.

Design note
-----------
Each operator is one row of a table: forward, gradient, what the gradient reads
(:class:`GradNeeds`) and the input range the generated tests use. MXNet 1.9.1's numeric rules
are kept:

- Integer inputs are allowed (except for ``hard_sigmoid``) and keep their dtype. A real
  function of an integer is computed in float64 and converted back the way C converts:
  truncation toward zero, nan and out-of-range values become the most negative int32/int64,
  narrower types wrap (``exp`` of int8 5 is -108). float16 is computed in float32. Operators
  that are exact on integers (abs, sign, square, negative, relu, rounding) work on them
  directly. Boolean inputs are rejected, as MXNet's kernels reject them.
- Rounding: ``round`` takes halves away from zero, ``rint`` takes halves *down* (MXNet's own
  rule, not NumPy's half-to-even), ``fix`` equals ``trunc``; their gradients are zero.
- ``relu`` keeps nan and its gradient is 0 at 0; ``sign`` of nan is 0; ``abs``' gradient is
  sign(x), 0 at 0.
- Forward may run in place (kInplaceInOut) unless the gradient reads the input; every
  gradient may overwrite ``out_grad`` (kInplaceOutIn).

Sections: dtype handling, the table of one-ufunc operators, kernels that need more, then
identity/BlockGrad/Cast, hard_sigmoid and smooth_l1 (the seeds' worked example).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base import DTypeError
from ..parallel import relu_into
from ..param import DTYPE_NAMES, Param, field
from ..registry import OperatorProperty, OpTest
from ..simple_op import GradNeeds, identity_op, simple_op
from ..sparse.forms import DENSE_RESULT, KEEP_ZERO
from . import special
from .elemwise_binary import ScalarParam

__all__ = ["HardSigmoidParam", "CastParam"]

_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
_IN, _OUT, _NONE = GradNeeds.INPUT, GradNeeds.OUTPUT, GradNeeds.OUT_GRAD


class HardSigmoidParam(Param):
    alpha: float = field(default=0.2, doc="Slope of hard sigmoid")
    beta: float = field(default=0.5, doc="Bias of hard sigmoid.")


class CastParam(Param):
    dtype: str = field(choices=DTYPE_NAMES, doc="Output data type.")


# ---- dtype handling -------------------------------------------------------------------------


def to_int(v: Any, dtype: np.dtype) -> Any:
    """Convert float results to an integer dtype as C's static_cast does on x86."""
    with np.errstate(invalid="ignore", over="ignore"):
        wide = v.astype(np.int64 if dtype.itemsize == 8 else np.int32)
    return wide.astype(dtype, copy=False)


def _real(fn: Any) -> Any:
    """Forward of a real function ``fn(xp, x, out)``, per MXNet's dtype rules (module note)."""

    def fwd(xp: Any, x: Any, env: Any, out: Any) -> Any:
        dt = x.dtype
        with np.errstate(all="ignore"):
            if dt == _F16:
                return fn(xp, x.astype(_F32), None).astype(_F16)
            if dt.kind == "f":
                r = fn(xp, x, out)
                return r if r.dtype == dt else r.astype(dt)
            return to_int(fn(xp, x.astype(_F64), None), dt)

    return fwd


def _exact(fn: Any) -> Any:
    """Forward of a function that is exact on every dtype (no float detour for integers)."""

    def fwd(xp: Any, x: Any, env: Any, out: Any) -> Any:
        with np.errstate(all="ignore"):
            r = fn(xp, x, out)
        return r if r.dtype == x.dtype else r.astype(x.dtype)

    return fwd


def _quiet(grad: Any) -> Any:
    """Gradients see the same nan/inf as MXNet's kernels, without NumPy's warnings."""

    def wrapped(*args: Any) -> Any:
        with np.errstate(all="ignore"):
            return grad(*args)

    return wrapped


def _restrict(cls: type[OperatorProperty], kinds: str, what: str) -> None:
    """Make ``cls`` reject input dtypes whose kind is not in ``kinds``."""
    base = cls.infer_type

    def infer_type(self: Any, in_type: list, out_type: list | None = None) -> Any:
        res = base(self, in_type, out_type)
        if res is not None and np.dtype(res[0][0]).kind not in kinds:
            raise DTypeError(
                f"{self.op_name}: argument 'data' has dtype {np.dtype(res[0][0]).name}; "
                f"{self.op_name} accepts {what}."
            )
        return res

    cls.infer_type = infer_type  # type: ignore[method-assign]


# ---- kernels that need more than one ufunc ------------------------------------------------


def _sign(xp: Any, x: Any, out: Any = None) -> Any:
    s = xp.sign(x, out=out)
    if x.dtype.kind == "f":
        s = xp.where(s != s, 0, s).astype(x.dtype, copy=False)  # sign(nan) is 0 in MXNet
    return s


def _round(xp: Any, x: Any, out: Any) -> Any:
    if x.dtype.kind != "f":
        return x
    t = xp.trunc(x)
    return xp.where(xp.abs(x - t) >= 0.5, t + xp.sign(x), t)  # halves away from zero


def _rint(xp: Any, x: Any, out: Any) -> Any:
    if x.dtype.kind != "f":
        return x
    lo, hi = xp.floor(x), xp.ceil(x)
    return xp.where(x - lo <= hi - x, lo, hi)  # halves go down, as MXNet's rint


def _int_identity(ufunc: str) -> Any:
    def fn(xp: Any, x: Any, out: Any) -> Any:
        return getattr(xp, ufunc)(x, out=out) if x.dtype.kind == "f" else x

    return fn


def _relu(xp: Any, x: Any, out: Any) -> Any:
    return relu_into(xp, x, out)  # maximum keeps nan, as MXNet's relu


def _uf(name: str) -> Any:
    def fn(xp: Any, x: Any, out: Any) -> Any:
        return getattr(xp, name)(x, out=out)

    return fn


def _exp(xp: Any, x: Any, out: Any) -> Any:
    # NumPy 2's vectorised float32 exp may be 1 ulp off (exp(1) = 2.7182820); MXNet's is
    # correctly rounded (2.7182817), and its tests check 1e-7. Computing float32 in float64
    # and rounding once gives MXNet's values.
    if x.dtype == _F32:
        r = xp.exp(x, dtype=_F64)
        if out is None:
            return r.astype(_F32)
        out[...] = r
        return out
    return xp.exp(x, out=out)


def _sp(name: str) -> Any:
    def fn(xp: Any, x: Any, out: Any) -> Any:
        return getattr(special, name)(xp, x)

    return fn


def _zero_grad(xp: Any, g: Any, env: Any) -> Any:
    return xp.zeros_like(g)


def _relu_grad(xp: Any, g: Any, y: Any, env: Any) -> Any:
    return xp.where(y != y, y, g * (y > 0))  # nan passes through, 0 at 0


_LN10, _LN2 = math.log(10.0), math.log(2.0)
# MXNet's PI is a float32 constant; these products are what its kernels multiply by
_PI32 = np.float32(math.pi)
_DEG = float(np.float32(180) / _PI32)
_RAD = float(_PI32 / np.float32(180))
_SQRT_PI = float(np.sqrt(_PI32))

# (name, forward, gradient, needs, (low, high) for tests, doc)
_UNARY: list[tuple[str, Any, Any, GradNeeds, tuple[float, float], str]] = [
    (
        "abs",
        _exact(_uf("abs")),
        lambda xp, g, x, e: g * _sign(xp, x),
        _IN,
        (0.2, 1.0),
        "Absolute value, element-wise.",
    ),
    ("sign", _exact(_sign), _zero_grad, _NONE, (-1.0, 1.0), "Sign (-1, 0, 1), element-wise."),
    (
        "round",
        _exact(_round),
        _zero_grad,
        _NONE,
        (0.1, 0.4),
        "Round to the nearest integer, halves away from zero.",
    ),
    (
        "rint",
        _exact(_rint),
        _zero_grad,
        _NONE,
        (0.1, 0.4),
        "Round to the nearest integer, halves toward -inf.",
    ),
    ("ceil", _exact(_int_identity("ceil")), _zero_grad, _NONE, (0.1, 0.9), "Ceiling."),
    ("floor", _exact(_int_identity("floor")), _zero_grad, _NONE, (0.1, 0.9), "Floor."),
    (
        "trunc",
        _exact(_int_identity("trunc")),
        _zero_grad,
        _NONE,
        (0.1, 0.9),
        "Truncate toward zero.",
    ),
    ("fix", _exact(_int_identity("trunc")), _zero_grad, _NONE, (0.1, 0.9), "Round toward zero."),
    (
        "square",
        _exact(_uf("square")),
        lambda xp, g, x, e: g * (2 * x),
        _IN,
        (-1.0, 1.0),
        "Square, element-wise.",
    ),
    (
        "sqrt",
        _real(_uf("sqrt")),
        lambda xp, g, y, e: g * (0.5 / y),
        _OUT,
        (0.5, 2.0),
        "Square root.",
    ),
    (
        "rsqrt",
        _real(lambda xp, x, out: 1 / xp.sqrt(x)),
        lambda xp, g, x, e: g * (-0.5 / (xp.sqrt(x) * x)),
        _IN,
        (0.5, 2.0),
        "Reciprocal square root 1/sqrt(x).",
    ),
    (
        "cbrt",
        _real(_uf("cbrt")),
        lambda xp, g, y, e: g / (3 * y * y),
        _OUT,
        (0.5, 2.0),
        "Cube root.",
    ),
    (
        "rcbrt",
        _real(lambda xp, x, out: 1 / xp.cbrt(x)),
        lambda xp, g, x, e: g * (-1 / (3 * xp.cbrt(x) * x)),
        _IN,
        (0.5, 2.0),
        "Reciprocal cube root 1/cbrt(x).",
    ),
    ("exp", _real(_exp), lambda xp, g, y, e: g * y, _OUT, (-1.0, 1.0), "Exponential."),
    (
        "expm1",
        _real(_uf("expm1")),
        lambda xp, g, x, e: g * xp.exp(x),
        _IN,
        (-1.0, 1.0),
        "exp(x) - 1, accurate near 0.",
    ),
    ("log", _real(_uf("log")), lambda xp, g, x, e: g / x, _IN, (0.5, 2.0), "Natural logarithm."),
    (
        "log10",
        _real(_uf("log10")),
        lambda xp, g, x, e: g / (x * _LN10),
        _IN,
        (0.5, 2.0),
        "Base-10 logarithm.",
    ),
    (
        "log2",
        _real(_uf("log2")),
        lambda xp, g, x, e: g / (x * _LN2),
        _IN,
        (0.5, 2.0),
        "Base-2 logarithm.",
    ),
    (
        "log1p",
        _real(_uf("log1p")),
        lambda xp, g, x, e: g / (1 + x),
        _IN,
        (-0.5, 1.0),
        "log(1 + x), accurate near 0.",
    ),
    ("sin", _real(_uf("sin")), lambda xp, g, x, e: g * xp.cos(x), _IN, (-2.0, 2.0), "Sine."),
    ("cos", _real(_uf("cos")), lambda xp, g, x, e: -g * xp.sin(x), _IN, (-2.0, 2.0), "Cosine."),
    ("tan", _real(_uf("tan")), lambda xp, g, y, e: g * (y * y + 1), _OUT, (-1.0, 1.0), "Tangent."),
    (
        "arcsin",
        _real(_uf("arcsin")),
        lambda xp, g, x, e: g / xp.sqrt(1 - x * x),
        _IN,
        (-0.8, 0.8),
        "Inverse sine.",
    ),
    (
        "arccos",
        _real(_uf("arccos")),
        lambda xp, g, x, e: -g / xp.sqrt(1 - x * x),
        _IN,
        (-0.8, 0.8),
        "Inverse cosine.",
    ),
    (
        "arctan",
        _real(_uf("arctan")),
        lambda xp, g, x, e: g / (x * x + 1),
        _IN,
        (-2.0, 2.0),
        "Inverse tangent.",
    ),
    (
        "sinh",
        _real(_uf("sinh")),
        lambda xp, g, x, e: g * xp.cosh(x),
        _IN,
        (-1.0, 1.0),
        "Hyperbolic sine.",
    ),
    (
        "cosh",
        _real(_uf("cosh")),
        lambda xp, g, x, e: g * xp.sinh(x),
        _IN,
        (-1.0, 1.0),
        "Hyperbolic cosine.",
    ),
    (
        "tanh",
        _real(_uf("tanh")),
        lambda xp, g, y, e: g * (1 - y * y),
        _OUT,
        (-2.0, 2.0),
        "Hyperbolic tangent.",
    ),
    (
        "arcsinh",
        _real(_uf("arcsinh")),
        lambda xp, g, x, e: g / xp.hypot(x, 1),
        _IN,
        (-2.0, 2.0),
        "Inverse hyperbolic sine.",
    ),
    (
        "arccosh",
        _real(_uf("arccosh")),
        lambda xp, g, x, e: g / xp.sqrt(x * x - 1),
        _IN,
        (1.5, 3.0),
        "Inverse hyperbolic cosine.",
    ),
    (
        "arctanh",
        _real(_uf("arctanh")),
        lambda xp, g, x, e: g / (1 - x * x),
        _IN,
        (-0.8, 0.8),
        "Inverse hyperbolic tangent.",
    ),
    (
        "degrees",
        _real(lambda xp, x, out: xp.multiply(x, _DEG, out=out)),
        lambda xp, g, e: g * _DEG,
        _NONE,
        (-1.0, 1.0),
        "Radians to degrees.",
    ),
    (
        "radians",
        _real(lambda xp, x, out: xp.multiply(x, _RAD, out=out)),
        lambda xp, g, e: g * _RAD,
        _NONE,
        (-90.0, 90.0),
        "Degrees to radians.",
    ),
    (
        "reciprocal",
        _real(lambda xp, x, out: 1 / x),
        lambda xp, g, x, e: -g / (x * x),
        _IN,
        (0.5, 2.0),
        "Reciprocal 1/x.",
    ),
    (
        "negative",
        _exact(_uf("negative")),
        lambda xp, g, e: -g,
        _NONE,
        (-1.0, 1.0),
        "Numerical negative, element-wise.",
    ),
    ("relu", _exact(_relu), _relu_grad, _OUT, (0.1, 1.0), "Rectified linear unit max(x, 0)."),
    (
        "sigmoid",
        _real(lambda xp, x, out: 1 / (1 + xp.exp(-x))),
        lambda xp, g, y, e: g * y * (1 - y),
        _OUT,
        (-3.0, 3.0),
        "Logistic sigmoid 1/(1+exp(-x)).",
    ),
    (
        "softsign",
        _real(lambda xp, x, out: x / (1 + xp.abs(x))),
        lambda xp, g, x, e: g / xp.square(1 + xp.abs(x)),
        _IN,
        (-2.0, 2.0),
        "Softsign x/(1+|x|).",
    ),
    (
        "erf",
        _real(_sp("erf")),
        lambda xp, g, x, e: g * (2 / _SQRT_PI) * xp.exp(-x * x),
        _IN,
        (-1.5, 1.5),
        "Gauss error function.",
    ),
    (
        "erfinv",
        _real(_sp("erfinv")),
        lambda xp, g, y, e: g * (0.5 * _SQRT_PI) * xp.exp(y * y),
        _OUT,
        (-0.8, 0.8),
        "Inverse Gauss error function.",
    ),
    (
        "gamma",
        _real(_sp("gamma")),
        lambda xp, g, x, e: g * (special.gamma(xp, x) * special.digamma(xp, x)),
        _IN,
        (0.5, 3.0),
        "Gamma function.",
    ),
    (
        "gammaln",
        _real(_sp("gammaln")),
        lambda xp, g, x, e: g * special.digamma(xp, x),
        _IN,
        (0.5, 3.0),
        "Logarithm of the absolute value of the gamma function.",
    ),
    (
        "logical_not",
        _exact(lambda xp, x, out: x == 0),
        _zero_grad,
        _NONE,
        (-1.0, 1.0),
        "Logical not: 1 where x is 0, else 0, in x's dtype.",
    ),
]

# Their sparse forms (MXNet's FInferStorageType/FComputeEx): f(0) == 0 keeps a sparse input
# sparse, computed on the stored values; f(0) != 0 makes it dense. The rest have none.
_KEEPS_ZERO = """abs arcsin arcsinh arctan arctanh cbrt ceil degrees expm1 fix floor log1p negative
radians relu rint round sign sin sinh sqrt square tan tanh trunc""".split()
_DENSE_AT_ZERO = "arccos arccosh cos cosh exp gamma gammaln log10 log2 rsqrt".split()
_SPARSE_FORMS = dict.fromkeys(_KEEPS_ZERO, KEEP_ZERO) | dict.fromkeys(_DENSE_AT_ZERO, DENSE_RESULT)
# the ones MXNet 1.9.1 does not also give NDArray and Symbol as methods (x.sin() exists)
_NOT_FLUENT = frozenset("negative softsign erf erfinv gamma gammaln logical_not".split())
# the ones mx.npx has too (MXNet's .add_alias("_npx_erf"), ...)
_NPX_ALIASED = frozenset("erf erfinv gamma gammaln".split())


def _abs_recorded_gradient(prop: Any, op: Any, og: Any, ins: list, outs: list) -> list:
    return [og * op("sign", [ins[0]])]


# gradients written with operators where the one above inspects dtypes (higher-order autograd)
_RECORDED_GRADIENTS = {"abs": staticmethod(_abs_recorded_gradient)}

for _name, _fwd, _grad, _needs, (_lo, _hi), _doc in _UNARY:
    _cls = simple_op(
        _name,
        forward=_fwd,
        gradient=_quiet(_grad),
        grad_needs=_needs,
        forward_inplace=_needs is not _IN,
        gradient_inplace=True,
        sparse_form=_SPARSE_FORMS.get(_name),
        facts={
            "fluent": () if _name in _NOT_FLUENT else (_name,),
            "recorded_gradient": _RECORDED_GRADIENTS.get(_name),
            "epilogue": "relu" if _name == "relu" else None,
        },
        test=OpTest(low=_lo, high=_hi),
        aliases=(f"_npx_{_name}",) if _name in _NPX_ALIASED else (),
        doc=_doc,
    )
    _restrict(_cls, "fiu", "float16, float32, float64 and integer dtypes (not bool)")


# ---- identity, BlockGrad, Cast -------------------------------------------------------------

identity_op(
    "_copy",
    sparse_form=KEEP_ZERO,
    aliases=("identity",),
    test=OpTest(),
    doc="Return a copy of the input.",
)
simple_op(
    "_identity_with_attr_like_rhs",
    forward=lambda xp, lhs, rhs, env, out: lhs,
    # rhs only lends its shape and dtype; its gradient is zero
    gradient=lambda xp, g, env: (g, xp.zeros_like(g)),
    arity=2,
    forward_inplace=True,
    gradient_inplace=True,
    test=OpTest(),
    doc="Return a copy of lhs, whose shape and dtype must equal rhs's (for inference).",
)
identity_op(
    "BlockGrad",
    gradient=_zero_grad,
    grad_flow="none",
    sparse_form=KEEP_ZERO,
    aliases=("stop_gradient",),
    test=OpTest(grad=False),  # the gradient is zero by design, not the derivative
    doc="Pass the input through; stop the gradient (it is zero).",
)


def _cast_dtype(in_dtype: Any, param: CastParam) -> np.dtype:
    return np.dtype(param.dtype)  # 'bfloat16' too: ml_dtypes gives NumPy that name


def _cast(xp: Any, x: Any, env: Any, out: Any) -> Any:
    target = np.dtype(env.param.dtype)
    if x.dtype.kind == "f" and target.kind in "iu":
        return to_int(x, target)
    return x.astype(target, copy=False)


simple_op(
    "Cast",
    forward=_cast,
    gradient=lambda xp, g, env: g,
    dtype=_cast_dtype,
    param_class=CastParam,
    aliases=("cast", "_npi_cast", "_npx_cast"),
    facts={"keeps_bfloat16": True},
    test=OpTest(params={"dtype": "float64"}),
    doc="Cast the input to another dtype.",
)


# ---- hard_sigmoid ---------------------------------------------------------------------------


def _hs_consts(dt: np.dtype, param: HardSigmoidParam) -> tuple[Any, Any, np.dtype]:
    # MXNet keeps alpha and beta as float32 (real_t); float16 is computed in float32
    ct = _F32 if dt == _F16 else dt
    return ct.type(np.float32(param.alpha)), ct.type(np.float32(param.beta)), ct


def _hard_sigmoid(xp: Any, x: Any, env: Any, out: Any) -> Any:
    a, b, ct = _hs_consts(x.dtype, env.param)
    y = xp.clip(x.astype(ct, copy=False) * a + b, 0, 1)
    return y.astype(x.dtype, copy=False)


def _hard_sigmoid_grad(xp: Any, g: Any, x: Any, env: Any) -> Any:
    a, b, _ = _hs_consts(x.dtype, env.param)
    v = x * x.dtype.type(a) + x.dtype.type(b)
    return xp.where((v > 0) & (v < 1), g * x.dtype.type(a), 0).astype(g.dtype, copy=False)


_hs = simple_op(
    "hard_sigmoid",
    forward=_hard_sigmoid,
    gradient=_hard_sigmoid_grad,
    grad_needs=_IN,
    gradient_inplace=True,
    param_class=HardSigmoidParam,
    test=OpTest(low=-3.0, high=3.0),
    doc="Hard sigmoid max(0, min(1, alpha * x + beta)), element-wise.",
)
_restrict(_hs, "f", "float16, float32 and float64")


# ---- smooth_l1: the worked example of seeds/simple-op.md ------------------------------------


def _smooth_l1_consts(x: Any, env: Any) -> tuple[Any, Any]:
    ct = _F32 if x.dtype == _F16 else (x.dtype if x.dtype.kind == "f" else _F64)
    sigma = ct.type(env.scalar)
    bsq = sigma * sigma
    return bsq, ct.type(1) / bsq


def _smooth_l1(xp: Any, x: Any, env: Any, out: Any) -> Any:
    bsq, ibsq = _smooth_l1_consts(x, env)
    v = x.astype(bsq.dtype, copy=False)
    y = xp.where(v > ibsq, v - 0.5 * ibsq, xp.where(v < -ibsq, -v - 0.5 * ibsq, 0.5 * v * v * bsq))
    return y.astype(x.dtype) if x.dtype.kind == "f" else to_int(y, x.dtype)


def _smooth_l1_grad(xp: Any, g: Any, x: Any, env: Any) -> Any:
    bsq, ibsq = _smooth_l1_consts(x, env)
    v = x.astype(bsq.dtype, copy=False)
    d = xp.where(v > ibsq, 1, xp.where(v < -ibsq, -1, bsq * v)).astype(g.dtype, copy=False)
    return g * d


simple_op(
    "smooth_l1",
    forward=_smooth_l1,
    gradient=_smooth_l1_grad,
    grad_needs=GradNeeds.INPUT,
    gradient_inplace=True,
    param_class=ScalarParam,
    aliases=("_npx_smooth_l1",),
    test=OpTest(params={"scalar": 1.5}, low=-2.0, high=2.0),
    doc="Smooth L1 loss: 0.5 (sigma x)^2 where |x| < 1/sigma^2, else |x| - 0.5/sigma^2.",
)
