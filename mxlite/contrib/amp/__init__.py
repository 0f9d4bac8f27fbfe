"""``mx.contrib.amp`` (automatic mixed precision) is not implemented in mxlite yet.

Importing it works, so that scripts which import it for one path still load; any use raises
a clear error.
"""

from . import amp as amp

__all__ = ["amp"]
