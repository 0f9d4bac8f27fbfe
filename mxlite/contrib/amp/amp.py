"""``mx.contrib.amp.amp``: not implemented in mxlite yet; any use raises a clear error."""

from __future__ import annotations

from typing import Any

from ...base import NotInMxliteError


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotInMxliteError(
        f"mx.contrib.amp.{name}: automatic mixed precision (AMP) is not implemented in mxlite yet."
    )
