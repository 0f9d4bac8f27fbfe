"""OpenCV, mxlite's image codec and resampler (as MXNet's), imported on first use.

``require_cv2`` returns the module or raises ``MXNetError`` naming the calling function and
the extra that installs it (``mxlite[image]``); ``decode_bgr`` decodes image bytes as
MXNet's C++ decoders do. The data-loading modules at every layer (``mx.nd.imdecode``,
``mx.recordio``, ``mx.io``, ``mx.image``, ``im2rec``) share these two, so this module sits at
the bottom and imports only ``base``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import MXNetError

__all__ = ["require_cv2", "decode_bgr"]

_cv2_module: Any = None


def require_cv2(func: str) -> Any:
    """The ``cv2`` module; ``MXNetError`` naming ``func`` and the extra when it is missing."""
    global _cv2_module
    if _cv2_module is None:
        try:
            import cv2
        except ImportError as exc:
            raise MXNetError(
                f"{func}: needs OpenCV; install it with `pip install mxlite[image]` "
                "(or `pip install opencv-python-headless`)."
            ) from exc
        _cv2_module = cv2
    return _cv2_module


def decode_bgr(func: str, data: Any, flag: int = 1) -> np.ndarray:
    """Decode encoded image bytes to an ``(h, w, c)`` uint8 array in OpenCV's order (BGR).

    ``flag`` is OpenCV's: 1 colour, 0 grey, -1 as stored (alpha kept).
    """
    cv2 = require_cv2(func)
    buf = data if isinstance(data, np.ndarray) else np.frombuffer(data, dtype=np.uint8)
    if buf.size == 0:
        raise MXNetError(f"{func}: the image buffer is empty")
    img = cv2.imdecode(buf.reshape(-1).view(np.uint8), flag)
    if img is None:
        raise MXNetError(f"{func}: the buffer could not be decoded as an image ({buf.size} bytes)")
    if img.ndim == 2:
        img = img[:, :, None]
    return img
