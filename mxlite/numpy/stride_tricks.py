"""``mx.np.broadcast_arrays``: arrays broadcast against each other (MXNet 1.9.1's
``mxnet/numpy/stride_tricks.py``)."""

from __future__ import annotations

import numpy as onp

from .functions import broadcast_to
from .multiarray import ndarray

__all__ = ["broadcast_arrays"]


def broadcast_arrays(*args: ndarray) -> list[ndarray]:
    """The arrays broadcast to their common shape (NumPy's rules): copies, unless every array
    has that shape already, when the arrays themselves are returned.

    Examples
    --------
    >>> x = np.array([[1, 2, 3]])
    >>> y = np.array([[4], [5]])
    >>> [a.shape for a in np.broadcast_arrays(x, y)]
    [(2, 3), (2, 3)]
    """
    try:
        shape = onp.broadcast_shapes(*(a.shape for a in args))
    except ValueError:
        raise ValueError("broadcast_arrays: shape mismatch: the shapes "
                         f"{', '.join(str(a.shape) for a in args)} cannot be broadcast to a "
                         "single shape.") from None  # fmt: skip
    if all(a.shape == shape for a in args):
        return list(args)
    return [broadcast_to(a, shape) for a in args]
