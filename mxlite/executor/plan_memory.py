"""The memory plan: which internal entries share which blocks of storage.

Design note
-----------
Policy. Steps run in list order (forward, then backward). Walking them in that order, each
internal entry (operator outputs, intermediate gradients, zero fills) gets a *block*:

1. In place: when the operator allows an (input, output) pair to share memory, the input's
   block has no user left after this step (its reference count is 1), and the two entries
   have the same size, the output takes the input's block (its request becomes
   ``OpReq.INPLACE``).
2. Otherwise a freed block is reused: among free blocks whose size is within a factor
   ``MXNET_EXEC_MATCH_RANGE`` (default 16) of the request, the smallest one at least as large,
   or failing that the largest smaller one, which then grows to fit (MXNet's rule).
3. Otherwise a new block.

After the step, each block it read loses one reference; a block with none left returns to
the free list. Reference counts count the steps that read an entry (an accumulation into an
entry counts as a read) and one more for each graph output, which is never freed: the user
reads it after ``forward``. External entries (arguments, auxiliary states, their gradients,
head gradients) live in their own arrays and are not planned.

``MXNET_EXEC_ENABLE_INPLACE=false`` turns sharing off altogether, in place and reuse: every
internal entry gets a block of its own. That is the naive plan, for debugging a suspected
aliasing bug and for comparing sizes.

State: ``MemoryPlan.storage[eid]`` (block id or -1), ``block_bytes`` (size of each block),
``inplace`` (entries that share their input's block). Invariant: two entries share a block
only if their lifetimes (first write to last read) do not overlap, except the in-place pairs,
whose input dies in the step that writes the output.

Example::

    plan = plan_memory(graph, with_backward=True)
    plan.total_bytes          # bytes of every block; what debug_str reports
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from ..base import env_bool, env_int
from .gradient import INTERNAL, ExecGraph, Step

__all__ = ["MemoryPlan", "plan_memory"]


@dataclass
class MemoryPlan:
    """Block of every entry (-1: external) and the size of every block."""

    storage: list[int]
    block_bytes: list[int] = field(default_factory=list)
    inplace: set[int] = field(default_factory=set)

    @property
    def total_bytes(self) -> int:
        return sum(self.block_bytes)


class _FreeList:
    """Free blocks kept sorted by size; ``take`` applies the match-range rule."""

    def __init__(self, block_bytes: list[int], match_range: int) -> None:
        self.block_bytes = block_bytes
        self.match_range = match_range
        self.sizes: list[tuple[int, int]] = []  # (size, block id), sorted

    def give(self, bid: int) -> None:
        bisect.insort(self.sizes, (self.block_bytes[bid], bid))

    def take(self, nbytes: int) -> int:
        if self.match_range <= 0 or not self.sizes:
            return -1
        mid = bisect.bisect_left(self.sizes, (nbytes, -1))
        hi = bisect.bisect_right(self.sizes, (nbytes * self.match_range, 1 << 62))
        if mid < hi:
            _, bid = self.sizes.pop(mid)
            return bid
        lo = bisect.bisect_left(self.sizes, (nbytes // self.match_range, -1))
        if lo < mid:
            _, bid = self.sizes.pop(mid - 1)
            self.block_bytes[bid] = max(self.block_bytes[bid], nbytes)
            return bid
        return -1


def plan_memory(graph: ExecGraph, with_backward: bool, enable: bool | None = None) -> MemoryPlan:
    """Place every internal entry of ``graph`` in a block (see the module note).

    Parameters
    ----------
    graph : ExecGraph
        The bound graph.
    with_backward : bool
        Plan the backward steps too (training); otherwise only the forward ones.
    enable : bool, optional
        Share memory (in place and reuse); default ``MXNET_EXEC_ENABLE_INPLACE`` (true).
    """
    if enable is None:
        enable = env_bool("MXNET_EXEC_ENABLE_INPLACE", True)
    match_range = env_int("MXNET_EXEC_MATCH_RANGE", 16, minimum=0)
    steps: list[Step] = list(graph.forward) + (list(graph.backward) if with_backward else [])
    entries = graph.entries
    internal = [e.kind == INTERNAL for e in entries]
    refs = [0] * len(entries)
    for s in steps:
        for e in s.reads():
            refs[e] += 1
    for e in graph.output_eids:
        refs[e] += 1

    plan = MemoryPlan(storage=[-1] * len(entries))
    block_refs: list[int] = []
    free = _FreeList(plan.block_bytes, match_range if enable else 0)

    def new_block(nbytes: int) -> int:
        plan.block_bytes.append(nbytes)
        block_refs.append(0)
        return len(plan.block_bytes) - 1

    for s in steps:
        taken: set[int] = set()
        reads = s.reads()
        if enable:
            for src, dst in s.inplace:
                bid = plan.storage[src]
                if (
                    internal[src]
                    and internal[dst]
                    and bid >= 0
                    and plan.storage[dst] < 0
                    and src not in taken
                    and block_refs[bid] == 1
                    and refs[dst] > 0
                    and entries[src].nbytes == entries[dst].nbytes
                ):
                    taken.add(src)
                    plan.storage[dst] = bid
                    plan.inplace.add(dst)
                    block_refs[bid] += refs[dst]
        for e in s.writes():
            if not internal[e] or plan.storage[e] >= 0:
                continue
            nbytes = entries[e].nbytes
            bid = free.take(nbytes)
            if bid < 0:
                bid = new_block(nbytes)
            plan.storage[e] = bid
            block_refs[bid] = refs[e]
            if refs[e] == 0:  # written, never read: free once this step is done
                block_refs[bid] = 1
                reads = [*reads, e]
        for e in reads:
            bid = plan.storage[e]
            if internal[e] and bid >= 0:
                block_refs[bid] -= 1
                if block_refs[bid] == 0:
                    free.give(bid)
    return plan
