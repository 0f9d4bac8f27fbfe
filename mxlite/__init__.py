"""mxlite: Apache MXNet 1.9.1's architecture and Python API, in Python on NumPy.

``import mxlite as mx`` runs MXNet 1.x code unchanged.
"""

from . import base as base
from . import context as context
from . import contrib as contrib
from . import engine as engine
from . import error as error
from .base import MXNetError as MXNetError
from .context import Context as Context
from .context import cpu as cpu
from .context import cpu_pinned as cpu_pinned
from .context import current_context as current_context
from .context import gpu as gpu

__version__ = "1.9.1"
from . import attribute as attribute
from . import autograd as autograd
from . import callback as callback
from . import executor as executor
from . import executor_manager as executor_manager
from . import gluon as gluon
from . import image as image
from . import initializer as initializer
from . import io as io
from . import kvstore as kvstore
from . import log as log
from . import lr_scheduler as lr_scheduler
from . import metric as metric
from . import misc as misc
from . import model as model
from . import module as module
from . import monitor as monitor
from . import name as name
from . import ndarray as ndarray
from . import ndarray_doc as ndarray_doc
from . import notebook as notebook
from . import numpy as numpy
from . import numpy_dispatch_protocol as numpy_dispatch_protocol
from . import numpy_extension as numpy_extension
from . import numpy_op_fallback as numpy_op_fallback
from . import numpy_op_signature as numpy_op_signature
from . import onnx as onnx
from . import optimizer as optimizer
from . import profiler as profiler
from . import random as random
from . import recordio as recordio
from . import rnn as rnn
from . import runtime as runtime
from . import symbol as symbol
from . import symbol_doc as symbol_doc
from . import test_utils as test_utils
from . import util as util
from . import visualization as visualization
from .attribute import AttrScope as AttrScope
from .numpy_op_signature import _numpy_op_doc as _numpy_op_doc
from .run import as_mxnet as as_mxnet
from .util import is_np_array as is_np_array
from .util import is_np_shape as is_np_shape
from .util import np_array as np_array
from .util import np_shape as np_shape
from .util import set_np_shape as set_np_shape
from .util import use_np as use_np
from .util import use_np_array as use_np_array
from .util import use_np_shape as use_np_shape

img = image
init = initializer
kv = kvstore
mod = module
mon = monitor
nd = ndarray
np = numpy
npx = numpy_extension
sym = symbol
viz = visualization
rnd = random
np_symbol = symbol.numpy
# MXNet's modules mxlite does not have, and why (any use raises NotInMxliteError saying so)
__getattr__ = base.absent_names(
    "mxnet",
    {
        "api": base.NO_C_LIBRARY,
        "cython": base.NO_C_LIBRARY,
        "libinfo": base.NO_C_LIBRARY,
        "rtc": base.NEEDS_CUDA,
        "library": base.COMPILED_LIBRARY,
        "torch": base.COMPILED_LIBRARY,
        "th": base.COMPILED_LIBRARY,
        "tvmop": base.COMPILED_LIBRARY,
        "space": base.COMPILED_LIBRARY,
        "numpy_dispatch_protocol": base.NUMPY_ISSUES,
    },
)
