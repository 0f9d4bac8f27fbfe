"""Pooling and the other nn_pool operators (tests/operator/test_nn_pool.py, test_nn_misc.py):
case ``i`` (named by its index) records the gradients of the inputs it lists, for a standard
normal head gradient on its output drawn from a generator seeded 100 + i."""

from functools import partial

import numpy as np
from core import row, seeded

FILE = "tests/operator/golden/nn_pool.npz"


distinct = partial(seeded, kind="spread")
ties = partial(seeded, kind="relu_ties")  # most windows hold equal maxima
normal = seeded
positive = partial(seeded, dtype="float64", kind="abs")
F32, F64, F16 = "float32", "float64", "float16"
P2 = (2, 3, 7, 7)
pool = partial(row, "Pooling")

# fmt: off
CASES = [
    pool(distinct(P2), kernel=(2, 2), stride=(2, 2)),
    pool(distinct(P2), kernel=(3, 3), stride=(2, 2), pad=(1, 1)),
    pool(distinct(P2, F64), kernel=(3, 3), stride=(2, 2), pooling_convention="full"),
    pool(distinct(P2), kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg"),
    pool(distinct(P2), kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
         count_include_pad=False),
    pool(distinct(P2, F64), kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
         pooling_convention="full"),
    pool(distinct(P2, F64), kernel=(2, 3), stride=(2, 1), pad=(1, 0), pool_type="avg",
         pooling_convention="full", count_include_pad=False),
    pool(normal(P2), kernel=(2, 2), pool_type="sum", pad=(1, 1)),
    pool(normal(P2, F64), kernel=(2, 2), pool_type="lp", p_value=1),
    pool(normal(P2, F64), kernel=(2, 2), pool_type="lp", p_value=2),
    pool(distinct(P2, F64) + 2.5, kernel=(3, 3), stride=(2, 2), pool_type="lp", p_value=3),
    pool(distinct(P2), global_pool=True),
    pool(normal(P2), global_pool=True, pool_type="avg", kernel=(3, 3)),
    pool(distinct((2, 3, 9)), kernel=(3,), stride=(2,), pad=(1,)),
    pool(normal((2, 3, 9), F64), kernel=(4,), stride=(3,), pool_type="avg",
         pooling_convention="full"),
    pool(distinct((1, 2, 4, 5, 5)), kernel=(2, 2, 2), stride=(2, 2, 2), pooling_convention="full"),
    pool(normal((1, 2, 4, 5, 5)), kernel=(2, 3, 3), pool_type="avg", pad=(1, 1, 1)),
    pool(distinct((2, 6, 6, 3)), kernel=(2, 2), stride=(2, 2), layout="NHWC"),
    pool(normal((2, 6, 6, 3), F64), kernel=(3, 3), pool_type="avg", layout="NHWC", pad=(1, 1)),
    pool(distinct((2, 9, 3), F64), kernel=(3,), stride=(2,), layout="NWC", cudnn_off=True),
    pool(distinct(P2, F16), kernel=(2, 2), stride=(2, 2)),
    pool(normal(P2, F16), kernel=(3, 3), pool_type="avg", pad=(1, 1)),
    # UpSampling
    row("UpSampling", normal((2, 3, 3, 4)), scale=2, sample_type="nearest"),
    row("UpSampling", normal((2, 3, 4, 4), F64), normal((2, 2, 2, 2), F64, 1), wrt=[0, 1], scale=2,
        sample_type="nearest", num_args=2),
    row("UpSampling", normal((1, 2, 2, 2)), normal((1, 2, 3, 3), F32, 1), wrt=[0, 1], scale=3,
        sample_type="nearest", num_args=2, multi_input_mode="sum"),
    row("UpSampling", normal((2, 3, 3, 4)), normal((3, 1, 4, 4), F32, 1), wrt=[0, 1], scale=2,
        sample_type="bilinear", num_filter=3),
    row("UpSampling", normal((1, 2, 3, 3), F64), normal((2, 1, 5, 5), F64, 1), wrt=[0, 1], scale=3,
        sample_type="bilinear", num_filter=2),
    # Crop
    row("Crop", normal((2, 3, 6, 7)), num_args=1, h_w=(3, 4), offset=(1, 2)),
    row("Crop", normal((2, 3, 6, 7)), normal((1, 1, 3, 3), F32, 1), num_args=2, center_crop=True),
    row("Crop", normal((2, 3, 6, 7)), normal((2, 3, 4, 2), F32, 1), num_args=2, offset=(2, 5)),
    # ROIPooling
    row("ROIPooling", distinct((2, 3, 8, 8)),
        np.array([[0, 0, 0, 7, 7], [1, 2.4, 1.5, 6, 5], [1, 3, 3, 3, 3], [0, -2, -2, 20, 30],
                  [1, 10, 12, 14, 16]], F32),
        pooled_size=(2, 3), spatial_scale=1.0),
    row("ROIPooling", distinct((1, 2, 6, 6), F64),
        np.array([[0, 0, 0, 11, 11], [0, 3, 4, 9, 10], [0, 1, 1, 2, 2]], F64), pooled_size=(3, 3),
        spatial_scale=0.5),
    # Embedding
    row("Embedding", np.array([[0, 3, 9], [2, 2, 5]], F32), normal((10, 4)), wrt=[1], input_dim=10,
        output_dim=4),
    row("Embedding", np.array([1, 4.7, -1, 12, 1], F32), normal((6, 3), F64), wrt=[1], input_dim=6,
        output_dim=3, dtype="float64"),
    row("Embedding", np.array([[1, 0], [0, 1]], "int32"), normal((3, 2), F16), wrt=[1], input_dim=3,
        output_dim=2, dtype="float16"),
    # Sequence operators
    row("SequenceMask", normal((4, 3, 2))),
    row("SequenceMask", normal((4, 3, 2)), np.array([1, 4, 2], F32), use_sequence_length=True,
        value=-1.5),
    row("SequenceMask", normal((3, 5, 2), F64), np.array([5, 0, 2], F64), use_sequence_length=True,
        axis=1),
    # MXNet 1.9.1 crashes in SequenceLast's backward without sequence_length: forward only
    row("SequenceLast", normal((4, 3, 2)), wrt=[]),
    row("SequenceLast", normal((4, 3, 2)), np.array([1, 4, 2], F32), use_sequence_length=True),
    row("SequenceLast", normal((3, 5), F64), np.array([5, 1, 3], F64), use_sequence_length=True,
        axis=1),
    row("SequenceReverse", normal((4, 3, 2))),
    row("SequenceReverse", normal((5, 3, 2), F64), np.array([2, 5, 1], F64),
        use_sequence_length=True),
    # ties (integer-valued data after a ReLU: many equal maxima, zeros), gaps between windows,
    # input past the last window, odd sizes: MXNet routes a tie to the first position in
    # row-major window order, which the kernels must match exactly
    pool(ties((2, 3, 9, 9)), kernel=(3, 3), stride=(2, 2), pad=(1, 1)),
    pool(ties((2, 3, 9, 9), F64), kernel=(3, 3), stride=(1, 1), pad=(1, 1)),
    pool(ties((2, 3, 9, 9), F16), kernel=(3, 3), stride=(2, 2), pad=(1, 1)),
    pool(ties((2, 3, 10, 11)), kernel=(3, 3), stride=(2, 2), pooling_convention="full"),
    pool(ties((2, 2, 7, 7)), kernel=(2, 2), stride=(2, 2)),
    pool(ties((2, 2, 7, 8)), kernel=(1, 2), stride=(2, 3)),
    pool(ties((2, 2, 7, 8), F64), kernel=(2, 3), stride=(3, 2), pad=(1, 1)),
    pool(ties((2, 3, 11)), kernel=(3,), stride=(2,), pad=(1,)),
    pool(ties((1, 2, 5, 6, 5)), kernel=(3, 2, 3), stride=(2, 2, 1), pad=(1, 0, 1)),
    pool(ties((2, 7, 7, 3)), kernel=(3, 3), stride=(2, 2), layout="NHWC"),
    pool(normal((2, 3, 8, 9)), kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type="avg"),
    pool(normal((2, 3, 10, 11), F64), kernel=(3, 3), stride=(2, 2), pool_type="avg",
         pooling_convention="full"),
    pool(normal((2, 3, 9, 9), F16), kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="sum"),
    pool(normal((2, 2, 7, 8), F64), kernel=(1, 2), stride=(2, 3), pool_type="avg",
         count_include_pad=False),
    pool(np.abs(normal((2, 2, 7, 7), F64)) + 0.1, kernel=(3, 3), stride=(2, 2), pad=(1, 1),
         pool_type="lp", p_value=3),
]
# fmt: on


# global pooling (every pool type, both layouts, 1-D to 3-D) and the slices' gradients, which
# write straight into the input's gradient (issue 32: memory of slice + pooling)
G = {"global_pool": True, "kernel": (1, 1)}
G3 = {"global_pool": True, "kernel": (1, 1, 1)}
# fmt: off
CASES += [
    pool(distinct((2, 3, 5, 6)), **G, pool_type="max"),
    pool(distinct((2, 5, 6, 3)), **G, pool_type="max", layout="NHWC"),
    pool(normal((2, 5, 6, 3)), **G, pool_type="avg", layout="NHWC"),
    pool(normal((2, 3, 5, 6), F64), **G, pool_type="sum"),
    pool(normal((2, 3, 4, 4), F16), **G, pool_type="avg"),
    pool(normal((2, 3, 4, 5), F64), **G, pool_type="lp", p_value=1),
    pool(positive((2, 3, 4, 5)), **G, pool_type="lp", p_value=2),
    pool(positive((2, 3, 4, 5)), **G, pool_type="lp", p_value=3),
    pool(positive((2, 4, 5, 3)), **G, pool_type="lp", p_value=2, layout="NHWC"),
    pool(distinct((2, 3, 7)), global_pool=True, kernel=(1,)),
    pool(distinct((1, 2, 3, 4, 5)), **G3, pool_type="max"),
    pool(normal((1, 3, 4, 5, 2)), **G3, pool_type="avg", layout="NDHWC"),
    row("slice", normal((4, 5, 6)), begin=(1, None, 2), end=(3, None, 6)),
    row("slice", normal((4, 5, 6)), begin=(3, 4), end=(0, 0), step=(-2, -3)),
    row("slice_axis", normal((4, 5, 6)), axis=1, begin=1, end=-1),
    row("slice_like", normal((4, 5, 6)), normal((2, 3, 6), seed=1), wrt=[0, 1]),
    row("slice_like", normal((4, 5, 6)), normal((2, 3), seed=1), axes=(0, 1)),
]
# fmt: on


def cases(rng: np.random.RandomState):
    for i, (op, inputs, params, grads) in enumerate(CASES):
        opts = {"grad": bool(grads), "wrt": grads, "head": "normal", "head_rng": 100 + i}
        yield str(i), op, inputs, params, {**opts, "grads": grads}
