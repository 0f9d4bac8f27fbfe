"""``mx.contrib.amp``: automatic mixed precision (AMP) for float16 and bfloat16."""

from . import amp as amp
from . import lists as lists
from . import loss_scaler as loss_scaler
from .amp import *  # noqa: F403
from .amp import __all__ as _amp_all

__all__ = list(_amp_all)
