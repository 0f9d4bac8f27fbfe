"""mx.io.MNISTIter: batches equal MXNet 1.9.1's."""

from __future__ import annotations

import os

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from tests.golden_file import load
from tests.io.data_cases import MNIST_ITER

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")
IMAGES = os.path.join(GOLDEN, "mnist-images-idx3-ubyte")
LABELS = os.path.join(GOLDEN, "mnist-labels-idx1-ubyte")
BATCHES = load("io/golden/data.npz").arrays("mnist_iter")


@pytest.mark.parametrize("name", sorted(MNIST_ITER))
def test_batches_equal_mxnet(name):
    got = list(mx.io.MNISTIter(image=IMAGES, label=LABELS, silent=True, **MNIST_ITER[name]))
    assert len(got) == int(BATCHES[f"{name}/n"])
    for i, b in enumerate(got):
        np.testing.assert_array_equal(b.data[0].asnumpy(), BATCHES[f"{name}/{i}/data"])
        np.testing.assert_array_equal(b.label[0].asnumpy(), BATCHES[f"{name}/{i}/label"])


def test_shuffle_is_a_seeded_permutation():
    a = np.concatenate(
        [
            b.label[0].asnumpy()
            for b in mx.io.MNISTIter(image=IMAGES, label=LABELS, batch_size=5, seed=2)
        ]
    )
    b = np.concatenate(
        [
            b.label[0].asnumpy()
            for b in mx.io.MNISTIter(image=IMAGES, label=LABELS, batch_size=5, seed=2)
        ]
    )
    np.testing.assert_array_equal(a, b)
    plain = np.concatenate(
        [
            b.label[0].asnumpy()
            for b in mx.io.MNISTIter(image=IMAGES, label=LABELS, batch_size=5, shuffle=False)
        ]
    )
    assert sorted(a) == sorted(plain)


def test_truncated_file_is_reported(tmp_path):
    with open(IMAGES, "rb") as f:
        data = f.read()
    cut = tmp_path / "cut-idx3"
    cut.write_bytes(data[:-5])
    with pytest.raises(MXNetError, match="cut-idx3.*truncated"):
        mx.io.MNISTIter(image=str(cut), label=LABELS)
