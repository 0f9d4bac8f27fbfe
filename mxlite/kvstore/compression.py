"""2-bit gradient compression with residuals, as MXNet 1.9.1 computes it.

Design note
-----------
Each value is added to a residual kept by its sender; where the residual reaches
``threshold`` the value sent is ``+threshold`` (and the residual loses ``threshold``), where
it reaches ``-threshold`` the value sent is ``-threshold``, elsewhere 0. Sixteen such 2-bit
codes pack into one float32 word (MXNet's layout: element ``j`` of a block of 16 sits in byte
``j // 4``, bits ``11`` for positive and ``10`` for negative at shift ``6 - 2 * (j % 4)``), so
the packed form has ``ceil(n / 16)`` float32 words and is byte-identical to MXNet's.

Example::

    comp = TwoBitCompression(0.5)
    residual = np.zeros(n, np.float32)
    packed = comp.quantize(grad, residual)       # residual updated in place
    values = comp.dequantize(packed, n)          # each -0.5, 0 or 0.5
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..base import MXNetError

__all__ = ["TwoBitCompression", "parse_params"]

# Bit shifts of the four codes in one byte, first element in the top bits (MXNet's posbits).
_SHIFTS = np.array([6, 4, 2, 0], dtype=np.uint8)


class TwoBitCompression:
    """MXNet's ``2bit`` gradient compression with a positive ``threshold``."""

    type = "2bit"

    def __init__(self, threshold: float = 0.5) -> None:
        self.threshold = float(threshold)

    def packed_size(self, n: int) -> int:
        """Number of float32 words that hold ``n`` compressed values."""
        return math.ceil(n / 16)

    def quantize(self, grad: np.ndarray, residual: np.ndarray) -> np.ndarray:
        """Add ``grad`` to ``residual``, take the thresholded part out of it, return it packed."""
        t = np.float32(self.threshold)
        res = residual.reshape(-1)
        res += grad.reshape(-1).astype(np.float32, copy=False)
        pos = res >= t
        neg = res <= -t
        res[pos] -= t
        res[neg] += t
        n = res.size
        codes = np.zeros(self.packed_size(n) * 16, dtype=np.uint8)
        codes[:n][pos] = 3
        codes[:n][neg] = 2
        packed = np.bitwise_or.reduce(codes.reshape(-1, 4) << _SHIFTS, axis=1).astype(np.uint8)
        return packed.view(np.float32)

    def dequantize(self, packed: np.ndarray, n: int) -> np.ndarray:
        """The ``n`` float32 values (each ``-threshold``, 0 or ``threshold``) of ``packed``."""
        t = np.float32(self.threshold)
        codes = (packed.view(np.uint8)[:, None] >> _SHIFTS) & 3
        codes = codes.reshape(-1)[:n]
        out = np.zeros(n, dtype=np.float32)
        out[codes == 3] = t
        out[codes == 2] = -t
        return out

    def apply(self, grad: np.ndarray, residual: np.ndarray) -> np.ndarray:
        """What the receiver sees of ``grad``: quantized then dequantized, in ``grad``'s shape."""
        packed = self.quantize(grad, residual)
        return self.dequantize(packed, grad.size).reshape(grad.shape)


def parse_params(where: str, compression_params: Any) -> TwoBitCompression | None:
    """The compression a ``set_gradient_compression`` dict asks for (None for ``'none'``)."""
    if not isinstance(compression_params, dict):
        raise MXNetError(
            f"{where}: argument 'compression_params' must be a dict such as "
            f"{{'type': '2bit', 'threshold': 0.5}}, got {type(compression_params).__name__}."
        )
    unknown = set(compression_params) - {"type", "threshold"}
    if unknown:
        raise MXNetError(f"{where}: unknown compression parameters {sorted(unknown)}.")
    kind = str(compression_params.get("type", ""))
    threshold = float(compression_params.get("threshold", 0.5))
    if threshold <= 0:
        raise MXNetError(f"{where}: threshold must be greater than 0, got {threshold}.")
    if kind == "none":
        return None
    if kind != "2bit":
        raise MXNetError(f"{where}: Unknown type for gradient compression {kind!r}; use '2bit'.")
    return TwoBitCompression(threshold)
