"""mx.image: decoding and resampling equal MXNet 1.9.1's (OpenCV), augmenters, ImageIter."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from tests.golden_file import load

from ..io.data_cases import image_iter_runs, pixels, random_image_iter
from ._golden import GOLDEN, image_folder, image_paths

cv2 = pytest.importorskip("cv2")
PIXELS = load("io/golden/data.npz").arrays("pixels")


def _close(got, want, cubic: bool = False) -> None:
    """Equal, except bicubic: OpenCV 5's kernel rounds one level apart on a few % of pixels."""
    diff = np.abs(np.asarray(got, np.int64) - want)
    if not cubic:
        assert diff.max() == 0
        return
    assert diff.max() <= 1 and (diff != 0).mean() <= 0.08


@pytest.mark.parametrize("k", range(9))
def test_decode_resize_crop_equal_mxnet(k):
    with open(image_paths()[k], "rb") as f:
        buf = f.read()
    got = pixels(mx, buf, k)
    assert got[f"decode_{k}"].dtype == np.uint8 and got[f"decode_{k}"].shape[2] == 3
    for key, img in got.items():  # bicubic: resize_<k>_2 and what resizes by default
        cubic = key == f"resize_{k}_2" or key.startswith(("resize_short", "center", "fixed"))
        _close(img.asnumpy(), PIXELS[key], cubic)
    _close(mx.image.imdecode(bytearray(buf), to_rgb=False).asnumpy(), PIXELS[f"decode_bgr_{k}"])


def test_imread_equals_imdecode_and_errors(tmp_path):
    path = image_paths()[0]
    with open(path, "rb") as f:
        want = mx.image.imdecode(f.read()).asnumpy()
    np.testing.assert_array_equal(mx.image.imread(path).asnumpy(), want)
    with pytest.raises(MXNetError, match="imread.*nothere.jpg"):
        mx.image.imread(str(tmp_path / "nothere.jpg"))
    with pytest.raises(MXNetError, match="empty"):
        mx.image.imdecode(b"")
    with pytest.raises(MXNetError, match="could not be decoded"):
        mx.image.imdecode(b"clearly not image content")
    with pytest.raises(ValueError, match="bytes"):
        mx.image.imdecode("text")
    assert mx.img is mx.image and mx.img.image.imread is mx.image.imread


def test_without_opencv_the_error_names_the_extra(monkeypatch):
    import sys

    import mxlite.opencv as opencv_module

    monkeypatch.setitem(sys.modules, "cv2", None)
    monkeypatch.setattr(opencv_module, "_cv2_module", None)
    with pytest.raises(MXNetError, match=r"mxlite\[image\]"):
        mx.image.imdecode(b"abc")


def test_scale_down_and_color_normalize():
    assert mx.image.scale_down((640, 480), (720, 120)) == (640, 106)
    assert mx.image.scale_down((360, 1000), (480, 500)) == (360, 375)
    src = np.random.RandomState(0).rand(5, 6, 3).astype(np.float32) * 255
    mean, std = np.array([1.0, 2.0, 3.0]), np.array([2.0, 3.0, 4.0])
    got = mx.image.color_normalize(mx.nd.array(src), mx.nd.array(mean), mx.nd.array(std))
    np.testing.assert_allclose(got.asnumpy(), (src - mean) / std, rtol=1e-5)


def _run_augmenters(seed: int) -> np.ndarray:
    random.seed(seed)
    np.random.seed(seed)
    augs = mx.image.CreateAugmenter(
        (3, 24, 24),
        resize=30,
        rand_crop=True,
        rand_resize=True,
        rand_mirror=True,
        mean=True,
        std=True,
        brightness=0.3,
        contrast=0.3,
        saturation=0.3,
        hue=0.1,
        pca_noise=0.1,
        rand_gray=0.3,
        inter_method=10,
    )
    with open(image_paths()[1], "rb") as f:
        img = mx.image.imdecode(f.read())
    outs = []
    for _ in range(4):
        x = img
        for aug in augs:
            x = aug(x)
        outs.append(x.asnumpy())
    return np.stack(outs)


def test_random_augmenters_reproducible_and_in_range():
    a, b = _run_augmenters(3), _run_augmenters(3)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (4, 24, 24, 3) and a.dtype == np.float32
    assert not np.array_equal(a, _run_augmenters(4))
    # Normalised pixels of jittered 0..255 images stay within a few standard deviations.
    assert np.abs(a).max() < 6


def test_augmenter_dumps_and_random_size_crop():
    aug = mx.image.ResizeAug(20, 1)
    assert aug.dumps() == '["resizeaug", {"size": 20, "interp": 1}]'
    seq = mx.image.SequentialAug([aug, mx.image.CastAug()])
    assert seq.dumps()[0] == "sequentialaug"
    random.seed(0)
    src = mx.nd.array(np.random.RandomState(1).rand(50, 60, 3) * 255)
    out, (x0, y0, w, h) = mx.image.random_size_crop(src, (30, 20), 0.3, (0.75, 1.33))
    assert out.shape == (20, 30, 3) and 0 <= x0 <= 60 - w and 0 <= y0 <= 50 - h


def test_imrotate_matches_a_half_turn_and_checks_arguments():
    img = mx.nd.array(np.arange(2 * 5 * 7, dtype=np.float32).reshape(2, 5, 7))
    rotated = mx.image.imrotate(img, 180).asnumpy()
    np.testing.assert_allclose(rotated, img.asnumpy()[:, ::-1, ::-1], atol=1e-3)
    with pytest.raises(ValueError, match="zoom"):
        mx.image.imrotate(img, 10, zoom_in=True, zoom_out=True)
    with pytest.raises(TypeError, match="scalar"):
        mx.image.imrotate(img, mx.nd.array([1, 2]))
    assert mx.image.random_rotate(img, (-5, 5)).shape == (2, 5, 7)


def _check_run(golden, name, got):
    assert int(golden[f"{name}/n"]) == len(got)
    for i, (data, label, pad) in enumerate(got):
        diff = np.abs(data - golden[f"{name}/{i}/data"])
        # ImageIter resizes bicubic by default: allow OpenCV 5's one-level differences.
        assert diff.max() <= 1.0 + 1e-4 and (diff > 1e-3).mean() <= 0.08
        np.testing.assert_array_equal(label, golden[f"{name}/{i}/label"])
        assert pad == int(golden[f"{name}/{i}/pad"])


def test_image_iter_batches_equal_mxnet(tmp_path):
    golden = load("io/golden/data.npz").arrays("image_iter")
    io_golden = os.path.join(os.path.dirname(GOLDEN), "..", "io", "golden", "im2rec")
    rec, idx = os.path.join(io_golden, "plain.rec"), os.path.join(io_golden, "plain.idx")
    lst, root = os.path.join(io_golden, "plain.lst"), image_folder(str(tmp_path / "images"))
    for name, got in image_iter_runs(mx, rec, idx, lst, root).items():
        _check_run(golden, name, got)


def test_image_iter_from_list_and_bad_arguments(tmp_path):
    root = image_folder(str(tmp_path / "images"))
    imglist = [[float(i % 2), "dog/img0.jpg"] for i in range(5)]
    it = mx.image.ImageIter(2, (3, 8, 8), imglist=imglist, path_root=root)
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 1]
    assert batches[0].label[0].asnumpy().tolist() == [0.0, 1.0]
    with pytest.raises(mx.base.ParamError, match="last_batch_handle"):
        mx.image.ImageIter(2, (3, 8, 8), imglist=imglist, last_batch_handle="wrap")
    with pytest.raises(ValueError, match="3 channels"):
        mx.image.ImageIter(2, (1, 8, 8), imglist=imglist)


def test_image_iter_random_augmentation_equals_mxnet_under_the_same_seeds():
    # MXNet's augmenters draw from Python's random and numpy.random; mxlite's draw the same
    # numbers in the same order, so the same seeds give the same crops, flips and jitters.
    golden = load("io/golden/data.npz").arrays("image_iter")
    io_golden = os.path.join(os.path.dirname(GOLDEN), "..", "io", "golden", "im2rec")
    rec, idx = os.path.join(io_golden, "plain.rec"), os.path.join(io_golden, "plain.idx")
    got = random_image_iter(mx, rec, idx)
    assert len(got) == int(golden["random/n"])
    for i, (data, label, _) in enumerate(got):
        np.testing.assert_allclose(data, golden[f"random/{i}/data"], atol=1e-3)
        np.testing.assert_array_equal(label, golden[f"random/{i}/label"])
