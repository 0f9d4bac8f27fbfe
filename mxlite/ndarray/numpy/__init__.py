"""``mx.nd.np``: the functions of ``mx.np`` and ``_internal`` (a function for every ``_np*``
operator of the registry), as MXNet 1.9.1's ``mx.nd.numpy`` has them. ``mxlite.numpy``, a
higher layer, gives this module its functions through :func:`provide` and generates
``_internal`` with ``operator.front_end`` when it is imported (``import mxlite`` does).
"""

from typing import Any

from ...base import add_members as _add_members
from . import _internal as _internal


def provide(owner: str, members: dict[str, Any]) -> None:
    """Add to ``mx.nd.np`` the functions that ``owner``, a module above this layer, implements:
    the one place where this module is given names from outside its own file."""
    _add_members(globals(), "mx.nd.np", owner, members)
