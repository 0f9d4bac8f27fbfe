"""The memory plan: which internal entries share which blocks of storage.

Design note
-----------
Policy. Steps run in list order (forward, then backward). The plan is made in two passes.

1. Lifetimes, walking the steps in order. Each internal entry (operator outputs, intermediate
   gradients, zero fills) joins a *group* of entries that share memory in place, or starts one:
   when the operator allows an (input, output) pair to share memory, nothing reads the input's
   group after this step, and the two entries have the same size, the output joins the
   input's group (its request becomes ``OpReq.INPLACE``). A group lives from the step that
   writes its first entry to the last step that reads one of its entries. Reads count the
   steps that read an entry (an accumulation into an entry counts as a read) and one more for
   each graph output, which lives to the end: the user reads it after ``forward``. A forward
   value the backward reads lives to the end too: a second backward of the same forward
   (``retain_graph``) reads it again (it costs a training plan 4-13% more: ResNet-18/50,
   MobileNet at batch 16).
2. Blocks, largest group first: each group goes into the first block made (the largest) whose
   groups all live at other times, or else into a new block of its size. Blocks are made in
   decreasing size, so a group always fits the block it joins.

MXNet places each entry when the walk reaches it (the smallest free block within
``MXNET_EXEC_MATCH_RANGE`` of its size, else a new one); knowing every lifetime before placing
anything lets the large entries share first and never leaves a small entry in a block that a
later large one needed. It plans LeNet, Inception-BN and an LSTM in less memory than MXNet's
online rule; ResNet-18's training plan (the test network, 13.2 MiB) is above MXNet's (11 MB)
because forward values stay for a second backward. ``NNVM_EXEC_MATCH_RANGE=0`` (MXNet's
switch for no reuse; ``MXNET_EXEC_MATCH_RANGE`` is read when it is unset) keeps every group in a
block of its own; other values change nothing here, as no block is ever grown.

External entries (arguments, auxiliary states, their gradients, head gradients) live in their
own arrays and are not planned.

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
    # MXNet 1.9.1 reads NNVM_EXEC_MATCH_RANGE (its docs say so too); the MXNET_ name is older
    match_range = env_int(
        "NNVM_EXEC_MATCH_RANGE", env_int("MXNET_EXEC_MATCH_RANGE", 16, minimum=0), minimum=0
    )
    steps: list[Step] = list(graph.forward) + (list(graph.backward) if with_backward else [])
    entries = graph.entries
    internal = [e.kind == INTERNAL for e in entries]
    refs = [0] * len(entries)
    for s in steps:
        for e in s.reads():
            refs[e] += 1
    for e in graph.output_eids:
        refs[e] += 1
    if with_backward:
        # a forward value the backward reads lives to the end, as a graph output does: a second
        # backward of the same forward (autograd's retain_graph) reads it again, so no backward
        # entry may reuse its block or take it in place
        forward_values = {e for s in graph.forward for e in s.writes()}
        for e in {e for s in graph.backward for e in s.reads()} & forward_values:
            refs[e] += 1

    plan = MemoryPlan(storage=[-1] * len(entries))
    group_of = [-1] * len(entries)
    g_bytes: list[int] = []
    g_start: list[int] = []
    g_end: list[int] = []  # last step that reads the group; len(steps) for graph outputs
    g_refs: list[int] = []  # reads still to come

    for i, s in enumerate(steps):
        taken: set[int] = set()
        reads = s.reads()
        if enable:
            for src, dst in s.inplace:
                g = group_of[src]
                if (
                    internal[src]
                    and internal[dst]
                    and g >= 0
                    and group_of[dst] < 0
                    and src not in taken
                    and g_refs[g] == 1
                    and refs[dst] > 0
                    and entries[src].nbytes == entries[dst].nbytes
                ):
                    taken.add(src)
                    group_of[dst] = g
                    plan.inplace.add(dst)
                    g_refs[g] += refs[dst]
        for e in s.writes():
            if not internal[e] or group_of[e] >= 0:
                continue
            group_of[e] = len(g_bytes)
            g_bytes.append(entries[e].nbytes)
            g_start.append(i)
            g_end.append(len(steps))
            g_refs.append(refs[e])
            if refs[e] == 0:  # written, never read: dead once this step is done
                g_refs[-1] = 1
                reads = [*reads, e]
        for e in reads:
            g = group_of[e]
            if internal[e] and g >= 0:
                g_refs[g] -= 1
                if g_refs[g] == 0:
                    g_end[g] = i

    block_of = _place(g_bytes, g_start, g_end, plan.block_bytes, share=enable and match_range > 0)
    for e, g in enumerate(group_of):
        if g >= 0:
            plan.storage[e] = block_of[g]
    return plan


def _place(
    g_bytes: list[int], g_start: list[int], g_end: list[int], block_bytes: list[int], share: bool
) -> list[int]:
    """Block of every group, largest group first (module note); appends to ``block_bytes``."""
    block_of = [-1] * len(g_bytes)
    spans: list[list[tuple[int, int]]] = []  # per block: (start, end) of its groups
    for g in sorted(range(len(g_bytes)), key=lambda g: (-g_bytes[g], g_start[g])):
        lo, hi = g_start[g], g_end[g]
        bid = -1
        if share:
            for b, used in enumerate(spans):
                if all(hi < s or e < lo for s, e in used):
                    bid = b
                    break
        if bid < 0:
            bid = len(block_bytes)
            block_bytes.append(g_bytes[g])
            spans.append([])
        spans[bid].append((lo, hi))
        block_of[g] = bid
    return block_of
