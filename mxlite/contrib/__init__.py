"""``mx.contrib``: MXNet's contributed packages; ``ndarray`` and ``symbol`` hold the
``_contrib_*`` operators (the same as ``mx.nd.contrib`` and ``mx.sym.contrib``)."""

from ..ndarray import contrib as ndarray
from ..symbol import contrib as symbol
from . import autograd, io, svrg_optimization
from . import onnx as onnx

nd = ndarray
sym = symbol

__all__ = ["ndarray", "symbol", "nd", "sym", "autograd", "svrg_optimization", "onnx", "io"]
