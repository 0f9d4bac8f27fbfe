"""``mx.np.genfromtxt``: official NumPy's ``genfromtxt``, its result an ``mx.np`` array (MXNet
1.9.1's ``mxnet/numpy/io.py``)."""

from __future__ import annotations

from typing import Any

import numpy as onp

from .creation import _ctx, array
from .multiarray import ndarray

__all__ = ["genfromtxt"]


def genfromtxt(*args: Any, **kwargs: Any) -> ndarray:
    """NumPy's ``genfromtxt`` (see its documentation for the parameters), returning an
    ``mx.np`` array of the same dtype on ``ctx`` (an extra keyword; the current context by
    default)."""
    ctx = _ctx(kwargs.pop("ctx", None))
    res = onp.genfromtxt(*args, **kwargs)
    return array(res, dtype=res.dtype, ctx=ctx)
