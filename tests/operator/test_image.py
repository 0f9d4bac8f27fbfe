"""The ``_image_*`` operators against MXNet 1.9.1 (tools/make_golden_image_ops.py), and the
random ones by their ranges."""

import os

import numpy as np
import pytest

import mxlite as mx

GOLDEN = dict(np.load(os.path.join(os.path.dirname(__file__), "golden", "image_ops.npz")))
CASES = {
    "to_tensor": ("to_tensor", "img", {}),
    "to_tensor_batch": ("to_tensor", "batch", {}),
    "normalize": ("normalize", "tensor", {"mean": (0.1, 0.2, 0.3), "std": (0.5, 1.0, 2.0)}),
    "normalize_batch": ("normalize", "tensor_batch", {"mean": (0.5,), "std": (2.0,)}),
    "resize": ("resize", "img", {"size": (5, 4)}),
    "resize_keep": ("resize", "img", {"size": (6,), "keep_ratio": True, "interp": 2}),
    "resize_batch": ("resize", "batch", {"size": (3,), "interp": 0}),
    "crop": ("crop", "img", {"x": 1, "y": 2, "width": 4, "height": 3}),
    "crop_batch": ("crop", "batch", {"x": 0, "y": 1, "width": 2, "height": 5}),
    "adjust_lighting": ("adjust_lighting", "fimg", {"alpha": (0.1, -0.2, 0.3)}),
}


@pytest.mark.parametrize("key", sorted(CASES))
def test_matches_mxnet(key):
    pytest.importorskip("cv2")
    op, src, kwargs = CASES[key]
    x = GOLDEN[f"in:{src}"]
    out = getattr(mx.nd.image, op)(mx.nd.array(x, dtype=x.dtype), **kwargs)
    assert out.dtype == GOLDEN[key].dtype
    # OpenCV versions round bicubic uint8 pixels differently by one
    atol = 1 if x.dtype == np.uint8 and op == "resize" else 1e-5
    np.testing.assert_allclose(out.asnumpy(), GOLDEN[key], rtol=1e-5, atol=atol)


def test_flips_are_numpy_flips():
    # not golden: MXNet 1.9.1's CPU flips are wrong for odd sizes (a 7 x 5 image, say)
    x = GOLDEN["in:img"]
    nd = mx.nd.array(x, dtype=x.dtype)
    np.testing.assert_array_equal(mx.nd.image.flip_left_right(nd).asnumpy(), x[:, ::-1])
    np.testing.assert_array_equal(mx.nd.image.flip_top_bottom(nd).asnumpy(), x[::-1])


def test_symbolic_shapes_and_gradients():
    x = mx.sym.var("x")
    y = mx.sym.image.crop(mx.sym.image.normalize(x, mean=(1.0,), std=(2.0,)), 1, 1, 2, 2)
    assert y.infer_shape(x=(5, 4, 3))[1] == [(2, 2, 3)]
    a = mx.nd.ones((4, 4, 3))
    a.attach_grad()
    with mx.autograd.record():
        out = mx.nd.image.crop(mx.nd.image.flip_left_right(a), 0, 0, 2, 3)
    out.backward()
    want = np.zeros((4, 4, 3), np.float32)
    want[:3, 2:] = 1
    np.testing.assert_array_equal(a.grad.asnumpy(), want)


def test_random_ops_stay_in_their_range():
    x = mx.nd.array(np.random.RandomState(0).uniform(10, 200, (6, 7, 3)))
    for _ in range(5):
        out = mx.nd.image.random_brightness(x, min_factor=0.5, max_factor=1.5).asnumpy()
        ratio = out / x.asnumpy()
        assert 0.5 <= ratio.min() and ratio.max() <= 1.5 and np.ptp(ratio) < 1e-4
    flips = {tuple(mx.nd.image.random_flip_left_right(x).asnumpy()[0, 0]) for _ in range(20)}
    assert len(flips) == 2
    same = mx.nd.image.random_color_jitter(x, 0, 0, 0, 0).asnumpy()
    np.testing.assert_allclose(same, x.asnumpy(), rtol=1e-6)


def test_bad_input_is_named():
    with pytest.raises(mx.base.MXNetError, match="crop"):
        mx.nd.image.crop(mx.nd.ones((4, 4, 3)), 2, 2, 5, 1)
    with pytest.raises(mx.base.MXNetError, match="H, W, C"):
        mx.nd.image.to_tensor(mx.nd.ones((4, 4)))
