"""``mx.numpy_op_signature``: MXNet 1.9.1's lookup from a registered ``_np_*``/``_npx_*``
operator name to the front-end function that serves it (``_np_sum`` -> ``mx.np.sum``,
``_np_random_uniform`` -> ``mx.np.random.uniform``, ``_npx_relu`` -> ``mx.npx.relu``)."""

from __future__ import annotations

from typing import Any

from . import numpy as mx_np
from . import numpy_extension as mx_npx

__all__ = ["_get_builtin_op"]

# the submodules MXNet names in operator names after the prefix (``_np_linalg_svd``)
_NP_SUBMODULES = ("_random_", "_linalg_")
_NPX_SUBMODULES = ("_image_", "_random_")


def _get_builtin_op(op_name: str) -> Any:
    """The front-end function of the operator ``op_name``; None for a name of neither family;
    ValueError when the family has no such function."""
    if op_name.startswith("_np_"):
        root, prefix, subs = mx_np, "_np_", _NP_SUBMODULES
    elif op_name.startswith("_npx_"):
        root, prefix, subs = mx_npx, "_npx_", _NPX_SUBMODULES
    else:
        return None
    rest = op_name[len(prefix) :]
    module = root
    for sub in subs:
        if ("_" + rest).startswith(sub):
            module = getattr(root, sub[1:-1], None)
            if module is None:
                raise ValueError(f"Cannot find submodule {sub[1:-1]} in module {root.__name__}")
            rest = rest[len(sub) - 1 :]
            break
    op = getattr(module, rest, None)
    if op is None:
        raise ValueError(f"Cannot find operator {rest} in module {module.__name__}")
    return op
