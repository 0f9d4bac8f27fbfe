"""``mx.nd.np``: the functions of ``mx.np`` and ``_internal`` (a function for every ``_np*``
operator of the registry), as MXNet 1.9.1's ``mx.nd.numpy`` has them. ``mxlite.numpy``, a
higher layer, fills this module when it is imported (``import mxlite`` does).
"""

from . import _internal as _internal
