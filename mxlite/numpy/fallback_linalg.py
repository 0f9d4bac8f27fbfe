"""The ``mx.np.linalg`` functions MXNet 1.9.1 hands to official NumPy (its
``mxnet/numpy/fallback_linalg.py``): ``cond``, ``lstsq``, ``matrix_power``, ``matrix_rank``,
``multi_dot`` and ``qr``, built by :func:`.fallback.fallback`; :mod:`.linalg` takes them from
here, as MXNet's does."""

from __future__ import annotations

import numpy as np

from .fallback import LINALG_FALLBACK_NAMES, fallback

cond = fallback("cond", np.linalg, "linalg.")
lstsq = fallback("lstsq", np.linalg, "linalg.")
matrix_power = fallback("matrix_power", np.linalg, "linalg.")
matrix_rank = fallback("matrix_rank", np.linalg, "linalg.")
multi_dot = fallback("multi_dot", np.linalg, "linalg.")
qr = fallback("qr", np.linalg, "linalg.")

__all__ = list(LINALG_FALLBACK_NAMES)
