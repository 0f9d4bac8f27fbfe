"""The ``mx.np.linalg`` functions MXNet 1.9.1 hands to official NumPy (its
``mxnet/numpy/fallback_linalg.py``): ``cond``, ``lstsq``, ``matrix_power``, ``matrix_rank``,
``multi_dot`` and ``qr``, as :mod:`.linalg` builds them (:func:`.fallback.fallback`)."""

from __future__ import annotations

from .linalg import cond as cond
from .linalg import lstsq as lstsq
from .linalg import matrix_power as matrix_power
from .linalg import matrix_rank as matrix_rank
from .linalg import multi_dot as multi_dot
from .linalg import qr as qr

__all__ = ["cond", "lstsq", "matrix_power", "matrix_rank", "multi_dot", "qr"]
