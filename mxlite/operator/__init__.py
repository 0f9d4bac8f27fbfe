"""The operator registry and every operator (``mx.operator`` holds the custom-op API)."""

import ctypes as ctypes
from ctypes import CFUNCTYPE as CFUNCTYPE
from ctypes import POINTER as POINTER
from ctypes import Structure as Structure
from ctypes import c_bool as c_bool
from ctypes import c_char as c_char
from ctypes import c_char_p as c_char_p
from ctypes import c_int as c_int
from ctypes import c_void_p as c_void_p
from ctypes import cast as cast
from ctypes import pointer as pointer

from ..base import NDArrayHandle as NDArrayHandle
from ..base import add_members as _add_members
from ..base import py_str as py_str
from . import contrib as contrib
from . import custom as custom
from . import image as image
from . import nn as nn
from . import numpy as numpy
from . import optimizer_multi_ops as optimizer_multi_ops
from . import optimizer_ops as optimizer_ops
from . import random as random
from . import registry as registry
from . import sparse as sparse
from . import subgraph as subgraph
from . import tensor as tensor
from .custom import CustomOp as CustomOp
from .custom import CustomOpProp as CustomOpProp
from .custom import register as register
from .introspect import OperatorArguments as OperatorArguments
from .introspect import get_all_registered_operators as get_all_registered_operators
from .introspect import get_operator_arguments as get_operator_arguments
from .registry import OpContext as OpContext
from .registry import Operator as Operator
from .registry import OperatorProperty as OperatorProperty
from .req import OpReq as OpReq
from .simple_op import GradNeeds as GradNeeds
from .simple_op import simple_op as simple_op
from .sparse import ops as _sparse_ops  # noqa: F401  (registers cast_storage & co.)

# What ``from mxnet.operator import *`` gives in MXNet; without it the star import would also
# bind our subpackages (``random``, ``nn``, ...) over the caller's own modules. MXNet's module
# has no __all__, so its star import also brings the ctypes names it imports, which MXNet's
# tests use (test_operator.py's monitor callback casts handles with ``ctypes``). The layers
# above add theirs: NDArray (mxlite.ndarray), PythonOp, NumpyOp, NDArrayOp (mxlite.symbol).
__all__ = [
    "CustomOp",
    "CustomOpProp",
    "register",
    "OperatorArguments",
    "get_all_registered_operators",
    "get_operator_arguments",
    "NDArrayHandle",
    "py_str",
    "ctypes",
    "CFUNCTYPE",
    "POINTER",
    "Structure",
    "pointer",
    "c_void_p",
    "c_int",
    "c_char",
    "c_char_p",
    "c_bool",
    "cast",
]


def provide(owner: str, members: dict) -> None:
    """Add to ``mx.operator`` the names that ``owner``, a module above this layer, defines and
    MXNet's ``mx.operator`` holds (``NDArray``; ``PythonOp``, ``NumpyOp``, ``NDArrayOp``): the
    one place where this package is given names from outside its own files."""
    _add_members(globals(), "mx.operator", owner, members)
    __all__.extend(members)
