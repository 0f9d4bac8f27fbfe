"""``mx.contrib``: MXNet's contributed packages; ``ndarray`` and ``symbol`` hold the
``_contrib_*`` operators (the same as ``mx.nd.contrib`` and ``mx.sym.contrib``)."""

import sys as _sys

from ..base import NOT_YET as _NOT_YET
from ..base import absent_names as _absent_names
from ..ndarray import contrib as ndarray
from ..symbol import contrib as symbol
from . import amp as amp
from . import autograd, io, svrg_optimization, tensorboard
from . import onnx as onnx
from . import text as text

nd = ndarray
sym = symbol
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
]


# MXNet's names here that mxlite lacks, and why (tests/test_mxnet_names.py)
__getattr__ = _absent_names(
    "mxnet.contrib",
    {
        "quant": _NOT_YET,
        "quantization": _NOT_YET,
    },
)
