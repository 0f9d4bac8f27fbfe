"""Inference graph passes: BatchNorm folded into the convolution before it, and the residual
add and ReLU after it applied in the convolution's output pass.

Design note
-----------
In an inference forward (``is_train=False``) of an executor without gradients (``bind`` with
``for_training=False`` or every ``grad_req`` null; a hybridized Gluon block called outside
``autograd.record()``), :func:`fuse_steps` rewrites the steps of the plan before they become
engine operators (``Executor._make_plan``). Each forward step whose operator can absorb what
follows it heads a chain, and the chain becomes one operator, at the head's place, writing the
chain's last output; the steps after the head are dropped. What may join, in this order, is
declared by the operators:

- a per-channel affine map of the head's output: the head's ``absorb_channel_affine`` (the
  Convolution, channels first) and the next step's ``inference_channel_affine`` (BatchNorm,
  which uses its moving statistics there). The head then runs with the folded weight
  ``w * scale`` (along axis 0) and bias ``b * scale + shift``; BatchNorm's other outputs must
  be unused;
- then, where the head's ``absorb_epilogue`` holds, a step whose ``epilogue`` is "add" (the
  residual sum: ``elemwise_add``/``_Plus``, ``broadcast_add`` of equal shapes), whose other
  input (the residual) exists before the head runs (an argument, or made by an earlier
  step), and then one whose ``epilogue`` is "relu" (``Activation`` relu, ``relu``); either
  alone, too. The head's operator adds the residual and takes ``max(y, 0)`` in the pass that
  writes its output (``Operator.forward_epilogue``), one block of images at a time.

Each link's input is read by that step alone and is no output of the graph, everything is
float32, the epilogue steps follow the head (and BatchNorm) directly in the plan, so no step
between them could own the memory the chain writes early, and the chain's output does not
share memory with the head's data, which it still reads (the residual may: it is added element
by element). A ResNet v1 block's ``conv-BN-relu`` and ``conv-BN-add-relu`` each become one
operator; in a block with a projection, the projection's convolution is the one that absorbs
the add, as the body's output exists by then.

The folded weight and bias are the executor's own arrays; the user's parameters are never
written. The fused operator reads the original weight, bias and BatchNorm inputs (so the
engine orders it after any write to them) and refolds when the versions of their engine vars
(their counts of completed writes) differ from those it folded last, so ``set_data``, an
optimizer update or ``copy_params_from`` between calls is seen at the next forward. The
folded weight's own var version moves with each refold, so Winograd's cached kernel of it
(``_conv_algo``) is remade too. The pass runs after ``constfold.py``'s, on the steps and
arrays it leaves (a weight computed from a parameter is then the executor's own array, whose
version moves when it is recomputed). ``MXLITE_INFERENCE_FOLD=0`` turns the passes off.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import env_bool
from ..engine import Opr
from ..ndarray.ndarray import _new
from ..operator.registry import OpContext
from ..operator.req import OpReq
from .gradient import Step

__all__ = ["enabled", "fuse_steps"]


def enabled() -> bool:
    """``MXLITE_INFERENCE_FOLD`` (default on), read when a plan is made."""
    return env_bool("MXLITE_INFERENCE_FOLD", True)


def fuse_steps(exe: Any, steps: list[Step], arrays: list[Any] | None = None) -> list[Any]:
    """``steps`` with each fusable chain (see the design note) replaced by one engine operator
    (an :class:`Opr`) over ``arrays`` (default: the executor's); the other steps are returned
    as they are."""
    graph = exe._graph
    storage = exe._plan.storage
    readers: dict[int, int] = {}
    reader: dict[int, int] = {}  # entry -> the position of a step reading it
    made_at: dict[int, int] = {}  # entry -> the position of the step writing it
    for i, s in enumerate(steps):
        for e in s.reads():
            readers[e] = readers.get(e, 0) + 1
            reader[e] = i
        for e in s.writes():
            made_at[e] = i
    outputs = set(graph.output_eids)

    def sole_reader(e: int) -> int | None:
        """The position of the forward step that alone reads ``e``, an inner entry."""
        if readers.get(e) != 1 or e in outputs or graph.entries[e].dtype != np.float32:
            return None
        j = reader[e]
        t = steps[j]
        return j if t.kind == "forward" and t.prop is not None and t.outputs else None

    fused: dict[int, Opr] = {}  # position of the head -> its fused operator
    skipped: set[int] = set()  # positions of the steps joined to a head
    for i, s in enumerate(steps):
        if s.kind != "forward" or not s.outputs or s.prop is None or i in skipped:
            continue
        head = graph.entries[s.outputs[0]]
        if head.dtype != np.float32:
            continue
        bn = _affine(graph, steps, i, sole_reader(s.outputs[0]), readers, outputs)
        conv_prop = None if bn is None else s.prop.absorb_channel_affine()
        last = i if conv_prop is None else bn
        # candidates (last position, residual, relu), the longest first
        chains = [(last, None, False)] if conv_prop is not None else []
        if s.prop.absorb_epilogue() and (last == i or last == i + 1):
            chains = _epilogues(graph, steps, i, last, sole_reader, made_at) + chains
        if not chains:
            continue
        data = storage[s.inputs[0]]
        # the chain's output must not be planned over the head's data, which it still reads
        blocks = [storage[steps[c[0]].outputs[0]] for c in chains]
        chain = next((c for c, k in zip(chains, blocks) if k < 0 or k != data), None)
        if chain is None:
            continue
        end, residual, relu = chain
        fold = None if conv_prop is None else steps[bn]
        fused[i] = _fused_opr(exe, arrays, s, fold, conv_prop, residual, relu, steps[end])
        skipped.update({bn} if end == bn else range(i + 1, end + 1))
    if not fused:
        return steps
    return [fused.get(i, s) for i, s in enumerate(steps) if i not in skipped]


def _affine(graph: Any, steps: list[Step], i: int, j: int | None, readers, outputs) -> Any:
    """The position ``j`` of the step reading the head's output (``steps[i]``) alone when it
    is a BatchNorm that may fold into the head, or None."""
    if j is None:
        return None
    bn, out = steps[j], steps[i].outputs[0]
    if bn.inputs[0] != out or graph.entries[bn.outputs[0]].dtype != np.float32:
        return None
    if bn.prop.inference_channel_affine(len(graph.entries[out].shape)) != 1:
        return None
    if any(readers.get(e) or e in outputs for e in bn.outputs[1:] if e >= 0):
        return None
    return j


def _epilogues(graph: Any, steps: list[Step], i: int, last: int, sole_reader, made_at) -> list:
    """The epilogue chains after ``steps[last]`` (the head at ``i`` or its BatchNorm):
    ``(end, residual entry or None, relu)``, the longest first."""
    found: list[tuple[int, Any, bool]] = []
    out = steps[last].outputs[0]
    residual = None
    j = sole_reader(out)
    if j == last + 1 and steps[j].prop.epilogue == "add" and len(steps[j].inputs) == 2:
        t = steps[j]
        other = t.inputs[1] if t.inputs[0] == out else t.inputs[0]
        shape = graph.entries[out].shape
        if (
            other != out
            and made_at.get(other, -1) < i
            and graph.entries[other].shape == shape
            and graph.entries[t.outputs[0]].shape == shape
            and graph.entries[other].dtype == np.float32
            and t.req[0] in (OpReq.WRITE, OpReq.INPLACE)
        ):
            residual, last, out = other, j, t.outputs[0]
            found.append((j, other, False))
            j = sole_reader(out)
    if j == last + 1 and steps[j].prop.epilogue == "relu" and len(steps[j].inputs) == 1:
        if steps[j].req[0] in (OpReq.WRITE, OpReq.INPLACE):
            found.append((j, residual, True))
    return found[::-1]


def _fused_opr(
    exe: Any,
    arrays: list[Any] | None,
    conv: Step,
    bn: Step | None,
    prop: Any,
    residual: int | None,
    relu: bool,
    last: Step,
) -> Opr:
    """One operator for the chain from ``conv`` to ``last``: ``bn`` folded when given (``prop``:
    the head's property with a bias), then the ``residual`` entry added and ``relu``."""
    from ..resource import request

    arrays = exe._arrays if arrays is None else arrays
    ctx, graph = exe._ctx, exe._graph
    x, w = arrays[conv.inputs[0]], arrays[conv.inputs[1]]
    b = arrays[conv.inputs[2]] if len(conv.inputs) > 2 else None
    out = arrays[last.outputs[0]]
    res = None if residual is None else arrays[residual]
    if bn is None:
        prop, sources = conv.prop, []
        params = [w] if b is None else [w, b]
    else:
        gamma, beta = arrays[bn.inputs[1]], arrays[bn.inputs[2]]
        mean, var = arrays[bn.aux[0]], arrays[bn.aux[1]]
        sources = [a for a in (w, b, gamma, beta, mean, var) if a is not None]
        w2 = _new(w.shape, w.dtype, ctx)
        b2 = _new((w.shape[0],), w.dtype, ctx)
        params = [w2, b2]
    src_vars = [a._chunk.var for a in sources]
    shapes = [graph.entries[conv.inputs[0]].shape] + [a.shape for a in params]
    resources = [request(ctx, r) for r in prop.forward_resource(shapes)]
    op = prop.operator(ctx)
    in_vars = [x._chunk.var] + [a._chunk.var for a in params]
    bn_prop, xp = None if bn is None else bn.prop, ctx.xp
    folded: list[Any] = [None]  # the source versions the folded arrays were made from
    ins = [x._data] + [a._data for a in params]
    outs, req = [out._data], [last.req[0]]
    res_data = None if res is None else res._data

    def refold() -> None:
        scale, shift = bn_prop.inference_affine(xp, gamma._data, beta._data, mean._data, var._data)
        scale = scale.astype(np.float32, copy=False)
        xp.multiply(w._data, scale.reshape(-1, *([1] * (w.ndim - 1))), out=w2._data)
        if b is None:
            b2._data[...] = shift
        else:
            xp.multiply(b._data, scale, out=b2._data)
            b2._data += shift
        w2._chunk.var.version += 1  # only this function touches the folded arrays

    def run(rctx: Any) -> None:
        if bn_prop is not None:
            versions = tuple(v.version for v in src_vars)
            if versions != folded[0]:
                refold()
                folded[0] = versions
        op_ctx = OpContext(False, rctx, resources, in_vars)
        if res_data is None and not relu:
            op.forward(op_ctx, ins, req, outs, [])
        else:
            op.forward_epilogue(op_ctx, ins, req, outs, res_data, relu)

    reads = [x._chunk.var, *src_vars, *(a._chunk.var for a in params if bn is None)]
    if res is not None:
        reads.append(res._chunk.var)
    writes = [out._chunk.var, *(r.var for r in resources)]
    reads = [v for v in dict.fromkeys(reads) if v not in writes]
    names = [conv.name] + ([] if bn is None else [bn.name]) + [last.name] * (last is not bn)
    return Opr(run, tuple(reads), tuple(writes), "+".join(names), False, False, False)
