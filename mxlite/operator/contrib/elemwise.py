"""Element-wise contrib operators: ``gradientmultiplier``, ``quadratic``, the straight-through
estimators ``round_ste`` / ``sign_ste`` and ``div_sqrt_dim``.

A straight-through estimator computes a step function forward and passes the head gradient
through unchanged backward, as if it were the identity (quantisation-aware training).
"""

from __future__ import annotations

import math
from typing import Any

from ..param import Param, field
from ..registry import OpTest
from ..simple_op import GradNeeds, simple_op
from ..sparse.forms import QUADRATIC
from ..tensor.elemwise_binary import ScalarParam

__all__: list[str] = []


class QuadraticParam(Param):
    a: float = field(
        default=0.0, doc="Coefficient of the quadratic term in the quadratic function."
    )
    b: float = field(default=0.0, doc="Coefficient of the linear term in the quadratic function.")
    c: float = field(default=0.0, doc="Constant term in the quadratic function.")


def _quadratic(xp: Any, x: Any, env: Any, out: Any) -> Any:
    p = env.param
    return (p.a * x * x + p.b * x + p.c).astype(x.dtype, copy=False)


def _quadratic_grad(xp: Any, g: Any, x: Any, env: Any) -> Any:
    p = env.param
    return (g * (2 * p.a * x + p.b)).astype(x.dtype, copy=False)


simple_op(
    "_contrib_quadratic",
    forward=_quadratic,
    gradient=_quadratic_grad,
    grad_needs=GradNeeds.INPUT,
    param_class=QuadraticParam,
    sparse_form=QUADRATIC,
    aliases=("_npx_quadratic",),
    test=OpTest(params={"a": 1.5, "b": -0.5, "c": 2.0}),
    doc="This operators implements the quadratic function f(x) = a * x * x + b * x + c.",
)

simple_op(
    "_contrib_gradientmultiplier",
    forward=lambda xp, x, env, out: x,
    gradient=lambda xp, g, env: (g * env.scalar).astype(g.dtype, copy=False),
    forward_inplace=True,
    gradient_inplace=True,
    param_class=ScalarParam,
    test=OpTest(params={"scalar": 0.3}, grad=False),  # a scaled gradient, by design
    doc="Identity forward; backward multiplies the gradient by ``scalar`` (gradient reversal "
    "with a negative one).",
)


def _round_half_away(xp: Any, x: Any, env: Any, out: Any) -> Any:
    if x.dtype.kind != "f":
        return x
    t = xp.trunc(x)
    return xp.where(xp.abs(x - t) >= 0.5, t + xp.sign(x), t).astype(x.dtype, copy=False)


def _sign(xp: Any, x: Any, env: Any, out: Any) -> Any:
    s = xp.sign(x)
    if x.dtype.kind == "f":
        s = xp.where(s != s, 0, s).astype(x.dtype, copy=False)  # sign(nan) is 0 in MXNet
    return s


def _straight_through(name: str, forward: Any, doc: str) -> None:
    """Register a straight-through estimator: ``forward`` forward, the gradient unchanged
    backward (so the finite-difference check does not apply)."""
    simple_op(
        name,
        forward=forward,
        gradient=lambda xp, g, env: g,
        forward_inplace=True,
        gradient_inplace=True,
        test=OpTest(grad=False),
        doc=doc,
    )


_straight_through(
    "_contrib_round_ste",
    _round_half_away,
    "Straight-through-estimator of `round()`: rounds forward (halves away from zero), "
    "passes the gradient through unchanged backward.",
)
_straight_through(
    "_contrib_sign_ste",
    _sign,
    "Straight-through-estimator of `sign()`: the sign forward, the gradient unchanged backward.",
)


def _div_sqrt_dim(xp: Any, x: Any, env: Any, out: Any) -> Any:
    return (x / math.sqrt(x.shape[-1])).astype(x.dtype, copy=False)


def _div_sqrt_dim_grad(xp: Any, g: Any, env: Any) -> Any:
    return (g / math.sqrt(g.shape[-1])).astype(g.dtype, copy=False)


simple_op(
    "_contrib_div_sqrt_dim",
    forward=_div_sqrt_dim,
    gradient=_div_sqrt_dim_grad,
    gradient_inplace=True,
    test=OpTest(shapes={"data": (2, 3, 4)}),
    doc="Rescale the input by the square root of its last dimension: "
    "``data / sqrt(data.shape[-1])``.",
)
