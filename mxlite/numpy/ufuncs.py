"""``mx.np`` element-wise functions: arithmetic (``add`` ... ``power``), comparisons, logical
and bitwise functions, the unary math functions, ``maximum``/``minimum``, ``where``, ``clip``.

A function of two operands dispatches as MXNet's ufunc helper does: two arrays run the
broadcast operator (``_npi_add``), an array and a Python or NumPy scalar the ``_scalar`` form
(``_npi_rsubtract_scalar`` when the scalar comes first), two scalars Python's own operator.
A unary function of a Python scalar gives NumPy's result.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ndarray import NDArray
from ..operator import registry
from ..util import wrap_np_binary_func, wrap_np_unary_func
from .multiarray import NUMERIC, binary, call, is_tensor, ndarray

__all__ = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "floor_divide",
    "mod",
    "remainder",
    "power",
    "hypot",
    "arctan2",
    "copysign",
    "ldexp",
    "lcm",
    "maximum",
    "minimum",
    "equal",
    "not_equal",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "where",
    "clip",
    "UNARY",
]


def _binary(name: str, op: str, scalar: str, rscalar: str | None, doc: str):
    def fn(x1: Any, x2: Any, out: Any = None) -> Any:
        return binary(x1, x2, op, scalar, rscalar, out=out)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (
        f"{doc}, element-wise, with broadcasting.\n\nParameters\n----------\n"
        "x1, x2 : ndarray or scalar\n    The operands.\nout : ndarray, optional\n"
        "    Where to write the result.\n\nReturns\n-------\nndarray or scalar\n"
    )
    return wrap_np_binary_func(fn)


add = _binary("add", "_npi_add", "_npi_add_scalar", None, "x1 + x2")
subtract = _binary(
    "subtract", "_npi_subtract", "_npi_subtract_scalar", "_npi_rsubtract_scalar", "x1 - x2"
)
multiply = _binary("multiply", "_npi_multiply", "_npi_multiply_scalar", None, "x1 * x2")
true_divide = _binary(
    "true_divide", "_npi_true_divide", "_npi_true_divide_scalar", "_npi_rtrue_divide_scalar",
    "x1 / x2 (integers give float32)",
)  # fmt: skip
divide = true_divide
floor_divide = _binary(
    "floor_divide", "_npi_floor_divide", "_npi_floor_divide_scalar",
    "_npi_rfloor_divide_scalar", "x1 // x2",
)  # fmt: skip
mod = _binary("mod", "_npi_mod", "_npi_mod_scalar", "_npi_rmod_scalar", "x1 % x2")
remainder = mod
power = _binary("power", "_npi_power", "_npi_power_scalar", "_npi_rpower_scalar", "x1 ** x2")
hypot = _binary("hypot", "_npi_hypot", "_npi_hypot_scalar", None, "sqrt(x1**2 + x2**2)")
arctan2 = _binary(
    "arctan2", "_npi_arctan2", "_npi_arctan2_scalar", "_npi_rarctan2_scalar", "arctan(x1 / x2)"
)
copysign = _binary("copysign", "_npi_copysign", "_npi_copysign_scalar", "_npi_rcopysign_scalar",
                   "x1 with the sign of x2")  # fmt: skip
ldexp = _binary("ldexp", "_npi_ldexp", "_npi_ldexp_scalar", "_npi_rldexp_scalar", "x1 * 2**x2")
lcm = _binary("lcm", "_npi_lcm", "_npi_lcm_scalar", None, "lowest common multiple of |x1|, |x2|")
maximum = _binary("maximum", "_npi_maximum", "_npi_maximum_scalar", None, "max(x1, x2)")
minimum = _binary("minimum", "_npi_minimum", "_npi_minimum_scalar", None, "min(x1, x2)")
bitwise_and = _binary("bitwise_and", "_npi_bitwise_and", "_npi_bitwise_and_scalar", None,
                      "x1 & x2")  # fmt: skip
bitwise_or = _binary("bitwise_or", "_npi_bitwise_or", "_npi_bitwise_or_scalar", None, "x1 | x2")
bitwise_xor = _binary("bitwise_xor", "_npi_bitwise_xor", "_npi_bitwise_xor_scalar", None,
                      "x1 ^ x2")  # fmt: skip


def _compare(name: str, reflected: str, doc: str):
    return _binary(name, f"_npi_{name}", f"_npi_{name}_scalar", f"_npi_{reflected}_scalar", doc)


equal = _compare("equal", "equal", "x1 == x2 (a bool array)")
not_equal = _compare("not_equal", "not_equal", "x1 != x2 (a bool array)")
greater = _compare("greater", "less", "x1 > x2 (a bool array)")
greater_equal = _compare("greater_equal", "less_equal", "x1 >= x2 (a bool array)")
less = _compare("less", "greater", "x1 < x2 (a bool array)")
less_equal = _compare("less_equal", "greater_equal", "x1 <= x2 (a bool array)")


def _logical(name: str):
    def fn(x1: Any, x2: Any, out: Any = None) -> Any:
        a = x1 if isinstance(x1, NDArray) else _full_as(x2, x1)
        b = x2 if isinstance(x2, NDArray) else _full_as(x1, x2)
        if not isinstance(a, NDArray):
            return getattr(np, name)(x1, x2)
        return call(f"_npi_{name}", a, b, out=out)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"NumPy's {name} of two arrays (or an array and a scalar): a bool array."
    return fn


def _full_as(like: Any, value: Any) -> Any:
    if not isinstance(like, NDArray):
        return value
    return call("_npi_full", ctx=like.context, shape=(), value=float(value), dtype="float32")


logical_and = _logical("logical_and")
logical_or = _logical("logical_or")
logical_xor = _logical("logical_xor")


# ---- unary functions ----------------------------------------------------------------------------

# mx.np name -> the operator computing it, as the operators declare (np_unary)
UNARY = registry.np_unary_functions()


def unary_function(name: str, op: str) -> Any:
    """The ``mx.np`` function ``name`` running the unary operator ``op``."""
    numpy_fn = getattr(np, name)

    def fn(x: Any, out: Any = None) -> Any:
        if is_tensor(x):
            return call(op, x, out=out)
        if isinstance(x, NUMERIC):
            return numpy_fn(x)
        raise TypeError(f"{name}: argument 'x' must be an mx.np array or a scalar, "
                        f"got {type(x).__name__}.")  # fmt: skip

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (
        f"NumPy's {name}, element-wise (operator ``{op}``); the output has the input's "
        "dtype.\n\nParameters\n----------\nx : ndarray or scalar\nout : ndarray, optional\n"
    )
    return wrap_np_unary_func(fn)


def where(condition: Any, x: Any = None, y: Any = None) -> Any:
    """Elements of ``x`` where ``condition`` is true, else of ``y`` (broadcast); with only a
    condition, the indices of its non-zero elements."""
    if x is None and y is None:
        return condition.nonzero()
    if is_tensor(x) and is_tensor(y):
        return call("_npi_where", condition, x, y)
    if is_tensor(x):
        return call("_npi_where_rscalar", condition, x, scalar=float(y))
    if is_tensor(y):
        return call("_npi_where_lscalar", condition, y, scalar=float(x))
    return call("_npi_where_scalar2", condition, x=float(x), y=float(y))


def clip(a: ndarray, a_min: Any, a_max: Any, out: Any = None) -> ndarray:
    """Limit the values of ``a`` to [a_min, a_max]; None leaves that side open. A Python or
    NumPy scalar ``a`` gives official NumPy's result, as in MXNet."""
    if isinstance(a, NUMERIC):
        return np.clip(a, a_min, a_max)
    res = a.clip(a_min, a_max)
    if out is not None:
        out[...] = res
        return out
    return res
