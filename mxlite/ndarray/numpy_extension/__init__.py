"""``mx.nd.npx``: the functions of ``mx.npx``; ``mxlite.numpy_extension``, a higher layer,
gives them through :func:`provide` when it is imported (``import mxlite`` does)."""

from typing import Any

from ...base import add_members as _add_members


def provide(owner: str, members: dict[str, Any]) -> None:
    """Add to ``mx.nd.npx`` the functions that ``owner``, a module above this layer, implements:
    the one place where this module is given names from outside its own file."""
    _add_members(globals(), "mx.nd.npx", owner, members)
