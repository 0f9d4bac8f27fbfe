"""mx.sym.contrib: operators filled in from the registry by mxlite.symbol, and the
control-flow functions ``foreach``, ``while_loop`` and ``cond``."""

from .control_flow import cond as cond
from .control_flow import foreach as foreach
from .control_flow import while_loop as while_loop
