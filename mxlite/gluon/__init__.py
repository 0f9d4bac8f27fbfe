"""``mx.gluon`` is not implemented in mxlite yet.

The package exists so that MXNet scripts which import it for one part (``from mxnet import
gluon`` at the top of a file) still load; any use raises a clear error instead of an
AttributeError deep inside the script.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..base import NotInMxliteError


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    if name == "data":  # gluon.data needs no Block, so it works already
        return importlib.import_module(f"{__name__}.data")
    raise NotInMxliteError(
        f"mx.gluon.{name}: Gluon is not implemented in mxlite yet; use mx.mod (Module) or "
        "mx.autograd with mx.nd, which are."
    )
