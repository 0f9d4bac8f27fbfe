"""mx.io.ImageDetRecordIter: batches equal MXNet 1.9.1's."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError, ParamError

pytest.importorskip("cv2")
GOLDEN = os.path.join(os.path.dirname(__file__), "golden")
REC = os.path.join(GOLDEN, "det.rec")
BATCHES = np.load(os.path.join(GOLDEN, "image_det_record_iter.npz"))
with open(os.path.join(GOLDEN, "image_det_record_iter.json")) as _f:
    CASES = json.load(_f)


@pytest.mark.parametrize("name", sorted(CASES))
def test_batches_equal_mxnet(name):
    kw = dict(CASES[name])
    kw["data_shape"] = tuple(kw["data_shape"])
    it = mx.io.ImageDetRecordIter(path_imgrec=REC, preprocess_threads=2, **kw)
    got = [b for _, b in zip(range(8), it)]
    it.reset()
    got += [b for _, b in zip(range(2), it)]
    assert len(got) == int(BATCHES[f"{name}/n"])
    for i, batch in enumerate(got):
        want = BATCHES[f"{name}/{i}/data"]
        data = batch.data[0].asnumpy()
        assert data.shape == want.shape
        np.testing.assert_array_equal(data, want)
        np.testing.assert_allclose(
            batch.label[0].asnumpy(), BATCHES[f"{name}/{i}/label"], rtol=1e-6
        )
        assert batch.pad == int(BATCHES[f"{name}/{i}/pad"])


def test_unsupported_augmentation_and_short_pad_width():
    with pytest.raises(ParamError, match="rand_crop_prob"):
        mx.io.ImageDetRecordIter(
            path_imgrec=REC, data_shape=(3, 8, 8), batch_size=2, rand_crop_prob=0.5
        )
    with pytest.raises(MXNetError, match="label_pad_width 5"):
        mx.io.ImageDetRecordIter(
            path_imgrec=REC, data_shape=(3, 8, 8), batch_size=2, label_pad_width=5
        )
