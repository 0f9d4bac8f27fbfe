"""Reductions and ordering operators (tests/operator/test_reduce.py, test_ordering.py).

Data with ties is used only where MXNet's sort order among equal values is the stable one
(full sorts of at most 16 elements, or k=1). Cases are named by their index.
"""

import numpy as np
from core import seeded as data

FILE = "tests/operator/golden/reduce.npz"
SEED = 42


def with_nan(shape, dtype="float32", seed=0):
    x = data(shape, dtype, seed)
    x.reshape(-1)[::3] = np.nan
    return x


F32, F64, F16, I32 = "float32", "float64", "float16", "int32"
S = (2, 3, 4)

# (op, inputs, params, differentiable)
# fmt: off
CASES = [
    ("sum", [data(S)], {"axis": 1}, True),
    ("sum", [data(S, F64)], {"axis": (0, 2), "keepdims": True}, True),
    ("sum", [data(S)], {"axis": ()}, True),
    ("sum", [data(S)], {}, True),
    ("sum", [data(S)], {"axis": -1, "exclude": True}, True),
    ("sum", [data(S)], {"axis": (0, 2), "exclude": True, "keepdims": True}, True),
    ("sum", [data(S)], {"axis": (0, 1, 2), "exclude": True}, True),
    ("sum", [data(S, F16)], {"axis": 1}, True),
    ("sum", [data(S, I32, kind="int")], {"axis": 0}, False),
    ("sum", [(data(S, I32, kind="int") * 14).astype("int8")], {"axis": 1}, False),
    ("mean", [data(S)], {"axis": (1, 2)}, True),
    ("mean", [data(S, F64)], {"axis": 0, "keepdims": True}, True),
    ("mean", [data(S, F16)], {}, True),
    ("mean", [data(S, I32, kind="int")], {"axis": 1}, False),
    ("prod", [data(S, kind="pos")], {"axis": 1}, True),
    ("prod", [data((3, 4), F64, kind="ties")], {"axis": 1}, True),
    ("prod", [data(S, I32, kind="int")], {"axis": 2}, False),
    ("nansum", [with_nan(S)], {"axis": 1}, True),
    ("nansum", [with_nan(S, F64)], {"axis": (0, 2)}, True),
    ("nansum", [data(S, I32, kind="int")], {"axis": 1}, False),
    ("nanprod", [with_nan(S)], {"axis": 2}, True),
    ("nanprod", [data(S, F64, kind="pos")], {}, True),
    ("max", [data(S, kind="ties")], {"axis": 1}, True),
    ("max", [data(S, F64)], {"axis": (0, 2), "keepdims": True}, True),
    ("max", [data(S, kind="ties")], {"axis": 0, "exclude": True}, True),
    ("max", [data(S, F16)], {"axis": -1}, True),
    ("max", [data(S, I32, kind="int")], {"axis": 1}, False),
    ("min", [data(S, kind="ties")], {"axis": 2}, True),
    ("min", [data(S, F64, kind="ties")], {}, True),
    ("min", [data(S, I32, kind="int")], {"axis": (0, 1)}, False),
    ("norm", [data(S)], {}, True),
    ("norm", [data(S)], {"ord": 1, "axis": (0, 2)}, True),
    ("norm", [data(S, F64)], {"axis": 1, "keepdims": True}, True),
    ("norm", [data(S, F64)], {"ord": 1, "axis": -1}, True),
    ("norm", [data(S, F16)], {"axis": 2}, True),
    ("norm", [data(S)], {"axis": (1, 2), "out_dtype": "float32"}, True),
    ("norm", [data(S, I32, kind="int")], {"axis": 1}, False),
    ("norm", [data(S, I32, kind="ties")], {"axis": 2}, False),
    ("norm", [data(S, I32, kind="int")], {"ord": 1}, False),
    ("argmax", [data(S, kind="ties")], {"axis": 1}, True),
    ("argmax", [data(S)], {}, True),
    ("argmax", [data(S, F64)], {"axis": -1, "keepdims": True}, True),
    ("argmax", [data(S, F16)], {"axis": 0}, True),
    ("argmax", [data(S, I32, kind="int")], {"axis": 2}, False),
    ("argmax", [with_nan((3, 4))], {"axis": 1}, True),
    ("argmax", [data((5,))], {"axis": 0, "keepdims": True}, True),
    ("argmin", [data(S, kind="ties")], {"axis": 2}, True),
    ("argmin", [data(S, F64)], {"keepdims": True}, True),
    ("argmin", [with_nan((3, 4))], {"axis": 1}, True),
    ("argmax_channel", [data((3, 5), kind="ties")], {}, False),
    ("argmax_channel", [data(S, F64)], {}, False),
    ("moments", [data(S)], {"axes": (0, 2)}, True),
    ("moments", [data(S, F64)], {"axes": 1, "keepdims": True}, True),
    ("moments", [data(S)], {"axes": (0, 1, 2)}, True),
    ("moments", [data(S, F16)], {"axes": (2,)}, True),
    ("moments", [data(S, I32, kind="int")], {"axes": (1,)}, False),
    ("sort", [data((3, 5), kind="ties")], {}, False),  # MXNet's backward needs an explicit axis
    ("sort", [data((3, 5), kind="ties")], {"axis": -1}, True),
    ("sort", [data(S, F64)], {"axis": 0}, True),
    ("sort", [data((3, 4), kind="ties")], {"axis": None}, True),
    ("sort", [data(S)], {"is_ascend": False, "axis": 1}, True),
    ("sort", [data((3, 5), I32, kind="ties")], {"is_ascend": False}, False),
    ("sort", [data((4, 40), kind="distinct")], {"axis": 1}, True),
    ("argsort", [data((3, 5), kind="ties")], {}, True),
    ("argsort", [data((3, 6), kind="ties")], {"is_ascend": False}, True),
    ("argsort", [data((3, 4), F64, kind="ties")], {"axis": None, "dtype": "int32"}, True),
    ("argsort", [data(S)], {"axis": 1, "dtype": "float64"}, True),
    ("argsort", [data((3, 5), I32, kind="int")], {"axis": 0, "dtype": "int64"}, False),
    ("argsort", [data((2, 50), kind="distinct")], {"is_ascend": False, "dtype": "uint8"}, True),
    ("topk", [data((3, 5), kind="ties")], {}, True),
    ("topk", [data((3, 5), kind="ties")], {"k": 2, "ret_typ": "value"}, True),
    ("topk", [data(S, F64)], {"k": 2, "axis": 0, "ret_typ": "both"}, True),
    ("topk", [data(S)], {"k": 2, "axis": 1, "ret_typ": "mask"}, True),
    ("topk", [data((3, 5), kind="ties")], {"k": 0, "ret_typ": "value", "is_ascend": True}, True),
    ("topk", [data(S)], {"k": 3, "axis": None, "ret_typ": "value"}, True),
    ("topk", [data(S)], {"k": 3, "axis": None, "ret_typ": "mask"}, True),
    ("topk", [data((3, 6), kind="ties")],
     {"k": 3, "ret_typ": "both", "is_ascend": True, "dtype": "int64"}, True),
    ("topk", [data((3, 5), F16)], {"k": 2, "ret_typ": "value"}, True),
    ("topk", [data((3, 5), I32, kind="int")], {"k": 2, "ret_typ": "both", "dtype": "int32"}, False),
    ("topk", [data((4, 60), kind="distinct")], {"k": 5, "ret_typ": "both"}, True),
    ("topk", [data((4, 60), kind="ties")], {"k": 1, "ret_typ": "both"}, True),
    ("cumsum", [data(S)], {}, True),
    ("cumsum", [data(S, F64)], {"axis": 1}, True),
    ("cumsum", [data(S)], {"axis": 2, "dtype": "float64"}, True),
    ("cumsum", [data(S, F16)], {"axis": 0}, True),
    ("cumsum", [data(S, I32, kind="int")], {"axis": 2}, False),
    ("cumsum", [data(S, "int8", kind="int")], {"axis": 1}, False),
    ("cumsum", [data(S, kind="ties") > 0], {"axis": 1}, False),
    ("_histogram", [data((4, 5))], {"bin_cnt": 5, "range": (-1.5, 1.5)}, False),
    ("_histogram", [np.array([0, 1, 2, 2, 3, 4, 5, -1, 0.1, 4.9], F32)],
     {"bin_cnt": 5, "range": (0.0, 5.0)}, False),
    ("_histogram", [data((4, 5), F64), np.array([-2, -0.5, 0, 0.3, 2], F64)], {}, False),
    ("_histogram", [data((4, 5), I32, kind="int")], {"bin_cnt": 4, "range": (-5.0, 5.0)}, False),
    ("_histogram", [data((3, 3), kind="ties")], {"bin_cnt": 3, "range": (1.0, 1.0)}, False),
    ("_histogram", [np.linspace(-1, 1, 31).astype(F32)], {"bin_cnt": 7, "range": (-1.0, 1.0)},
     False),
    ("khatri_rao", [data((2, 3)), data((4, 3), seed=1)], {}, False),
    ("khatri_rao", [data((2, 2), F64), data((3, 2), F64, 1), data((2, 2), F64, 2)], {}, False),
    ("khatri_rao", [data((3, 4))], {}, False),
]
# fmt: on


def cases(rng: np.random.RandomState):
    for i, (op, inputs, params, grad) in enumerate(CASES):
        yield str(i), op, inputs, params, {"grad": grad, "head": "normal"}
