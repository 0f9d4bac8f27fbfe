"""``mx.np.set_printoptions``: how arrays print (MXNet 1.9.1's ``mxnet/numpy/arrayprint.py``)."""

from __future__ import annotations

from typing import Any

import numpy as onp

__all__ = ["set_printoptions"]


def set_printoptions(precision: int | None = None, threshold: int | None = None,
                     **kwarg: Any) -> None:  # fmt: skip
    """Set how floating-point numbers and arrays print.

    Parameters
    ----------
    precision : int or None, optional
        Number of digits of precision for floating point output (default 8).
    threshold : int, optional
        Total number of array elements which trigger summarization rather than full repr
        (default 1000).
    """
    if kwarg:
        raise NotImplementedError("mxnet.numpy.set_printoptions only supports parameters "
                                  "precision and threshold for now.")  # fmt: skip
    onp.set_printoptions(precision=precision, threshold=threshold)
