"""FullyConnected, Convolution and Deconvolution: forward and backward against golden values from
MXNet 1.9.1 (tools/golden/cases/nn_conv.py), against finite differences, accumulation under
req=ADD, channels-last layouts, shape inference, bad arguments, and the public mx.nd functions."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, MXNetError, ParamError, ShapeError
from mxlite.operator.req import OpReq
from tests.golden_file import GoldenFile
from tests.operator.opcheck import backward, forward, golden, numeric_grad, prop_of

GOLD = golden("nn_conv")
TABLE = [{"case": k, **c} for k, c in GOLD.cases.items()]
TOL = {"float32": dict(rtol=1e-4, atol=1e-5), "float64": dict(rtol=1e-10, atol=1e-12)}


def _params(raw: dict[str, Any]) -> dict[str, Any]:
    return {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()}


@pytest.fixture(scope="module")
def gold() -> GoldenFile:
    return GOLD


@pytest.mark.parametrize("case", TABLE, ids=[c["case"] for c in TABLE])
def test_forward_backward_match_mxnet(case: dict, gold: GoldenFile) -> None:
    name, params, tol = case["case"], _params(case["params"]), TOL[case["dtype"]]
    ins = gold.inputs(name)
    (y,) = forward(case["op"], ins, is_train=True, **params)
    assert y.dtype == np.dtype(case["dtype"])
    np.testing.assert_allclose(y, gold[f"{name}/out0"], **tol)
    grads = backward(case["op"], ins, [gold[f"{name}/head0"]], **params)
    for i, (k, g) in enumerate(zip(case["args"], grads)):
        np.testing.assert_allclose(g, gold[f"{name}/grad{i}"], **tol, err_msg=k)


def test_one_image_blocks_on_threads_match_mxnet(gold: GoldenFile, monkeypatch) -> None:
    """The kernels work on blocks of images (one here) and spread depthwise ones over threads
    (three here): the results must not change."""
    from mxlite.operator import parallel as _parallel
    from mxlite.operator.nn import _conv_util

    monkeypatch.setattr(_conv_util, "_COLS_ELEMENTS", 1)
    monkeypatch.setattr(_parallel, "_MIN_ELEMENTS", 1)
    monkeypatch.setattr(_parallel, "num_threads", lambda: 3)
    for case in TABLE:
        if case["op"] != "FullyConnected":
            test_forward_backward_match_mxnet(case, gold)


@pytest.mark.parametrize("case", TABLE, ids=[c["case"] for c in TABLE])
def test_backward_add_accumulates(case: dict, gold: GoldenFile) -> None:
    name, params = case["case"], _params(case["params"])
    ins = gold.inputs(name)
    head = [gold[f"{name}/head0"]]
    init = [np.full_like(a, 0.5) for a in ins]
    added = backward(case["op"], ins, head, req=OpReq.ADD, grad_init=init, **params)
    plain = backward(case["op"], ins, head, **params)
    for a, p, i in zip(added, plain, init):
        np.testing.assert_allclose(a, i + p, **TOL[case["dtype"]])


def test_forward_add_accumulates() -> None:
    rng = np.random.default_rng(1)
    ins = [rng.standard_normal(s) for s in [(2, 3, 5, 5), (4, 3, 3, 3), (4,)]]
    params = dict(kernel=(3, 3), num_filter=4, pad=(1, 1))
    (y,) = forward("Convolution", ins, **params)
    init = [np.ones_like(y)]
    (acc,) = forward("Convolution", ins, req=OpReq.ADD, out_init=init, **params)
    np.testing.assert_allclose(acc, y + 1)


# Small float64 cases for finite differences: (op, input shapes, params).
NUMERIC = [
    (
        "Convolution",
        [(2, 4, 5, 4), (4, 2, 2, 3), (4,)],
        dict(kernel=(2, 3), stride=(2, 1), dilate=(1, 2), pad=(1, 1), num_filter=4, num_group=2),
    ),
    (
        "Convolution",
        [(1, 3, 7), (3, 1, 3)],
        dict(kernel=(3,), stride=(2,), pad=(2,), num_filter=3, num_group=3, no_bias=True),
    ),
    (
        "Convolution",
        [(1, 2, 3, 4, 3), (2, 2, 2, 2, 2), (2,)],
        dict(kernel=(2, 2, 2), stride=(1, 2, 1), pad=(0, 1, 0), num_filter=2),
    ),
    (
        "Deconvolution",
        [(1, 2, 3, 3), (2, 3, 3, 2), (3,)],
        dict(kernel=(3, 2), stride=(2, 2), pad=(1, 0), adj=(1, 1), num_filter=3, no_bias=False),
    ),
    (
        "Deconvolution",
        [(2, 4, 2, 3), (4, 1, 2, 2)],
        dict(
            kernel=(2, 2),
            stride=(2, 1),
            dilate=(1, 2),
            num_filter=2,
            num_group=2,
            target_shape=(4, 5),
        ),
    ),
    (
        "Deconvolution",
        [(1, 2, 2, 2, 2), (2, 2, 2, 1, 2)],
        dict(kernel=(2, 1, 2), stride=(2, 1, 1), num_filter=2),
    ),
    ("FullyConnected", [(3, 2, 2), (4, 4), (4,)], dict(num_hidden=4)),
    ("FullyConnected", [(2, 3, 2), (4, 2)], dict(num_hidden=4, flatten=False, no_bias=True)),
]


@pytest.mark.parametrize(
    "op, shapes, params", NUMERIC, ids=[f"{c[0]}{i}" for i, c in enumerate(NUMERIC)]
)
def test_backward_matches_numeric_gradient(op: str, shapes: list, params: dict) -> None:
    rng = np.random.default_rng(7)
    ins = [rng.standard_normal(s) for s in shapes]
    (y,) = forward(op, ins, **params)
    head = [rng.standard_normal(y.shape)]
    got = backward(op, ins, head, **params)
    want = numeric_grad(op, ins, head, **params)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-8)


def test_fully_connected_bias_as_column() -> None:
    # MXNet also accepts a (num_hidden, 1) bias (its backward then fails; ours gives its shape)
    rng = np.random.default_rng(2)
    x, w, b = rng.standard_normal((3, 4)), rng.standard_normal((2, 4)), rng.standard_normal((2, 1))
    (y,) = forward("FullyConnected", [x, w, b], num_hidden=2)
    np.testing.assert_allclose(y, x @ w.T + b.T)
    grads = backward("FullyConnected", [x, w, b], [np.ones_like(y)], num_hidden=2)
    assert grads[2].shape == (2, 1)
    np.testing.assert_allclose(grads[2][:, 0], [3.0, 3.0])


# ---- layouts --------------------------------------------------------------------------------

LAYOUTS = [
    (
        "Convolution",
        "NHWC",
        (2, 3, 6, 5),
        (4, 3, 3, 2),
        dict(kernel=(3, 2), num_filter=4, pad=(1, 0), stride=(2, 1)),
    ),
    (
        "Convolution",
        "NDHWC",
        (1, 2, 4, 4, 3),
        (2, 2, 2, 2, 2),
        dict(kernel=(2, 2, 2), num_filter=2),
    ),
    (
        "Deconvolution",
        "NHWC",
        (2, 4, 3, 3),
        (4, 3, 2, 2),
        dict(kernel=(2, 2), num_filter=6, stride=(2, 2), num_group=2),
    ),
]


@pytest.mark.parametrize("op, layout, dshape, wshape, params", LAYOUTS)
def test_channels_last_equals_channels_first(op, layout, dshape, wshape, params) -> None:
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal(dshape), rng.standard_normal(wshape)
    nd = len(dshape) - 2
    last = (0, *range(2, nd + 2), 1)
    first = (0, nd + 1, *range(1, nd + 1))
    params = dict(params, no_bias=True)
    (y,) = forward(op, [x, w], **params)
    xl, wl = x.transpose(last), w.transpose(last)
    (yl,) = forward(op, [xl, wl], layout=layout, **params)
    np.testing.assert_allclose(yl.transpose(first), y, rtol=1e-12)
    head = rng.standard_normal(y.shape)
    gx, gw = backward(op, [x, w], [head], **params)
    glx, glw = backward(op, [xl, wl], [head.transpose(last)], layout=layout, **params)
    np.testing.assert_allclose(glx.transpose(first), gx, rtol=1e-12)
    np.testing.assert_allclose(glw.transpose(first), gw, rtol=1e-12)


# ---- shape inference ------------------------------------------------------------------------


def test_convolution_infers_weight_bias_and_data_from_output() -> None:
    prop = prop_of("Convolution", kernel=(3, 3), num_filter=8, num_group=2, stride=(1, 2))
    assert prop.list_arguments() == ["data", "weight", "bias"]
    ins, outs, aux = prop.infer_shape([(4, 6, 10, 11), None, None])
    assert ins == [(4, 6, 10, 11), (8, 3, 3, 3), (8,)] and outs == [(4, 8, 8, 5)] and aux == []
    ins, outs, _ = prop.infer_shape([(0, 6, 0, 0), None, None], [(5, 8, 7, 4)])
    assert ins[0] == (5, 6, 9, 0) and outs == [(5, 8, 7, 4)]
    nhwc = prop_of("Convolution", kernel=(3, 3), num_filter=8, layout="NHWC", no_bias=True)
    assert nhwc.list_arguments() == ["data", "weight"]
    ins, outs, _ = nhwc.infer_shape([(2, 5, 5, 4), None])
    assert ins[1] == (8, 3, 3, 4) and outs == [(2, 3, 3, 8)]


def test_deconvolution_and_fc_infer_shapes() -> None:
    prop = prop_of(
        "Deconvolution",
        kernel=(3, 3),
        stride=(2, 2),
        num_filter=6,
        num_group=2,
        target_shape=(10, 9),
    )
    ins, outs, _ = prop.infer_shape([(1, 4, 5, 4), None])
    assert ins[1] == (4, 3, 3, 3) and outs == [(1, 6, 10, 9)]
    fc = prop_of("FullyConnected", num_hidden=7)
    ins, outs, _ = fc.infer_shape([(0, 3, 4), None, None], [(9, 7)])
    assert ins == [(9, 3, 4), (7, 12), (7,)] and outs == [(9, 7)]
    fc = prop_of("FullyConnected", num_hidden=7, flatten=False)
    assert fc.infer_shape([(2, 3, 4), None, None])[1] == [(2, 3, 7)]
    assert prop_of("FullyConnected", num_hidden=3).infer_shape([(7,), None, None])[0][1] == (3, 1)


# ---- errors ---------------------------------------------------------------------------------

X4 = np.ones((2, 4, 6, 6), np.float32)

BAD_PARAMS = [
    ("Convolution", dict(kernel=(-1, 3), num_filter=4), r"Convolution.*'kernel'"),
    ("Convolution", dict(kernel=(0, 3), num_filter=4), r"Convolution.*'kernel'"),
    ("Convolution", dict(kernel=(1, 1, 1, 1), num_filter=4), r"Convolution.*'kernel'"),
    ("Convolution", dict(kernel=(3, 3), stride=(1,), num_filter=4), r"Convolution.*'stride'"),
    ("Convolution", dict(kernel=(3, 3), stride=(0, 1), num_filter=4), r"Convolution.*'stride'"),
    ("Convolution", dict(kernel=(3, 3), pad=(-1, 0), num_filter=4), r"Convolution.*'pad'"),
    ("Convolution", dict(kernel=(3, 3), dilate=(1, 1, 1), num_filter=4), "'dilate'"),
    ("Convolution", dict(kernel=(3, 3), num_filter=0), r"Convolution.*'num_filter'"),
    ("Convolution", dict(kernel=(3, 3), num_filter=5, num_group=2), "'num_filter'"),
    ("Convolution", dict(kernel=(3,), num_filter=4, layout="NHWC"), r"Convolution.*'layout'"),
    ("Convolution", dict(kernel=(3, 3), num_filter=4, layout="NWC"), r"Convolution.*'layout'"),
    ("Convolution", dict(kernel=(3, 3), num_filter=4, cudnn_tune="best"), "'cudnn_tune'"),
    ("Deconvolution", dict(kernel=(3, 3), stride=(2, 2), adj=(2, 0), num_filter=4), "'adj'"),
    ("Deconvolution", dict(kernel=(3, 3), adj=(0,), num_filter=4), "'adj'"),
    ("Deconvolution", dict(kernel=(3, 3), target_shape=(12,), num_filter=4), "'target_shape'"),
    ("Deconvolution", dict(kernel=(2, 2, 2), dilate=(2, 2, 2), num_filter=4), "'dilate'"),
    ("FullyConnected", dict(num_hidden=0), r"FullyConnected.*'num_hidden'"),
    ("FullyConnected", dict(num_hidden=3, flatten="maybe"), "'flatten'"),
]


@pytest.mark.parametrize("op, params, match", BAD_PARAMS)
def test_bad_parameters_raise(op: str, params: dict, match: str) -> None:
    with pytest.raises(ParamError, match=match):
        prop_of(op, **params)


BAD_SHAPES = [
    (
        "Convolution",
        [(2, 4, 6, 6), (3, 3, 3, 3), (3,)],
        dict(kernel=(3, 3), num_filter=3),
        r"Convolution.*'weight'",
    ),
    (
        "Convolution",
        [(2, 4, 6, 6), (3, 4, 3, 3), (4,)],
        dict(kernel=(3, 3), num_filter=3),
        r"Convolution.*'bias'",
    ),
    (
        "Convolution",
        [(2, 4, 6, 6), (3, 4, 3, 3)],
        dict(kernel=(3, 3), num_filter=3),
        r"Convolution.*3 inputs",
    ),
    (
        "Convolution",
        [(2, 4, 6, 6), (3, 4, 3, 3), (3,)],
        dict(kernel=(3,), num_filter=3),
        r"Convolution.*'data'",
    ),
    (
        "Convolution",
        [(2, 4, 6, 6), (6, 1, 3, 3), (6,)],
        dict(kernel=(3, 3), num_filter=6, num_group=3),
        r"'data'.*num_group",
    ),
    (
        "Convolution",
        [(2, 4, 2, 6), (3, 4, 3, 3), (3,)],
        dict(kernel=(3, 3), num_filter=3),
        r"Convolution.*exceeds",
    ),
    (
        "Deconvolution",
        [(2, 4, 6, 6), (3, 3, 3, 3)],
        dict(kernel=(3, 3), num_filter=3),
        r"Deconvolution.*'weight'",
    ),
    (
        "Deconvolution",
        [(2, 4, 6, 6), (4, 3, 3, 3)],
        dict(kernel=(3, 3), num_filter=3, stride=(2, 2), target_shape=(20, 12)),
        r"Deconvolution.*'target_shape'",
    ),
    (
        "Deconvolution",
        [(2, 4, 6, 6), (4, 3, 3, 3)],
        dict(kernel=(3, 3), num_filter=3, target_shape=(7, 7)),
        r"Deconvolution.*adj",
    ),
    ("FullyConnected", [(2, 3, 4), (5, 11), (5,)], dict(num_hidden=5), r"FullyConnected.*'weight'"),
    ("FullyConnected", [(2, 12), (5, 12), (4,)], dict(num_hidden=5), r"FullyConnected.*'bias'"),
]


@pytest.mark.parametrize("op, shapes, params, match", BAD_SHAPES)
def test_bad_shapes_raise(op: str, shapes: list, params: dict, match: str) -> None:
    with pytest.raises(ShapeError, match=match):
        prop_of(op, **params).infer_shape(list(shapes))


@pytest.mark.parametrize("dtype", ["int32", "uint8"])
@pytest.mark.parametrize("op", ["Convolution", "Deconvolution", "FullyConnected"])
def test_integer_inputs_are_rejected_at_the_call(op: str, dtype: str) -> None:
    x = mx.nd.ones((2, 3, 4, 4), dtype=dtype)
    w = mx.nd.ones((3, 3, 3, 3) if op != "FullyConnected" else (2, 48), dtype=dtype)
    params = dict(num_hidden=2) if op == "FullyConnected" else dict(kernel=(3, 3), num_filter=3)
    with pytest.raises(DTypeError, match=f"{op}.*'data'.*{dtype}"):
        getattr(mx.nd, op)(x, w, no_bias=True, **params)


def test_float16_needs_a_gpu_as_in_mxnet() -> None:
    x = mx.nd.ones((2, 3, 4, 4), dtype="float16")
    w = mx.nd.ones((2, 3, 3, 3), dtype="float16")
    with pytest.raises(MXNetError, match="Convolution: float16 inputs need a GPU"):
        mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=2, no_bias=True).asnumpy()


# ---- the public functions -------------------------------------------------------------------


def _run_public(fn: Any, op: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(4)
    if op == "FullyConnected":
        arrays = [rng.standard_normal(s) for s in [(3, 2, 2), (5, 4), (5,)]]
        params: dict[str, Any] = dict(num_hidden=5)
    elif op == "Convolution":
        arrays = [rng.standard_normal(s) for s in [(2, 3, 5, 5), (4, 3, 3, 3), (4,)]]
        params = dict(kernel=(3, 3), num_filter=4, pad=(1, 1))
    else:
        arrays = [rng.standard_normal(s) for s in [(2, 3, 3, 3), (3, 4, 3, 3)]]
        params = dict(kernel=(3, 3), num_filter=4, stride=(2, 2))
    arrays = [a.astype(np.float32) for a in arrays]
    got = fn(*[mx.nd.array(a) for a in arrays], **params).asnumpy()
    (want,) = forward(op, arrays, **params)
    return got, want


PUBLIC = [
    ("FullyConnected", "FullyConnected"),
    ("FullyConnected", "_npx_fully_connected"),
    ("FullyConnected", "_sparse_FullyConnected"),
    ("Convolution", "Convolution"),
    ("Convolution", "_npx_convolution"),
    ("Deconvolution", "Deconvolution"),
    ("Deconvolution", "_npx_deconvolution"),
]


@pytest.mark.parametrize("op, fname", PUBLIC)
def test_public_function_and_aliases(op: str, fname: str) -> None:
    fn = getattr(mx.nd._internal if fname.startswith("_") else mx.nd, fname)
    got, want = _run_public(fn, op)
    assert got.shape == want.shape
    # auto may time Winograd fastest here, whose bound is 1e-5 of the output scale
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_autograd_through_convolution() -> None:
    x = mx.nd.array(np.arange(2 * 2 * 4 * 4, dtype=np.float32).reshape(2, 2, 4, 4) / 10)
    w = mx.nd.ones((3, 2, 2, 2))
    b = mx.nd.zeros((3,))
    for a in (x, w, b):
        a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Convolution(x, w, b, kernel=(2, 2), num_filter=3)
    y.backward()
    assert y.shape == (2, 3, 3, 3)
    np.testing.assert_allclose(b.grad.asnumpy(), [18.0, 18.0, 18.0])
    # a corner pixel is in one window per filter, a centre pixel in four
    gx = x.grad.asnumpy()
    assert gx[0, 0, 0, 0] == 3.0 and gx[0, 0, 1, 1] == 12.0


def test_errors_are_mxnet_errors() -> None:
    with pytest.raises(MXNetError):
        mx.nd.FullyConnected(mx.nd.ones((2, 3)), mx.nd.ones((4, 2)), num_hidden=4, no_bias=True)


def test_output_cell_im2col_matches_mxnet(gold: GoldenFile, monkeypatch) -> None:
    """Every geometry (1-3D, grouped, depthwise, dilated, Deconvolution) computed on the
    output cells instead of the phase grid gives the same results."""
    from mxlite.operator.nn import _conv_util

    monkeypatch.setattr(_conv_util, "_GRID_WASTE", 0)
    monkeypatch.setattr(_conv_util, "_COLS_ELEMENTS", 64)  # several blocks of images
    for case in TABLE:
        if case["op"] != "FullyConnected":
            test_forward_backward_match_mxnet(case, gold)
            test_backward_add_accumulates(case, gold)


def _reference_conv(x: np.ndarray, w: np.ndarray, pad: int) -> np.ndarray:
    xp = np.pad(x, [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    win = np.lib.stride_tricks.sliding_window_view(xp, w.shape[2:], axis=(2, 3))
    return np.einsum("nchwij,fcij->nfhw", win, w)


@pytest.mark.parametrize("pad, out", [(0, 1), (1, 3)])
def test_kernel_as_large_as_input_needs_little_memory(pad: int, out: int) -> None:
    """MXNet's test_conv2d_16c runs a 224x224 kernel on a 224x224 input: the phase grid would
    hold input cells x kernel offsets (tens of GiB); the output-cell im2col holds a few MiB."""
    import tracemalloc

    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (4, 3, 224, 224))
    w = rng.uniform(-1, 1, (2, 3, 224, 224))
    dy = rng.uniform(-1, 1, (4, 2, out, out))
    params = dict(kernel=(224, 224), pad=(pad, pad), num_filter=2, no_bias=True)
    tracemalloc.start()
    try:
        (y,) = forward("Convolution", [x, w], **params)
        dx, dw = backward("Convolution", [x, w], [dy], **params)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 256 << 20, f"peak {peak >> 20} MiB"
    np.testing.assert_allclose(y, _reference_conv(x, w, pad), rtol=1e-10)
    # the reference gradients: the data gradient is the full correlation with the flipped
    # kernel, the weight gradient the correlation of the input with dy
    xpad = np.pad(x, [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    win = np.lib.stride_tricks.sliding_window_view(xpad, (224, 224), axis=(2, 3))
    np.testing.assert_allclose(dw, np.einsum("nchwij,nfhw->fcij", win, dy), rtol=1e-10)
    dxpad = np.zeros_like(xpad)
    for i in range(out):
        for j in range(out):
            dxpad[:, :, i : i + 224, j : j + 224] += np.einsum("nf,fcij->ncij", dy[:, :, i, j], w)
    np.testing.assert_allclose(dx, dxpad[:, :, pad : pad + 224, pad : pad + 224], rtol=1e-10)


@pytest.mark.parametrize(
    "shape, wshape, groups, dilate, pad",
    [
        ((2, 4, 9, 8), (6, 4, 3, 3), 1, (1, 1), (1, 1)),
        ((2, 4, 9, 8), (6, 2, 3, 2), 2, (2, 1), (0, 1)),
        ((2, 4, 10), (4, 1, 5), 4, (1,), (2,)),
        ((1, 2, 5, 6, 4), (3, 2, 3, 3, 1), 1, (1, 1, 1), (1, 0, 0)),
    ],
)
def test_stride1_data_grad_by_flipped_forward_equals_col2im(
    monkeypatch, shape, wshape, groups, dilate, pad
) -> None:
    from mxlite.operator.nn import _conv_util as cu

    rng = np.random.default_rng(0)
    nd = len(shape) - 2
    g = cu.Geometry(wshape[2:], (1,) * nd, dilate, pad, groups, False)
    out = [n + 2 * p - d * (k - 1) for n, k, d, p in zip(shape[2:], wshape[2:], dilate, pad)]
    dy = rng.standard_normal((shape[0], wshape[0], *out))
    w = rng.standard_normal(wshape)
    flipped = cu._flipped(g)
    assert flipped is not None
    by_forward = cu._data_grad_by_forward(np, dy, w, g, flipped, shape[2:], np.empty(shape), False)
    monkeypatch.setattr(cu, "_flipped", lambda geom: None)
    by_col2im = cu.conv_data_grad(np, dy, w, g, shape[2:])
    np.testing.assert_allclose(by_forward, by_col2im, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", ["Convolution", "Deconvolution", "FullyConnected"])
def test_weighted_layers_share_types_and_backward_reads(name: str) -> None:
    from mxlite.operator import registry
    from mxlite.operator.nn.convolution import WeightedLayerProp

    cls = registry.get(name)
    assert issubclass(cls, WeightedLayerProp)
    assert "infer_type" not in cls.__dict__
    assert "declare_backward_dependency" not in cls.__dict__


@pytest.mark.parametrize("cols", [1 << 19, 2000])  # one block, or blocks of a few images
@pytest.mark.parametrize(
    "xshape, f, pad", [((5, 1, 28, 28), 6, 2), ((5, 6, 14, 14), 16, 0), ((3, 2, 9, 7), 3, 1)]
)
def test_lenet_shapes_match_the_direct_sums(xshape, f, pad, cols, monkeypatch) -> None:
    """LeNet's 5x5 layers (the products skip the grid rows past the output, which read the
    next image's cells): output, data, weight and bias gradients against the direct sums."""
    from mxlite.operator.nn import _conv_util

    monkeypatch.setattr(_conv_util, "_COLS_ELEMENTS", cols)
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, xshape).astype(np.float32)
    w = rng.uniform(-1, 1, (f, xshape[1], 5, 5)).astype(np.float32)
    b = rng.uniform(-1, 1, (f,)).astype(np.float32)
    params = dict(kernel=(5, 5), pad=(pad, pad), num_filter=f)
    (y,) = forward("Convolution", [x, w, b], **params)
    want = _reference_conv(x.astype(np.float64), w.astype(np.float64), pad) + b[:, None, None]
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
    dy = rng.uniform(-1, 1, y.shape).astype(np.float32)
    dx, dw, db = backward("Convolution", [x, w, b], [dy], **params)
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    win = np.lib.stride_tricks.sliding_window_view(xp, (5, 5), axis=(2, 3))
    np.testing.assert_allclose(dw, np.einsum("nchwij,nfhw->fcij", win, dy), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(db, dy.sum(axis=(0, 2, 3)), rtol=1e-5, atol=1e-4)
    dxp = np.zeros_like(xp)
    oh, ow = y.shape[2:]
    for i in range(5):
        for j in range(5):
            dxp[:, :, i : i + oh, j : j + ow] += np.einsum("nfhw,fc->nchw", dy, w[:, :, i, j])
    want_dx = dxp[:, :, pad : pad + xshape[2], pad : pad + xshape[3]]
    np.testing.assert_allclose(dx, want_dx, rtol=1e-5, atol=1e-5)


def test_few_filters_take_smaller_blocks_of_images() -> None:
    """A product with few filters is bound by reading cols: its blocks are a quarter as large
    (LeNet's first layer, 6 filters), while 16 filters or a grouped product keep the size."""
    from mxlite.operator.nn import _conv_util

    per_image = 1000
    full = _conv_util._COLS_ELEMENTS // per_image
    assert _conv_util._blocks(10_000, per_image, 16)[0] == (0, full)
    assert _conv_util._blocks(10_000, per_image, 0)[0] == (0, full)
    assert _conv_util._blocks(10_000, per_image, 6)[0] == (
        0,
        (_conv_util._COLS_ELEMENTS >> 2) // per_image,
    )
    assert _conv_util._blocks(3, 10**9, 6) == [(0, 1), (1, 2), (2, 3)]


@pytest.mark.parametrize("add", [False, True])
@pytest.mark.parametrize(
    "xshape, wshape, pad, dilate",
    [
        ((4, 6, 14, 14), (16, 6, 5, 5), (0, 0), (1, 1)),  # LeNet's second layer
        ((3, 4, 9, 8), (5, 4, 3, 4), (0, 2), (1, 1)),
        ((3, 4, 20, 24), (6, 4, 3, 3), (0, 0), (2, 3)),  # dilated
        ((2, 4, 17), (3, 4, 5), (1,), (2,)),  # 1-D
        ((2, 3, 6, 7, 8), (5, 3, 2, 3, 3), (1, 0, 1), (1, 1, 1)),  # 3-D
    ],
)
def test_data_gradient_with_the_last_axis_in_the_product_matches_col2im(
    xshape, wshape, pad, dilate, add, monkeypatch
) -> None:
    """``_conv_rows`` (stride 1: the last kernel axis summed by the product, one add per
    leading offset) gives col2im's data gradient, in one block or several."""
    from mxlite.operator.nn import _conv_rows, _conv_util
    from mxlite.operator.nn._conv_util import Geometry, conv_data_grad

    rng = np.random.default_rng(4)
    nd = len(wshape) - 2
    geom = Geometry(wshape[2:], (1,) * nd, dilate, pad, 1, False)
    out_sp = tuple(
        s + 2 * p - d * (k - 1) for s, p, d, k in zip(xshape[2:], pad, dilate, wshape[2:])
    )
    assert _conv_rows.applies(geom, wshape[0], wshape[1])
    dy = rng.uniform(-1, 1, (xshape[0], wshape[0], *out_sp)).astype(np.float32)
    w = rng.uniform(-1, 1, wshape).astype(np.float32)
    init = rng.uniform(-1, 1, xshape).astype(np.float32)
    results = []
    for rows, cols in [(False, 1 << 19), (True, 1 << 19), (True, 1)]:
        monkeypatch.setattr(_conv_rows, "applies", lambda *a, rows=rows: rows)
        monkeypatch.setattr(_conv_util, "_COLS_ELEMENTS", cols)
        out = init.copy()
        conv_data_grad(np, dy, w, geom, xshape[2:], out=out, add=add)
        results.append(out)
    for got in results[1:]:
        np.testing.assert_allclose(got, results[0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("one_product", [128, 0])  # small maps in one product, or per image
@pytest.mark.parametrize("groups", [1, 2])
@pytest.mark.parametrize("xshape", [(5, 8, 7, 7), (1, 8, 3, 5), (4, 6, 13, 11)])
def test_pointwise_weight_gradient_matches_the_direct_sum(
    xshape, groups, one_product, monkeypatch
) -> None:
    """1x1 weight and bias gradients: over small maps one product across the images (K = N *
    H * W), else one product per image added up; both equal the direct sum."""
    from mxlite.operator.nn import _pointwise

    monkeypatch.setattr(_pointwise, "ONE_PRODUCT", one_product)
    rng = np.random.default_rng(4)
    f, cg = 4, xshape[1] // groups
    x = rng.uniform(-1, 1, xshape).astype(np.float32)
    w = rng.uniform(-1, 1, (f, cg, 1, 1)).astype(np.float32)
    b = rng.uniform(-1, 1, (f,)).astype(np.float32)
    params = dict(kernel=(1, 1), num_filter=f, num_group=groups)
    dy = rng.uniform(-1, 1, (xshape[0], f, *xshape[2:])).astype(np.float32)
    _, dw, db = backward("Convolution", [x, w, b], [dy], **params)
    xg = x.astype(np.float64).reshape(xshape[0], groups, cg, -1)
    dyg = dy.astype(np.float64).reshape(xshape[0], groups, f // groups, -1)
    want = np.einsum("ngfs,ngcs->gfc", dyg, xg).reshape(f, cg, 1, 1)
    np.testing.assert_allclose(dw, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(db, dy.sum(axis=(0, 2, 3)), rtol=1e-5, atol=1e-5)
