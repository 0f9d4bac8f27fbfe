"""The ``_image_*`` operators against MXNet 1.9.1 (tools/golden/cases/image_ops.py), and the
random ones by their ranges."""

import numpy as np
import pytest

import mxlite as mx

from . import opcheck

GOLD = opcheck.golden("image_ops")


@pytest.mark.parametrize("key", list(GOLD.cases))
def test_matches_mxnet(key):
    pytest.importorskip("cv2")
    op, kwargs = GOLD.cases[key]["op"].split(".")[1], GOLD.cases[key]["params"]
    (x,), (want,) = GOLD.inputs(key), GOLD.outputs(key)
    out = getattr(mx.nd.image, op)(mx.nd.array(x, dtype=x.dtype), **kwargs)
    assert out.dtype == want.dtype
    # OpenCV versions round bicubic uint8 pixels differently by one
    atol = 1 if x.dtype == np.uint8 and op == "resize" else 1e-5
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=atol)


def test_flips_are_numpy_flips():
    # not golden: MXNet 1.9.1's CPU flips are wrong for odd sizes (a 7 x 5 image, say)
    (x,) = GOLD.inputs("crop")  # the 7 x 9 uint8 image
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
