"""Shape, joining and indexing operators (tests/operator/test_shape.py, test_join.py,
test_gather.py): case ``i`` (named by its index) records the gradients of the inputs it lists
(None: every float input), and the entry ``reshape_inference`` holds MXNet's Reshape shape
inference on (shape, target, reverse) triples, each a shape or "error"."""

from typing import Any

import mxnet as mx
import numpy as np

FILE = "tests/operator/golden/shape.npz"
SEED = 7
RNG = np.random.RandomState(SEED)  # the inputs, drawn as the table is built


def x(*shape: int, dtype: str = "float32") -> np.ndarray:
    return RNG.uniform(-2, 2, size=shape).astype(dtype)


def ix(values: list, dtype: str = "float32") -> np.ndarray:
    return np.array(values, dtype=dtype)


# (op, inputs, params, indices of inputs that get a gradient (None: all float inputs))
# fmt: off
CASES: list[tuple[str, list[np.ndarray], dict, list[int] | None]] = [
    ("Reshape", [x(2, 3, 4)], {"shape": (-1,)}, None),
    ("Reshape", [x(2, 3, 4)], {"shape": (0, -1)}, None),
    ("reshape", [x(2, 3, 4)], {"shape": (4, 0, 2)}, None),
    ("Reshape", [x(2, 3, 4, dtype="float64")], {"shape": (-3, -2)}, None),
    ("Reshape", [x(2, 3, 4)], {"shape": (-4, 1, 2, -2)}, None),
    ("Reshape", [x(2, 3, 4, dtype="float16")], {"shape": (0, -4, -1, 1, 0)}, None),
    ("Reshape", [x(2, 3, 4)], {"shape": (-1, 0), "reverse": True}, None),
    ("Reshape", [x(2, 3, 4)], {"target_shape": (0, 4)}, None),
    ("Reshape", [x(2, 3, 4)], {"target_shape": (9, 0), "keep_highest": True}, None),
    ("Reshape", [x(2, 6, dtype="int32")], {"shape": (3, 4)}, []),
    ("reshape_like", [x(2, 3, 4), x(6, 4)], {}, None),
    ("reshape_like", [x(2, 3, 4), x(12, 5)],
     {"lhs_begin": 1, "lhs_end": 3, "rhs_begin": 0, "rhs_end": 1}, None),
    ("reshape_like", [x(2, 3, 4), x(5, 3, 2)],
     {"lhs_begin": -3, "lhs_end": -1, "rhs_begin": 1, "rhs_end": None}, None),
    ("Flatten", [x(2, 3, 4)], {}, None),
    ("flatten", [x(5, dtype="float64")], {}, None),
    ("expand_dims", [x(2, 3)], {"axis": 1}, None),
    ("expand_dims", [x(2, 3, dtype="float64")], {"axis": -1}, None),
    ("squeeze", [x(2, 1, 3, 1)], {}, None),
    ("squeeze", [x(2, 1, 3, 1)], {"axis": (1,)}, None),
    ("squeeze", [x(1, 1)], {}, None),
    ("transpose", [x(2, 3, 4)], {}, None),
    ("transpose", [x(2, 3, 4, dtype="float64")], {"axes": (1, 0, 2)}, None),
    ("SwapAxis", [x(2, 3, 4)], {"dim1": 0, "dim2": 2}, None),
    ("swapaxes", [x(2, 3, 4)], {"dim1": -1, "dim2": 1}, None),
    ("reverse", [x(2, 3, 4)], {"axis": (1,)}, None),
    ("flip", [x(2, 3, 4, dtype="float64")], {"axis": (0, 2)}, None),
    ("tile", [x(2, 3)], {"reps": (2,)}, None),
    ("tile", [x(2, 3)], {"reps": (2, 1, 2)}, None),
    ("repeat", [x(2, 3)], {"repeats": 2}, None),
    ("repeat", [x(2, 3, dtype="float64")], {"repeats": 3, "axis": 1}, None),
    ("repeat", [x(2, 3)], {"repeats": 2, "axis": -2}, None),
    ("Pad", [x(1, 2, 3, 3)],
     {"mode": "constant", "pad_width": (0, 0, 0, 0, 1, 2, 2, 1), "constant_value": 1.5}, None),
    ("pad", [x(1, 2, 3, 3, dtype="float64")],
     {"mode": "edge", "pad_width": (0, 0, 0, 0, 2, 1, 1, 2)}, None),
    ("pad", [x(2, 1, 3, 4)], {"mode": "reflect", "pad_width": (0, 0, 0, 0, 2, 1, 1, 3)}, None),
    ("pad", [x(1, 1, 2, 3, 2)], {"mode": "edge", "pad_width": (0, 0, 0, 0, 1, 0, 0, 1, 2, 1)},
     None),
    ("pad", [x(1, 1, 3, 3, 3)], {"mode": "reflect", "pad_width": (0, 0, 0, 0, 1, 2, 2, 1, 1, 1)},
     None),
    ("broadcast_to", [x(2, 1, 3)], {"shape": (2, 4, 3)}, None),
    ("broadcast_to", [x(1, 3, 1, dtype="float64")], {"shape": (4, 0, 2)}, None),
    ("broadcast_like", [x(1, 3), x(4, 3)], {}, None),
    ("broadcast_like", [x(1, 3), x(2, 5)], {"lhs_axes": (0,), "rhs_axes": (1,)}, None),
    ("broadcast_axis", [x(2, 1, 1)], {"axis": (1, 2), "size": (3, 4)}, None),
    ("broadcast_axes", [x(1, 3, dtype="float64")], {"axis": 0, "size": 2}, None),
    ("depth_to_space", [x(1, 8, 2, 3)], {"block_size": 2}, None),
    ("space_to_depth", [x(2, 2, 4, 6)], {"block_size": 2}, None),
    ("diag", [x(3, 4)], {}, None),
    ("diag", [x(3, 4)], {"k": 1}, None),
    ("diag", [x(3, 4, dtype="float64")], {"k": -2}, None),
    ("diag", [x(3)], {}, None),
    ("diag", [x(3)], {"k": -1}, None),
    ("diag", [x(2, 3, 4)], {"k": 1, "axis1": 0, "axis2": 2}, None),
    ("diag", [x(2, 3, 4)], {"axis1": -1, "axis2": 1}, None),
    ("shape_array", [x(2, 3, 4)], {}, []),
    ("size_array", [x(2, 3, 4)], {}, []),
    # join
    ("Concat", [x(2, 3), x(2, 2)], {"dim": 1}, None),
    ("concat", [x(1, 3), x(2, 3), x(3, 3)], {"dim": 0}, None),
    ("Concat", [x(2, 2, dtype="float64"), x(2, 3, dtype="float64")], {"dim": -1}, None),
    ("stack", [x(2, 3), x(2, 3)], {}, None),
    ("stack", [x(2, 3), x(2, 3), x(2, 3)], {"axis": -1}, None),
    ("SliceChannel", [x(2, 4, 3)], {"num_outputs": 2}, None),
    ("split", [x(2, 3, dtype="float64")], {"num_outputs": 3, "axis": 1, "squeeze_axis": True},
     None),
    ("split", [x(2, 4, 6)], {"num_outputs": 3, "axis": -1}, None),
    ("_split_v2", [x(2, 5)], {"indices": (0, 1, 3), "axis": 1}, None),
    ("_split_v2", [x(5, 3)], {"indices": (), "sections": 2, "axis": 0}, None),
    ("_split_v2", [x(3, 2, dtype="float64")],
     {"indices": (), "sections": 3, "axis": 0, "squeeze_axis": True}, None),
    # gather
    ("slice", [x(3, 4)], {"begin": (0, 1), "end": (2, 3)}, None),
    ("slice", [x(3, 4, 2)], {"begin": (None, None), "end": (None, None), "step": (None, -1)}, None),
    ("crop", [x(5, 4)], {"begin": (-4,), "end": (None,), "step": (2,)}, None),
    ("slice", [x(5, 6, dtype="float64")], {"begin": (4, 1), "end": (0, -1), "step": (-2, 3)}, None),
    ("slice_axis", [x(3, 4)], {"axis": 1, "begin": 1, "end": 3}, None),
    ("slice_axis", [x(3, 4, dtype="float64")], {"axis": 0, "begin": -2, "end": None}, None),
    ("slice_like", [x(3, 4), x(2, 3)], {}, [0]),
    ("slice_like", [x(3, 4, 5), x(2, 2, 2)], {"axes": (-1, 0)}, [0]),
    ("take", [x(4, 3), ix([0, 2, 5, -1])], {}, [0]),
    ("take", [x(4, 3, dtype="float64"), ix([[0, 4], [-2, 1]], "int32")], {"mode": "wrap"}, [0]),
    ("take", [x(2, 3, 4), ix([2, 0, 2])], {"axis": 1}, [0]),
    ("take", [x(2, 3, 4), ix([3, -1])], {"axis": -1, "mode": "wrap"}, [0]),
    ("batch_take", [x(4, 3), ix([0, 2, 1, 2], "int32")], {}, []),
    ("pick", [x(3, 4), ix([0, 3, 1])], {}, [0]),
    ("pick", [x(3, 4), ix([[2, 0, 1, 2]])], {"axis": 0, "keepdims": True}, [0]),
    ("pick", [x(3, 4, dtype="float64"), ix([5, -1, 2], "int32")], {"mode": "wrap"}, [0]),
    ("pick", [x(3, 4), ix([5, -1, 2])], {"mode": "clip", "axis": 1}, [0]),
    ("choose_element_0index", [x(2, 3, 4), ix([[1, 0, 2, 2], [0, 1, 1, 2]])], {"axis": 1}, [0]),
    ("one_hot", [ix([0, 2, 5, -1])], {"depth": 4}, []),
    ("one_hot", [ix([[1, 0], [3, 2]], "int32")],
     {"depth": 4, "on_value": 3, "off_value": -1, "dtype": "int32"}, []),
    ("one_hot", [ix([1, 0, 2])], {"depth": 3, "dtype": "float64", "on_value": 0.5}, []),
    ("gather_nd", [x(3, 4), ix([[0, 2], [1, 3]])], {}, [0]),
    ("gather_nd", [x(3, 4, 2), ix([[2, 0, 2]], "int32")], {}, [0]),
    ("gather_nd", [x(3, 4, dtype="float64"), ix([[0, 1, 2], [3, 2, 1]])], {}, [0]),
    ("scatter_nd", [x(3), ix([[0, 1, 3], [4, 2, 0]])], {"shape": (4, 5)}, [0]),
    ("scatter_nd", [x(2, 3, dtype="float64"), ix([[1, 0]], "int32")], {"shape": (2, 3)}, [0]),
    ("_ravel_multi_index", [ix([[0, 3, 1], [4, 2, 0]])], {"shape": (4, 5)}, []),
    ("ravel_multi_index", [ix([[0, 1], [1, 2], [3, 0]], "int32")], {"shape": (2, 3, 4)}, []),
    ("_unravel_index", [ix([3, 7, 19])], {"shape": (4, 5)}, []),
    ("unravel_index", [ix([0, 23, 11], "int32")], {"shape": (2, 3, 4)}, []),
    ("_slice_assign", [x(3, 4), x(2, 2)], {"begin": (0, 1), "end": (2, 3)}, []),
    ("_slice_assign", [x(4, 5, dtype="float64"), x(2, 2, dtype="float64")],
     {"begin": (3, None), "end": (None, 1), "step": (-2, -2)}, []),
    ("_slice_assign_scalar", [x(4, 3)], {"scalar": 7, "begin": (1,), "end": (3,)}, []),
    ("_crop_assign_scalar", [x(4, 3)],
     {"scalar": -1.5, "begin": (None, 0), "end": (None, 3), "step": (3, 2)}, []),
]
# fmt: on

# (source shape, target, reverse) for Reshape's shape inference
RESHAPES: list[tuple[tuple, tuple, bool]] = [
    ((2, 3, 4), (4, 0, 2), False),
    ((2, 3, 4), (2, 0, 0), False),
    ((2, 3, 4), (6, 1, -1), False),
    ((2, 3, 4), (3, -1, 8), False),
    ((2, 3, 4), (-1,), False),
    ((2, 3, 4), (-2,), False),
    ((2, 3, 4), (2, -2), False),
    ((2, 3, 4), (-2, 1, 1), False),
    ((2, 3, 4), (-3, 4), False),
    ((2, 3, 4, 5), (-3, -3), False),
    ((2, 3, 4), (0, -3), False),
    ((2, 3, 4, 5), (-3, -1), False),
    ((2, 3, 4), (-4, 1, 2, -2), False),
    ((2, 3, 4), (2, -4, -1, 3, -2), False),
    ((2, 3, 4), (-4, -1, 1, 0, 0), False),
    ((10, 5, 4), (-1, 0), False),
    ((10, 5, 4), (-1, 0), True),
    ((2, 3, 4), (0, 0, -1), True),
    ((2, 3, 4), (-1, 2, 2), True),
    ((2, 3, 4), (-2, -1), True),
    ((2, 3, 4), (-3, 0), True),
    ((2, 3, 4), (0, -3), True),
    ((6, 4), (-4, 2, 3, 0), True),
    ((2, 3, 4), (24,), False),
    ((2, 3, 4), (0, 0, 0, 1), False),
    ((2, 3, 4), (5, -1), False),
    ((2, 3, 4), (-1, -1), False),
    ((2, 3, 4), (0, 0, 0, 0), False),
    ((2, 3, 4), (-4, -1, -1, -2), False),
    ((2, 3, 4), (-4, 5, -1, -2), False),
    ((2, 3, 4), (-3, -3), False),
    ((2, 3, 4), (-4, 1), False),
    ((2, 3, 4), (7,), False),
    ((2, 3, 4), (-5, 24), False),
    ((4,), (-1, 2, 2), False),
    ((1,), (-1,), False),
    ((2, 3, 4), (2, 3, 4, -2), False),
    ((2, 3, 4), (-1, 1, 1, 1), False),
]


def cases(rng: np.random.RandomState):
    for i, (op, inputs, params, grad_of) in enumerate(CASES):
        if grad_of is None:
            grad_of = [j for j, a in enumerate(inputs) if a.dtype.kind == "f"]
        yield str(i), op, inputs, params, {"wrt": grad_of, "grad_of": grad_of}


def reshape_result(src: tuple, target: tuple, reverse: bool) -> list[int] | str:
    try:
        # symbolic inference: the imperative op does not check the size (it corrupts memory)
        sym = mx.sym.Reshape(mx.sym.var("x"), shape=target, reverse=reverse)
        out = sym.infer_shape(x=src)[1][0]
    except (mx.base.MXNetError, ValueError):
        return "error"
    return list(out) if np.prod(out) == np.prod(src) and min(out) > 0 else "error"


def record(golden: Any) -> None:
    reshapes = [
        {"src": list(s), "target": list(t), "reverse": r, "result": reshape_result(s, t, r)}
        for s, t, r in RESHAPES
    ]
    golden.put("reshape_inference", {"reshapes": reshapes})
