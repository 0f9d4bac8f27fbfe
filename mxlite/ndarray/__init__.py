"""``mx.nd``: asynchronous arrays and every registered operator as a function."""

from .. import operator as _operator  # registers every operator before the functions are built
from ..base import add_members as _add_members
from . import _internal as _internal
from . import arith as _arith
from . import contrib as contrib
from . import image as image
from . import indexing as _indexing  # noqa: F401  (installs NDArray.__getitem__, __setitem__)
from . import linalg as linalg
from . import methods as _methods
from . import numpy as numpy
from . import numpy_extension as numpy_extension
from . import op as op
from . import random as random
from . import sparse as sparse
from .arith import add as add
from .arith import divide as divide
from .arith import equal as equal
from .arith import greater as greater
from .arith import greater_equal as greater_equal
from .arith import lesser as lesser
from .arith import lesser_equal as lesser_equal
from .arith import logical_and as logical_and
from .arith import logical_or as logical_or
from .arith import logical_xor as logical_xor
from .arith import maximum as maximum
from .arith import minimum as minimum
from .arith import modulo as modulo
from .arith import multiply as multiply
from .arith import negative as negative
from .arith import not_equal as not_equal
from .arith import power as power
from .arith import subtract as subtract
from .arith import true_divide as true_divide
from .creation import arange as arange
from .creation import array as array
from .creation import concatenate as concatenate
from .creation import empty as empty
from .creation import eye as eye
from .creation import from_numpy as from_numpy
from .creation import full as full
from .creation import linspace as linspace
from .creation import moveaxis as moveaxis
from .creation import ones as ones
from .creation import zeros as zeros
from .dlpack import from_dlpack as from_dlpack
from .dlpack import to_dlpack_for_read as to_dlpack_for_read
from .dlpack import to_dlpack_for_write as to_dlpack_for_write
from .extras import fill_element_0index as fill_element_0index
from .extras import histogram as histogram
from .extras import imdecode as imdecode
from .extras import onehot_encode as onehot_encode
from .extras import split_v2 as split_v2
from .indexing import get_indexing_dispatch_code as get_indexing_dispatch_code
from .indexing import get_oshape_of_gather_nd_op as get_oshape_of_gather_nd_op
from .indexing import indexing_key_expand_implicit_axes as indexing_key_expand_implicit_axes
from .ndarray import NDArray as NDArray
from .ndarray import waitall as waitall
from .register import populate as _populate
from .utils import load as load
from .utils import load_frombuffer as load_frombuffer
from .utils import save as save

np = numpy
npx = numpy_extension
_arith.install()
_methods.install()
_populate(__import__(__name__, fromlist=["_"]))
# MXNet's mx.operator imports NDArray, so its star import brings it (the operator layer sits
# below this one: the name is given from here)
_operator.provide(__name__, {"NDArray": NDArray})
del _operator


def provide(owner: str, members: dict) -> None:
    """Add to ``mx.nd`` the names that ``owner``, a module above this layer, implements
    (``CachedOp`` from the executor): the one place where ``mx.nd`` is given names from
    outside its own files."""
    _add_members(globals(), "mx.nd", owner, members)


from .sparse_array import cast_storage as cast_storage  # noqa: E402  (over the generated one)
