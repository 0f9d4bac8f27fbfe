"""Weight initializers (``mx.init``, also ``mx.initializer``), as MXNet 1.9.1's.

``base.py`` holds the ``Initializer`` base with its name-pattern dispatch, ``InitDesc``, the
registry and the composite initializers ``Load`` and ``Mixed``; ``initializers.py`` the
concrete ones.
"""

from .base import InitDesc as InitDesc
from .base import Initializer as Initializer
from .base import Load as Load
from .base import Mixed as Mixed
from .base import alias as alias
from .base import create as create
from .base import register as register
from .initializers import Bilinear as Bilinear
from .initializers import Constant as Constant
from .initializers import FusedRNN as FusedRNN
from .initializers import LSTMBias as LSTMBias
from .initializers import MSRAPrelu as MSRAPrelu
from .initializers import Normal as Normal
from .initializers import One as One
from .initializers import Orthogonal as Orthogonal
from .initializers import Uniform as Uniform
from .initializers import Xavier as Xavier
from .initializers import Zero as Zero
from .initializers import fused_rnn_layout as fused_rnn_layout

__all__ = [
    "InitDesc",
    "Initializer",
    "Load",
    "Mixed",
    "register",
    "alias",
    "create",
    "Zero",
    "One",
    "Constant",
    "Uniform",
    "Normal",
    "Orthogonal",
    "Xavier",
    "MSRAPrelu",
    "Bilinear",
    "LSTMBias",
    "FusedRNN",
]
