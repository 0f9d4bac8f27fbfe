"""UpSampling, ROIPooling, Embedding, Crop and the Sequence operators (mxlite/operator/nn/)
against real MXNet 1.9.1 golden values, finite differences, gradient accumulation, bad input
and the public mx.nd functions."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, MXNetError, ParamError, ShapeError
from mxlite.operator import registry
from mxlite.operator.req import OpReq

from . import opcheck
from .test_nn_pool import check_golden, load_cases

OPS = {
    "UpSampling",
    "ROIPooling",
    "Embedding",
    "Crop",
    "SequenceMask",
    "SequenceLast",
    "SequenceReverse",
}
CASES = load_cases(OPS)


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_golden(case) -> None:
    _, op, params, grads, arrays = case
    check_golden(op, params, grads, arrays)


def test_golden_covers_every_op() -> None:
    assert {c[1] for c in CASES} == OPS


rng = np.random.default_rng(5)
LEN3 = np.array([2.0, 4.0, 1.0])

# (op, inputs, params, indices of the differentiable inputs)
NUMERIC = [
    (
        "UpSampling",
        [rng.normal(size=(1, 2, 2, 3))],
        {"scale": 2, "sample_type": "nearest", "num_args": 1},
        [0],
    ),
    (
        "UpSampling",
        [rng.normal(size=(1, 2, 2, 2)), rng.normal(size=(1, 1, 4, 4))],
        {"scale": 2, "sample_type": "nearest", "num_args": 2},
        [0, 1],
    ),
    (
        "UpSampling",
        [rng.normal(size=(1, 2, 2, 2)), rng.normal(size=(1, 2, 1, 1))],
        {"scale": 2, "sample_type": "nearest", "num_args": 2, "multi_input_mode": "sum"},
        [0, 1],
    ),
    (
        "UpSampling",
        [rng.normal(size=(1, 2, 2, 3)), rng.normal(size=(2, 1, 4, 4))],
        {"scale": 2, "sample_type": "bilinear", "num_filter": 2, "num_args": 2},
        [0, 1],
    ),
    (
        "UpSampling",
        [rng.normal(size=(1, 1, 2, 2)), rng.normal(size=(1, 1, 5, 5))],
        {"scale": 3, "sample_type": "bilinear", "num_filter": 1, "num_args": 2},
        [0, 1],
    ),
    ("SequenceMask", [rng.normal(size=(4, 3, 2)), LEN3], {"use_sequence_length": True}, [0]),
    (
        "SequenceMask",
        [rng.normal(size=(3, 4)), LEN3],
        {"use_sequence_length": True, "axis": 1},
        [0],
    ),
    ("SequenceLast", [rng.normal(size=(4, 3, 2))], {}, [0]),
    (
        "SequenceLast",
        [rng.normal(size=(3, 4, 2)), LEN3],
        {"use_sequence_length": True, "axis": 1},
        [0],
    ),
    ("SequenceReverse", [rng.normal(size=(4, 3, 2)), LEN3], {"use_sequence_length": True}, [0]),
    ("SequenceReverse", [rng.normal(size=(4, 3))], {}, [0]),
    (
        "Embedding",
        [np.array([[0.0, 2.0], [2.0, 3.0]]), rng.normal(size=(4, 3))],
        {"input_dim": 4, "output_dim": 3},
        [1],
    ),
    (
        "ROIPooling",
        [
            rng.permutation(72).reshape(1, 2, 6, 6) / 7.0,
            np.array([[0, 0, 0, 5, 5], [0, 1, 2, 4, 3.0]]),
        ],
        {"pooled_size": (2, 2), "spatial_scale": 1.0},
        [0],
    ),
]


@pytest.mark.parametrize("case", NUMERIC, ids=[f"{i}-{c[0]}" for i, c in enumerate(NUMERIC)])
def test_backward_matches_numeric(case) -> None:
    op, ins, params, diff = case
    y = opcheck.forward(op, ins, **params)[0]
    head = np.random.default_rng(0).normal(size=y.shape)
    got = opcheck.backward(op, ins, [head], **params)
    want = opcheck.numeric_grad(op, ins, [head], eps=1e-6, **params)
    for j in diff:
        np.testing.assert_allclose(got[j], want[j], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("case", NUMERIC, ids=[f"{i}-{c[0]}" for i, c in enumerate(NUMERIC)])
def test_req_add_accumulates(case) -> None:
    op, ins, params, diff = case
    y = opcheck.forward(op, ins, **params)[0]
    head = np.random.default_rng(0).normal(size=y.shape)
    init = [np.random.default_rng(1).normal(size=np.shape(a)) for a in ins]
    plain = opcheck.backward(op, ins, [head], **params)
    added = opcheck.backward(op, ins, [head], req=OpReq.ADD, grad_init=init, **params)
    for j in diff:
        np.testing.assert_allclose(added[j], init[j] + plain[j])


def test_embedding_clips_and_scatter_adds() -> None:
    w = np.arange(12.0).reshape(4, 3)
    x = np.array([-3.0, 1.9, 7.0, 1.0])
    y = opcheck.forward("Embedding", [x, w], input_dim=4, output_dim=3)[0]
    np.testing.assert_array_equal(y, w[[0, 1, 3, 1]])
    g = opcheck.backward("Embedding", [x, w], [np.ones((4, 3))], input_dim=4, output_dim=3)
    np.testing.assert_array_equal(g[1][:, 0], [1, 2, 0, 1])
    assert not g[0].any()


def test_embedding_infers_weight_and_dtype() -> None:
    prop = opcheck.prop_of("Embedding", input_dim=7, output_dim=5, dtype="float16")
    ins, outs, _ = prop.infer_shape([(2, 3), None])
    assert ins[1] == (7, 5) and outs == [(2, 3, 5)]
    _, out_t, _ = prop.infer_type([np.dtype(np.int32), None])
    assert out_t == [np.dtype(np.float16)]


def test_roi_pooling_hidden_maxidx() -> None:
    prop = opcheck.prop_of("ROIPooling", pooled_size=(2, 2), spatial_scale=1.0)
    assert prop.list_outputs() == ["output", "maxidx"] and prop.num_visible_outputs() == 1
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    rois = np.array([[0, 0, 0, 3, 3], [-1, 0, 0, 3, 3.0]])
    y, idx = opcheck.forward("ROIPooling", [x, rois], pooled_size=(2, 2), spatial_scale=1.0)
    assert y[0, 0].tolist() == [[5, 7], [13, 15]] and idx[0, 0].tolist() == [[5, 7], [13, 15]]
    assert not y[1].any() and (idx[1] == -1).all()


def test_crop_rejects_float64() -> None:
    with pytest.raises(DTypeError, match="Crop.*arg0"):
        mx.nd.Crop(mx.nd.zeros((1, 1, 4, 4), dtype="float64"), h_w=(2, 2), num_args=1)


BAD = [
    (
        "Embedding",
        [np.zeros((2,)), np.zeros((4, 3))],
        {"input_dim": 5, "output_dim": 3},
        ShapeError,
        "Embedding.*weight",
    ),
    (
        "Embedding",
        [np.zeros((2,)), np.zeros((4, 3))],
        {"input_dim": 0, "output_dim": 3},
        ParamError,
        "Embedding.*input_dim",
    ),
    (
        "SequenceMask",
        [np.zeros((3, 2)), np.zeros((3,))],
        {"use_sequence_length": True},
        ShapeError,
        "SequenceMask.*sequence_length",
    ),
    ("SequenceMask", [np.zeros((3, 2))], {"axis": 2}, ShapeError, "SequenceMask.*axis"),
    ("SequenceReverse", [np.zeros((3, 2))], {"axis": 1}, ShapeError, "SequenceReverse.*axis"),
    ("SequenceLast", [np.zeros((3,))], {}, ShapeError, "SequenceLast.*data"),
    ("SequenceLast", [np.zeros((3, 2)), np.zeros((2,))], {}, ShapeError, "SequenceLast.*1 inp"),
    (
        "UpSampling",
        [np.zeros((1, 2, 3, 3))],
        {"scale": 0, "sample_type": "nearest", "num_args": 1},
        ParamError,
        "UpSampling.*scale",
    ),
    (
        "UpSampling",
        [np.zeros((1, 2, 3, 3)), np.zeros((2, 1, 4, 4))],
        {"scale": 2, "sample_type": "bilinear", "num_filter": 3, "num_args": 2},
        ParamError,
        "UpSampling.*num_filter",
    ),
    (
        "UpSampling",
        [np.zeros((1, 2, 3, 3)), np.zeros((1, 2, 4, 4))],
        {"scale": 2, "sample_type": "nearest", "num_args": 2},
        ShapeError,
        "UpSampling.*arg1",
    ),
    (
        "UpSampling",
        [np.zeros((1, 2, 3, 3)), np.zeros((1, 3, 3, 3))],
        {"scale": 2, "sample_type": "nearest", "num_args": 2, "multi_input_mode": "sum"},
        ShapeError,
        "UpSampling.*channels",
    ),
    (
        "Crop",
        [np.zeros((1, 1, 4, 4), np.float32)],
        {"num_args": 1, "h_w": (5, 2)},
        ParamError,
        "Crop.*h_w",
    ),
    (
        "Crop",
        [np.zeros((1, 1, 4, 4), np.float32)],
        {"num_args": 1, "h_w": (2, 2), "offset": (3, 0)},
        ParamError,
        "Crop.*offset",
    ),
    (
        "Crop",
        [np.zeros((1, 1, 4, 4), np.float32), np.zeros((1, 1, 5, 2), np.float32)],
        {"num_args": 2},
        ShapeError,
        "Crop.*exceeds",
    ),
    (
        "ROIPooling",
        [np.zeros((1, 1, 4, 4)), np.zeros((2, 4))],
        {"pooled_size": (2, 2), "spatial_scale": 1.0},
        ShapeError,
        "ROIPooling.*rois",
    ),
    (
        "ROIPooling",
        [np.zeros((1, 1, 4, 4)), np.zeros((2, 5))],
        {"pooled_size": (2,), "spatial_scale": 1.0},
        ShapeError,
        "ROIPooling.*pooled_size",
    ),
]


@pytest.mark.parametrize("case", BAD, ids=[f"{i}-{c[0]}" for i, c in enumerate(BAD)])
def test_bad_input(case) -> None:
    op, ins, params, err, match = case
    with pytest.raises(err, match=match):
        opcheck.forward(op, ins, **params)


@pytest.mark.parametrize(
    "alias,name",
    [
        ("_npx_embedding", "Embedding"),
        ("_npx_roi_pooling", "ROIPooling"),
        ("_npx_sequence_mask", "SequenceMask"),
    ],
)
def test_npx_aliases(alias: str, name: str) -> None:
    assert registry.get(alias) is registry.get(name)


def test_public_functions() -> None:
    x = mx.nd.array(np.arange(24, dtype=np.float32).reshape(4, 3, 2))
    lens = mx.nd.array([1, 3, 4])
    m = mx.nd.SequenceMask(x, lens, use_sequence_length=True, value=-1).asnumpy()
    assert (m[1:, 0] == -1).all() and (m[3:, 1] == -1).all() and (m[:, 2] >= 0).all()
    last = mx.nd.SequenceLast(x, lens, use_sequence_length=True).asnumpy()
    np.testing.assert_array_equal(last, x.asnumpy()[[0, 2, 3], [0, 1, 2]])
    rev = mx.nd.SequenceReverse(x).asnumpy()
    np.testing.assert_array_equal(rev, x.asnumpy()[::-1])
    e = mx.nd.Embedding(mx.nd.array([1, 0]), mx.nd.array(np.eye(3)), input_dim=3, output_dim=3)
    np.testing.assert_array_equal(e.asnumpy(), np.eye(3)[[1, 0]])
    img = mx.nd.array(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    up = mx.nd.UpSampling(img, scale=2, sample_type="nearest").asnumpy()
    assert up.shape == (1, 1, 8, 8) and up[0, 0, 1, 1] == 0 and up[0, 0, 7, 7] == 15
    c = mx.nd.Crop(img, h_w=(2, 2), center_crop=True).asnumpy()
    assert c[0, 0].tolist() == [[5, 6], [9, 10]]
    c2 = mx.nd.Crop(img, mx.nd.zeros((1, 1, 3, 3)), offset=(1, 1)).asnumpy()
    assert c2[0, 0, 0].tolist() == [5, 6, 7]
    r = mx.nd.ROIPooling(img, mx.nd.array([[0, 0, 0, 3, 3]]), pooled_size=(1, 1), spatial_scale=1.0)
    assert r.asnumpy().ravel().tolist() == [15.0]
    with pytest.raises(MXNetError, match="Embedding.*output_dim"):
        mx.nd.Embedding(mx.nd.array([1, 0]), mx.nd.array(np.eye(3)), input_dim=3)


@pytest.mark.parametrize("chunk", [1 << 20, 7])
def test_embedding_gradient_scatter_equals_add_at(monkeypatch, chunk) -> None:
    # the weight gradient as flat element scatters in chunks of rows: the sums np.add.at
    # gives over whole rows, repeated indices included, and req='add' accumulating
    from mxlite.operator.tensor import array_op

    monkeypatch.setattr(array_op, "_SCATTER", chunk)
    rng = np.random.default_rng(5)
    idx = rng.integers(0, 9, size=(6, 5)).astype(np.float32)
    weight = rng.normal(size=(9, 3)).astype(np.float32)
    head = rng.normal(size=(6, 5, 3)).astype(np.float32)
    want = np.zeros_like(weight)
    np.add.at(want, idx.astype(np.int64).reshape(-1), head.reshape(-1, 3))
    grads = opcheck.backward("Embedding", [idx, weight], [head], input_dim=9, output_dim=3)
    np.testing.assert_array_equal(grads[1], want)
    init = [np.zeros_like(idx), rng.normal(size=weight.shape).astype(np.float32)]
    added = opcheck.backward(
        "Embedding", [idx, weight], [head], req=OpReq.ADD, grad_init=init, input_dim=9,
        output_dim=3,
    )  # fmt: skip
    want_added = init[1].copy()  # the rows added onto the existing gradient, in order
    np.add.at(want_added, idx.astype(np.int64).reshape(-1), head.reshape(-1, 3))
    np.testing.assert_array_equal(added[1], want_added)
