"""Imperative automatic differentiation (``mx.autograd``), as in MXNet 1.9.1.

``recording.py`` holds the modes and turns operator calls into recorded nodes, ``backprop.py``
walks them back (``backward``, ``grad``, ``NDArray.attach_grad``), ``function.py`` is
``Function`` and ``to_symbol.py`` is ``get_symbol``.
"""

# No __all__: MXNet code does `from mxnet.autograd import *` and then uses NDArray, as
# MXNet's module (which has none) exports it.
from ..ndarray.ndarray import NDArray as NDArray
from .backprop import backward as backward
from .backprop import grad as grad
from .function import Function as Function
from .recording import is_recording as is_recording
from .recording import is_training as is_training
from .recording import mark_variables as mark_variables
from .recording import pause as pause
from .recording import predict_mode as predict_mode
from .recording import record as record
from .recording import set_recording as set_recording
from .recording import set_training as set_training
from .recording import train_mode as train_mode
from .to_symbol import get_symbol as get_symbol
