"""``mx.np.meshgrid``: coordinate matrices from coordinate vectors (MXNet 1.9.1's
``mxnet/numpy/function_base.py``)."""

from __future__ import annotations

from typing import Any

from .multiarray import ndarray
from .stride_tricks import broadcast_arrays

__all__ = ["meshgrid"]


def meshgrid(*xi: ndarray, **kwargs: Any) -> list[ndarray]:
    """Coordinate arrays for an N-D grid from 1-D arrays ``x1, ..., xn`` of lengths ``Ni``.

    Parameters
    ----------
    x1, x2,..., xn : ndarrays
        1-D arrays representing the coordinates of a grid.
    indexing : {'xy', 'ij'}, optional
        Cartesian ('xy', default: outputs of shape (N2, N1, N3, ...)) or matrix ('ij': shape
        (N1, N2, N3, ...)) indexing of the output.
    sparse : bool, optional
        Only False (the default) is supported.
    copy : bool, optional
        Only True (the default) is supported.

    Returns
    -------
    X1, X2,..., XN : list of ndarray
    """
    if not kwargs.pop("copy", True):
        raise NotImplementedError("meshgrid: copy=False is not implemented.")
    if kwargs.pop("sparse", False):
        raise NotImplementedError("meshgrid: sparse=True is not implemented.")
    indexing = kwargs.pop("indexing", "xy")
    if kwargs:
        raise TypeError(f"meshgrid() got an unexpected keyword argument {next(iter(kwargs))!r}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: argument 'indexing' must be 'xy' or 'ij', got {indexing!r}.")
    ndim = len(xi)
    ones = (1,) * ndim
    out = [x.reshape(ones[:i] + (-1,) + ones[i + 1 :]) for i, x in enumerate(xi)]
    if indexing == "xy" and ndim > 1:  # the first two axes swap places
        out[0] = out[0].reshape((1, -1, *ones[2:]))
        out[1] = out[1].reshape((-1, 1, *ones[2:]))
    return broadcast_arrays(*out)
