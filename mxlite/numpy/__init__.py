"""``mx.np`` (MXNet's NumPy-compatible arrays) is not implemented in mxlite.

The package exists so that MXNet scripts and tests which import it at the top of a file
(``import mxnet.numpy as _mx_np``) still load; any use raises a clear error.
"""

from __future__ import annotations

from typing import Any

from ..base import NotInMxliteError


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotInMxliteError(
        f"mx.np.{name}: MXNet's NumPy-compatible arrays (mx.np) are not implemented in mxlite; "
        "use mx.nd."
    )
