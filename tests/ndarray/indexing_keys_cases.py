"""The keys of MXNet's indexing-key helpers of ``mx.nd.ndarray``, written as JSON and read the
same way on MXNet 1.9.1 and on mxlite (``mx`` is either): ``tools/golden/cases/indexing_keys.py``
records what MXNet's ``indexing_key_expand_implicit_axes``, ``get_indexing_dispatch_code`` and
``get_oshape_of_gather_nd_op`` make of them, ``test_indexing_keys.py`` compares. A key's JSON
form: a slice is ``["slice", start, stop, step]``, a tuple a list, Ellipsis ``"..."``, an array
``{kind: values}`` (see :func:`decode`); results are written back by :func:`encode`."""

from __future__ import annotations

from typing import Any

import numpy as np

SHAPE = [3, 4, 5]
# keys in JSON form (see decode); "np" marks keys that need numpy semantics (set_np)
# fmt: off
EXPAND = [
    ("int3", [2, 1, 1], False), ("one_int", 0, False), ("int_ellipsis", [0, "..."], False),
    ("slice_none_int", [["slice", None, 2, None], None, 0, "..."], False),
    ("ellipsis_mid", [1, "...", ["slice", 1, None, None]], False),
    ("two_ellipses", ["...", 0, "..."], False),
    ("zero_d_int", [{"npint": 2}, 1], True), ("zero_d_float", [{"npfloat": 1.7}], True),
    ("zero_d_bool_true", [{"npbool": True}, 1], True),
    ("zero_d_bool_false", [{"npbool": False}], True),
    ("py_bool", [True, 0], True),
    ("bool_2d", [{"npbool": [[True, False, True, False], [False, True, False, True],
                             [True, False, True, False]]}, None, ["slice", 0, 2, None]], True),
    ("bool_legacy", [{"ndbool": [True, False, True]}], False),
    ("bool_wrong_size", [{"npbool": [True, False]}], True),
]
DISPATCH = [
    ("basic", [1, ["slice", None, 2, None], None]), ("list", [{"list": [0, 1]}, 2]),
    ("empty_tuple", [[]]), ("ndarray", [{"nd": [0, 1]}]), ("numpy", [{"numpy": [1, 2]}]),
    ("range", [{"range": 3}]), ("float_bad", [1.5]), ("str_bad", ["a"]),
]
GATHER = [("a", [3, 4, 5], [2, 6]), ("b", [3, 4], [2, 7, 2]), ("c", [5], [1, 2, 3]),
          ("d", [2, 3], [3, 4])]
# fmt: on


def decode(mx: Any, k: Any) -> Any:
    """The key that JSON ``k`` stands for, its arrays made by ``mx``."""
    if isinstance(k, list):
        if k and k[0] == "slice":
            return slice(*k[1:])
        return tuple(decode(mx, i) for i in k)
    if k == "...":
        return Ellipsis
    if isinstance(k, dict):
        ((kind, v),) = k.items()
        return {
            "nd": lambda: mx.nd.array(v, dtype="int64"),
            "npint": lambda: mx.np.array(v, dtype="int64"),
            "npfloat": lambda: mx.np.array(v, dtype="float32"),
            "npbool": lambda: mx.np.array(v, dtype=np.bool_),
            "ndbool": lambda: mx.nd.array(v, dtype=np.bool_),
            "numpy": lambda: np.array(v),
            "range": lambda: range(v),
            "list": lambda: list(v),
        }[kind]()
    return k


def encode(v: Any) -> Any:
    """A helper's result in JSON form."""
    if isinstance(v, tuple):
        return [encode(i) for i in v]
    if isinstance(v, slice):
        return ["slice", v.start, v.stop, v.step]
    if v is Ellipsis:
        return "..."
    if hasattr(v, "asnumpy"):
        return {"array": v.asnumpy().tolist(), "dtype": str(v.asnumpy().dtype)}
    if isinstance(v, np.integer):
        return int(v)
    return v


def outcome(fn: Any, *args: Any) -> dict:
    """``{"ok": encoded result}``, or ``{"error": the exception's type name}``."""
    try:
        return {"ok": encode(fn(*args))}
    except Exception as e:  # the type is what the test compares
        return {"error": type(e).__name__}
