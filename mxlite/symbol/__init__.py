"""``mx.sym``: symbolic graphs, their MXNet JSON, and every registered operator as a function."""

from .. import operator as _operator  # registers every operator before the functions are built
from ..attribute import AttrScope as AttrScope
from ..name import NameManager as NameManager
from ..name import Prefix as Prefix
from . import _internal as _internal
from . import contrib as contrib
from . import image as image
from . import linalg as linalg
from . import numpy as numpy
from . import numpy_extension as numpy_extension
from . import op as op
from . import python_op as _python_op
from . import random as random
from . import sparse as sparse
from .functions import arange as arange
from .functions import eye as eye
from .functions import full as full
from .functions import histogram as histogram
from .functions import hypot as hypot
from .functions import linspace as linspace
from .functions import maximum as maximum
from .functions import minimum as minimum
from .functions import ones as ones
from .functions import pow as pow  # noqa: A004 (MXNet's name)
from .functions import power as power
from .functions import split_v2 as split_v2
from .functions import zeros as zeros
from .register import install_methods as _install_methods
from .register import populate as _populate
from .symbol import Group as Group
from .symbol import Symbol as Symbol
from .symbol import Variable as Variable
from .symbol import load as load
from .symbol import load_json as load_json
from .symbol import var as var

np = numpy
npx = numpy_extension
_populate(__import__(__name__, fromlist=["_"]))
_install_methods(__import__(__name__, fromlist=["_"]))
# mx.operator's deprecated Python operators build symbols, so they live in this layer
_py_ops = (_python_op.PythonOp, _python_op.NumpyOp, _python_op.NDArrayOp)
_operator.provide(__name__, {c.__name__: c for c in _py_ops})
del _operator, _py_ops
