"""``mx.npx.image``: the image operators (``_image_*`` in the registry) with ``mx.np`` arrays in
and out (``to_tensor``, ``normalize``, ``resize``, ``crop``, ``random_flip_left_right``, ...),
as MXNet 1.9.1's Gluon vision transforms call them in NumPy mode; ``symbolic`` holds the same
for ``mx.sym.npx.image``."""

from __future__ import annotations

import sys
import types

from ..ndarray import numpy as _nd_np
from ..numpy._register import KIND as _KIND
from ..operator import front_end as _front_end
from ..symbol import numpy as _sym_np
from ..symbol.numpy import KIND as _SYM_KIND

__all__: list[str] = []


def _is_image(reg_name: str) -> bool:
    return reg_name.startswith("_image_")


_here = sys.modules[__name__]
_front_end.populate(_here, {"_internal": _nd_np._internal, "image": _here}, _KIND,
                    prefixes=(("_image_", "image"),), include=_is_image)  # fmt: skip
symbolic = types.ModuleType("mxlite.symbol.numpy_extension.image", __doc__)
_front_end.populate(symbolic, {"_internal": _sym_np._internal, "image": symbolic}, _SYM_KIND,
                    prefixes=(("_image_", "image"),), include=_is_image)  # fmt: skip
del _here
