"""What every part of ``mxlite.onnx`` needs: the ``onnx`` module, loaded on first use with the
translations, and the opsets supported."""

from __future__ import annotations

from typing import Any

from ..base import MXNetError

# the opsets the translations are written and tested for (ONNX Runtime runs 13 to 28)
MIN_OPSET = 13
MAX_OPSET = 28


def require_onnx() -> Any:
    """The ``onnx`` module, loaded with the translations; a clear error when it is missing."""
    try:
        import onnx
    except ImportError as exc:
        raise MXNetError("mxlite.onnx needs the onnx package: pip install mxlite[onnx]") from exc
    from . import translations  # noqa: F401  (registers the translations)

    return onnx


def newest_opset() -> int:
    """The newest opset both the translations and the installed onnx support."""
    onnx = require_onnx()
    return min(MAX_OPSET, onnx.defs.onnx_opset_version())
