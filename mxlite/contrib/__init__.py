"""``mx.contrib``: MXNet's contributed packages; ``ndarray`` and ``symbol`` hold the
``_contrib_*`` operators (the same as ``mx.nd.contrib`` and ``mx.sym.contrib``)."""

import sys as _sys

from ..ndarray import contrib as ndarray
from ..symbol import contrib as symbol
from . import autograd, io, svrg_optimization
from . import onnx as onnx

nd = ndarray
sym = symbol
# ``import mxnet.contrib.ndarray`` works in MXNet: the same modules under these names
_sys.modules[__name__ + ".ndarray"] = ndarray
_sys.modules[__name__ + ".symbol"] = symbol

__all__ = ["ndarray", "symbol", "nd", "sym", "autograd", "svrg_optimization", "onnx", "io"]
