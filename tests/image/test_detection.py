"""mx.image.detection: augmenters move boxes with pixels; ImageDetIter pads labels with -1."""

from __future__ import annotations

import random

import numpy as np
import pytest

import mxlite as mx

from ._golden import image_folder

pytest.importorskip("cv2")


def _label(n: int) -> list:
    rng = np.random.RandomState(n)
    rows = []
    for _ in range(n):
        x0, y0 = rng.uniform(0, 0.5, 2)
        rows += [float(rng.randint(0, 3)), x0, y0, x0 + 0.4, y0 + 0.3]
    return [2, 5] + rows


def test_image_det_iter_shapes_padding_and_sync(tmp_path):
    root = image_folder(str(tmp_path / "images"))
    imglist = [_label(1 + i % 3) + ["dog/img0.jpg" if i % 2 else "cat/img1.jpg"] for i in range(5)]
    it = mx.image.ImageDetIter(2, (3, 20, 20), imglist=imglist, path_root=root)
    assert it.provide_label[0][1] == (2, 3, 5)
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 1]
    lab = batches[0].label[0].asnumpy()
    assert lab.shape == (2, 3, 5)
    np.testing.assert_allclose(lab[0, :1], np.array(_label(1)[2:]).reshape(1, 5), rtol=1e-6)
    assert (lab[0, 1:] == -1).all()
    other = mx.image.ImageDetIter(2, (3, 20, 20), imglist=imglist[:1], path_root=root)
    it.sync_label_shape(other)
    assert other.label_shape == it.label_shape == (3, 5)


def test_det_augmenters_keep_boxes_inside_the_image(tmp_path):
    random.seed(1)
    np.random.seed(1)
    augs = mx.image.CreateDetAugmenter(
        (3, 32, 32),
        rand_crop=1,
        rand_pad=1,
        rand_mirror=True,
        mean=True,
        std=True,
        brightness=0.1,
        min_object_covered=0.3,
        area_range=(0.3, 2.0),
    )
    img = mx.nd.array(np.random.RandomState(0).randint(0, 255, (40, 50, 3)).astype(np.uint8))
    for _ in range(10):
        label = np.array(_label(2)[2:], dtype=np.float32).reshape(-1, 5)
        x = img
        for aug in augs:
            x, label = aug(x, label)
        assert x.shape == (32, 32, 3)
        assert (
            label.shape[1] == 5
            and (label[:, 1:] >= -1e-6).all()
            and (label[:, 1:] <= 1 + 1e-6).all()
        )
        assert (label[:, 3] > label[:, 1]).all()


def test_det_flip_mirrors_boxes():
    flip = mx.image.DetHorizontalFlipAug(1.0)
    label = np.array([[0, 0.1, 0.2, 0.4, 0.5]], dtype=np.float32)
    img = mx.nd.array(np.arange(12, dtype=np.float32).reshape(2, 2, 3))
    out, lab = flip(img, label)
    np.testing.assert_allclose(lab, [[0, 0.6, 0.2, 0.9, 0.5]], rtol=1e-6)
    np.testing.assert_array_equal(out.asnumpy(), img.asnumpy()[:, ::-1])


def test_draw_next_yields_images_with_boxes(tmp_path):
    root = image_folder(str(tmp_path / "images"))
    imglist = [_label(2) + ["dog/img0.jpg"], _label(1) + ["cat/img1.jpg"]]
    it = mx.image.ImageDetIter(1, (3, 30, 30), imglist=imglist, path_root=root)
    images = list(it.draw_next(color=(255, 0, 0), id2labels={0: "a", 1: "b", 2: "c"}))
    assert len(images) == 2 and images[0].shape == (30, 30, 3) and images[0].dtype == np.uint8


def test_augmenter_runtime_error_skips_a_detection_image_but_reaches_image_iter(tmp_path):
    # ImageDetIter augments inside its validity check (an augmenter's RuntimeError skips the
    # image, as MXNet's does); ImageIter augments after it (the error reaches the caller).
    root = image_folder(str(tmp_path / "images"))
    calls = []

    def flaky(src, label=None):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("bad crop")
        return src if label is None else (src, label)

    imglist = [_label(1) + ["cat/img1.jpg"], _label(2) + ["dog/img0.jpg"]]
    resize = mx.image.DetBorrowAug(mx.image.ForceResizeAug((20, 20)))
    it = mx.image.ImageDetIter(
        1, (3, 20, 20), imglist=imglist, path_root=root, aug_list=[flaky, resize]
    )
    batches = list(it)
    assert len(batches) == 1
    np.testing.assert_allclose(
        batches[0].label[0].asnumpy()[0, :2], np.array(_label(2)[2:]).reshape(2, 5), rtol=1e-6
    )
    calls.clear()
    plain = mx.image.ImageIter(
        1, (3, 20, 20), imglist=[[1.0, "cat/img1.jpg"]], path_root=root, aug_list=[flaky]
    )
    with pytest.raises(RuntimeError, match="bad crop"):
        plain.next()
