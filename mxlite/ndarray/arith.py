"""NDArray arithmetic and comparison: MXNet's dispatch of ``a op b`` to operators.

NDArray with NDArray goes to ``broadcast_*``; NDArray with a Python or NumPy scalar to the
``*_scalar`` operators (reflected forms for ``scalar op array``); in-place forms write into
the left operand with ``out=``. Any other operand type is a TypeError, as in MXNet.
"""

from __future__ import annotations

import operator as _pyop
from typing import Any

from ..base import numeric_types
from ..operator import registry
from .invoke import invoke
from .ndarray import NDArray, extend

__all__ = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "modulo",
    "power",
    "maximum",
    "minimum",
    "equal",
    "not_equal",
    "greater",
    "greater_equal",
    "lesser",
    "lesser_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "negative",
]


def _helper(
    lhs: Any,
    rhs: Any,
    array_op: str,
    py_fn: Any,
    scalar_op: str,
    rscalar_op: str | None,
    out: Any = None,
) -> Any:
    if isinstance(lhs, numeric_types):
        if isinstance(rhs, numeric_types):
            return py_fn(lhs, rhs)
        if isinstance(rhs, NDArray):
            op = rscalar_op or scalar_op  # commutative ops reuse the plain scalar form
            return invoke(registry.get(op).get_prop({"scalar": float(lhs)}), [rhs], out)
    elif isinstance(lhs, NDArray):
        if isinstance(rhs, NDArray):
            return invoke(registry.get(array_op).get_prop({}), [lhs, rhs], out)
        if isinstance(rhs, numeric_types):
            return invoke(registry.get(scalar_op).get_prop({"scalar": float(rhs)}), [lhs], out)
    bad = rhs if isinstance(lhs, (NDArray, *numeric_types)) else lhs
    raise TypeError(
        f"type {type(bad).__name__} not supported; operands must be NDArrays or numbers"
    )


def _make(array_op: str, py_fn: Any, scalar_op: str, rscalar_op: str | None, doc: str):
    def fn(lhs: Any, rhs: Any) -> Any:
        return _helper(lhs, rhs, array_op, py_fn, scalar_op, rscalar_op)

    fn.__doc__ = doc
    return fn


add = _make("broadcast_add", _pyop.add, "_plus_scalar", None, "lhs + rhs, with broadcasting.")
subtract = _make(
    "broadcast_sub", _pyop.sub, "_minus_scalar", "_rminus_scalar", "lhs - rhs, with broadcasting."
)
multiply = _make("broadcast_mul", _pyop.mul, "_mul_scalar", None, "lhs * rhs, broadcasting.")
divide = _make(
    "broadcast_div", _pyop.truediv, "_div_scalar", "_rdiv_scalar", "lhs / rhs, with broadcasting."
)
true_divide = divide
modulo = _make("broadcast_mod", _pyop.mod, "_mod_scalar", "_rmod_scalar", "lhs % rhs.")
power = _make("broadcast_power", _pyop.pow, "_power_scalar", "_rpower_scalar", "lhs ** rhs.")
maximum = _make("broadcast_maximum", max, "_maximum_scalar", None, "Element-wise maximum.")
minimum = _make("broadcast_minimum", min, "_minimum_scalar", None, "Element-wise minimum.")
equal = _make(
    "broadcast_equal",
    lambda x, y: int(x == y),
    "_equal_scalar",
    None,
    "1 where lhs == rhs, else 0.",
)
not_equal = _make(
    "broadcast_not_equal",
    lambda x, y: int(x != y),
    "_not_equal_scalar",
    None,
    "1 where lhs != rhs, else 0.",
)
greater = _make(
    "broadcast_greater",
    lambda x, y: int(x > y),
    "_greater_scalar",
    "_lesser_scalar",
    "1 where lhs > rhs, else 0.",
)
greater_equal = _make(
    "broadcast_greater_equal",
    lambda x, y: int(x >= y),
    "_greater_equal_scalar",
    "_lesser_equal_scalar",
    "1 where lhs >= rhs.",
)
lesser = _make(
    "broadcast_lesser",
    lambda x, y: int(x < y),
    "_lesser_scalar",
    "_greater_scalar",
    "1 where lhs < rhs, else 0.",
)
lesser_equal = _make(
    "broadcast_lesser_equal",
    lambda x, y: int(x <= y),
    "_lesser_equal_scalar",
    "_greater_equal_scalar",
    "1 where lhs <= rhs.",
)
logical_and = _make(
    "broadcast_logical_and",
    lambda x, y: int(bool(x and y)),
    "_logical_and_scalar",
    None,
    "Element-wise logical and (1 or 0).",
)
logical_or = _make(
    "broadcast_logical_or",
    lambda x, y: int(bool(x or y)),
    "_logical_or_scalar",
    None,
    "Element-wise logical or (1 or 0).",
)
logical_xor = _make(
    "broadcast_logical_xor",
    lambda x, y: int(bool(x) ^ bool(y)),
    "_logical_xor_scalar",
    None,
    "Element-wise logical xor (1 or 0).",
)


def negative(x: NDArray) -> NDArray:
    """-x, element-wise."""
    return invoke(registry.get("_mul_scalar").get_prop({"scalar": -1.0}), [x])


def _binary_dunder(fn: Any, reflected: bool = False) -> Any:
    if reflected:
        return lambda self, other: fn(other, self)
    return lambda self, other: fn(self, other)


def _inplace(array_op: str, scalar_op: str) -> Any:
    def method(self: NDArray, other: Any) -> NDArray:
        if not self.writable:
            raise ValueError("trying to modify a read-only NDArray in place")
        return _helper(self, other, array_op, None, scalar_op, None, out=self)

    return method


def install() -> None:
    """Attach the operators to NDArray (called once by mxlite.ndarray)."""
    members: dict[str, Any] = {}
    table = {
        "add": add,
        "sub": subtract,
        "mul": multiply,
        "truediv": divide,
        "div": divide,
        "mod": modulo,
        "pow": power,
    }
    for name, fn in table.items():
        members[f"__{name}__"] = _binary_dunder(fn)
        members[f"__r{name}__"] = _binary_dunder(fn, reflected=True)
    members["__radd__"] = _binary_dunder(add)
    members["__rmul__"] = _binary_dunder(multiply)
    for name, (a_op, s_op) in {
        "add": ("broadcast_add", "_plus_scalar"),
        "sub": ("broadcast_sub", "_minus_scalar"),
        "mul": ("broadcast_mul", "_mul_scalar"),
        "truediv": ("broadcast_div", "_div_scalar"),
        "div": ("broadcast_div", "_div_scalar"),
        "mod": ("broadcast_mod", "_mod_scalar"),
        "pow": ("broadcast_power", "_power_scalar"),
    }.items():
        members[f"__i{name}__"] = _inplace(a_op, s_op)
    members.update(
        __eq__=_binary_dunder(equal),
        __ne__=_binary_dunder(not_equal),
        __gt__=_binary_dunder(greater),
        __ge__=_binary_dunder(greater_equal),
        __lt__=_binary_dunder(lesser),
        __le__=_binary_dunder(lesser_equal),
        __neg__=negative,
        __pos__=lambda self: self,
        __hash__=object.__hash__,
    )
    extend(__name__, members)
