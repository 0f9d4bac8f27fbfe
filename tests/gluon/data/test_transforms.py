"""gluon.data.vision.transforms: shapes, dtypes and values of each transform, hybridized
pipelines, and their argument checks."""

import numpy as np
import pytest

import mxlite as mx
from mxlite.gluon.data.vision import transforms as T

pytest.importorskip("cv2")

IMG = mx.nd.array(np.random.RandomState(0).randint(0, 256, (30, 40, 3)), dtype="uint8")


def test_to_tensor_and_normalize():
    t = T.ToTensor()(IMG)
    assert t.shape == (3, 30, 40) and t.dtype == np.float32
    np.testing.assert_allclose(t.asnumpy(), IMG.asnumpy().transpose(2, 0, 1) / 255.0, rtol=1e-6)
    n = T.Normalize(mean=(0.5, 0.4, 0.3), std=(2, 1, 0.5))(t)
    want = (t.asnumpy() - np.array([0.5, 0.4, 0.3])[:, None, None]) / np.array([2, 1, 0.5])[
        :, None, None
    ]
    np.testing.assert_allclose(n.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_compose_hybridizes_runs_of_hybrid_blocks():
    c = T.Compose([T.Resize(20), T.CenterCrop(16), T.ToTensor(), T.Normalize(0.5, 0.25)])
    assert isinstance(c[2], mx.gluon.nn.HybridSequential)
    out = c(IMG)
    assert out.shape == (3, 16, 16)
    h = T.HybridCompose([T.Resize((10, 8)), T.ToTensor(), T.Cast("float16")])
    assert h(IMG).shape == (3, 8, 10) and h(IMG).dtype == np.float16
    with pytest.raises(ValueError):
        T.HybridCompose([T.CenterCrop(4)])


def test_resize_and_crop_resize():
    assert T.Resize(15, keep_ratio=True)(IMG).shape == (15, 20, 3)
    np.testing.assert_array_equal(
        T.CropResize(2, 3, 10, 5)(IMG).asnumpy(), IMG.asnumpy()[3:8, 2:12]
    )
    assert T.CropResize(0, 0, 20, 10, (5, 4), 1)(IMG).shape == (4, 5, 3)


def test_random_transforms_run_and_keep_shapes():
    f = T.ToTensor()(IMG)
    for t in [
        T.RandomResizedCrop(12),
        T.RandomFlipLeftRight(),
        T.RandomFlipTopBottom(),
        T.RandomBrightness(0.2),
        T.RandomContrast(0.2),
        T.RandomSaturation(0.2),
        T.RandomHue(0.2),
        T.RandomColorJitter(0.1, 0.1, 0.1, 0.1),
        T.RandomLighting(0.1),
        T.RandomGray(1.0),
    ]:
        out = t(IMG)
        assert out.dtype == np.uint8 and out.ndim == 3
    assert T.RandomRotation([-5.0, 5.0])(f).shape == f.shape
    assert T.RandomApply(T.Resize(5), p=0.0)(IMG).shape == IMG.shape
    gray = T.RandomGray(1.0)(IMG).asnumpy()
    assert (gray[..., 0] == gray[..., 1]).all()


def test_rotation_arguments_and_dtype():
    with pytest.raises(ValueError):
        T.RandomRotation([10, -10])
    with pytest.raises(ValueError):
        T.RandomRotation([-10, 10], rotate_with_proba=1.5)
    with pytest.raises(TypeError):
        T.Rotate(10)(IMG)


@pytest.mark.parametrize("name", ["brightness", "contrast", "saturation", "hue"])
def test_random_color_factor_takes_mxnets_keyword(name):
    # MXNet's signatures: RandomBrightness(brightness), RandomContrast(contrast), ...
    t = getattr(T, f"Random{name.capitalize()}")(**{name: 0.3})
    assert t._args == (0.7, 1.3)
    assert t(IMG).shape == IMG.shape
