"""Helpers of the gluon.rnn cases, the same on MXNet 1.9.1 and on mxlite (``mx`` is either):
``tools/golden/cases/gluon_rnn.py`` records what MXNet computes, ``test_rnn.py`` compares."""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np


def stack(mx: Any, cells: list) -> Any:
    """The cells in a HybridSequentialRNNCell."""
    seq = mx.gluon.rnn.HybridSequentialRNNCell()
    for c in cells:
        seq.add(c)
    return seq


def fill(mx: Any, net: Any) -> None:
    """Every parameter from a NumPy stream seeded by its structural name."""
    for name, param in sorted(net._collect_params_with_prefix().items()):
        z = np.random.RandomState(zlib.crc32(name.encode())).standard_normal(param.shape)
        param.set_data(mx.nd.array((0.4 * z).astype(np.float32)))
