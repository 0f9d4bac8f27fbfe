"""Shape, joining and indexing operators (tests/operator/test_shape.py, test_join.py,
test_gather.py): case ``i`` (named by its index) records the gradients of the inputs it lists
(None: every float input), and the entry ``reshape_inference`` holds MXNet's Reshape shape
inference on (shape, target, reverse) triples, each a shape or "error"."""

from functools import partial

import mxnet as mx
import numpy as np
from core import Golden, row

FILE = "tests/operator/golden/shape.npz"
SEED = 7
RNG = np.random.RandomState(SEED)  # the inputs, drawn as the table is built


def x(*shape: int, dtype: str = "float32") -> np.ndarray:
    return RNG.uniform(-2, 2, size=shape).astype(dtype)


def ix(values: list, dtype: str = "float32") -> np.ndarray:
    return np.array(values, dtype=dtype)


# (op, inputs, params, indices of inputs that get a gradient (None: all float inputs))
r = partial(row, wrt=None)
# fmt: off
CASES = [
    r("Reshape", x(2, 3, 4), shape=(-1,)),
    r("Reshape", x(2, 3, 4), shape=(0, -1)),
    r("reshape", x(2, 3, 4), shape=(4, 0, 2)),
    r("Reshape", x(2, 3, 4, dtype="float64"), shape=(-3, -2)),
    r("Reshape", x(2, 3, 4), shape=(-4, 1, 2, -2)),
    r("Reshape", x(2, 3, 4, dtype="float16"), shape=(0, -4, -1, 1, 0)),
    r("Reshape", x(2, 3, 4), shape=(-1, 0), reverse=True),
    r("Reshape", x(2, 3, 4), target_shape=(0, 4)),
    r("Reshape", x(2, 3, 4), target_shape=(9, 0), keep_highest=True),
    r("Reshape", x(2, 6, dtype="int32"), wrt=[], shape=(3, 4)),
    r("reshape_like", x(2, 3, 4), x(6, 4)),
    r("reshape_like", x(2, 3, 4), x(12, 5), lhs_begin=1, lhs_end=3, rhs_begin=0, rhs_end=1),
    r("reshape_like", x(2, 3, 4), x(5, 3, 2), lhs_begin=-3, lhs_end=-1, rhs_begin=1, rhs_end=None),
    r("Flatten", x(2, 3, 4)),
    r("flatten", x(5, dtype="float64")),
    r("expand_dims", x(2, 3), axis=1),
    r("expand_dims", x(2, 3, dtype="float64"), axis=-1),
    r("squeeze", x(2, 1, 3, 1)),
    r("squeeze", x(2, 1, 3, 1), axis=(1,)),
    r("squeeze", x(1, 1)),
    r("transpose", x(2, 3, 4)),
    r("transpose", x(2, 3, 4, dtype="float64"), axes=(1, 0, 2)),
    r("SwapAxis", x(2, 3, 4), dim1=0, dim2=2),
    r("swapaxes", x(2, 3, 4), dim1=-1, dim2=1),
    r("reverse", x(2, 3, 4), axis=(1,)),
    r("flip", x(2, 3, 4, dtype="float64"), axis=(0, 2)),
    r("tile", x(2, 3), reps=(2,)),
    r("tile", x(2, 3), reps=(2, 1, 2)),
    r("repeat", x(2, 3), repeats=2),
    r("repeat", x(2, 3, dtype="float64"), repeats=3, axis=1),
    r("repeat", x(2, 3), repeats=2, axis=-2),
    r("Pad", x(1, 2, 3, 3), mode="constant", pad_width=(0, 0, 0, 0, 1, 2, 2, 1),
      constant_value=1.5),
    r("pad", x(1, 2, 3, 3, dtype="float64"), mode="edge", pad_width=(0, 0, 0, 0, 2, 1, 1, 2)),
    r("pad", x(2, 1, 3, 4), mode="reflect", pad_width=(0, 0, 0, 0, 2, 1, 1, 3)),
    r("pad", x(1, 1, 2, 3, 2), mode="edge", pad_width=(0, 0, 0, 0, 1, 0, 0, 1, 2, 1)),
    r("pad", x(1, 1, 3, 3, 3), mode="reflect", pad_width=(0, 0, 0, 0, 1, 2, 2, 1, 1, 1)),
    r("broadcast_to", x(2, 1, 3), shape=(2, 4, 3)),
    r("broadcast_to", x(1, 3, 1, dtype="float64"), shape=(4, 0, 2)),
    r("broadcast_like", x(1, 3), x(4, 3)),
    r("broadcast_like", x(1, 3), x(2, 5), lhs_axes=(0,), rhs_axes=(1,)),
    r("broadcast_axis", x(2, 1, 1), axis=(1, 2), size=(3, 4)),
    r("broadcast_axes", x(1, 3, dtype="float64"), axis=0, size=2),
    r("depth_to_space", x(1, 8, 2, 3), block_size=2),
    r("space_to_depth", x(2, 2, 4, 6), block_size=2),
    r("diag", x(3, 4)),
    r("diag", x(3, 4), k=1),
    r("diag", x(3, 4, dtype="float64"), k=-2),
    r("diag", x(3)),
    r("diag", x(3), k=-1),
    r("diag", x(2, 3, 4), k=1, axis1=0, axis2=2),
    r("diag", x(2, 3, 4), axis1=-1, axis2=1),
    r("shape_array", x(2, 3, 4), wrt=[]),
    r("size_array", x(2, 3, 4), wrt=[]),
    # join
    r("Concat", x(2, 3), x(2, 2), dim=1),
    r("concat", x(1, 3), x(2, 3), x(3, 3), dim=0),
    r("Concat", x(2, 2, dtype="float64"), x(2, 3, dtype="float64"), dim=-1),
    r("stack", x(2, 3), x(2, 3)),
    r("stack", x(2, 3), x(2, 3), x(2, 3), axis=-1),
    r("SliceChannel", x(2, 4, 3), num_outputs=2),
    r("split", x(2, 3, dtype="float64"), num_outputs=3, axis=1, squeeze_axis=True),
    r("split", x(2, 4, 6), num_outputs=3, axis=-1),
    r("_split_v2", x(2, 5), indices=(0, 1, 3), axis=1),
    r("_split_v2", x(5, 3), indices=(), sections=2, axis=0),
    r("_split_v2", x(3, 2, dtype="float64"), indices=(), sections=3, axis=0, squeeze_axis=True),
    # gather
    r("slice", x(3, 4), begin=(0, 1), end=(2, 3)),
    r("slice", x(3, 4, 2), begin=(None, None), end=(None, None), step=(None, -1)),
    r("crop", x(5, 4), begin=(-4,), end=(None,), step=(2,)),
    r("slice", x(5, 6, dtype="float64"), begin=(4, 1), end=(0, -1), step=(-2, 3)),
    r("slice_axis", x(3, 4), axis=1, begin=1, end=3),
    r("slice_axis", x(3, 4, dtype="float64"), axis=0, begin=-2, end=None),
    r("slice_like", x(3, 4), x(2, 3), wrt=[0]),
    r("slice_like", x(3, 4, 5), x(2, 2, 2), wrt=[0], axes=(-1, 0)),
    r("take", x(4, 3), ix([0, 2, 5, -1]), wrt=[0]),
    r("take", x(4, 3, dtype="float64"), ix([[0, 4], [-2, 1]], "int32"), wrt=[0], mode="wrap"),
    r("take", x(2, 3, 4), ix([2, 0, 2]), wrt=[0], axis=1),
    r("take", x(2, 3, 4), ix([3, -1]), wrt=[0], axis=-1, mode="wrap"),
    r("batch_take", x(4, 3), ix([0, 2, 1, 2], "int32"), wrt=[]),
    r("pick", x(3, 4), ix([0, 3, 1]), wrt=[0]),
    r("pick", x(3, 4), ix([[2, 0, 1, 2]]), wrt=[0], axis=0, keepdims=True),
    r("pick", x(3, 4, dtype="float64"), ix([5, -1, 2], "int32"), wrt=[0], mode="wrap"),
    r("pick", x(3, 4), ix([5, -1, 2]), wrt=[0], mode="clip", axis=1),
    r("choose_element_0index", x(2, 3, 4), ix([[1, 0, 2, 2], [0, 1, 1, 2]]), wrt=[0], axis=1),
    r("one_hot", ix([0, 2, 5, -1]), wrt=[], depth=4),
    r("one_hot", ix([[1, 0], [3, 2]], "int32"), wrt=[], depth=4, on_value=3, off_value=-1,
      dtype="int32"),
    r("one_hot", ix([1, 0, 2]), wrt=[], depth=3, dtype="float64", on_value=0.5),
    r("gather_nd", x(3, 4), ix([[0, 2], [1, 3]]), wrt=[0]),
    r("gather_nd", x(3, 4, 2), ix([[2, 0, 2]], "int32"), wrt=[0]),
    r("gather_nd", x(3, 4, dtype="float64"), ix([[0, 1, 2], [3, 2, 1]]), wrt=[0]),
    r("scatter_nd", x(3), ix([[0, 1, 3], [4, 2, 0]]), wrt=[0], shape=(4, 5)),
    r("scatter_nd", x(2, 3, dtype="float64"), ix([[1, 0]], "int32"), wrt=[0], shape=(2, 3)),
    r("_ravel_multi_index", ix([[0, 3, 1], [4, 2, 0]]), wrt=[], shape=(4, 5)),
    r("ravel_multi_index", ix([[0, 1], [1, 2], [3, 0]], "int32"), wrt=[], shape=(2, 3, 4)),
    r("_unravel_index", ix([3, 7, 19]), wrt=[], shape=(4, 5)),
    r("unravel_index", ix([0, 23, 11], "int32"), wrt=[], shape=(2, 3, 4)),
    r("_slice_assign", x(3, 4), x(2, 2), wrt=[], begin=(0, 1), end=(2, 3)),
    r("_slice_assign", x(4, 5, dtype="float64"), x(2, 2, dtype="float64"), wrt=[], begin=(3, None),
      end=(None, 1), step=(-2, -2)),
    r("_slice_assign_scalar", x(4, 3), wrt=[], scalar=7, begin=(1,), end=(3,)),
    r("_crop_assign_scalar", x(4, 3), wrt=[], scalar=-1.5, begin=(None, 0), end=(None, 3),
      step=(3, 2)),
]
# fmt: on

# Reshape's shape inference: (source shape, reverse, targets), in order
RESHAPES = [
    ((2, 3, 4), False, [(4, 0, 2), (2, 0, 0), (6, 1, -1), (3, -1, 8)]),
    ((2, 3, 4), False, [(-1,), (-2,), (2, -2), (-2, 1, 1), (-3, 4)]),
    ((2, 3, 4, 5), False, [(-3, -3)]),
    ((2, 3, 4), False, [(0, -3)]),
    ((2, 3, 4, 5), False, [(-3, -1)]),
    ((2, 3, 4), False, [(-4, 1, 2, -2), (2, -4, -1, 3, -2), (-4, -1, 1, 0, 0)]),
    ((10, 5, 4), False, [(-1, 0)]),
    ((10, 5, 4), True, [(-1, 0)]),
    ((2, 3, 4), True, [(0, 0, -1), (-1, 2, 2), (-2, -1), (-3, 0), (0, -3)]),
    ((6, 4), True, [(-4, 2, 3, 0)]),
    ((2, 3, 4), False, [(24,), (0, 0, 0, 1), (5, -1), (-1, -1), (0, 0, 0, 0)]),
    ((2, 3, 4), False, [(-4, -1, -1, -2), (-4, 5, -1, -2), (-3, -3), (-4, 1), (7,), (-5, 24)]),
    ((4,), False, [(-1, 2, 2)]),
    ((1,), False, [(-1,)]),
    ((2, 3, 4), False, [(2, 3, 4, -2), (-1, 1, 1, 1)]),
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


def record(golden: Golden) -> None:
    reshapes = [
        {"src": list(s), "target": list(t), "reverse": r, "result": reshape_result(s, t, r)}
        for s, r, targets in RESHAPES for t in targets
    ]  # fmt: skip
    golden.put("reshape_inference", {"reshapes": reshapes})
