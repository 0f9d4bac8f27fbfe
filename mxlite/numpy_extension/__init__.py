"""``mx.npx``: MXNet's NumPy extensions: the mode switches (``set_np``), devices, ``save``/
``load``, and the neural-network operators (``_npx_*`` in the registry, generated) with
``mx.np`` arrays in and out: ``npx.relu``, ``softmax``, ``convolution``, ``reshape``, ...
"""

from __future__ import annotations

import sys

from ..context import Context as Context
from ..context import cpu as cpu
from ..context import current_context as current_context
from ..context import gpu as gpu
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
from . import random as random
from .io import load as load
from .io import save as save

__all__: list[str] = []
_IMPORTS = ("annotations", "sys", "Any", "io")


_here = sys.modules[__name__]
_front_end.populate(_here, {"_internal": _nd_np._internal, "npx": _here}, _KIND,
                    prefixes=(("_npx_", "npx"),),
                    include=lambda reg_name: reg_name.startswith("_npx_"))  # fmt: skip
# mx.nd.npx (a lower layer) holds the same functions
_nd_npx.provide(
    __name__,
    {n: v for n, v in vars(_here).items() if not n.startswith("_") and n not in _IMPORTS},
)
del _here
_sym_npx.provide(__name__, {"random": random.symbolic})  # mx.sym.npx.random
