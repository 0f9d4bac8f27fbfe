"""Inference graph passes: BatchNorm folded into the convolution before it.

Design note
-----------
In an inference forward (``is_train=False``) of an executor without gradients (``bind`` with
``for_training=False`` or every ``grad_req`` null; a hybridized Gluon block called outside
``autograd.record()``), :func:`fold_batch_norm` rewrites the steps of the plan before they
become engine operators (``Executor._make_plan``): a forward step whose operator can absorb a
per-channel affine map of its output (``absorb_channel_affine``: Convolution, channels first)
followed by one that is such a map in inference (``inference_channel_affine``: BatchNorm,
which uses its moving statistics there) become one operator: the convolution with the folded
weight ``w * scale`` (along axis 0) and bias ``b * scale + shift``, writing the BatchNorm's
output. It applies when the convolution's output is read by that BatchNorm alone and is no
output of the graph, BatchNorm's other outputs are unused, and both are float32.

The folded weight and bias are the executor's own arrays; the user's parameters are never
written. The fused operator reads the original weight, bias and BatchNorm inputs (so the
engine orders it after any write to them) and refolds when the versions of their engine vars
(their counts of completed writes) differ from those it folded last, so ``set_data``, an
optimizer update or ``copy_params_from`` between calls is seen at the next forward. The
folded weight's own var version moves with each refold, so Winograd's cached kernel of it
(``_conv_algo``) is remade too. ``MXLITE_INFERENCE_FOLD=0`` turns the pass off.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import env_bool
from ..engine import Opr
from ..ndarray.ndarray import _new
from ..operator.registry import OpContext
from .gradient import Step

__all__ = ["enabled", "fold_batch_norm"]


def enabled() -> bool:
    """``MXLITE_INFERENCE_FOLD`` (default on), read when a plan is made."""
    return env_bool("MXLITE_INFERENCE_FOLD", True)


def fold_batch_norm(exe: Any, steps: list[Step]) -> list[Any]:
    """``steps`` with each foldable (convolution, BatchNorm) pair replaced by one engine
    operator (an :class:`Opr`); the other steps are returned as they are."""
    graph = exe._graph
    readers: dict[int, int] = {}
    for s in steps:
        for e in s.reads():
            readers[e] = readers.get(e, 0) + 1
    outputs = set(graph.output_eids)
    by_input = {s.inputs[0]: s for s in steps if s.kind == "forward" and s.inputs}
    fused: dict[int, Opr] = {}  # id of the convolution step -> its fused operator
    skipped: set[int] = set()  # ids of the folded BatchNorm steps
    for s in steps:
        if s.kind != "forward" or not s.outputs or s.prop is None:
            continue
        out = s.outputs[0]
        bn = by_input.get(out)
        if bn is None or bn.prop is None or readers.get(out) != 1 or out in outputs:
            continue
        entry = graph.entries[out]
        if bn.prop.inference_channel_affine(len(entry.shape)) != 1 or entry.dtype != np.float32:
            continue
        if any(readers.get(e) or e in outputs for e in bn.outputs[1:] if e >= 0):
            continue
        block = exe._plan.storage[bn.outputs[0]]
        if block >= 0 and block == exe._plan.storage[s.inputs[0]]:
            continue  # planned over the convolution's input, which the fused step still reads
        conv_prop = s.prop.absorb_channel_affine()
        if conv_prop is None or graph.entries[bn.outputs[0]].dtype != np.float32:
            continue
        fused[id(s)] = _fused_opr(exe, s, bn, conv_prop)
        skipped.add(id(bn))
    if not fused:
        return steps
    return [fused.get(id(s), s) for s in steps if id(s) not in skipped]


def _fused_opr(exe: Any, conv: Step, bn: Step, prop: Any) -> Opr:
    from ..resource import request

    arrays, ctx, graph = exe._arrays, exe._ctx, exe._graph
    x, w = arrays[conv.inputs[0]], arrays[conv.inputs[1]]
    b = arrays[conv.inputs[2]] if len(conv.inputs) > 2 else None
    gamma, beta = arrays[bn.inputs[1]], arrays[bn.inputs[2]]
    mean, var = arrays[bn.aux[0]], arrays[bn.aux[1]]
    out = arrays[bn.outputs[0]]
    sources = [a for a in (w, b, gamma, beta, mean, var) if a is not None]
    w2 = _new(w.shape, w.dtype, ctx)
    b2 = _new((w.shape[0],), w.dtype, ctx)
    src_vars = [a._chunk.var for a in sources]
    w2var = w2._chunk.var
    shapes = [graph.entries[conv.inputs[0]].shape, w.shape, b2.shape]
    resources = [request(ctx, r) for r in prop.forward_resource(shapes)]
    fwd = prop.operator(ctx).forward
    in_vars = [x._chunk.var, w2var, b2._chunk.var]
    bn_prop, xp = bn.prop, ctx.xp
    folded: list[Any] = [None]  # the source versions the folded arrays were made from
    ins = [x._data, w2._data, b2._data]
    outs, req = [out._data], [bn.req[0]]

    def run(rctx: Any) -> None:
        versions = tuple(v.version for v in src_vars)
        if versions != folded[0]:
            scale, shift = bn_prop.inference_affine(
                xp, gamma._data, beta._data, mean._data, var._data
            )
            scale = scale.astype(np.float32, copy=False)
            xp.multiply(w._data, scale.reshape(-1, *([1] * (w.ndim - 1))), out=w2._data)
            if b is None:
                b2._data[...] = shift
            else:
                xp.multiply(b._data, scale, out=b2._data)
                b2._data += shift
            w2var.version += 1  # only this function touches the folded arrays
            folded[0] = versions
        fwd(OpContext(False, rctx, resources, in_vars), ins, req, outs, [])

    reads = [x._chunk.var, *src_vars]
    writes = [out._chunk.var, *(r.var for r in resources)]
    reads = [v for v in dict.fromkeys(reads) if v not in writes]
    return Opr(run, tuple(reads), tuple(writes), f"{conv.name}+{bn.name}", False, False, False)
