"""Symbolic execution: the gradient graph, the memory plan, and the :class:`Executor`."""

from typing import Any

from . import control_flow as control_flow  # registers _foreach, _while_loop, _cond
from .bind import bind as bind
from .bind import simple_bind as simple_bind
from .cached_op import CachedOp as CachedOp
from .executor import Executor as Executor
from .gradient import ExecGraph as ExecGraph
from .gradient import build_graph as build_graph
from .plan_memory import MemoryPlan as MemoryPlan
from .plan_memory import plan_memory as plan_memory


def _attach() -> None:
    """Give Symbol its binding methods (the executor sits above the symbol layer)."""
    import functools

    from ..symbol.symbol import Symbol

    Symbol.bind = functools.wraps(bind)(lambda self, *a, **k: bind(self, *a, **k))
    Symbol.simple_bind = functools.wraps(simple_bind)(
        lambda self, *a, **k: simple_bind(self, *a, **k)
    )

    def eval(self: Symbol, ctx: Any = None, **kwargs: Any) -> list:
        """Evaluate the symbol with the given input arrays (``Symbol.eval``)."""
        from ..context import current_context

        exe = bind(self, ctx or current_context(), kwargs, grad_req="null")
        return exe.forward()

    Symbol.eval = eval

    # mx.nd.CachedOp, as MXNet names it; it runs executors, which sit above mx.nd
    from .. import ndarray

    ndarray.CachedOp = CachedOp


_attach()
