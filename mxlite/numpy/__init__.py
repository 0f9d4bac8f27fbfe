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
from . import arrayprint as arrayprint
from . import fallback as fallback
from . import fallback_linalg as fallback_linalg
from . import function_base as function_base
from . import io as io
from . import linalg as linalg
from . import random as random
from . import stride_tricks as stride_tricks
from . import utils as utils
from ._register import KIND as _KIND
from .arrayprint import set_printoptions as set_printoptions
from .creation import *  # noqa: F403
from .creation import __all__ as _creation_all
from .fallback import FALLBACK_NAMES as _FALLBACK_NAMES
from .function_base import meshgrid as meshgrid
from .functions import *  # noqa: F403
from .functions import __all__ as _functions_all
from .functions_more import *  # noqa: F403
from .functions_more import __all__ as _functions_more_all
from .functions_more import symbolic as _more_symbolic
from .io import genfromtxt as genfromtxt
from .manipulation import *  # noqa: F403
from .manipulation import __all__ as _manipulation_all
from .multiarray import ndarray as ndarray
from .stride_tricks import broadcast_arrays as broadcast_arrays
from .ufuncs import *  # noqa: F403
from .ufuncs import UNARY as _UNARY
from .ufuncs import __all__ as _ufuncs_all
from .ufuncs import unary_function as _unary_function
from .utils import _STR_2_DTYPE_ as _STR_2_DTYPE_
from .utils import NAN as NAN
from .utils import NINF as NINF
from .utils import NZERO as NZERO
from .utils import PINF as PINF
from .utils import PZERO as PZERO
from .utils import NaN as NaN
from .utils import bool as bool  # noqa: A004
from .utils import bool_ as bool_
from .utils import e as e
from .utils import finfo as finfo
from .utils import float16 as float16
from .utils import float32 as float32
from .utils import float64 as float64
from .utils import inf as inf
from .utils import int8 as int8
from .utils import int32 as int32
from .utils import int64 as int64
from .utils import nan as nan
from .utils import newaxis as newaxis
from .utils import pi as pi
from .utils import uint8 as uint8

# NumPy's dtypes and constants, as MXNet's mx.np re-exports them (most from .utils)
dtype = _onp.dtype
euler_gamma = _onp.euler_gamma

for _name, _op in _UNARY.items():
    if _name not in globals():
        globals()[_name] = _unary_function(_name, _op)

__all__ = [
    "ndarray",
    "random",
    "linalg",
    *_creation_all,
    *_functions_all,
    *_functions_more_all,
    *_manipulation_all,
    *(n for n in _ufuncs_all if n != "UNARY"),
    *_UNARY,
]
# mx.nd.np (a lower layer) holds the same functions, and _internal one per _np* operator
_nd_np.provide(__name__, {n: globals()[n] for n in __all__})
# MXNet's mx.nd.np._internal also names each _npi_X operator X
_front_end.populate(_nd_np, {"_internal": _nd_np._internal}, _KIND,
                    prefixes=(("_npi_", "_internal"),), include=_is_np_op)  # fmt: skip
# mx.sym.np: the creation functions of functions_more building symbols, then the same
# functions (they compose on symbols), where it has no own one
_sym_np.provide(__name__, _more_symbolic)
# the functions MXNet hands to official NumPy (mx.np only, as in MXNet)
for _name in _FALLBACK_NAMES:
    if _name not in globals():
        globals()[_name] = getattr(fallback, _name)
        __all__.append(_name)
_sym_np.provide(
    __name__,
    {n: globals()[n] for n in __all__
     if n not in vars(_sym_np) and n not in ("ndarray", "random") and n not in _FALLBACK_NAMES},
)  # fmt: skip
_sym_np.provide(__name__, {"random": random.symbolic})
del _name, _op
