"""``mx.npx``: MXNet's NumPy extensions: the mode switches (``set_np``), devices, ``save``/
``load``, and the neural-network operators (``_npx_*`` in the registry, generated) with
``mx.np`` arrays in and out: ``npx.relu``, ``softmax``, ``convolution``, ``reshape``, ...
"""

from __future__ import annotations

import sys
from typing import Any

from ..context import Context as Context
from ..context import cpu as cpu
from ..context import current_context as current_context
from ..context import gpu as gpu
from ..context import num_gpus as num_gpus
from ..ndarray import numpy_extension as _nd_npx
from ..ndarray import waitall as waitall
from ..numpy._register import populate as _populate
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
from . import random as random
from .io import load as load
from .io import save as save

__all__: list[str] = []


def __getattr__(name: str) -> Any:
    raise AttributeError(f"module 'mxlite.npx' has no attribute {name!r}")


_populate(sys.modules[__name__], ("_npx_",), strip=True)
# mx.nd.npx (a lower layer) offers its module to hold the same functions
for _name, _value in list(sys.modules[__name__].__dict__.items()):
    if not _name.startswith("_") and _name not in ("annotations", "sys", "Any", "io"):
        setattr(_nd_npx, _name, _value)
del _name, _value
_sym_npx.random = random.symbolic  # mx.sym.npx.random
