"""Small real data sets shipped with mxlite (see README.md in this folder for sources).

``load_digits()`` returns the UCI 8x8 handwritten digits as the arrays an MXNet image
network takes: float32 images in NCHW layout scaled to [0, 1], and float32 class labels,
as ``mx.io.NDArrayIter`` and ``SoftmaxOutput`` expect them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["load_digits"]

_DIGITS = Path(__file__).with_name("digits.npz")
_PIXEL_MAX = 16.0  # each pixel counts the set pixels of a 4x4 block: 0..16


def load_digits() -> tuple[np.ndarray, np.ndarray]:
    """Load the UCI 8x8 handwritten digits (1,797 images, classes 0-9).

    Returns
    -------
    images : numpy.ndarray
        float32 array of shape (1797, 1, 8, 8), pixel values scaled to [0, 1].
    labels : numpy.ndarray
        float32 array of shape (1797,), the digit of each image (0.0 to 9.0).

    Examples
    --------
    >>> from mxlite.data import load_digits
    >>> images, labels = load_digits()
    >>> images.shape, labels.shape
    ((1797, 1, 8, 8), (1797,))
    """
    with np.load(_DIGITS) as npz:
        pixels = npz["images"]
        labels = npz["labels"]
    images = (pixels.astype(np.float32) / np.float32(_PIXEL_MAX)).reshape(-1, 1, 8, 8)
    return images, labels.astype(np.float32)
