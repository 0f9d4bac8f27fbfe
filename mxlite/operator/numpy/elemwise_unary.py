"""NumPy-style unary operators (MXNet 1.9.1's np_elemwise_unary_op_basic.cc): ``_npi_exp``
and the other math functions, rounding, the bool-valued tests (``_npi_isnan``, ...),
``_np_copy``, ``_npx_relu`` and ``_npx_sigmoid``.

MXNet's rule kept here: the output has the input's dtype, so a math function of an integer
array is computed in floating point and truncated back (``exp(int32 [1, 2])`` is ``[2, 7]``);
a bool input raises. The tests (``isnan``, ``logical_not``, ...) give bool arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..parallel import relu_into
from ..param import Param, field
from ..registry import OpTest
from ..simple_op import GradNeeds, simple_op
from .dtypes import BOOL, no_bool

_IN = GradNeeds.INPUT
_OUT = GradNeeds.OUTPUT
_NONE = GradNeeds.OUT_GRAD


def _math(fn_name: str):
    def fwd(xp: Any, x: Any, env: Any, out: Any) -> Any:
        fn = getattr(xp, fn_name)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if out is not None and x.dtype.kind == "f":
                return fn(x, out=out)
            return fn(x)

    return fwd


def _fl(g: Any, x: Any) -> Any:
    return x if x.dtype == g.dtype else x.astype(g.dtype)


def _zero(xp: Any, g: Any, env: Any) -> Any:
    return xp.zeros_like(g)


# name, numpy function, gradient, what the gradient reads, input range for the tests
_UNARY: list[tuple[str, str, Any, GradNeeds, tuple[float, float]]] = [
    ("negative", "negative", lambda xp, g, e: -g, _NONE, (-1.0, 1.0)),
    ("reciprocal", "reciprocal", lambda xp, g, y, e: -g * y * y, _OUT, (0.5, 2.0)),
    ("absolute", "absolute", lambda xp, g, x, e: g * xp.sign(_fl(g, x)), _IN, (0.1, 1.0)),
    ("sign", "sign", _zero, _NONE, (0.1, 1.0)),
    ("rint", "rint", _zero, _NONE, (0.1, 0.4)),
    ("ceil", "ceil", _zero, _NONE, (0.1, 0.9)),
    ("floor", "floor", _zero, _NONE, (0.1, 0.9)),
    ("trunc", "trunc", _zero, _NONE, (0.1, 0.9)),
    ("fix", "fix", _zero, _NONE, (0.1, 0.9)),
    ("square", "square", lambda xp, g, x, e: 2 * g * _fl(g, x), _IN, (-1.0, 1.0)),
    ("sqrt", "sqrt", lambda xp, g, y, e: g / (2 * y), _OUT, (0.5, 2.0)),
    ("cbrt", "cbrt", lambda xp, g, y, e: g / (3 * y * y), _OUT, (0.5, 2.0)),
    ("exp", "exp", lambda xp, g, y, e: g * y, _OUT, (-1.0, 1.0)),
    ("log", "log", lambda xp, g, x, e: g / _fl(g, x), _IN, (0.5, 2.0)),
    ("log10", "log10", lambda xp, g, x, e: g / (_fl(g, x) * np.log(10.0)), _IN, (0.5, 2.0)),
    ("log2", "log2", lambda xp, g, x, e: g / (_fl(g, x) * np.log(2.0)), _IN, (0.5, 2.0)),
    ("log1p", "log1p", lambda xp, g, x, e: g / (1 + _fl(g, x)), _IN, (0.5, 2.0)),
    ("expm1", "expm1", lambda xp, g, x, e: g * xp.exp(_fl(g, x)), _IN, (-1.0, 1.0)),
    ("sin", "sin", lambda xp, g, x, e: g * xp.cos(_fl(g, x)), _IN, (-1.0, 1.0)),
    ("cos", "cos", lambda xp, g, x, e: -g * xp.sin(_fl(g, x)), _IN, (-1.0, 1.0)),
    ("tan", "tan", lambda xp, g, y, e: g * (1 + y * y), _OUT, (-1.0, 1.0)),
    ("arcsin", "arcsin", lambda xp, g, x, e: g / xp.sqrt(1 - _fl(g, x) ** 2), _IN, (-0.5, 0.5)),
    ("arccos", "arccos", lambda xp, g, x, e: -g / xp.sqrt(1 - _fl(g, x) ** 2), _IN, (-0.5, 0.5)),
    ("arctan", "arctan", lambda xp, g, x, e: g / (1 + _fl(g, x) ** 2), _IN, (-1.0, 1.0)),
    ("degrees", "degrees", lambda xp, g, e: g * (180.0 / np.pi), _NONE, (-1.0, 1.0)),
    ("radians", "radians", lambda xp, g, e: g * (np.pi / 180.0), _NONE, (-1.0, 1.0)),
    ("sinh", "sinh", lambda xp, g, x, e: g * xp.cosh(_fl(g, x)), _IN, (-1.0, 1.0)),
    ("cosh", "cosh", lambda xp, g, x, e: g * xp.sinh(_fl(g, x)), _IN, (-1.0, 1.0)),
    ("tanh", "tanh", lambda xp, g, y, e: g * (1 - y * y), _OUT, (-1.0, 1.0)),
    ("arcsinh", "arcsinh", lambda xp, g, x, e: g / xp.sqrt(_fl(g, x) ** 2 + 1), _IN, (-1.0, 1.0)),
    ("arccosh", "arccosh", lambda xp, g, x, e: g / xp.sqrt(_fl(g, x) ** 2 - 1), _IN, (1.5, 2.0)),
    ("arctanh", "arctanh", lambda xp, g, x, e: g / (1 - _fl(g, x) ** 2), _IN, (-0.5, 0.5)),
]

# the other mx.np names of these functions
_NP_ALSO = {"absolute": ("abs",), "degrees": ("rad2deg",), "radians": ("deg2rad",)}

for _name, _fn, _grad, _needs, (_lo, _hi) in _UNARY:
    simple_op(
        f"_npi_{_name}",
        forward=_math(_fn),
        gradient=_grad,
        grad_needs=_needs,
        arg_names=("x",),
        dtype=(lambda n: lambda a, p: no_bool(n, a))(f"_npi_{_name}"),
        forward_inplace=True,
        aliases=("_npi_abs",) if _name == "absolute" else (),
        facts={"np_unary": (_name, *_NP_ALSO.get(_name, ()))},
        test=OpTest(low=_lo, high=_hi),
        doc=f"NumPy's {_name}, element-wise; the output has the input's dtype.",
    )


def _bool_test(fn_name: str):
    def fwd(xp: Any, x: Any, env: Any, out: Any) -> Any:
        return getattr(xp, fn_name)(x)

    return fwd


for _name in ("logical_not", "isnan", "isinf", "isposinf", "isneginf", "isfinite"):
    simple_op(
        f"_npi_{_name}",
        forward=_bool_test(_name),
        gradient=_zero,
        arg_names=("x",),
        dtype=lambda a, p: BOOL,
        facts={"np_unary": (_name,)},
        test=OpTest(grad=False),
        doc=f"NumPy's {_name}, element-wise: a bool array.",
    )

simple_op(
    "_npi_bitwise_not",
    forward=lambda xp, x, env, out: xp.invert(x),
    gradient=_zero,
    arg_names=("x",),
    facts={"np_unary": ("invert", "bitwise_not")},
    test=OpTest(dtypes=("int32",), grad=False),
    doc="NumPy's bitwise_not (``~x``) of an integer or bool array.",
)

simple_op(
    "_np_copy",
    forward=lambda xp, x, env, out: x if out is None else xp.copyto(out, x) or out,
    gradient=lambda xp, g, e: g,
    arg_names=("a",),
    forward_inplace=True,
    gradient_inplace=True,
    test=OpTest(),
    facts={"np_signature": "(a, out=None)"},
    doc="A copy of the array (``np.copy``).",
)


def _relu(xp: Any, x: Any, env: Any, out: Any) -> Any:
    return relu_into(xp, x)


def _sigmoid(xp: Any, x: Any, env: Any, out: Any) -> Any:
    with np.errstate(over="ignore"):
        return 1 / (1 + xp.exp(-x))


simple_op(
    "_npx_relu",
    forward=_relu,
    gradient=lambda xp, g, y, e: g * (y > 0),
    grad_needs=_OUT,
    forward_inplace=True,
    gradient_inplace=True,
    test=OpTest(low=0.1, high=1.0),
    doc="Rectified linear unit, max(x, 0) (``npx.relu``).",
)
simple_op(
    "_npx_sigmoid",
    forward=_sigmoid,
    gradient=lambda xp, g, y, e: g * y * (1 - y),
    grad_needs=_OUT,
    forward_inplace=True,
    gradient_inplace=True,
    test=OpTest(),
    doc="Logistic sigmoid 1 / (1 + exp(-x)) (``npx.sigmoid``).",
)


class AroundParam(Param):
    decimals: int = field(default=0, doc="Number of decimal places to round to.")


simple_op(
    "_npi_around",
    forward=lambda xp, x, env, out: xp.around(x, env.param.decimals),
    gradient=_zero,
    arg_names=("x",),
    param_class=AroundParam,
    test=OpTest(low=0.1, high=0.4),
    doc="NumPy's around: round to ``decimals`` places, halves to even.",
)
