"""``npx.save``/``npx.load``: MXNet's array files with NumPy shapes (zero-dim, zero-size),
readable and writable by MXNet 1.9.1's ``npx`` in both directions."""

from __future__ import annotations

import os
from typing import Any

from ..ndarray import utils as _nd_utils
from ..numpy.multiarray import view_np
from ..util import np_shape

__all__ = ["save", "load"]


def save(file: str | os.PathLike, arr: Any) -> None:
    """Save an ``mx.np`` array, a list of them or a dict of str to array to ``file``.

    Parameters
    ----------
    file : str
        Path of the file.
    arr : ndarray, list of ndarray or dict of str to ndarray
        What to save.
    """
    with np_shape(True):
        _nd_utils.save(file, arr)


def load(file: str | os.PathLike) -> Any:
    """Load what ``npx.save`` (here or in MXNet) wrote: a list or a dict of ``mx.np`` arrays.

    Parameters
    ----------
    file : str
        Path of the file.
    """
    with np_shape(True):
        data = _nd_utils.load(file)
    if isinstance(data, dict):
        return {k: view_np(v) for k, v in data.items()}
    return [view_np(v) for v in data]
