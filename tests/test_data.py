"""The digits data set shipped in mxlite/data."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import mxlite.data
from mxlite.data import load_digits


def test_load_digits_shapes_and_types():
    images, labels = load_digits()
    assert images.shape == (1797, 1, 8, 8)
    assert labels.shape == (1797,)
    assert images.dtype == np.float32 and labels.dtype == np.float32


def test_load_digits_values():
    images, labels = load_digits()
    assert images.min() == 0.0 and images.max() == 1.0
    assert np.array_equal(np.unique(labels), np.arange(10, dtype=np.float32))
    counts = np.bincount(labels.astype(np.int64))
    assert counts.min() >= 170 and counts.sum() == 1797
    # pixels are counts 0..16 scaled by 1/16
    assert np.array_equal(images * 16, np.round(images * 16))


def test_first_image_is_a_zero():
    images, labels = load_digits()
    assert labels[0] == 0
    ring = images[0, 0]
    assert ring[3:5, 3:5].max() < ring[3:5, 1:3].max()  # a hole in the middle


def test_licence_file_names_the_source():
    readme = (Path(mxlite.data.__file__).parent / "README.md").read_text()
    assert "CC BY 4.0" in readme and "Alpaydin" in readme and "UCI" in readme
