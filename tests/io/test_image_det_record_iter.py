"""mx.io.ImageDetRecordIter: batches equal MXNet 1.9.1's."""

from __future__ import annotations

import os

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError, ParamError
from tests.golden_file import load
from tests.io.data_cases import two_epochs

pytest.importorskip("cv2")
GOLDEN = os.path.join(os.path.dirname(__file__), "golden")
REC = os.path.join(GOLDEN, "det.rec")
BATCHES = load("io/golden/data.npz").arrays("det_iter")
CASES = load("io/golden/data.npz").cases["det_iter"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_batches_equal_mxnet(name):
    kw = dict(CASES[name])
    kw["data_shape"] = tuple(kw["data_shape"])
    got = two_epochs(mx.io.ImageDetRecordIter(path_imgrec=REC, preprocess_threads=2, **kw), 2)
    assert len(got) == int(BATCHES[f"{name}/n"])
    for i, (data, label, pad) in enumerate(got):
        want = BATCHES[f"{name}/{i}/data"]
        assert data.shape == want.shape
        np.testing.assert_array_equal(data, want)
        np.testing.assert_allclose(label, BATCHES[f"{name}/{i}/label"], rtol=1e-6)
        assert pad == int(BATCHES[f"{name}/{i}/pad"])


def _epoch(**kw):
    it = mx.io.ImageDetRecordIter(path_imgrec=REC, data_shape=(3, 24, 24), batch_size=3, **kw)
    batches = list(it)
    return (
        np.concatenate([b.data[0].asnumpy() for b in batches]),
        np.concatenate([b.label[0].asnumpy() for b in batches]),
    )


def test_random_augmentation_reproducible_with_valid_boxes():
    kw = dict(
        rand_crop_prob=0.8,
        num_crop_sampler=2,
        min_crop_scales=(0.3, 0.5),
        max_crop_scales=(1.0, 0.9),
        min_crop_object_coverages=(0.3,),
        max_crop_aspect_ratios=(2.0,),
        min_crop_aspect_ratios=(0.5,),
        rand_pad_prob=0.5,
        max_pad_scale=2.0,
        rand_mirror_prob=0.5,
        random_hue_prob=0.5,
        max_random_hue=10,
        random_contrast_prob=0.5,
        max_random_contrast=0.3,
        seed=4,
    )
    data, label = _epoch(preprocess_threads=1, **kw)
    data2, label2 = _epoch(preprocess_threads=3, **kw)
    np.testing.assert_array_equal(data, data2)
    np.testing.assert_array_equal(label, label2)
    plain_data, _ = _epoch()
    assert not np.array_equal(data, plain_data)
    for row in label:
        n = int(row[3])
        body = row[4 : 4 + n]
        hw, ow = int(body[0]), int(body[1])
        objects = body[hw:].reshape(-1, ow)
        assert len(objects) >= 1
        assert (objects[:, 1:5] >= 0).all() and (objects[:, 1:5] <= 1).all()
        assert (objects[:, 3] > objects[:, 1]).all() and (objects[:, 4] > objects[:, 2]).all()
        assert (row[4 + n :] == -1).all()


def test_bad_det_arguments_and_short_pad_width():
    with pytest.raises(ParamError, match="min_crop_scales.*num_crop_sampler=3"):
        mx.io.ImageDetRecordIter(
            path_imgrec=REC,
            data_shape=(3, 8, 8),
            batch_size=2,
            num_crop_sampler=3,
            min_crop_scales=(0.1, 0.2),
        )
    with pytest.raises(ParamError, match="resize_mode"):
        mx.io.ImageDetRecordIter(
            path_imgrec=REC, data_shape=(3, 8, 8), batch_size=2, resize_mode="crop"
        )
    with pytest.raises(MXNetError, match="label_pad_width 5"):
        mx.io.ImageDetRecordIter(
            path_imgrec=REC, data_shape=(3, 8, 8), batch_size=2, label_pad_width=5
        )
