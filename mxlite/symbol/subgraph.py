"""Subgraph backends: ``Symbol.get_backend_symbol(backend)``.

MXNet 1.9.1's CPU build registers the backends ``MKLDNN`` (fuse Convolution/FullyConnected with
the BatchNorm, activation and sum that follow into ``_sg_mkldnn_*`` nodes) and
``MKLDNN_QUANTIZE`` (the same on quantized graphs, with requantize/dequantize folded in).
``mx.contrib.quantization.quantize_net`` calls the latter on CPU.
"""

from __future__ import annotations

from ..base import MXNetError
from .graph import Entry
from .subgraph_mkldnn import partition

BACKENDS = ("MKLDNN", "MKLDNN_QUANTIZE")


def check_backend(backend: str, where: str) -> None:
    """Raise naming ``where`` unless ``backend`` is one of :data:`BACKENDS` (MXNet logs an
    error and leaves the graph as it is)."""
    if backend not in BACKENDS:
        raise MXNetError(f"{where}: backend must be one of {', '.join(BACKENDS)}, got {backend!r}.")


def backend_entries(entries: list[Entry], backend: str, where: str) -> list[Entry]:
    """The graph of the outputs ``entries`` partitioned by ``backend`` (MXNet's
    ``get_backend_symbol``): the passes of :mod:`mxlite.symbol.subgraph_mkldnn`."""
    check_backend(backend, where)
    return partition(entries, backend)
