"""Winograd convolution (``_winograd``) and the per-shape choice of algorithm (``_conv_algo``):
outputs and both gradients within 1e-5 of the output scale of the direct computation (float64)
at the 3x3 shapes of ResNet, VGG and DenseNet and at edges, gradients by finite differences,
``req='add'``, deconvolution, channels-last, threads, and ``MXLITE_CONV_ALGO``."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from mxlite.operator import parallel
from mxlite.operator.nn import _conv_algo, _winograd
from mxlite.operator.req import OpReq
from tests.operator import test_nn_conv as conv_tests
from tests.operator.opcheck import GOLDEN, backward, forward, golden, numeric_grad

WINOGRAD = ("winograd2", "winograd4")
TOL = 1e-5  # max abs difference / max abs value of the direct computation

# (data shape, num_filter, pad, num_group)
SHAPES = {
    "resnet56": ((2, 64, 56, 56), 64, 1, 1),
    "resnet28": ((2, 128, 28, 28), 128, 1, 1),
    "resnet14": ((2, 256, 14, 14), 256, 1, 1),
    "resnet7": ((2, 512, 7, 7), 512, 1, 1),
    "vgg_first": ((1, 3, 32, 32), 64, 1, 1),
    "vgg": ((1, 64, 32, 32), 128, 1, 1),
    "densenet_growth": ((2, 128, 28, 28), 32, 1, 1),
    "densenet_small": ((2, 128, 7, 7), 32, 1, 1),
    "odd_pad0": ((1, 3, 7, 9), 5, 0, 1),
    "odd_pad2": ((2, 3, 7, 9), 5, 2, 1),
    "one_channel": ((1, 1, 5, 5), 1, 1, 1),
    "one_output": ((3, 2, 3, 3), 4, 0, 1),
    "batch1_wide": ((1, 4, 5, 11), 6, 1, 1),
    "groups": ((2, 8, 10, 10), 12, 1, 2),
    "groups_of_two": ((1, 4, 8, 8), 8, 2, 2),
}


def _inputs(shape: tuple, f: int, groups: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((f, shape[1] // groups, 3, 3)).astype(np.float32)
    b = rng.standard_normal(f).astype(np.float32)
    return [x, w, b]


def _params(f: int, pad: int, groups: int) -> dict:
    return dict(kernel=(3, 3), pad=(pad, pad), num_filter=f, num_group=groups)


def _err(got: np.ndarray, want: np.ndarray) -> float:
    return float(np.abs(got - want).max() / np.abs(want).max())


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts the calls of the Winograd kernels."""
    calls = {"forward": 0, "weight_grad": 0}
    for name in calls:
        original = getattr(_winograd, name)

        def wrapped(*args, _name=name, _original=original, **kwargs):
            calls[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(_winograd, name, wrapped)
    return calls


def test_transform_matrices_compute_the_correlation_exactly() -> None:
    rng = np.random.default_rng(3)
    for m in (2, 4):
        bt, g, at = _winograd._matrices(m)
        d = [Fraction(int(v)) for v in rng.integers(-9, 9, m + 2)]
        k = [Fraction(int(v)) for v in rng.integers(-9, 9, 3)]
        v = [sum(b * x for b, x in zip(row, d)) for row in bt]
        u = [sum(a * x for a, x in zip(row, k)) for row in g]
        y = [sum(a * p * q for a, p, q in zip(row, u, v)) for row in at]
        assert y == [sum(d[i + j] * k[j] for j in range(3)) for i in range(m)]


@pytest.mark.parametrize("m", (2, 4))
@pytest.mark.parametrize(
    "shape, pad", [((2, 3, 7, 9), (0, 0)), ((1, 2, 5, 5), (1, 1)), ((3, 1, 4, 6), (2, 1))]
)
def test_separable_input_transform_is_bt_d_b_of_every_patch(
    m: int, shape: tuple, pad: tuple
) -> None:
    # V[i*n + j] of a tile = (BT d B)[i, j] of its padded n x n patch, tiles (b, p, q) per
    # channel, with ragged last tiles reading zeros past the padded input
    b, c, h, w = shape
    t = _winograd.transform(m)
    n = t.n
    out = (h + 2 * pad[0] - 2, w + 2 * pad[1] - 2)
    tiles = (-(-out[0] // m), -(-out[1] // m))
    x = np.random.default_rng(5).standard_normal(shape).astype(np.float32)
    got = _winograd._Patches(np, t, b, c, (h, w), pad, tiles)(x)
    big = np.zeros((b, c, tiles[0] * m + 2, tiles[1] * m + 2))
    big[:, :, pad[0] : pad[0] + h, pad[1] : pad[1] + w] = x
    bt = np.array(_winograd._matrices(m)[0], dtype=np.float64)
    want = np.empty((n, n, c, b, *tiles))
    for p in range(tiles[0]):
        for q in range(tiles[1]):
            d = big[:, :, p * m : p * m + n, q * m : q * m + n]
            want[..., p, q] = np.einsum("ik,cbkl,jl->ijcb", bt, d.transpose(1, 0, 2, 3), bt)
    assert got.shape == (n * n, c * b * tiles[0] * tiles[1])
    np.testing.assert_allclose(got, want.reshape(n * n, -1), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("algo", WINOGRAD)
@pytest.mark.parametrize("case", list(SHAPES), ids=list(SHAPES))
def test_forward_and_gradients_within_tolerance_of_direct(
    case: str, algo: str, monkeypatch: pytest.MonkeyPatch, counted: dict[str, int]
) -> None:
    shape, f, pad, groups = SHAPES[case]
    ins = _inputs(shape, f, groups)
    params = _params(f, pad, groups)
    exact = [a.astype(np.float64) for a in ins]
    monkeypatch.setenv("MXLITE_CONV_ALGO", "im2col")
    (want,) = forward("Convolution", exact, **params)
    head = np.random.default_rng(1).standard_normal(want.shape)
    want_grads = backward("Convolution", exact, [head], **params)
    monkeypatch.setenv("MXLITE_CONV_ALGO", algo)
    (got,) = forward("Convolution", ins, **params)
    assert got.dtype == np.float32
    assert _err(got, want) <= TOL
    grads = backward("Convolution", ins, [head.astype(np.float32)], **params)
    for name, g, w in zip(("data", "weight", "bias"), grads, want_grads):
        assert _err(g, w) <= TOL, name
    # forward twice (forward, then forward + data gradient in backward), weight gradient once
    assert counted == {"forward": 3, "weight_grad": 1}


@pytest.mark.parametrize("algo", WINOGRAD)
def test_gradients_match_finite_differences(algo: str, monkeypatch: pytest.MonkeyPatch) -> None:
    shape, f, pad, groups = (2, 3, 5, 6), 4, 1, 1
    ins = _inputs(shape, f, groups, seed=5)
    params = _params(f, pad, groups)
    head = np.random.default_rng(6).standard_normal((2, 4, 5, 6))
    want = numeric_grad("Convolution", ins, [head], **params)
    monkeypatch.setenv("MXLITE_CONV_ALGO", algo)
    got = backward("Convolution", ins, [head.astype(np.float32)], **params)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("algo", WINOGRAD)
def test_req_add_accumulates(algo: str, monkeypatch: pytest.MonkeyPatch) -> None:
    shape, f, pad, groups = (2, 4, 6, 7), 3, 1, 1
    ins = _inputs(shape, f, groups)
    params = _params(f, pad, groups)
    monkeypatch.setenv("MXLITE_CONV_ALGO", algo)
    (y,) = forward("Convolution", ins, **params)
    head = np.random.default_rng(2).standard_normal(y.shape).astype(np.float32)
    plain = backward("Convolution", ins, [head], **params)
    init = [np.full(a.shape, 0.5, np.float32) for a in ins]
    added = backward("Convolution", ins, [head], req=OpReq.ADD, grad_init=init, **params)
    for p, a, i in zip(plain, added, init):
        np.testing.assert_allclose(a, p + i, rtol=1e-5, atol=1e-5)
    start = [np.ones(y.shape, np.float32)]
    (y_added,) = forward("Convolution", ins, req=OpReq.ADD, out_init=start, **params)
    np.testing.assert_allclose(y_added, y + 1, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("algo", WINOGRAD)
def test_deconvolution_and_channels_last(algo: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(4)
    cases = [
        ("Deconvolution", [(2, 4, 6, 5), (4, 3, 3, 3)], dict(kernel=(3, 3), pad=(1, 1))),
        ("Convolution", [(2, 6, 5, 4), (5, 3, 3, 4)], dict(kernel=(3, 3), layout="NHWC")),
    ]
    for op, shapes, extra in cases:
        ins = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        params = dict(num_filter=5 if op == "Convolution" else 3, no_bias=True, **extra)
        exact = [a.astype(np.float64) for a in ins]
        monkeypatch.setenv("MXLITE_CONV_ALGO", "im2col")
        (want,) = forward(op, exact, **params)
        head = rng.standard_normal(want.shape)
        want_grads = backward(op, exact, [head], **params)
        monkeypatch.setenv("MXLITE_CONV_ALGO", algo)
        (got,) = forward(op, ins, **params)
        assert _err(got, want) <= TOL, op
        for g, w in zip(backward(op, ins, [head.astype(np.float32)], **params), want_grads):
            assert _err(g, w) <= TOL, op


def test_blocks_of_images_on_threads_give_the_same_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shape, f, pad, groups = (5, 4, 9, 9), 6, 1, 1
    ins = _inputs(shape, f, groups)
    params = _params(f, pad, groups)
    monkeypatch.setenv("MXLITE_CONV_ALGO", "winograd4")
    (y,) = forward("Convolution", ins, **params)
    grads = backward("Convolution", ins, [y], **params)
    monkeypatch.setattr(_winograd, "_BLOCK_ELEMENTS", 1)
    monkeypatch.setattr(_winograd, "_MIN_TILES", 1)
    monkeypatch.setattr(parallel, "_MIN_ELEMENTS", 1)
    monkeypatch.setattr(parallel, "num_threads", lambda: 3)
    (y_blocks,) = forward("Convolution", ins, **params)
    np.testing.assert_allclose(y_blocks, y, rtol=1e-6, atol=1e-6)
    # the weight gradient sums blocks' partial sums: other groupings of the same terms, so
    # equal to float32 rounding of the gradient's scale (values of ~600 differed by 5e-5)
    for a, b in zip(backward("Convolution", ins, [y], **params), grads):
        assert _err(a, b) <= 1e-6


def test_auto_times_the_candidates_then_keeps_the_fastest(
    monkeypatch: pytest.MonkeyPatch, counted: dict[str, int]
) -> None:
    monkeypatch.delenv("MXLITE_CONV_ALGO", raising=False)
    monkeypatch.setattr(_conv_algo, "_chosen", {})
    shape, f, pad, groups = (2, 3, 12, 12), 4, 1, 1
    ins = _inputs(shape, f, groups)
    params = _params(f, pad, groups)
    (first,) = forward("Convolution", ins, **params)
    runs = 2 * (_conv_algo._TIMINGS + 1)  # both tile sizes, after one untimed run each
    assert counted["forward"] == runs
    (key, algo), *rest = _conv_algo._chosen.items()
    assert not rest and key[0] == "forward" and algo in _conv_algo.ALGORITHMS
    (second,) = forward("Convolution", ins, **params)
    assert counted["forward"] == runs + (algo != "im2col")
    assert _err(second, first) <= TOL


def test_float64_depthwise_and_uncovered_geometries_stay_on_im2col(
    monkeypatch: pytest.MonkeyPatch, counted: dict[str, int]
) -> None:
    monkeypatch.setenv("MXLITE_CONV_ALGO", "winograd4")
    x64 = [a.astype(np.float64) for a in _inputs((1, 2, 6, 6), 3, 1)]
    forward("Convolution", x64, **_params(3, 1, 1))
    backward("Convolution", x64, **_params(3, 1, 1))
    x = _inputs((1, 2, 8, 8), 3, 1)
    for extra in (dict(stride=(2, 2)), dict(dilate=(2, 2)), dict(pad=(3, 3))):
        params = {**_params(3, 1, 1), **extra}
        forward("Convolution", x, **params)
    x[1] = x[1][:, :, :1]  # a 1x3 kernel
    forward("Convolution", x, kernel=(1, 3), num_filter=3)
    depthwise = _inputs((2, 6, 9, 9), 6, 6)
    forward("Convolution", depthwise, **_params(6, 1, 6))
    backward("Convolution", depthwise, **_params(6, 1, 6))
    assert counted == {"forward": 1, "weight_grad": 0}  # only pad 3's forward


def test_bad_setting_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MXLITE_CONV_ALGO", "fft")
    x = mx.nd.ones((1, 1, 4, 4))
    w = mx.nd.ones((1, 1, 3, 3))
    with pytest.raises(MXNetError, match="MXLITE_CONV_ALGO.*fft"):
        mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=1, no_bias=True).asnumpy()


@pytest.mark.parametrize("algo", WINOGRAD)
def test_golden_values_of_mxnet_under_winograd(
    algo: str, monkeypatch: pytest.MonkeyPatch, counted: dict[str, int]
) -> None:
    """MXNet 1.9.1's outputs and gradients (tools/golden/cases/nn_conv.py), Winograd forced."""
    if not (GOLDEN / "nn_conv.npz").exists():
        pytest.skip("golden file missing: run tools/golden/run.py nn_conv under MXNet 1.9.1")
    gold = golden("nn_conv")
    monkeypatch.setenv("MXLITE_CONV_ALGO", algo)
    for case in conv_tests.TABLE:
        if case["op"] != "FullyConnected":
            conv_tests.test_forward_backward_match_mxnet(case, gold)
    assert counted["forward"] >= 2 and counted["weight_grad"] >= 1  # the 3x3 float32 case ran
