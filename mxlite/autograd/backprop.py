"""The backward pass of imperative autograd (``mx.autograd.backward`` and ``grad``): walks the
recorded graph from the heads in reverse order, pushing each node's gradient function to the
engine, summing the gradients of reused arrays, and writing the variables' gradients. The
recording itself (nodes, modes) is in ``recording.py``; the NDArray methods ``attach_grad``,
``detach`` and ``backward`` are installed here, where what they call is defined."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..base import MXNetError
from ..engine import get as _engine
from ..engine import small_enough_inline
from ..engine.segment import exec_bulk_size
from ..ndarray.ndarray import NDArray, _new, _wrap, extend
from ..ndarray.sparse import zeros as sparse_zeros
from ..ndarray.xp_nd import _op, as_entry, backward_recorded
from ..operator.registry import OpContext
from ..operator.req import OpReq, parse_req
from .recording import _Node, _scope, _state, mark_variables, set_recording
from .sparse_grad import (
    densify,
    may_give_sparse_grads,
    sparse_backward,
    sparse_input_grads,
    sum_grads,
    sum_grads_into,
)

_NULL, _WRITE, _ADD = OpReq.NULL, OpReq.WRITE, OpReq.ADD  # quicker than OpReq.X (req.py)

# MXNet runs backward with engine bulking (consecutive gradient functions as one engine push).
_BWD_BULK = exec_bulk_size("bwd")


def _topo(heads: list[_Node]) -> list[_Node]:
    order: list[_Node] = []
    seen: set[int] = set()
    stack = [(h, False) for h in heads]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for e in node.inputs:
            if e is not None and id(e[0]) not in seen:
                stack.append((e[0], False))
    return order  # inputs before the nodes that use them


def _accumulate(store: dict, key: tuple[int, int], value: NDArray, owned: set[int]) -> None:
    """Sum gradients reaching one array. ``owned`` holds the ids of the buffers backward made
    itself: those may be added into in place; head gradients given by the user may not."""
    old = store.get(key)
    if old is None:
        store[key] = value
    elif old.__class__ is not NDArray or value.__class__ is not NDArray:
        store[key] = sum_grads([old, value])
    elif _state[0]:  # create_graph: the sum must be recorded too
        store[key] = old + value
    else:
        dst = old if id(old) in owned else _new(old.shape, old._data.dtype, old.context)
        owned.add(id(dst))
        a, b, d = old._data, value._data, dst._data

        def run(rctx: Any) -> None:
            np.add(a, b, out=d)

        reads = [value._chunk.var] if dst is old else [old._chunk.var, value._chunk.var]
        inline = small_enough_inline(dst.context, (d,))
        _engine().push_sync_trusted(run, dst.context, reads, [dst._chunk.var], "_grad_add", inline)
        store[key] = dst


def _blobs(arrays: list[NDArray | None], reads: list) -> list:
    """The data of ``arrays`` (a missing one stays None); each one's var is added to
    ``reads``."""
    blobs: list = []
    for a in arrays:
        if a is None:
            blobs.append(None)
        else:
            blobs.append(a._data)
            reads.append(a._chunk.var)
    return blobs


def _run_backward(
    node: _Node, out_grads: list[NDArray], train: bool, direct: dict[int, NDArray] | None = None
) -> list[NDArray | None]:
    """Push ``node``'s backward; return one new gradient array per input (None where the
    input is not part of the graph). ``direct`` maps the ids of variable nodes whose only
    gradient this is to their ``.grad`` buffer: those inputs are written there, as MXNet's
    backward writes a variable's gradient array itself, and come back as that buffer."""
    prop = node.prop
    if node.function is not None:
        wanted = [e is not None for e in node.inputs]
        if not direct:
            return node.function._backward(out_grads, wanted)
        targets = [None if e is None else direct.get(id(e[0])) for e in node.inputs]
        return node.function._backward(out_grads, wanted, targets)
    if _state[0]:  # create_graph
        return backward_recorded(node, out_grads, train)
    if prop.passes_sparse_grad and out_grads[0].__class__ is not NDArray:
        return [out_grads[0]]  # a recorded densify of a sparse variable: keep MXNet's rows
    if prop.sparse_backward is not None:
        sparse = sparse_backward(node, out_grads)
        if sparse is not None:
            return sparse
    for g in out_grads:
        if g.__class__ is not NDArray:
            out_grads = [densify(g) for g in out_grads]
            break
    ctx = node.ctx
    in_grads: list[NDArray | None] = []
    igd, req, writes = [], [], []
    sparse_grads = may_give_sparse_grads(prop)
    use_direct = bool(direct) and not prop.runs_on_caller and not sparse_grads
    for e, (shape, dtype) in zip(node.inputs, node.in_meta):
        if e is None:
            in_grads.append(None)
            igd.append(None)
            req.append(_NULL)
        else:
            g = direct.get(id(e[0])) if use_direct else None
            if g is None:
                g = _new(shape, dtype, ctx)
            in_grads.append(g)
            igd.append(g._data)
            req.append(_WRITE)
            writes.append(g._chunk.var)
    if prop.runs_on_caller:
        scratch = [
            g if g is not None else _new(s, t, ctx) for g, (s, t) in zip(in_grads, node.in_meta)
        ]
        prop.backward_ndarray(req, out_grads, node.in_data, node.out_data, scratch, node.aux)
        return sparse_input_grads(node, in_grads)
    op = prop.operator_for(ctx, [dtype for _, dtype in node.in_meta])
    resources: list = []
    if prop._has_resources:
        from ..resource import request

        shapes = [g.shape for g in in_grads if g is not None]
        resources = [request(ctx, r) for r in prop.backward_resource(shapes)]
    og, reads = [], []
    for g in out_grads:
        og.append(g._data)
        reads.append(g._chunk.var)
    ind = _blobs(node.in_data, reads)
    outd = _blobs(node.out_data, reads)
    if use_direct:  # a .grad buffer that the graph also reads gets a fresh array instead
        for i, g in enumerate(in_grads):
            if g is not None and g._chunk.var in reads:
                in_grads[i] = g = _new(g.shape, g._data.dtype, ctx)
                igd[i] = g._data
                writes[sum(x is not None for x in in_grads[:i])] = g._chunk.var
    auxd = []
    if node.aux:
        auxd = [a._data for a in node.aux]
        writes += [a._chunk.var for a in node.aux]
    if resources:
        writes += [r.var for r in resources]
    backward_fn = op.backward

    def run(rctx: Any) -> None:
        backward_fn(OpContext(train, rctx, resources), og, ind, outd, req, igd, auxd)

    # the writes are fresh gradient buffers, aux states and resources: none is also read;
    # the arrays have the sizes of the recorded call's, which decided node.inline
    _engine().push_sync_trusted(run, ctx, reads, writes, f"_backward_{prop.op_name}", node.inline)
    return sparse_input_grads(node, in_grads) if sparse_grads else in_grads


def _backward(
    heads: list[NDArray],
    head_grads: list[NDArray | None] | None,
    retain_graph: bool,
    train_mode: bool,
    variables: list[NDArray] | None = None,
    create_graph: bool = False,
) -> list[NDArray] | None:
    if head_grads is None:
        head_grads = [None] * len(heads)
    if len(head_grads) != len(heads):
        raise MXNetError(f"backward: {len(heads)} heads but {len(head_grads)} head_grads.")
    grads: dict[tuple[int, int], NDArray] = {}
    owned: set[int] = set()  # ids of gradient buffers this pass allocated
    head_nodes = []
    for h, hg in zip(heads, head_grads):
        if not isinstance(h, NDArray):
            raise MXNetError(f"backward: heads must be NDArrays, got {type(h).__name__}.")
        if h._ag is None:
            raise MXNetError(
                "backward: cannot differentiate an array that is not in a computational graph. "
                "Record its computation inside autograd.record() (and attach_grad to the "
                "inputs); to differentiate the same graph twice, pass retain_graph=True."
            )
        if hg is None:
            hg = _ones_like(h)
        elif not isinstance(hg, NDArray) or hg.shape != h.shape:
            raise MXNetError(
                f"backward: head_grads for a head of shape {h.shape} must be an "
                f"NDArray of that shape, got "
                f"{getattr(hg, 'shape', type(hg).__name__)}."
            )
        elif type(hg) is not NDArray and hg.stype == "default":
            hg = hg.as_nd_ndarray()  # an mx.np head gradient: a classic view on its chunk
        node, idx = h._ag
        _accumulate(grads, (id(node), idx), hg, owned)
        head_nodes.append(node)
    order = _topo(head_nodes)
    parts: dict[int, list[NDArray]] = {}  # gradients reaching each variable
    direct = None if variables is not None or create_graph else _direct_targets(order, grads)
    written: set[int] = set()  # variable nodes whose .grad an operator wrote directly
    prev_record = set_recording(create_graph)
    prev_bulk = _engine().set_bulk_size(_BWD_BULK) if _BWD_BULK > 1 else None
    try:
        with _scope(None, train_mode):
            for node in reversed(order):
                # variables are summed at the end; a node without inputs (a source, or one cut
                # by an earlier backward without retain_graph) passes no gradient on
                if node.var_array is not None or not node.inputs:
                    continue
                if node.n_out == 1:  # the common case, without the lists below
                    g = grads.pop((id(node), 0), None)
                    if g is None:
                        continue
                    outs = [g]
                else:
                    outs = [grads.pop((id(node), i), None) for i in range(node.n_out)]
                    if all(g is None for g in outs):
                        continue
                    outs = [g if g is not None else _zeros_for(node, i) for i, g in enumerate(outs)]
                for e, g in zip(node.inputs, _run_backward(node, outs, train_mode, direct)):
                    if e is None or g is None:
                        continue
                    if direct and direct.get(id(e[0])) is g:
                        written.add(id(e[0]))  # written into the variable's .grad already
                        continue
                    if e[0].var_array is not None and not create_graph:
                        # a variable's parts are summed once, at the end
                        parts.setdefault(id(e[0]), []).append(g)
                        continue
                    owned.add(id(g))
                    _accumulate(grads, (id(e[0]), e[1]), g, owned)
    finally:
        set_recording(prev_record)
        if prev_bulk is not None:
            _engine().set_bulk_size(prev_bulk)
    results = None
    if variables is not None:
        results = []
        for v in variables:
            g = _var_grad(grads, parts, v._ag[0]) if v._ag else None
            g = g if g is not None else _zeros_like(v)
            if create_graph and g._ag is None and v._ag is not None:
                # a gradient that does not depend on v still is v's function in MXNet's
                # graph (its derivative is zero, not missing): link it to v with zeros
                with _scope(True, None):
                    g = g + _op("zeros_like", [as_entry(v, v._ag)])
            results.append(g)
    else:
        for node in order:
            if node.var_array is None:
                continue
            target = node.var_array._grad
            if target is None or node.grad_req == _NULL:
                continue
            if id(node) in written:
                node.var_array._fresh_grad = True
                continue
            g = grads.get((id(node), 0))
            ps = parts.get(id(node), [])
            if g is not None:
                ps = [g, *ps]
            if target.__class__ is not NDArray:  # a sparse buffer (attach_grad(stype=...))
                if ps or node.grad_req == _WRITE:
                    sum_grads_into(target, ps, node.grad_req == _ADD)
                    node.var_array._fresh_grad = bool(ps)
                continue
            if not ps:
                if node.grad_req == _WRITE:
                    target[:] = 0
                continue
            _sum_into(target, [densify(p) for p in ps], node.grad_req == _ADD)
            node.var_array._fresh_grad = True
    if not retain_graph:
        for node in order:
            if node.var_array is None:
                node.inputs = []
                node.in_data = node.out_data = node.aux = []
        for h in heads:
            if h._ag is not None and h._ag[0].var_array is None:
                h._ag = None
    return results


def _direct_targets(order: list[_Node], grads: dict) -> dict[int, NDArray]:
    """The variables whose gradient can be written by the one operator that produces it: used
    once as an input in the whole graph, not a head, ``grad_req='write'``, a dense ``.grad``
    of the input's shape and dtype. Maps the variable node's id to its ``.grad``."""
    uses: dict[int, int] = {}
    meta: dict[int, tuple] = {}
    for node in order:
        if node.var_array is not None:
            continue
        for e, m in zip(node.inputs, node.in_meta):
            if e is not None and e[0].var_array is not None:
                uses[id(e[0])] = uses.get(id(e[0]), 0) + 1
                meta[id(e[0])] = m
    out: dict[int, NDArray] = {}
    for node in order:
        if node.var_array is None or uses.get(id(node)) != 1 or (id(node), 0) in grads:
            continue
        target = node.var_array._grad
        if node.grad_req != _WRITE or target is None or target.__class__ is not NDArray:
            continue
        shape, dtype = meta[id(node)]
        if target.shape == tuple(shape) and target._data.dtype == dtype:
            out[id(node)] = target
    return out


def _sum_into(dst: NDArray, ps: list[NDArray], add: bool) -> None:
    """Write (or with ``add``, add) the sum of ``ps`` into ``dst`` as one engine function."""
    d, xp = dst._data, dst._chunk.ctx.xp
    srcs = [p._data for p in ps]

    def run(rctx: Any) -> None:
        if not add:
            xp.copyto(d, srcs[0])
        for a in srcs if add else srcs[1:]:
            xp.add(d, a, out=d)

    reads = [p._chunk.var for p in ps]
    inline = small_enough_inline(dst.context, (d,))
    _engine().push_sync(run, dst.context, reads, [dst._chunk.var], 0, "_grad_sum", inline=inline)


def _var_grad(grads: dict, parts: dict, node: _Node) -> NDArray | None:
    """The summed gradient of variable ``node`` (a new array), or None when none reached it."""
    g = grads.get((id(node), 0))
    ps = parts.get(id(node), [])
    if not ps:
        return g
    if g is not None:
        ps = [g, *ps]
    if len(ps) == 1:
        return ps[0]
    if any(p.__class__ is not NDArray for p in ps):
        return sum_grads(ps)
    shape, dtype = ps[0].shape, ps[0]._data.dtype
    out = _new(shape, dtype, ps[0].context)
    _sum_into(out, ps, False)
    return out


def _ones_like(x: NDArray) -> NDArray:
    out = _new(x.shape, x._data.dtype, x.context)
    if out.context.device_typeid != 2:  # a fresh array nothing else uses yet: fill it here
        out._data.fill(1)
    else:
        out[...] = 1  # a zero-dim array too
    return out


def _zeros_like(x: NDArray) -> NDArray:
    out = _new(x.shape, x._data.dtype, x.context)
    out[...] = 0  # a zero-dim array too
    return out


def _zeros_for(node: _Node, i: int) -> NDArray:
    shape, dtype = node.out_meta[i]
    out = _new(shape, dtype, node.ctx)
    out[...] = 0  # a zero-dim array too
    return out


# ---- the public entry points ---------------------------------------------------------------


def backward(
    heads: NDArray | Sequence[NDArray],
    head_grads: Any = None,
    retain_graph: bool = False,
    train_mode: bool = True,
) -> None:
    """Compute the gradients of ``heads`` with respect to the marked variables, into ``.grad``.

    Parameters
    ----------
    heads : NDArray or list of NDArray
        Output(s) to differentiate.
    head_grads : NDArray or list of NDArray or None
        Gradients with respect to the heads (ones when None).
    retain_graph : bool, default False
        Keep the graph for another backward.
    train_mode : bool, default True
        Run the backward in training mode.
    """
    if isinstance(heads, NDArray):
        heads = [heads]
        head_grads = (
            [head_grads] if head_grads is None or isinstance(head_grads, NDArray) else head_grads
        )
    _backward(
        list(heads), None if head_grads is None else list(head_grads), retain_graph, train_mode
    )


def grad(
    heads: NDArray | Sequence[NDArray],
    variables: NDArray | Sequence[NDArray],
    head_grads: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    train_mode: bool = True,
) -> list[NDArray]:
    """Return the gradients of ``heads`` with respect to ``variables`` (not stored in .grad),
    as a list with one array per variable, also for a single variable (as MXNet 1.9.1 does).

    Parameters
    ----------
    heads : NDArray or list of NDArray
        Output(s) to differentiate.
    variables : NDArray or list of NDArray
        Input variables to compute gradients for.
    head_grads : NDArray or list of NDArray or None
        Gradients with respect to the heads (ones when None).
    retain_graph : bool, optional
        Keep the graph for another differentiation; defaults to ``create_graph``.
    create_graph : bool, default False
        Record the backward computation itself, so the result can be differentiated again
        (for operators whose backward is made of recordable operators).
    train_mode : bool, default True
        Run the backward in training mode.

    Returns
    -------
    list of NDArray
        One gradient per variable.
    """
    if isinstance(heads, NDArray):
        heads = [heads]
        head_grads = (
            [head_grads] if head_grads is None or isinstance(head_grads, NDArray) else head_grads
        )
    variables = [variables] if isinstance(variables, NDArray) else list(variables)
    if retain_graph is None:
        retain_graph = create_graph
    out = _backward(
        list(heads),
        None if head_grads is None else list(head_grads),
        retain_graph,
        train_mode,
        variables,
        create_graph,
    )
    # MXNet 1.9.1 returns a list even for a single variable (it rebinds ``variables`` to a
    # list before testing for an NDArray); code written for it indexes the result.
    return out


# ---- NDArray methods -----------------------------------------------------------------------


def _attach_grad(self: NDArray, grad_req: str = "write", stype: str | None = None) -> None:
    """Attach a zero gradient buffer and mark this array as a variable (``x.grad``).

    ``stype`` ('default', 'row_sparse', 'csr') is the gradient's storage type, by default
    this array's own (as MXNet's ``zeros_like``): backward then stores the rows MXNet stores
    (those an operator with a row-sparse gradient touches) or the non-zero elements."""
    parse_req(grad_req, "attach_grad: grad_req")
    if stype not in (None, "default", "row_sparse", "csr"):
        raise MXNetError(
            f"attach_grad: argument 'stype' must be 'default', 'row_sparse' or 'csr', "
            f"got {stype!r}."
        )
    if stype is None:
        stype = self.stype
    if stype != "default":
        grad = sparse_zeros(stype, self.shape, ctx=self.context, dtype=self._data.dtype)
    else:
        grad = _zeros_like(self)
    mark_variables([self], [grad], grad_req)


def _detach(self: NDArray) -> NDArray:
    """A new array sharing data with this one, outside any recorded graph."""
    if self.__class__ is not NDArray:  # sparse: the same class on the same parts
        return type(self)(self, self.writable)
    return _wrap(self._chunk, self._data, self.writable)


def _nd_backward(
    self: NDArray,
    out_grad: NDArray | None = None,
    retain_graph: bool = False,
    train_mode: bool = True,
) -> None:
    """Compute the gradients of this array with respect to the marked variables."""
    backward([self], [out_grad], retain_graph, train_mode)


extend(__name__, {"attach_grad": _attach_grad, "detach": _detach, "backward": _nd_backward})
