"""MXNet's indexing-key helpers of ``mx.nd.ndarray`` (tests/ndarray/test_indexing_keys.py):
``indexing_key_expand_implicit_axes``, ``get_indexing_dispatch_code`` and
``get_oshape_of_gather_nd_op`` on a table of keys, results in the metadata (JSON: a slice is
``["slice", start, stop, step]``, an array ``{"array": values}``, Ellipsis ``"..."``), or the
exception's type name."""

from __future__ import annotations

from typing import Any

import mxnet as mx
import numpy as np
from mxnet.ndarray import ndarray as ndmod

FILE = "tests/ndarray/golden/indexing_keys.npz"
SEED = 0

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


def decode(k: Any) -> Any:
    if isinstance(k, list):
        if k and k[0] == "slice":
            return slice(*k[1:])
        return tuple(decode(i) for i in k) if k else ()
    if k == "...":
        return Ellipsis
    if isinstance(k, dict):
        ((kind, v),) = k.items()
        if kind == "nd":
            return mx.nd.array(v, dtype="int64")
        if kind == "npint":
            return mx.np.array(v, dtype="int64")
        if kind == "npfloat":
            return mx.np.array(v, dtype="float32")
        if kind == "npbool":
            return mx.np.array(v, dtype=np.bool_)
        if kind == "ndbool":
            return mx.nd.array(v, dtype=np.bool_)
        if kind == "numpy":
            return np.array(v)
        if kind == "range":
            return range(v)
        if kind == "list":
            return list(v)
    return k


def encode(v: Any) -> Any:
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


def outcome(fn: Any, *args: Any) -> Any:
    try:
        return {"ok": encode(fn(*args))}
    except Exception as e:  # the type is what the test compares
        return {"error": type(e).__name__}


def record(golden: Any) -> None:
    for name, key, np_mode in EXPAND:
        if np_mode:
            mx.npx.set_np()
        got = outcome(
            lambda key=key: ndmod.indexing_key_expand_implicit_axes(decode(key), tuple(SHAPE))
        )
        if np_mode:
            mx.npx.reset_np()
        golden.put(f"expand/{name}", {"key": key, "np": np_mode, "want": got})
    for name, key in DISPATCH:
        golden.put(
            f"dispatch/{name}",
            {"key": key, "want": outcome(ndmod.get_indexing_dispatch_code, decode(key))},
        )
    for name, dshape, ishape in GATHER:
        golden.put(
            f"gather/{name}",
            {
                "dshape": dshape,
                "ishape": ishape,
                "want": outcome(ndmod.get_oshape_of_gather_nd_op, tuple(dshape), tuple(ishape)),
            },
        )
    golden.put(
        "tables",
        {
            "grad_req": ndmod._GRAD_REQ_MAP,
            "stype_id_to_str": {str(k): v for k, v in ndmod._STORAGE_TYPE_ID_TO_STR.items()},
        },
    )
