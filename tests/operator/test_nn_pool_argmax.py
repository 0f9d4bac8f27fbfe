"""Max pooling's kept argmax (mxlite/operator/nn/pooling.py, _pool_util.py): a training
forward keeps each window's first maximum in a hidden uint8 output, and the backward routes
the gradient by it; without it (an inference forward, or a window of more than 254 positions)
the backward compares the input with the output. Both must route every gradient alike, ties,
NaN, -inf and windows of padding included; the golden values of test_nn_pool.py pin both to
MXNet."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx

from . import opcheck

CASES = [
    # ResNet's stem pool and its 'full' twin, odd sizes, batch 1
    ((1, 3, 13, 13), {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1)}),
    ((2, 2, 11, 11), {"kernel": (3, 3), "stride": (2, 2), "pooling_convention": "full"}),
    ((2, 3, 8, 8), {"kernel": (2, 2), "stride": (2, 2)}),
    ((1, 2, 7, 9), {"kernel": (3, 3), "stride": (1, 1), "pad": (1, 1)}),
    ((2, 2, 9), {"kernel": (3,), "stride": (2,), "pad": (1,)}),
    ((1, 2, 5, 6, 5), {"kernel": (2, 3, 2), "stride": (2, 2, 1), "pad": (1, 1, 0)}),
    ((2, 7, 7, 3), {"kernel": (3, 3), "stride": (2, 2), "layout": "NHWC", "pad": (1, 1)}),
    # stride past the kernel: inputs in no window
    ((1, 2, 9, 9), {"kernel": (2, 2), "stride": (3, 3)}),
]


def _inputs(shape: tuple, dtype: type, rng: np.random.Generator) -> np.ndarray:
    """Values with many ties (a ReLU's zeros, repeated levels), a NaN and an -inf."""
    x = np.maximum(rng.integers(-3, 4, size=shape), 0).astype(dtype)
    flat = x.reshape(-1)
    flat[rng.integers(flat.size)] = np.nan
    flat[rng.integers(flat.size)] = -np.inf
    return x


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape,params", CASES)
def test_kept_argmax_routes_as_the_comparison(shape, params, dtype) -> None:
    rng = np.random.default_rng(3)
    x = _inputs(shape, dtype, rng)
    out = opcheck.forward("Pooling", [x], is_train=True, **params)
    assert len(out) == 2 and out[1].dtype == np.uint8
    assert out[1].shape == _grid_shape(out[0], params)
    head = [rng.normal(size=out[0].shape).astype(dtype)]
    kept = opcheck.backward("Pooling", [x], head, is_train=True, **params)[0]
    compared = opcheck.backward("Pooling", [x], head, is_train=False, **params)[0]
    np.testing.assert_array_equal(kept, compared)


def _grid_shape(y: np.ndarray, params: dict) -> tuple:
    """The workspace's shape: ``(N, C)`` and the phase grid's cells per axis, the output plus
    the window's reach past it, ``(kernel - 1) // stride``."""
    last = params.get("layout", "NC") in ("NWC", "NHWC", "NDHWC")
    n, c, out = (y.shape[0], y.shape[-1], y.shape[1:-1]) if last else (*y.shape[:2], y.shape[2:])
    reach = [(k - 1) // s for k, s in zip(params["kernel"], params["stride"])]
    return (n, c, *(o + r for o, r in zip(out, reach)))


def _argmax_cells(where: np.ndarray, y: np.ndarray, params: dict) -> np.ndarray:
    """The argmax of each output (the workspace's output cells; the others are unspecified)."""
    last = params.get("layout", "NC") in ("NWC", "NHWC", "NDHWC")
    out = y.shape[1:-1] if last else y.shape[2:]
    return where[(Ellipsis, *(slice(0, o) for o in out))]


def test_small_blocks_on_threads_route_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of a few rows (a short last one) on three threads: the argmax and both routes
    give what one block gives."""
    from mxlite.operator import parallel as _parallel
    from mxlite.operator.nn import _pool_util

    rng = np.random.default_rng(9)
    whole = []
    for shape, params in CASES:
        x = _inputs(shape, np.float32, rng)
        head = [rng.normal(size=opcheck.forward("Pooling", [x], **params)[0].shape)]
        whole.append((x, params, head, _routes(x, params, head)))
    monkeypatch.setattr(_pool_util, "_MAX_CELLS", 40)
    monkeypatch.setattr(_parallel, "_MIN_ELEMENTS", 1)
    monkeypatch.setattr(_parallel, "num_threads", lambda: 3)
    for x, params, head, want in whole:
        for got, expect in zip(_routes(x, params, head), want):
            np.testing.assert_array_equal(got, expect)


def _routes(x: np.ndarray, params: dict, head: list) -> list[np.ndarray]:
    """The output, the argmax and the gradient by each route."""
    y, where = opcheck.forward("Pooling", [x], is_train=True, **params)
    kept = opcheck.backward("Pooling", [x], head, is_train=True, **params)[0]
    compared = opcheck.backward("Pooling", [x], head, is_train=False, **params)[0]
    return [y, _argmax_cells(where, y, params), kept, compared]


def _first_argmax(x: np.ndarray, k: int, s: int, p: int) -> np.ndarray:
    """Window by window over one 2-D plane: the row-major index of the first maximum, 255
    where the window holds a NaN (its maximum is NaN) or only padding and -inf."""
    n = (x.shape[0] + 2 * p - k) // s + 1
    out = np.empty((n, n), np.uint8)
    for i in range(n):
        for j in range(n):
            vals = [
                x[r, c] if 0 <= r < x.shape[0] and 0 <= c < x.shape[1] else -np.inf
                for r in range(i * s - p, i * s - p + k)
                for c in range(j * s - p, j * s - p + k)
            ]
            top = max(vals)
            nan = any(np.isnan(v) for v in vals)
            out[i, j] = 255 if nan or top == -np.inf else vals.index(top)
    return out


def test_kept_argmax_is_the_first_maximum_and_skips_nan_and_padding() -> None:
    x = np.array([[1, 5, 5, 0], [5, 0, 0, 2], [0, 0, 0, 2], [-np.inf, 0, 2, 2]], np.float32)
    x[2, 2] = np.nan
    for k, s, p in ((2, 1, 1), (3, 2, 1), (3, 1, 2), (2, 2, 0)):
        params = {"kernel": (k, k), "stride": (s, s), "pad": (p, p)}
        y, where = opcheck.forward("Pooling", [x[None, None]], is_train=True, **params)
        where = _argmax_cells(where, y, params)
        np.testing.assert_array_equal(where[0, 0], _first_argmax(x, k, s, p))
    assert 255 in where and 1 in where  # NaN windows, and a tie of 5s kept at its first


def test_argmax_is_hidden() -> None:
    x = mx.sym.var("x")
    y = mx.sym.Pooling(x, kernel=(3, 3), stride=(2, 2), name="p")
    assert y.list_outputs() == ["p_output"]
    assert y.get_internals().list_outputs() == ["x", "p_output"]
    _, out_shapes, _ = y.infer_shape(x=(2, 3, 9, 9))
    assert out_shapes == [(2, 3, 4, 4)]
    assert mx.nd.Pooling(mx.nd.ones((1, 1, 4, 4)), kernel=(2, 2)).shape == (1, 1, 3, 3)


def test_no_argmax_past_254_window_positions() -> None:
    prop = opcheck.prop_of("Pooling", kernel=(16, 16))
    assert prop.list_outputs() == ["output"]
    assert opcheck.prop_of("Pooling", kernel=(2, 127)).list_outputs() == ["output", "workspace"]
    assert opcheck.prop_of("Pooling", kernel=(2, 2), pool_type="avg").list_outputs() == ["output"]
    assert opcheck.prop_of("Pooling", global_pool=True).list_outputs() == ["output"]
    rng = np.random.default_rng(0)
    x = rng.permutation(2 * 17 * 18).reshape(1, 2, 17, 18).astype(np.float64)
    head = [rng.normal(size=(1, 2, 2, 3))]
    got = opcheck.backward("Pooling", [x], head, kernel=(16, 16))[0]
    want = opcheck.numeric_grad("Pooling", [x], head, eps=1e-3, kernel=(16, 16))[0]
    np.testing.assert_allclose(got, want, atol=1e-6)


@pytest.mark.parametrize("train_mode", [True, False])
def test_autograd_in_both_modes(train_mode: bool) -> None:
    """Recorded with train_mode=False the forward keeps no argmax and the backward compares
    (MXNet 1.9.1's oneDNN kernel reads a workspace it never wrote there)."""
    rng = np.random.default_rng(5)
    xs = _inputs((2, 3, 10, 10), np.float32, rng)
    params = {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1)}
    want = opcheck.backward("Pooling", [xs], is_train=False, **params)[0]
    x = mx.nd.array(xs)
    x.attach_grad()
    with mx.autograd.record(train_mode=train_mode):
        y = mx.nd.Pooling(x, **params)
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), want)


def test_executor_routes_by_the_kept_argmax() -> None:
    rng = np.random.default_rng(7)
    xs = _inputs((2, 4, 12, 12), np.float32, rng)
    params = {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1)}
    sym = mx.sym.Pooling(mx.sym.var("x"), **params)
    exe = sym.simple_bind(mx.cpu(), x=xs.shape)
    exe.arg_dict["x"][:] = xs
    exe.forward(is_train=True)
    head = rng.normal(size=exe.outputs[0].shape).astype(np.float32)
    exe.backward(mx.nd.array(head))
    want = opcheck.backward("Pooling", [xs], [head], is_train=False, **params)[0]
    np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), want)
    assert len(exe.outputs) == 1


def test_out_takes_the_visible_output_as_in_mxnet() -> None:
    """``out=`` names the visible outputs (the hidden ones are made), as MXNet's imperative
    call accepts; under autograd the backward still finds the argmax."""
    x = mx.nd.array(np.arange(36, dtype=np.float32).reshape(1, 1, 6, 6))
    x.attach_grad()
    o = mx.nd.zeros((1, 1, 3, 3))
    with mx.autograd.record():
        y = mx.nd.Pooling(x, kernel=(2, 2), stride=(2, 2), out=o)
    assert y is o
    y.backward()
    assert o.asnumpy()[0, 0].tolist() == [[7, 9, 11], [19, 21, 23], [31, 33, 35]]
    want = np.zeros((6, 6))
    want[1::2, 1::2] = 1
    np.testing.assert_array_equal(x.grad.asnumpy()[0, 0], want)
    d = mx.nd.zeros((2, 3))
    assert mx.nd.Dropout(mx.nd.ones((2, 3)), p=0.5, out=d) is d
    with pytest.raises(mx.base.MXNetError, match="Pooling.*'out' needs 2 arrays, got 3"):
        mx.nd.Pooling(x, kernel=(2, 2), stride=(2, 2), out=[o, o, o])
