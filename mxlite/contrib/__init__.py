"""``mx.contrib``: MXNet's contributed packages; ``ndarray`` and ``symbol`` hold the
``_contrib_*`` operators (the same as ``mx.nd.contrib`` and ``mx.sym.contrib``)."""

import sys as _sys

from ..ndarray import contrib as ndarray
from ..symbol import contrib as symbol
from . import amp as amp
from . import autograd, io, svrg_optimization, tensorboard
from . import onnx as onnx
from . import quantization as quantization
from . import text as text

nd = ndarray
sym = symbol
quant = quantization
# ``import mxnet.contrib.ndarray`` works in MXNet: the same modules under these names
_sys.modules[__name__ + ".ndarray"] = ndarray
_sys.modules[__name__ + ".symbol"] = symbol

__all__ = [
    "ndarray",
    "symbol",
    "nd",
    "sym",
    "autograd",
    "svrg_optimization",
    "onnx",
    "io",
    "amp",
    "text",
    "tensorboard",
    "quantization",
    "quant",
]
