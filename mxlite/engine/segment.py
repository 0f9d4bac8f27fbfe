"""Bulk execution: consecutive synchronous functions on one context run as one engine function.

With ``set_bulk_size(n)`` (n > 1; MXNet's default is 0, no bulking), the engine collects
synchronous pushes of priority 0 into a :class:`Segment` instead of tracking each one. The
segment is pushed as a single function when it holds ``n`` functions, when a push it cannot
take arrives (another context, async, prioritised), and before any wait, delete or change of
the bulk size; so every function still runs after what it depends on. Inside a segment the
functions run in push order. The segment reads the union of its functions' read vars (less
those it writes) and writes the union of their write vars. A failure stops the segment and is
reported under the name of the function that raised, on every var the segment writes (as in
MXNet, where a bulked segment fails as a whole).
"""

from __future__ import annotations

import weakref
from typing import Any

from ..base import env_bool, env_int
from ..context import Context
from .objects import Opr, Var

__all__ = ["Segment", "exec_bulk_size"]


def exec_bulk_size(phase: str) -> int:
    """How many consecutive steps of a graph run as one engine function, by MXNet's settings:
    ``phase`` is ``"fwd"`` or ``"bwd"`` of a training graph (MXNET_EXEC_BULK_EXEC_TRAIN, on by
    default; MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_FWD/_BWD, else _MAX_NODE_TRAIN, default 15)
    or ``"inference"`` (MXNET_EXEC_BULK_EXEC_INFERENCE, on by default: the whole graph).
    0 means no bulking; -1 means no limit."""
    if phase == "inference":
        return -1 if env_bool("MXNET_EXEC_BULK_EXEC_INFERENCE", True) else 0
    if not env_bool("MXNET_EXEC_BULK_EXEC_TRAIN", True):
        return 0
    size = env_int("MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN", 15, 0)
    return env_int(f"MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_{phase.upper()}", size, 0)


class Segment:
    """Functions collected for one bulk push."""

    __slots__ = ("ctx", "oprs", "const", "mutate")

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.oprs: list[Opr] = []
        self.const: dict[Var, None] = {}  # ordered sets
        self.mutate: dict[Var, None] = {}

    def __len__(self) -> int:
        return len(self.oprs)

    def add(self, opr: Opr) -> None:
        self.oprs.append(opr)
        for v in opr.const_vars:
            self.const[v] = None
        for v in opr.mutate_vars:
            self.mutate[v] = None

    def to_opr(self) -> Opr:
        """One engine function running the collected functions in order."""
        oprs = self.oprs
        const = tuple(v for v in self.const if v not in self.mutate)
        seg = Opr(None, const, tuple(self.mutate), None, False)  # type: ignore[arg-type]
        # weakly: seg holds run, and a strong reference back would make a cycle that keeps
        # every collected function's arrays alive until the cycle collector runs
        seg_ref = weakref.ref(seg)

        def run(rctx: Any) -> None:
            for op in oprs:
                try:
                    op.fn(rctx)
                except BaseException:
                    failed = seg_ref()
                    if failed is not None:
                        failed._name = op.name  # the failure names the function that raised
                    raise
                # a later function of the segment that reads what this one wrote sees a new
                # version (the segment holds these vars for writing: no one else touches them)
                for v in op.mutate_vars:
                    v.version += 1

        seg.fn = oprs[0].fn if len(oprs) == 1 else run  # one function needs no wrapper
        seg.inline = all(op.inline for op in oprs)
        seg._name = oprs[0].name if len(oprs) == 1 else f"bulk[{len(oprs)}]"
        return seg
