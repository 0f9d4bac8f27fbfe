"""How operator parameters are read and written: the parsers of each kind of field annotation
(Python values and MXNet's attribute strings alike), and the text MXNet 1.9.1 writes for a
value into symbol JSON. ``param.py`` builds the declarative ``Param`` structs on them.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import types
import typing
from collections.abc import Callable
from typing import Any

import numpy as np

# MXNet's dtype names, in the order of its type flags (mshadow kFloat32=0 ... kBfloat16=12 without
# the flags that no legacy operator accepts); a str field whose choices all come from here is a
# dtype field and also takes numpy dtypes and types, as MXNet's front end does.
DTYPE_NAMES: tuple[str, ...] = (
    *("float32", "float64", "float16", "uint8", "int32", "int8", "int64", "bool", "bfloat16"),
)

MISSING = dataclasses.MISSING


class Bad(Exception):
    """Raised by a parser: the value does not fit the field (message built by the caller)."""


# ---------------------------------------------------------------------------------------------
# Parsers: one small function per kind of annotation. Each takes a Python value or an attribute
# string and returns the canonical Python value, or raises Bad.

INT_RE = re.compile(r"\s*[+-]?[0-9]+\s*")
SHAPE_ITEM_RE = re.compile(r"[+-]?[0-9]+L?")
FLOAT_ITEM_RE = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def parse_int(value: Any) -> int:
    if type(value) is int:
        return value
    if isinstance(value, str):
        if INT_RE.fullmatch(value):
            return int(value)
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    raise Bad


def parse_float(value: Any) -> float:
    if type(value) is float or type(value) is int:
        return float(value)
    if isinstance(value, str):
        if "_" not in value:
            try:
                return float(value)
            except ValueError:
                pass
    elif isinstance(value, np.floating):
        return float(str(value))  # as MXNet: np.float32(0.1) is written "0.1" and read back
    elif isinstance(value, (float, int, np.integer)) and not isinstance(value, bool):
        return float(value)
    raise Bad


def parse_bool(value: Any) -> bool:
    if value is True or value is False:
        return value
    if isinstance(value, str):
        low = value.lower()
        if low in ("true", "1"):
            return True
        if low in ("false", "0"):
            return False
    elif isinstance(value, np.bool_):
        return bool(value)
    elif isinstance(value, (int, np.integer)) and value in (0, 1):
        return bool(value)
    raise Bad


def parse_str(value: Any) -> str:
    if isinstance(value, str):
        return str(value)
    raise Bad


def split_tuple(text: str) -> list[str]:
    """Split "(a, b)", "[a,b]", "(a,)", "()" or a bare "a" into its stripped items."""
    s = text.strip()
    if not s:
        raise Bad
    if s[0] not in "([":
        return [s]
    if s[-1] not in ")]":
        raise Bad
    items = [item.strip() for item in s[1:-1].split(",")]
    if items[-1] == "":
        items.pop()  # "(3,)" and "()"
    return items


def tuple_parser(item: Callable[[Any], Any], item_re: re.Pattern[str], none_ok: bool):
    """A parser for tuples whose items ``item`` parses (Python values; text matching item_re)."""

    def parse_text(text: str) -> Any:
        if none_ok and text == "None":
            return None
        if not item_re.fullmatch(text):
            raise Bad
        return item(float(text) if "." in text or "e" in text.lower() else int(text.rstrip("L")))

    def parse(value: Any) -> tuple:
        if isinstance(value, str):
            return tuple(parse_text(t) for t in split_tuple(value))
        if isinstance(value, np.ndarray) and value.ndim <= 1 and value.size == 1:
            value = value.tolist()  # MXNet reads str(array) "[5]"; "[3 3]" it cannot read
        if isinstance(value, (tuple, list)):
            return tuple(None if (none_ok and v is None) else item(v) for v in value)
        return (item(value),)  # a single number means a 1-tuple, as "3" does in MXNet

    return parse


def int_item(value: Any) -> int:
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    raise Bad


def float_item(value: Any) -> float:
    if isinstance(value, str):
        raise Bad  # MXNet would read str(['0.5']) and fail
    out = parse_float(value)
    if out != out or out in (float("inf"), float("-inf")):
        raise Bad  # MXNet cannot read "inf" or "nan" inside a tuple of floats
    return out


parse_shape_any = tuple_parser(int_item, SHAPE_ITEM_RE, none_ok=False)
parse_int_none_tuple = tuple_parser(int_item, SHAPE_ITEM_RE, none_ok=True)
parse_float_tuple = tuple_parser(float_item, FLOAT_ITEM_RE, none_ok=False)


def parse_shape(value: Any) -> tuple[int, ...]:
    if type(value) is tuple:
        for v in value:
            if type(v) is not int:
                break
        else:
            return value  # the common case: already a tuple of ints
    return parse_shape_any(value)


def parse_shape_tuple(value: Any) -> tuple[tuple[int, ...], ...]:
    """A tuple of shapes, as MXNet's ``Tuple<Tuple<int>>`` (np.pad's pad_width): Python tuples
    or lists, an int for ``((n,),)``, or the text MXNet writes, ``"((1, 2), (3, 4))"``."""
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            raise Bad from None
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return ((int(value),),)
    if not isinstance(value, (tuple, list)):
        raise Bad
    if all(isinstance(v, (int, np.integer)) for v in value):
        return (parse_shape_any(tuple(value)),)  # (before, after) for every axis
    return tuple(parse_shape_any(v) for v in value)


@dataclasses.dataclass(frozen=True)
class Kind:
    """One kind of annotation: its parser, its type words in MXNet's docstrings, what a bad value
    message says it expects, and an example for a missing required value."""

    parse: Callable[[Any], Any]
    words: str
    expect: str
    example: str


KINDS: dict[str, Kind] = {
    "int": Kind(parse_int, "int", "an int", "1"),
    "float": Kind(parse_float, "float", "a float", "0.5"),
    "bool": Kind(parse_bool, "boolean", "a boolean (True, False, 1 or 0)", "True"),
    "str": Kind(parse_str, "string", "a string", ""),
    "Shape": Kind(parse_shape, "Shape(tuple)", "a shape such as (3, 3)", "(3, 3)"),
    "tuple[int | None]": Kind(
        parse_int_none_tuple, "Shape(tuple)", "a tuple of ints or None", "(None, 1)"
    ),
    "tuple[float]": Kind(parse_float_tuple, "tuple of <float>", "a tuple of floats", "(0.5, 0.25)"),
    "tuple[Shape]": Kind(
        parse_shape_tuple, "tuple of <Shape(tuple)>", "a tuple of shapes", "((1, 2), (1, 2))"
    ),
}


def kind_of(tp: Any) -> tuple[str, bool]:
    """Map a resolved annotation to (key of KINDS, whether None is allowed)."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(tp)) == 2:
            return kind_of(args[0])[0], True
    elif origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            item = args[0]
            if item is int:
                return "Shape", False
            if item is float:
                return "tuple[float]", False
            if kind_of(item) == ("int", True):
                return "tuple[int | None]", False
            if typing.get_origin(item) is tuple and kind_of(item) == ("Shape", False):
                return "tuple[Shape]", False
    elif tp in (int, float, bool, str):
        return tp.__name__, False
    raise TypeError(f"Param: unsupported field annotation {tp!r}")


# ---------------------------------------------------------------------------------------------
# Writing values back as MXNet does: its front end passes str(value) for anything not a string,
# under NumPy 1.x, where numpy scalars print like Python numbers even inside tuples.


def item_text(value: Any) -> str:
    return str(value) if isinstance(value, np.generic) else repr(value)


def attr_text(value: Any) -> str:
    if isinstance(value, str):
        return str(value)
    if isinstance(value, tuple):
        inner = ", ".join(item_text(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(item_text(v) for v in value) + "]"
    return str(value)


def dtype_name(value: Any) -> str:
    """The name MXNet's front end passes for a dtype argument (np.float32 -> 'float32')."""
    if isinstance(value, str) and value in DTYPE_NAMES:
        return value
    try:
        dt = np.dtype(value)
    except TypeError:
        raise Bad from None
    return dt.names[0] if dt.names else dt.name
