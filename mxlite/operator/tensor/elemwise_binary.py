"""Binary element-wise operators: ``elemwise_*`` (equal shapes), ``broadcast_*`` (NumPy
broadcasting) and the ``*_scalar`` forms, all through SimpleOp.

MXNet's rules kept here: both inputs have one dtype; comparisons and logical operators return
0/1 in that dtype and have zero gradient; on integer arrays a scalar is first cast to the
array's dtype (``int32 * 2.5`` multiplies by 2) and division truncates.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ...base import Shape, ShapeError
from ..param import Param, field
from ..registry import OpTest
from ..simple_op import GradNeeds, simple_op
from ..sparse import forms as _sp
from ..sparse.forms_tensor import all_row_sparse

__all__ = ["ScalarParam", "broadcast_op", "broadcast_shape"]


class ScalarParam(Param):
    scalar: float = field(default=1.0, doc="Scalar input value")
    is_int: bool = field(default=True, doc="Indicate whether scalar input is int type")


def broadcast_shape(op: str, lhs: Shape, rhs: Shape, param: Any = None) -> Shape:
    """NumPy's broadcasting of two shapes, with MXNet's error when they do not broadcast."""
    n = max(len(lhs), len(rhs))
    a = (1,) * (n - len(lhs)) + tuple(lhs)
    b = (1,) * (n - len(rhs)) + tuple(rhs)
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise ShapeError(
                f"{op}: operands could not be broadcast together with shapes {tuple(lhs)} "
                f"and {tuple(rhs)}."
            )
        out.append(y if x == 1 else x)
    return tuple(out)


def broadcast_op(name: str, **kwargs: Any) -> Any:
    """Register ``name`` as a binary SimpleOp whose operands broadcast as NumPy's do
    (``kwargs`` as :func:`simple_op`'s)."""
    return simple_op(name, arity=2, shape=partial(broadcast_shape, name), **kwargs)


def _int_div(xp: Any, a: Any, b: Any, out: Any) -> Any:
    if np.issubdtype(a.dtype, np.integer):
        with np.errstate(divide="ignore", invalid="ignore"):
            q = xp.trunc(xp.true_divide(a, b))
        return q.astype(a.dtype, copy=False)
    return xp.true_divide(a, b, out=out)


def _mod(xp: Any, a: Any, b: Any, out: Any = None) -> Any:
    """MXNet's mod: Python's sign convention, and 0 where the divisor is 0 (NumPy: NaN and a
    warning for floats)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = xp.mod(a, b, out=out)
    zero = xp.asarray(b) == 0
    if zero.any():
        r = xp.where(zero, r.dtype.type(0), r)
        if out is not None:
            out[...] = r
            return out
    return r


def _mod_grads(xp: Any, g: Any, a: Any, b: Any) -> tuple:
    # MXNet defines both gradients of an integer mod as 0 (its mod_grad/mod_rgrad templates)
    if np.issubdtype(g.dtype, np.integer):
        return xp.zeros_like(g), xp.zeros_like(g)
    return g, -g * xp.floor(a / b)


def _cmp(ufunc_name: str):
    def fwd(xp: Any, a: Any, b: Any, env: Any, out: Any) -> Any:
        return getattr(xp, ufunc_name)(a, b).astype(a.dtype, copy=False)

    return fwd


def _zero_grads(xp: Any, g: Any, env: Any) -> tuple:
    return xp.zeros_like(g), xp.zeros_like(g)


def _uf(name: str):
    def fwd(xp: Any, a: Any, b: Any, env: Any, out: Any) -> Any:
        return getattr(xp, name)(a, b, out=out)

    return fwd


# (name, forward, gradient, needs, aliases of the same-shape form)
_BINARY: list[tuple[str, Any, Any, GradNeeds, tuple[str, ...], tuple[str, ...]]] = [
    (
        "add",
        _uf("add"),
        lambda xp, g, env: (g, g),
        GradNeeds.OUT_GRAD,
        ("_plus", "_add", "_Plus"),
        ("broadcast_plus",),
    ),
    (
        "sub",
        _uf("subtract"),
        lambda xp, g, env: (g, -g),
        GradNeeds.OUT_GRAD,
        ("_minus", "_sub", "_Minus"),
        ("broadcast_minus",),
    ),
    (
        "mul",
        _uf("multiply"),
        lambda xp, g, a, b, env: (g * b, g * a),
        GradNeeds.INPUT,
        ("_mul", "_Mul"),
        (),
    ),
    (
        "div",
        lambda xp, a, b, env, out: _int_div(xp, a, b, out),
        lambda xp, g, a, b, env: (g / b, -g * a / (b * b)),
        GradNeeds.INPUT,
        ("_div", "_Div"),
        (),
    ),
    (
        "mod",
        lambda xp, a, b, env, out: _mod(xp, a, b, out),
        lambda xp, g, a, b, env: _mod_grads(xp, g, a, b),
        GradNeeds.INPUT,
        ("_mod", "_Mod"),
        (),
    ),
    (
        "power",
        lambda xp, a, b, env, out: xp.power(a, b, out=out),
        lambda xp, g, a, b, env: (
            g * b * xp.power(a, b - 1),
            g * xp.power(a, b) * xp.log(xp.where(a > 0, a, 1)),
        ),
        GradNeeds.INPUT,
        ("_power", "_Power"),
        (),
    ),
    (
        "maximum",
        _uf("maximum"),
        lambda xp, g, a, b, env: (g * (a >= b), g * (a < b)),
        GradNeeds.INPUT,
        ("_maximum", "_Maximum"),
        ("_npi_maximum",),
    ),
    (
        "minimum",
        _uf("minimum"),
        lambda xp, g, a, b, env: (g * (a <= b), g * (a > b)),
        GradNeeds.INPUT,
        ("_minimum", "_Minimum"),
        ("_npi_minimum",),
    ),
    (
        "hypot",
        _uf("hypot"),
        lambda xp, g, a, b, env: (g * a / xp.hypot(a, b), g * b / xp.hypot(a, b)),
        GradNeeds.INPUT,
        ("_hypot", "_Hypot"),
        (),
    ),
]
_COMPARE = [
    ("equal", "equal"),
    ("not_equal", "not_equal"),
    ("greater", "greater"),
    ("greater_equal", "greater_equal"),
    ("lesser", "less"),
    ("lesser_equal", "less_equal"),
    ("logical_and", "logical_and"),
    ("logical_or", "logical_or"),
    ("logical_xor", "logical_xor"),
]

# sparse forms (storage rule and kernel) of the equal-shape and the broadcast operators
_SAME_SHAPE_FORMS = {
    "add": _sp.ELEMWISE_ADD,
    "sub": _sp.ELEMWISE_SUB,
    "mul": _sp.ELEMWISE_MUL,
    "div": _sp.ELEMWISE_DIV,
    "maximum": _sp.MAXIMUM,
    "minimum": _sp.MINIMUM,
    "hypot": _sp.HYPOT,
}
_BROADCAST_FORMS = {
    "add": _sp.BROADCAST_ADD,
    "sub": _sp.BROADCAST_SUB,
    "mul": _sp.BROADCAST_MUL,
    "div": _sp.BROADCAST_DIV,
}

# the operators that compute elemwise_add and elemwise_mul on int8 data
_QUANTIZED = {"add": "_contrib_quantized_elemwise_add", "mul": "_contrib_quantized_elemwise_mul"}

for _name, _fwd, _grad, _needs, _same_aliases, _bc_aliases in _BINARY:
    # add, sub, mul and div are elemwise_*, computed in place, with sparse gradients for add/sub
    _elemwise = _name in ("add", "sub", "mul", "div")
    _names = (f"elemwise_{_name}",) + _same_aliases if _elemwise else _same_aliases
    simple_op(
        _names[0],
        forward=_fwd,
        gradient=_grad,
        grad_needs=_needs,
        arity=2,
        forward_inplace=_elemwise,
        sparse_form=_SAME_SHAPE_FORMS.get(_name),
        # the sum or difference of row-sparse arrays has row-sparse gradients
        grad_stypes=all_row_sparse if _name in ("add", "sub") else None,
        facts={
            "epilogue": "add" if _name == "add" else None,
            "quantized_name": _QUANTIZED.get(_name),
        },
        aliases=_names[1:],
        test=OpTest(low=0.5, high=2.0),
        doc=f"Element-wise {_name} of equal shapes.",
    )
    broadcast_op(
        f"broadcast_{_name}",
        forward=_fwd,
        gradient=_grad,
        grad_needs=_needs,
        sparse_form=_BROADCAST_FORMS.get(_name),
        facts={"epilogue": "add" if _name == "add" else None},
        aliases=_bc_aliases,
        test=OpTest(shapes={"lhs": (2, 3), "rhs": (1, 3)}, low=0.5, high=2.0),
        doc=f"Element-wise {_name} with NumPy-style broadcasting.",
    )

for _name, _ufunc in _COMPARE:
    _kw = {"forward": _cmp(_ufunc), "gradient": _zero_grads, "grad_flow": "zeros"}
    simple_op(
        f"_{_name}",
        arity=2,
        aliases=(f"_{''.join(p.title() for p in _name.split('_'))}",),
        test=OpTest(grad=False),
        doc=f"Element-wise {_name}: 1 where true, else 0.",
        **_kw,
    )
    broadcast_op(
        f"broadcast_{_name}",
        test=OpTest(grad=False),
        doc=f"Element-wise {_name} with broadcasting: 1 or 0.",
        **_kw,
    )


# ---- scalar forms ---------------------------------------------------------------------------


def _s(x: Any, env: Any) -> Any:
    """The scalar in the array's dtype (MXNet casts it before computing)."""
    return x.dtype.type(env.scalar)


def _sop(fn):
    def fwd(xp: Any, x: Any, env: Any, out: Any) -> Any:
        r = fn(xp, x, _s(x, env))
        return r if r.dtype == x.dtype else r.astype(x.dtype)

    return fwd


def _scalar(
    name: str,
    fn: Any,
    grad: Any,
    needs: GradNeeds,
    aliases: tuple = (),
    inplace: bool = True,
    low: float = 0.5,
    high: float = 2.0,
    grad_flow: str = "backward",
) -> None:
    simple_op(
        name,
        forward=_sop(fn),
        gradient=grad,
        grad_needs=needs,
        param_class=ScalarParam,
        forward_inplace=inplace,
        gradient_inplace=needs is GradNeeds.OUT_GRAD,
        aliases=aliases,
        grad_flow=grad_flow,
        sparse_form=_sp.SCALAR,  # sparse where f(0, scalar) == 0
        test=OpTest(params={"scalar": 1.5}, low=low, high=high),
        doc=f"{name[1:]} of an array and a scalar, element-wise.",
    )


_G = GradNeeds
_scalar("_plus_scalar", lambda xp, x, s: x + s, lambda xp, g, e: g, _G.OUT_GRAD, ("_PlusScalar",))
_scalar("_minus_scalar", lambda xp, x, s: x - s, lambda xp, g, e: g, _G.OUT_GRAD, ("_MinusScalar",))
_scalar(
    "_rminus_scalar", lambda xp, x, s: s - x, lambda xp, g, e: -g, _G.OUT_GRAD, ("_RMinusScalar",)
)
_scalar(
    "_mul_scalar",
    lambda xp, x, s: x * s,
    lambda xp, g, e: g * e.scalar,
    _G.OUT_GRAD,
    ("_MulScalar",),
)
_scalar(
    "_div_scalar",
    lambda xp, x, s: _int_div(xp, x, s, None),
    lambda xp, g, e: g / e.scalar,
    _G.OUT_GRAD,
    ("_DivScalar",),
)
_scalar(
    "_rdiv_scalar",
    lambda xp, x, s: _int_div(xp, xp.full_like(x, s), x, None),
    lambda xp, g, x, e: -g * e.scalar / (x * x),
    _G.INPUT,
    ("_RDivScalar",),
)
_scalar(
    "_mod_scalar",
    lambda xp, x, s: _mod(xp, x, x.dtype.type(s)),
    lambda xp, g, e: xp.zeros_like(g) if np.issubdtype(g.dtype, np.integer) else g,
    _G.OUT_GRAD,
    ("_ModScalar",),
)
_scalar(
    "_rmod_scalar",
    lambda xp, x, s: _mod(xp, x.dtype.type(s), x),
    lambda xp, g, x, e: _mod_grads(xp, g, e.scalar, x)[1],
    _G.INPUT,
    ("_RModScalar",),
)
_scalar(
    "_power_scalar",
    lambda xp, x, s: xp.power(x, s),
    lambda xp, g, x, e: g * e.scalar * xp.power(x, e.scalar - 1),
    _G.INPUT,
    ("_PowerScalar",),
)
_scalar(
    "_rpower_scalar",
    lambda xp, x, s: xp.power(s, x),
    lambda xp, g, y, e: g * y * np.log(e.scalar),
    _G.OUTPUT,
    ("_RPowerScalar",),
)
_scalar(
    "_maximum_scalar",
    lambda xp, x, s: xp.maximum(x, s),
    lambda xp, g, x, e: g * (x >= e.scalar),
    _G.INPUT,
    ("_MaximumScalar", "_npi_maximum_scalar"),
)
_scalar(
    "_minimum_scalar",
    lambda xp, x, s: xp.minimum(x, s),
    lambda xp, g, x, e: g * (x <= e.scalar),
    _G.INPUT,
    ("_MinimumScalar", "_npi_minimum_scalar"),
)
_scalar(
    "_hypot_scalar",
    lambda xp, x, s: xp.hypot(x, s),
    lambda xp, g, x, e: g * x / xp.hypot(x, e.scalar),
    _G.INPUT,
    ("_HypotScalar", "_npi_hypot_scalar"),
)
for _name, _ufunc in _COMPARE:
    _scalar(
        f"_{_name}_scalar",
        (lambda u: lambda xp, x, s: getattr(xp, u)(x, s))(_ufunc),
        lambda xp, g, e: xp.zeros_like(g),
        _G.OUT_GRAD,
        (f"_{''.join(p.title() for p in _name.split('_'))}Scalar",),
        grad_flow="zeros",
    )
