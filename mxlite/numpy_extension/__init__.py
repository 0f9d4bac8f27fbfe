"""``mx.npx``: MXNet's NumPy extensions: the mode switches (``set_np``), devices, ``save``/
``load``, and the neural-network operators (``_npx_*`` in the registry, generated) with
``mx.np`` arrays in and out: ``npx.relu``, ``softmax``, ``convolution``, ``reshape``, ...
"""

from __future__ import annotations

import ctypes as ctypes
import sys
import threading as threading
import warnings as warnings

from ..base import check_call as check_call
from ..base import classproperty as classproperty
from ..base import with_metaclass as with_metaclass
from ..context import Context as Context
from ..context import cpu as cpu
from ..context import cpu_pinned as cpu_pinned
from ..context import current_context as current_context
from ..context import get_cuda_compute_capability as get_cuda_compute_capability
from ..context import gpu as gpu
from ..context import gpu_memory_info as gpu_memory_info
from ..context import num_gpus as num_gpus
from ..ndarray import numpy as _nd_np
from ..ndarray import numpy_extension as _nd_npx
from ..ndarray import waitall as waitall
from ..numpy._register import KIND as _KIND
from ..operator import front_end as _front_end
from ..symbol import numpy_extension as _sym_npx
from ..util import is_np_array as is_np_array
from ..util import is_np_shape as is_np_shape
from ..util import np_array as np_array
from ..util import np_shape as np_shape
from ..util import reset_np as reset_np
from ..util import set_np as set_np
from ..util import use_np as use_np
from ..util import use_np_array as use_np_array
from ..util import use_np_shape as use_np_shape
from . import image as image
from . import random as random
from . import utils as utils
from .utils import load as load
from .utils import save as save

__all__: list[str] = []
# what mx.npx holds besides its functions (not for mx.nd.npx)
_IMPORTS = ("annotations", "sys", "Any", "image", "utils", "ctypes", "threading", "warnings",
            "classproperty", "with_metaclass", "get_cuda_compute_capability", "cpu_pinned",
            "gpu_memory_info", "check_call")  # fmt: skip


_here = sys.modules[__name__]
_front_end.populate(_here, {"_internal": _nd_np._internal, "npx": _here, "image": image},
                    _KIND, prefixes=(("_npx__image_", "image"), ("_npx_", "npx")),
                    include=lambda reg_name: reg_name.startswith("_npx_"))  # fmt: skip
# mx.nd.npx (a lower layer) holds the same functions
_nd_npx.provide(
    __name__,
    {n: v for n, v in vars(_here).items() if not n.startswith("_") and n not in _IMPORTS},
)
_nd_npx.provide(__name__, {"image": image})  # mx.nd.npx.image: the same functions
del _here
_sym_npx.provide(__name__, {"random": random.symbolic})  # mx.sym.npx.random
