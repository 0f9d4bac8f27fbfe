"""``mx.np``: MXNet 1.9.1's NumPy-compatible arrays (:class:`ndarray`) and functions.

The functions run the ``_np*`` operators of the registry (``mxlite/operator/numpy/``); see
:mod:`.multiarray` for the array type and the dtype rules.
"""

from __future__ import annotations

import numpy as _onp

from ..ndarray import numpy as _nd_np
from ..operator import front_end as _front_end
from ..operator.numpy import is_np_op as _is_np_op
from ..symbol import numpy as _sym_np
from . import linalg as linalg
from . import random as random
from ._register import KIND as _KIND
from .creation import *  # noqa: F403
from .creation import __all__ as _creation_all
from .fallback import FALLBACK_NAMES as _FALLBACK_NAMES
from .fallback import fallback as _fallback
from .functions import *  # noqa: F403
from .functions import __all__ as _functions_all
from .manipulation import *  # noqa: F403
from .manipulation import __all__ as _manipulation_all
from .multiarray import ndarray as ndarray
from .ufuncs import *  # noqa: F403
from .ufuncs import UNARY as _UNARY
from .ufuncs import __all__ as _ufuncs_all
from .ufuncs import unary_function as _unary_function

# NumPy's scalar types, dtypes and constants, as MXNet's mx.np re-exports them
bool = bool  # noqa: A001, PLW0127  (MXNet's mx.np.bool is Python's bool)
bool_ = _onp.bool_
int8 = _onp.int8
uint8 = _onp.uint8
int32 = _onp.int32
int64 = _onp.int64
float16 = _onp.float16
float32 = _onp.float32
float64 = _onp.float64
dtype = _onp.dtype
pi = _onp.pi
e = _onp.e
euler_gamma = _onp.euler_gamma
inf = _onp.inf
PINF = _onp.inf
NINF = -_onp.inf
nan = _onp.nan
PZERO = 0.0
NZERO = -0.0
NAN = _onp.nan
NaN = _onp.nan
newaxis = None

for _name, _op in _UNARY.items():
    if _name not in globals():
        globals()[_name] = _unary_function(_name, _op)

__all__ = [
    "ndarray",
    "random",
    "linalg",
    *_creation_all,
    *_functions_all,
    *_manipulation_all,
    *(n for n in _ufuncs_all if n != "UNARY"),
    *_UNARY,
]
# mx.nd.np (a lower layer) holds the same functions, and _internal one per _np* operator
_nd_np.provide(__name__, {n: globals()[n] for n in __all__})
# MXNet's mx.nd.np._internal also names each _npi_X operator X
_front_end.populate(_nd_np, {"_internal": _nd_np._internal}, _KIND,
                    prefixes=(("_npi_", "_internal"),), include=_is_np_op)  # fmt: skip
# mx.sym.np: the same functions (they compose on symbols), where it has no own one
# the functions MXNet hands to official NumPy (mx.np only, as in MXNet)
for _name in _FALLBACK_NAMES:
    if _name not in globals():
        globals()[_name] = _fallback(_name)
        __all__.append(_name)
_sym_np.provide(
    __name__,
    {n: globals()[n] for n in __all__
     if n not in vars(_sym_np) and n not in ("ndarray", "random") and n not in _FALLBACK_NAMES},
)  # fmt: skip
_sym_np.provide(__name__, {"random": random.symbolic})
del _name, _op
