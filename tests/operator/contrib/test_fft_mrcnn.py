"""fft / ifft and mrcnn_mask_target, which MXNet 1.9.1 has on GPU only (so no golden files
from its CPU build): checked against NumPy's FFT, finite differences and an analytic case."""

import numpy as np
import pytest

import mxlite as mx
from mxlite.test_utils import check_numeric_gradient


@pytest.mark.parametrize("shape", [(3, 4), (2, 1, 3, 5)])
def test_fft_is_numpys_interleaved(shape):
    x = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    got = mx.nd.contrib.fft(mx.nd.array(x), compute_size=2).asnumpy()
    want = np.fft.fft(x, axis=-1)
    assert got.shape == (*shape[:-1], 2 * shape[-1])
    np.testing.assert_allclose(got[..., 0::2], want.real, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[..., 1::2], want.imag, rtol=1e-5, atol=1e-5)
    # ifft is the real part of the unnormalised inverse, so ifft(fft(x)) = d * x
    back = mx.nd.contrib.ifft(mx.nd.array(got)).asnumpy()
    np.testing.assert_allclose(back, x * shape[-1], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("op,shape", [("fft", (2, 3)), ("ifft", (2, 6))])
def test_fft_gradients_match_finite_differences(op, shape):
    sym = getattr(mx.sym.contrib, op)(mx.sym.var("data"))
    x = np.random.default_rng(1).normal(size=shape)
    check_numeric_gradient(sym, [x], numeric_eps=1e-3, rtol=1e-2, atol=1e-3, dtype=np.float64)


def test_fft_shapes_are_checked():
    with pytest.raises(mx.base.ShapeError, match="2-D or 4-D"):
        mx.nd.contrib.fft(mx.nd.ones((2, 3, 4)))
    with pytest.raises(mx.base.ShapeError, match="even"):
        mx.nd.contrib.ifft(mx.nd.ones((2, 3)))


def test_mrcnn_mask_target_on_a_linear_mask():
    # on masks that are linear in (y, x), ROIAlign's average of bilinear samples is the value
    # at the mean sample point, so the targets have a closed form
    h = w = 16
    masks = np.stack([k * 1000 + np.arange(h)[:, None] * w + np.arange(w) for k in range(3)])
    rois = np.array([[[1.5, 2.0, 9.5, 6.0], [4.0, 4.0, 4.2, 4.1]]], np.float32)
    matches, cls = np.array([[2, 0]], np.float32), np.array([[1, 0]], np.float32)
    targets, onehot = mx.nd.contrib.mrcnn_mask_target(
        mx.nd.array(rois), mx.nd.array(masks[None]), mx.nd.array(matches), mx.nd.array(cls),
        num_rois=2, num_classes=3, mask_size=(2, 3),
    )  # fmt: skip
    assert targets.shape == onehot.shape == (1, 2, 3, 2, 3)
    for r, (x1, y1, x2, y2) in enumerate(rois[0]):
        rw, rh = max(x2 - x1, 1.0), max(y2 - y1, 1.0)  # at least one pixel (aligned=False)
        ys = y1 + (np.arange(2) + 0.5) * rh / 2
        xs = x1 + (np.arange(3) + 0.5) * rw / 3
        want = matches[0, r] * 1000 + ys[:, None] * w + xs[None, :]
        for c in range(3):  # the same target for every class
            np.testing.assert_allclose(targets[0, r, c].asnumpy(), want, rtol=1e-5)
    np.testing.assert_array_equal(onehot.asnumpy()[0, :, :, 0, 0], [[0, 1, 0], [1, 0, 0]])


def test_mrcnn_mask_target_checks_shapes():
    with pytest.raises(mx.base.ShapeError, match="rois must be"):
        mx.nd.contrib.mrcnn_mask_target(
            mx.nd.ones((1, 2, 5)), mx.nd.ones((1, 2, 4, 4)), mx.nd.ones((1, 2)),
            mx.nd.ones((1, 2)), num_rois=2, num_classes=2, mask_size=(2, 2),
        )  # fmt: skip
