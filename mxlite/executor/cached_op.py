"""``mx.nd.CachedOp``: a symbol run as one imperative operator, through bound executors.

Design note
-----------
A :class:`CachedOp` takes its inputs in ``symbol.list_inputs()`` order. Per input signature
(context, shapes and dtypes, which inputs need a gradient, and the identity of the parameter
arrays) it binds an :class:`~.executor.Executor` once and keeps it: the parameter inputs
(``param_indices`` in the flags, as Gluon passes them) are bound as they are, so an optimizer
updating them in place is seen without copies; data inputs are copied into the executor's own
arguments on each call, and outputs are copied out, so a result stays valid after the next
call. Gluon's ``hybridize`` is this class.

Under ``autograd.record()`` a call is recorded as one autograd node (an
:class:`mxlite.autograd.Function`) whose backward is the executor's backward. An executor holds
the intermediate values of its last forward until that node's backward has run: a second
recorded call while the first is still pending (a block applied twice in one graph) binds a
second executor of the same signature instead of overwriting the first one's values. A
parameter's gradient array in the executor is the parameter's own ``.grad`` (when it is a dense
buffer of its shape, dtype and context): the backward writes it in place when autograd names it
the target of that input's only gradient, as MXNet's CachedOp does, instead of a copy per
parameter afterwards; otherwise (``grad_req='add'``, the parameter used elsewhere too,
``autograd.grad``, a buffer replaced since) its contents are kept aside and put back, and a copy
of the gradient goes to autograd.

As in MXNet, a graph of at most ``inline_limit`` operators (default 2) without
``static_alloc`` is not recorded as one node: while recording, it runs one imperative call per
operator, so autograd (and ``autograd.get_symbol``) sees each of them.

A graph holding an operator whose output shape depends on input values (``dynamic_shape``:
``boolean_mask``) has shapes that no bind can plan. Like MXNet's CachedOp for such graphs
(its dynamic forward and backward), it always runs node by node through ``invoke``, which
sizes each output when its node runs; while recording, autograd records every node, so the
backward runs through the same nodes with the shapes the forward found.
"""

from __future__ import annotations

import weakref
from typing import Any

from .. import autograd
from ..base import MXNetError
from ..context import current_context
from ..ndarray.invoke import invoke
from ..ndarray.ndarray import NDArray
from ..symbol.graph import Node, topo_order
from .bind import bind

__all__ = ["CachedOp"]


class _Bound:
    """One executor for one signature, and the recorded call whose backward it still owes."""

    __slots__ = ("exe", "params", "data_args", "pending", "shared_grads")

    def __init__(self, exe: Any, params: tuple, data_args: list, shared_grads: set) -> None:
        self.exe = exe
        self.params = params  # the parameter arrays bound (kept so that ids stay unique)
        self.data_args = data_args  # per input: the executor array to copy into, or None
        self.pending: Any = None  # weakref to the _Call whose backward is still to run
        # positions in exe.grad_arrays bound to a parameter's own .grad buffer (see _Call)
        self.shared_grads = shared_grads

    def busy(self) -> bool:
        if self.pending is None:
            return False
        call = self.pending()
        return call is not None and not call.done


class _Call(autograd.Function):
    """One recorded call of a cached op: forward and backward through one executor."""

    graph_op_name = "_CachedOp"

    def __init__(self, bound: _Bound, grad_index: list[int | None], is_train: bool) -> None:
        super().__init__()
        self._bound = bound
        self._grad_index = grad_index  # per input: its position in exe.grad_arrays, or None
        self._is_train = is_train
        self.done = False

    def forward(self, *inputs: NDArray) -> Any:
        outs = _run_forward(self._bound, inputs, self._is_train)
        self._bound.pending = weakref.ref(self)
        return outs

    def backward(self, *out_grads: NDArray) -> Any:
        return self._backward_into(list(out_grads), None)

    def _backward_into(self, out_grads: list[NDArray], targets: list | None) -> list:
        """A parameter's ``.grad`` bound as the executor's gradient array is written in place
        when autograd names it as this input's target (its only gradient, ``write``), as
        MXNet's CachedOp writes its inputs' gradient arrays: no copy afterwards. Otherwise
        (another use adds to it, ``grad_req='add'``, ``autograd.grad``) the buffer's
        contents are kept aside and put back, and a copy of the gradient comes back."""
        exe = self._bound.exe
        grads = exe.grad_arrays
        saved = {}
        for k, i in enumerate(self._grad_index):
            if i in self._bound.shared_grads and (targets is None or targets[k] is not grads[i]):
                saved[i] = grads[i].copy()
        exe.backward(out_grads, is_train=self._is_train)
        self.done = True
        res = []
        for i in self._grad_index:
            if i in saved:
                res.append(grads[i].copy())
                saved[i].copyto(grads[i])
            else:
                res.append(None if i is None else grads[i])
        return res

    def _backward(
        self, out_grads: list[NDArray], wanted: list[bool], targets: list | None = None
    ) -> list[NDArray | None]:
        # an input whose gradient was not bound comes back as None, which autograd skips
        with autograd.pause():
            res = self._backward_into(out_grads, targets)
        return [g if w else None for g, w in zip(res, wanted)]


def _node_ops(sym: Any) -> list[tuple[str, str]]:
    """(node name, operator name) of every operator node of ``sym``."""
    import json

    return [(n["name"], n["op"]) for n in json.loads(sym.tojson())["nodes"] if n["op"] != "null"]


def _run_forward(bound: _Bound, inputs: Any, is_train: bool) -> list[NDArray]:
    exe = bound.exe
    for x, dst in zip(inputs, bound.data_args):
        if dst is not None:
            x.copyto(dst)
    exe.forward(is_train=is_train)
    return [o.copy() for o in exe.outputs]


def _dedup_outputs(sym: Any) -> Any:
    """As MXNet's CachedOp: an output listed again (a block returning ``o, [o]``) becomes a
    ``_copy`` of it, so that every output is its own entry and its head gradient counts."""
    seen: dict[tuple[int, int], int] = {}
    entries = []
    for node, i in sym._entries:
        n = seen.get((id(node), i))
        if n is None:
            seen[(id(node), i)] = 0
            entries.append((node, i))
        else:
            seen[(id(node), i)] = n + 1
            entries.append((Node("_copy", f"{node.name}_copy{n}", {}, [(node, i)]), 0))
    return type(sym)(entries) if len(seen) < len(entries) else sym


class CachedOp:
    """A symbol compiled once and called like an operator on NDArrays.

    Parameters
    ----------
    sym : Symbol
        The graph; its inputs, in ``list_inputs()`` order, are the call's arguments.
    flags : list of (str, value), optional
        MXNet's CachedOp flags. ``data_indices`` and ``param_indices`` say which inputs are
        data (copied in on each call) and which parameters (bound as they are);
        ``static_alloc``, ``static_shape``, ``inline_limit`` and the bulk sizes are accepted:
        every executor here plans its memory once per input signature.
    """

    def __init__(self, sym: Any, flags: Any = ()) -> None:
        sym = _dedup_outputs(sym)
        self._sym = sym
        self._flags = dict(flags)
        self._inputs = sym.list_inputs()
        n = len(self._inputs)
        params = self._flags.get("param_indices")
        self._is_param = [False] * n
        for i in params or ():
            self._is_param[int(i)] = True
        arg_names = sym.list_arguments()
        self._arg_pos = {name: i for i, name in enumerate(arg_names)}
        self._aux_names = set(sym.list_auxiliary_states())
        self._cache: dict[tuple, list[_Bound]] = {}
        self._monitor: Any = None
        # as MXNet: a small graph without static_alloc runs operator by operator while
        # recording, so autograd sees (and get_symbol shows) each of its operators
        ops = [n for n in topo_order(sym._entries) if n.op is not None]
        self._inline = not self._flags.get("static_alloc", False) and len(ops) <= int(
            self._flags.get("inline_limit", 2)
        )
        # a node whose output shape depends on values (boolean_mask) cannot be planned ahead:
        # the graph then always runs node by node, each output sized when its node runs
        self._dynamic = any(n.prop().dynamic_shape for n in ops)

    def _register_op_hook(self, callback: Any, monitor_all: bool = False) -> None:
        """Call ``callback(name, op_name, array)`` for every step's outputs (with
        ``monitor_all``, its inputs too), names as bytes as MXNet's C API gives them."""
        self._monitor = (callback, bool(monitor_all))
        for entries in self._cache.values():
            for b in entries:
                self._set_monitor(b.exe)

    def _set_monitor(self, exe: Any) -> None:
        if self._monitor is None:
            return
        callback, monitor_all = self._monitor
        ops = {n: op for n, op in _node_ops(self._sym)}
        inputs = set(self._inputs)

        def hook(name: Any, arr: Any) -> None:
            name = name.decode() if isinstance(name, bytes) else name
            if name in inputs:  # the executor also shows a variable under its own name
                return
            node = name
            while node and node not in ops:
                node = node.rpartition("_")[0]
            callback(name.encode(), ops.get(node, "").encode(), arr)

        exe.set_monitor_callback(hook, monitor_all)

    def __call__(self, *args: NDArray, out: Any = None, default_ctx: Any = None) -> Any:
        if len(args) != len(self._inputs):
            raise MXNetError(
                f"CachedOp: expected {len(self._inputs)} inputs ({self._inputs}), got {len(args)}."
            )
        for name, a in zip(self._inputs, args):
            if not isinstance(a, NDArray):
                raise MXNetError(
                    f"CachedOp: input {name!r} must be an NDArray, got {type(a).__name__}."
                )
        ctx = args[0].context if args else (default_ctx or current_context())
        recording = autograd.is_recording()
        if self._dynamic or (recording and self._inline):
            outs = self._run_inline(args)
            return outs[0] if len(outs) == 1 else outs
        is_train = autograd.is_training()
        needs = tuple(recording and a._ag is not None for a in args)
        with_grad = any(needs)
        key = (
            ctx,
            tuple((a.shape, a.dtype) for a in args),
            needs,
            tuple(id(a) for a, p in zip(args, self._is_param) if p),
        )
        entries = self._cache.get(key)
        if entries is None:
            entries = self._cache[key] = []
            # a parameter array replaced (cast, reset_ctx, load): forget its old executors
            stale = [k for k in self._cache if k[:3] == key[:3] and k != key]
            for k in stale:
                del self._cache[k]
        bound = next((b for b in entries if not b.busy()), None)
        if bound is None:
            bound = self._bind(ctx, args, needs)
            entries.append(bound)
        if with_grad:
            grad_index = [i if need else None for i, need in enumerate(needs)]
            grad_index = [None if i is None else self._arg_pos[self._inputs[i]] for i in grad_index]
            outs = _Call(bound, grad_index, is_train)(*args)
            outs = [outs] if isinstance(outs, NDArray) else list(outs)
        else:
            with autograd.pause(train_mode=is_train):
                outs = _run_forward(bound, args, is_train)
        if out is not None:
            targets = [out] if isinstance(out, NDArray) else list(out)
            for src, dst in zip(outs, targets):
                src.copyto(dst)
            return out
        return outs[0] if len(outs) == 1 else outs

    def _run_inline(self, args: tuple) -> list[NDArray]:
        """Run the graph one imperative operator call per node (each recorded by autograd)."""
        by_name = dict(zip(self._inputs, args))
        values: dict[int, list[NDArray]] = {}
        for node in topo_order(self._sym._entries):
            if node.op is None:
                values[id(node)] = [by_name[node.name]]
                continue
            ins = [values[id(n)][i] for n, i in node.inputs]
            res = invoke(node.prop(), ins, name=node.name)
            values[id(node)] = [res] if isinstance(res, NDArray) else list(res)
        return [values[id(n)][i] for n, i in self._sym._entries]

    def _bind(self, ctx: Any, args: tuple, needs: tuple) -> _Bound:
        from ..ndarray import zeros

        arg_arrays, aux_arrays, grads, reqs = {}, {}, {}, {}
        shared: set[int] = set()
        data_args: list[Any] = []
        params = []
        for name, a, is_param, need in zip(self._inputs, args, self._is_param, needs):
            arr = a if is_param else zeros(a.shape, ctx=ctx, dtype=a.dtype)
            if is_param:
                params.append(a)
            data_args.append(None if is_param else arr)
            if name in self._aux_names:
                aux_arrays[name] = arr
                continue
            arg_arrays[name] = arr
            if need:
                g = a._grad if is_param and sum(x is a for x in args) == 1 else None
                if g is not None and _fits(g, a, ctx):
                    shared.add(self._arg_pos[name])  # its place in exe.grad_arrays
                else:
                    g = zeros(a.shape, ctx=ctx, dtype=a.dtype)
                grads[name] = g
                reqs[name] = "write"
            else:
                reqs[name] = "null"
        exe = bind(
            self._sym, ctx, arg_arrays, args_grad=grads or None, grad_req=reqs,
            aux_states=aux_arrays,
        )  # fmt: skip
        self._set_monitor(exe)
        return _Bound(exe, tuple(params), data_args, shared)


def _fits(grad: Any, a: NDArray, ctx: Any) -> bool:
    """Whether ``a``'s ``.grad`` can be the executor's own gradient array for it."""
    return (
        grad.__class__ is NDArray
        and grad.shape == a.shape
        and grad.dtype == a.dtype
        and grad.context == ctx
    )
