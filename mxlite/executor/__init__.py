"""Symbolic execution: the gradient graph, the memory plan, and the :class:`Executor`."""

import functools
from typing import Any

from ..ndarray import provide as _provide_nd
from ..symbol.symbol import Symbol
from ..symbol.symbol import extend as _extend_symbol
from . import control_flow as control_flow  # registers _foreach, _while_loop, _cond
from .bind import bind as bind
from .bind import simple_bind as simple_bind
from .cached_op import CachedOp as CachedOp
from .executor import Executor as Executor
from .gradient import ExecGraph as ExecGraph
from .gradient import build_graph as build_graph
from .plan_memory import MemoryPlan as MemoryPlan
from .plan_memory import plan_memory as plan_memory


def _eval(self: Symbol, ctx: Any = None, **kwargs: Any) -> list:
    """Evaluate the symbol with the given input arrays (``Symbol.eval``)."""
    from ..context import current_context

    exe = bind(self, ctx or current_context(), kwargs, grad_req="null")
    return exe.forward()


_eval.__name__ = _eval.__qualname__ = "eval"

# Symbol's binding methods live here: the executor sits above the symbol layer.
_extend_symbol(
    __name__,
    {
        "bind": functools.wraps(bind)(lambda self, *a, **k: bind(self, *a, **k)),
        "simple_bind": functools.wraps(simple_bind)(
            lambda self, *a, **k: simple_bind(self, *a, **k)
        ),
        "eval": _eval,
    },
)
# mx.nd.CachedOp, as MXNet names it; it runs executors, which sit above mx.nd
_provide_nd(__name__, {"CachedOp": CachedOp})
