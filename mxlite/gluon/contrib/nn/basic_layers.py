"""Contrib layers. ``Identity`` and ``SyncBatchNorm`` are ``gluon.nn``'s (one device here:
SyncBatchNorm normalizes over the batch it sees, as BatchNorm)."""

from __future__ import annotations

from typing import Any

from .... import ndarray
from ...block import Block, HybridBlock
from ...nn import Concatenate as _Concatenate
from ...nn import HybridConcatenate, Identity, SyncBatchNorm
from ...nn.basic_layers import _CONCAT_PARAMS_DOC, _embedding_repr, _embedding_weight

__all__ = [
    "Concurrent", "HybridConcurrent", "Identity", "SparseEmbedding", "SyncBatchNorm",
    "PixelShuffle1D", "PixelShuffle2D", "PixelShuffle3D",
]  # fmt: skip


class Concurrent(_Concatenate):
    """Lays `Block` s concurrently: feeds its input to all children blocks and concatenates
    their outputs on the specified axis."""

    __doc__ = (__doc__ or "") + _CONCAT_PARAMS_DOC


class HybridConcurrent(HybridConcatenate):
    """Lays `HybridBlock` s concurrently: feeds its input to all children blocks and
    concatenates their outputs on the specified axis."""

    __doc__ = (__doc__ or "") + _CONCAT_PARAMS_DOC


class SparseEmbedding(Block):
    r"""Turns non-negative integers (indexes/tokens) into dense vectors of fixed size, with a
    row_sparse weight and a row_sparse gradient (for large vocabularies).

    Parameters
    ----------
    input_dim : int
        Size of the vocabulary, i.e. maximum integer index + 1.
    output_dim : int
        Dimension of the dense embedding.
    dtype : str or np.dtype, default 'float32'
        Data type of output embeddings.
    weight_initializer : Initializer
        Initializer for the `embeddings` matrix.

    Inputs:
        - **data**: (N-1)-D tensor with shape: `(x1, x2, ..., xN-1)`.

    Output:
        - **out**: N-D tensor with shape: `(x1, x2, ..., xN-1, output_dim)`.
    """

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        dtype: Any = "float32",
        weight_initializer: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        _embedding_weight(
            self, input_dim, output_dim, dtype, weight_initializer, True, stype="row_sparse"
        )

    def forward(self, x: Any) -> Any:
        weight = self.weight.row_sparse_data(x)
        return ndarray.Embedding(x, weight, name="fwd", **self._kwargs)

    __repr__ = _embedding_repr


def _factors(factor: Any, n: int, where: str) -> tuple:
    try:
        return (int(factor),) * n
    except TypeError:
        fs = tuple(int(f) for f in factor)
        if len(fs) != n:
            raise ValueError(f"{where}: wrong length {len(fs)} of argument 'factor'") from None
        return fs


class PixelShuffle1D(HybridBlock):
    r"""Pixel-shuffle layer for upsampling in 1 dimension: ``(N, f*C, W)`` to ``(N, C, W*f)``.

    Parameters
    ----------
    factor : int or 1-tuple of int
        Upsampling factor, applied to the ``W`` dimension.

    Inputs:
        - **data**: Tensor of shape ``(N, f*C, W)``.
    Outputs:
        - **out**: Tensor of shape ``(N, C, W*f)``.
    """

    def __init__(self, factor: Any) -> None:
        super().__init__()
        self._factor = int(factor)

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        f = self._factor
        x = F.reshape(x, (0, -4, -1, f, 0))  # (N, C, f, W)
        x = F.transpose(x, (0, 1, 3, 2))  # (N, C, W, f)
        return F.reshape(x, (0, 0, -3))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._factor})"


class PixelShuffle2D(HybridBlock):
    r"""Pixel-shuffle layer for upsampling in 2 dimensions: ``(N, f1*f2*C, H, W)`` to
    ``(N, C, H*f1, W*f2)``.

    Parameters
    ----------
    factor : int or 2-tuple of int
        Upsampling factors, applied to the ``H`` and ``W`` dimensions, in that order.
    """

    def __init__(self, factor: Any) -> None:
        super().__init__()
        self._factors = _factors(factor, 2, "PixelShuffle2D")

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        f1, f2 = self._factors
        x = F.reshape(x, (0, -4, -1, f1 * f2, 0, 0))  # (N, C, f1*f2, H, W)
        x = F.reshape(x, (0, 0, -4, f1, f2, 0, 0))  # (N, C, f1, f2, H, W)
        x = F.transpose(x, (0, 1, 4, 2, 5, 3))  # (N, C, H, f1, W, f2)
        return F.reshape(x, (0, 0, -3, -3))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._factors})"


class PixelShuffle3D(HybridBlock):
    r"""Pixel-shuffle layer for upsampling in 3 dimensions: ``(N, f1*f2*f3*C, D, H, W)`` to
    ``(N, C, D*f1, H*f2, W*f3)``.

    Parameters
    ----------
    factor : int or 3-tuple of int
        Upsampling factors, applied to the ``D``, ``H`` and ``W`` dimensions, in that order.
    """

    def __init__(self, factor: Any) -> None:
        super().__init__()
        self._factors = _factors(factor, 3, "PixelShuffle3D")

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        # transpose takes at most 6 axes: move one factor at a time
        f1, f2, f3 = self._factors
        x = F.reshape(x, (0, -4, -1, f1 * f2 * f3, 0, 0, 0))  # (N, C, f1*f2*f3, D, H, W)
        x = F.swapaxes(x, 2, 3)  # (N, C, D, f1*f2*f3, H, W)
        x = F.reshape(x, (0, 0, 0, -4, f1, f2 * f3, 0, 0))  # (N, C, D, f1, f2*f3, H, W)
        x = F.reshape(x, (0, 0, -3, 0, 0, 0))  # (N, C, D*f1, f2*f3, H, W)
        x = F.swapaxes(x, 3, 4)  # (N, C, D*f1, H, f2*f3, W)
        x = F.reshape(x, (0, 0, 0, 0, -4, f2, f3, 0))  # (N, C, D*f1, H, f2, f3, W)
        x = F.reshape(x, (0, 0, 0, -3, 0, 0))  # (N, C, D*f1, H*f2, f3, W)
        x = F.swapaxes(x, 4, 5)  # (N, C, D*f1, H*f2, W, f3)
        return F.reshape(x, (0, 0, 0, 0, -3))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._factors})"
