"""NumPy-style binary operators: ``_npi_add`` and the other broadcast arithmetic, their
``_scalar`` and reflected ``_r*_scalar`` forms, comparisons (bool results) and bitwise
operators (MXNet 1.9.1's np_elemwise_broadcast_op*.cc, np_true_divide.cc,
np_elemwise_broadcast_logic_op.cc).

Unlike the legacy ``broadcast_*`` operators, the inputs may have different dtypes; the output
dtype follows :mod:`.dtypes`. Gradients are summed back over broadcast axes (SimpleOp's
``unbroadcast``) and cast to each input's dtype by ``assign``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..registry import OpTest
from ..simple_op import GradNeeds, simple_op
from ..tensor.elemwise_binary import ScalarParam, broadcast_op
from .dtypes import BOOL, binary_result, scalar_result, true_divide_result

_G = GradNeeds


def _out_ok(out: Any, *xs: Any) -> bool:
    return out is not None and all(x.dtype == out.dtype for x in xs)


def _ufunc2(fn_name: str):
    def fwd(xp: Any, a: Any, b: Any, env: Any, out: Any) -> Any:
        fn = getattr(xp, fn_name)
        if _out_ok(out, a, b):
            return fn(a, b, out=out)
        return fn(a, b)

    return fwd


def _true_divide(xp: Any, a: Any, b: Any, env: Any, out: Any) -> Any:
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.true_divide(a, b)


def _mod(xp: Any, a: Any, b: Any, env: Any, out: Any) -> Any:
    with np.errstate(divide="ignore", invalid="ignore"):
        r = xp.mod(a, b)
    return xp.where(xp.asarray(b) == 0, r.dtype.type(0), r)


def _floor_divide(xp: Any, a: Any, b: Any, env: Any, out: Any) -> Any:
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.floor_divide(a, b)


def _power(xp: Any, a: Any, b: Any, env: Any, out: Any) -> Any:
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.power(a, b)


def _f(g: Any, *xs: Any) -> tuple:
    """Inputs as the gradient's float dtype (integer inputs of a float result)."""
    return tuple(x if x.dtype == g.dtype else x.astype(g.dtype) for x in xs)


def _mul_grad(xp: Any, g: Any, a: Any, b: Any, env: Any) -> tuple:
    a, b = _f(g, a, b)
    return g * b, g * a


def _div_grad(xp: Any, g: Any, a: Any, b: Any, env: Any) -> tuple:
    a, b = _f(g, a, b)
    return g / b, -g * a / (b * b)


def _mod_grad(xp: Any, g: Any, a: Any, b: Any, env: Any) -> tuple:
    if g.dtype.kind != "f":  # MXNet's mod gradients are 0 in integer dtypes
        return xp.zeros_like(g), xp.zeros_like(g)
    a, b = _f(g, a, b)
    return g, -g * xp.floor(a / b)


def _power_grad(xp: Any, g: Any, a: Any, b: Any, env: Any) -> tuple:
    a, b = _f(g, a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        da = g * b * xp.power(a, b - 1)
        db = g * xp.power(a, b) * xp.log(xp.where(a > 0, a, 1))
    return da, db


def _hypot_grad(xp: Any, g: Any, a: Any, b: Any, env: Any) -> tuple:
    a, b = _f(g, a, b)
    h = xp.hypot(a, b)
    return g * a / h, g * b / h


def _arctan2_grad(xp: Any, g: Any, a: Any, b: Any, env: Any) -> tuple:
    a, b = _f(g, a, b)
    d = a * a + b * b
    return g * b / d, -g * a / d


def _copysign_grad(xp: Any, g: Any, a: Any, b: Any, env: Any) -> tuple:
    a, b = _f(g, a, b)
    return g * xp.where(a * b >= 0, 1, -1).astype(g.dtype), xp.zeros_like(g)


def _ldexp(xp: Any, a: Any, b: Any, env: Any, out: Any) -> Any:
    with np.errstate(over="ignore"):
        return a * xp.power(2.0, b)


def _ldexp_grad(xp: Any, g: Any, a: Any, b: Any, env: Any) -> tuple:
    a, b = _f(g, a, b)
    scale = xp.power(g.dtype.type(2), b)
    return g * scale, g * a * scale * np.log(2.0)


def _zero2(xp: Any, g: Any, env: Any) -> tuple:
    return xp.zeros_like(g), xp.zeros_like(g)


# name, forward, gradient, what it reads, dtype rule
_BINARY = [
    ("add", _ufunc2("add"), lambda xp, g, e: (g, g), _G.OUT_GRAD, binary_result),
    ("subtract", _ufunc2("subtract"), lambda xp, g, e: (g, -g), _G.OUT_GRAD, binary_result),
    ("multiply", _ufunc2("multiply"), _mul_grad, _G.INPUT, binary_result),
    ("true_divide", _true_divide, _div_grad, _G.INPUT, true_divide_result),
    ("mod", _mod, _mod_grad, _G.INPUT, binary_result),
    ("power", _power, _power_grad, _G.INPUT, binary_result),
    ("hypot", _ufunc2("hypot"), _hypot_grad, _G.INPUT, binary_result),
    ("arctan2", _ufunc2("arctan2"), _arctan2_grad, _G.INPUT, true_divide_result),
    ("copysign", _ufunc2("copysign"), _copysign_grad, _G.INPUT, true_divide_result),
    ("ldexp", _ldexp, _ldexp_grad, _G.INPUT, true_divide_result),
    # not in MXNet 1.9.1 (its ndarray has no ``//``); MXNet 2's name
    ("floor_divide", _floor_divide, _zero2, _G.OUT_GRAD, binary_result),
]

for _name, _fwd, _grad, _needs, _rule in _BINARY:
    broadcast_op(
        f"_npi_{_name}",
        forward=_fwd,
        gradient=_grad,
        grad_needs=_needs,
        dtype=(lambda r: lambda a, b, p: r(a, b))(_rule),
        test=OpTest(shapes={"lhs": (2, 3), "rhs": (1, 3)}, low=0.5, high=2.0),
        doc=f"NumPy's {_name} of two arrays, with broadcasting and mixed dtypes.",
    )


# ---- comparisons and bitwise operators --------------------------------------------------------


def _compare(fn_name: str):
    def fwd(xp: Any, a: Any, b: Any, env: Any, out: Any) -> Any:
        return getattr(xp, fn_name)(a, b)

    return fwd


def _bool_out(a: Any, b: Any, p: Any) -> Any:
    return BOOL


# no gradient (zeros): comparisons and logical operators give bool, the bitwise ones and lcm
# the operands' integer dtype. Names, dtype rule, dtypes the tests use, what it takes and gives
_NO_GRADIENT = (
    (
        "equal not_equal greater greater_equal less less_equal logical_and logical_or logical_xor",
        _bool_out,
        ("float32", "float64"),
        "two arrays, with broadcasting: a bool array",
    ),
    (
        "bitwise_and bitwise_or bitwise_xor lcm",
        lambda a, b, p: binary_result(a, b),
        ("int32",),
        "two integer or bool arrays, with broadcasting",
    ),
)

for _names, _dtype, _dtypes, _what in _NO_GRADIENT:
    for _name in _names.split():
        broadcast_op(
            f"_npi_{_name}",
            forward=_compare(_name),
            gradient=_zero2,
            dtype=_dtype,
            test=OpTest(shapes={"lhs": (2, 3), "rhs": (1, 3)}, dtypes=_dtypes, grad=False),
            doc=f"NumPy's {_name} of {_what}.",
        )


# ---- array and scalar -----------------------------------------------------------------------


def _operand(x: Any, env: Any) -> tuple[Any, Any]:
    """The array in the result's dtype and the scalar cast to it (as MXNet casts it)."""
    dt = scalar_result(x.dtype, env.param.is_int)
    return (x if x.dtype == dt else x.astype(dt)), dt.type(env.scalar)


def _scalar_fwd(fn: Any):
    def fwd(xp: Any, x: Any, env: Any, out: Any) -> Any:
        a, s = _operand(x, env)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return fn(xp, a, s)

    return fwd


def _scalar_dtype(a: Any, p: Any) -> Any:
    return scalar_result(a, p.is_int)


def _scalar_div_dtype(a: Any, p: Any) -> Any:
    return None if a is None else (a if a.kind == "f" else np.dtype(np.float32))


def _div_fwd(fn: Any):
    def fwd(xp: Any, x: Any, env: Any, out: Any) -> Any:
        a = x if x.dtype.kind == "f" else x.astype(np.float32)
        with np.errstate(divide="ignore", invalid="ignore"):
            return fn(xp, a, a.dtype.type(env.scalar))

    return fwd


def _fx(g: Any, x: Any) -> Any:
    return x if x.dtype == g.dtype else x.astype(g.dtype)


def _mod_zero(xp: Any, r: Any, b: Any) -> Any:
    return xp.where(xp.asarray(b) == 0, r.dtype.type(0), r)


def _mod_scalar_grad(xp: Any, g: Any, x: Any, env: Any) -> Any:
    return g if g.dtype.kind == "f" else xp.zeros_like(g)  # 0 in integer dtypes, as _mod_grad


def _rmod_scalar_grad(xp: Any, g: Any, x: Any, env: Any) -> Any:
    if g.dtype.kind != "f":
        return xp.zeros_like(g)
    return -g * xp.floor(g.dtype.type(env.scalar) / _fx(g, x))


# name, forward on (xp, array, scalar), gradient, what it reads, dtype rule
_SCALAR = [
    ("add", lambda xp, a, s: a + s, lambda xp, g, e: g, _G.OUT_GRAD),
    ("subtract", lambda xp, a, s: a - s, lambda xp, g, e: g, _G.OUT_GRAD),
    ("rsubtract", lambda xp, a, s: s - a, lambda xp, g, e: -g, _G.OUT_GRAD),
    ("multiply", lambda xp, a, s: a * s, lambda xp, g, e: g * g.dtype.type(e.scalar), _G.OUT_GRAD),
    (
        "mod",
        lambda xp, a, s: _mod_zero(xp, xp.mod(a, s), s),
        _mod_scalar_grad,
        _G.INPUT,
    ),
    (
        "rmod",
        lambda xp, a, s: _mod_zero(xp, xp.mod(s, a), a),
        _rmod_scalar_grad,
        _G.INPUT,
    ),
    (
        "power",
        lambda xp, a, s: xp.power(a, s),
        lambda xp, g, x, e: g * e.scalar * xp.power(_fx(g, x), e.scalar - 1),
        _G.INPUT,
    ),
    (
        "rpower",
        lambda xp, a, s: xp.power(s, a),
        lambda xp, g, y, e: g * _fx(g, y) * np.log(e.scalar),
        _G.OUTPUT,
    ),
    ("floor_divide", lambda xp, a, s: xp.floor_divide(a, s), lambda xp, g, e: g * 0, _G.OUT_GRAD),
    (
        "copysign",
        lambda xp, a, s: xp.copysign(a, s),
        lambda xp, g, x, e: g * xp.where(_fx(g, x) * e.scalar >= 0, 1, -1).astype(g.dtype),
        _G.INPUT,
    ),
    ("rcopysign", lambda xp, a, s: xp.copysign(s, a), lambda xp, g, e: g * 0, _G.OUT_GRAD),
    (
        "ldexp",
        lambda xp, a, s: a * a.dtype.type(2.0**s),
        lambda xp, g, e: g * g.dtype.type(2.0**e.scalar),
        _G.OUT_GRAD,
    ),
    (
        "rldexp",
        lambda xp, a, s: s * xp.power(a.dtype.type(2), a),
        lambda xp, g, y, e: g * _fx(g, y) * np.log(2.0),
        _G.OUTPUT,
    ),
    ("rfloor_divide", lambda xp, a, s: xp.floor_divide(s, a), lambda xp, g, e: g * 0, _G.OUT_GRAD),
]


def _scalar_op(
    name: str, fn: Any, grad: Any, needs: GradNeeds, doc: str, floating: bool, test_range: tuple
) -> None:
    """Register ``_npi_<name>_scalar``; ``floating``: computed in floating point, integer
    arrays giving float32 (true division, arctan2), never in place."""
    simple_op(
        f"_npi_{name}_scalar",
        forward=(_div_fwd if floating else _scalar_fwd)(fn),
        gradient=grad,
        grad_needs=needs,
        param_class=ScalarParam,
        dtype=_scalar_div_dtype if floating else _scalar_dtype,
        forward_inplace=not floating and needs is _G.OUT_GRAD,
        test=OpTest(params={"scalar": 1.5, "is_int": False}, low=test_range[0], high=test_range[1]),
        doc=doc,
    )


for _name, _fn, _grad, _needs in _SCALAR:
    _scalar_op(
        _name, _fn, _grad, _needs, f"NumPy's {_name} of an array and a scalar.", False, (0.5, 2.0)
    )

# computed in floating point, integer arrays giving float32: name, forward on (xp, array,
# scalar), gradient, what it reads, input range for the tests, what it is
_SCALAR_FLOAT = [
    (
        "true_divide",
        lambda xp, a, s: a / s,
        lambda xp, g, e: g / g.dtype.type(e.scalar),
        _G.OUT_GRAD,
        (0.5, 2.0),
        "true division of an array by a scalar (integers give float32)",
    ),
    (
        "rtrue_divide",
        lambda xp, a, s: s / a,
        lambda xp, g, x, e: -g * e.scalar / (_fx(g, x) * _fx(g, x)),
        _G.INPUT,
        (0.5, 2.0),
        "true division of a scalar by an array (integers give float32)",
    ),
    (
        "arctan2",
        lambda xp, a, s: xp.arctan2(a, s),
        lambda xp, g, x, e: g * e.scalar / (_fx(g, x) ** 2 + e.scalar**2),
        _G.INPUT,
        (-1.0, 1.0),
        "arctan2 of an array and a scalar",
    ),
    (
        "rarctan2",
        lambda xp, a, s: xp.arctan2(s, a),
        lambda xp, g, x, e: -g * e.scalar / (_fx(g, x) ** 2 + e.scalar**2),
        _G.INPUT,
        (-1.0, 1.0),
        "arctan2 of a scalar and an array",
    ),
]

for _name, _fn, _grad, _needs, _range, _what in _SCALAR_FLOAT:
    _scalar_op(_name, _fn, _grad, _needs, f"NumPy's {_what}.", True, _range)


def _compare_scalar(fn_name: str):
    def fwd(xp: Any, x: Any, env: Any, out: Any) -> Any:
        s = env.scalar
        # MXNet casts the scalar to the array's dtype first (int32 == 2.5 compares with 2)
        s = x.dtype.type(s) if x.dtype != BOOL else s
        return getattr(xp, fn_name)(x, s)

    return fwd


for _name in ("equal", "not_equal", "greater", "greater_equal", "less", "less_equal"):
    simple_op(
        f"_npi_{_name}_scalar",
        forward=_compare_scalar(_name),
        gradient=lambda xp, g, e: xp.zeros_like(g),
        param_class=ScalarParam,
        dtype=lambda a, p: BOOL,
        test=OpTest(params={"scalar": 0.5}, grad=False),
        doc=f"NumPy's {_name} of an array and a scalar: a bool array.",
    )

for _name in ("bitwise_and", "bitwise_or", "bitwise_xor", "lcm"):
    simple_op(
        f"_npi_{_name}_scalar",
        forward=(lambda n: lambda xp, x, env, out: getattr(xp, n)(x, x.dtype.type(env.scalar)))(
            _name
        ),
        gradient=lambda xp, g, e: xp.zeros_like(g),
        param_class=ScalarParam,
        dtype=lambda a, p: a,
        test=OpTest(params={"scalar": 3}, dtypes=("int32",), grad=False),
        doc=f"NumPy's {_name} of an integer or bool array and a scalar.",
    )


# ---- Python's operators -----------------------------------------------------------------------

# Python's binary operator (``"sub"`` for ``__sub__``/``__rsub__``/``__isub__``) -> the operator
# of two arrays, of an array and a scalar (``x - 2``) and of a scalar and an array (``2 - x``;
# None where the order does not matter). mx.np.ndarray and mx.sym.np._Symbol take their
# arithmetic, bitwise and comparison methods from it.
PY_OPERATORS: dict[str, tuple[str, str, str | None]] = {
    "add": ("_npi_add", "_npi_add_scalar", None),
    "sub": ("_npi_subtract", "_npi_subtract_scalar", "_npi_rsubtract_scalar"),
    "mul": ("_npi_multiply", "_npi_multiply_scalar", None),
    "truediv": ("_npi_true_divide", "_npi_true_divide_scalar", "_npi_rtrue_divide_scalar"),
    "floordiv": ("_npi_floor_divide", "_npi_floor_divide_scalar", "_npi_rfloor_divide_scalar"),
    "mod": ("_npi_mod", "_npi_mod_scalar", "_npi_rmod_scalar"),
    "pow": ("_npi_power", "_npi_power_scalar", "_npi_rpower_scalar"),
    "and": ("_npi_bitwise_and", "_npi_bitwise_and_scalar", None),
    "or": ("_npi_bitwise_or", "_npi_bitwise_or_scalar", None),
    "xor": ("_npi_bitwise_xor", "_npi_bitwise_xor_scalar", None),
    "eq": ("_npi_equal", "_npi_equal_scalar", None),
    "ne": ("_npi_not_equal", "_npi_not_equal_scalar", None),
    "gt": ("_npi_greater", "_npi_greater_scalar", "_npi_less_scalar"),
    "ge": ("_npi_greater_equal", "_npi_greater_equal_scalar", "_npi_less_equal_scalar"),
    "lt": ("_npi_less", "_npi_less_scalar", "_npi_greater_scalar"),
    "le": ("_npi_less_equal", "_npi_less_equal_scalar", "_npi_greater_equal_scalar"),
}
