"""The front-end kind of the NumPy interface's generated functions (``mx.npx.<name>`` for every
``_npx_<name>`` operator, ``mx.nd.np._internal.<op>`` for every ``_np*`` operator), for
``operator.front_end.populate``: ``mx.nd``'s functions (arrays positionally or by name, then
the operator's parameters) whose outputs become ``mx.np`` arrays.
"""

from __future__ import annotations

from typing import Any

from ..ndarray.register import KIND as _ND_KIND
from ..operator.front_end import FrontEnd
from .multiarray import as_np

__all__ = ["KIND"]


def _build(cls: type, reg_name: str, func_name: str) -> Any:
    base = _ND_KIND.build(cls, reg_name, func_name)

    def fn(*args: Any, **kwargs: Any) -> Any:
        return as_np(base(*args, **kwargs))

    return fn


KIND = FrontEnd(build=_build, keywords=_ND_KIND.keywords, doc_tail=_ND_KIND.doc_tail)
