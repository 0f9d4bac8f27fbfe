"""``mx.nd.CachedOp``: a symbol run as one imperative operator, through bound executors.

Design note
-----------
A :class:`CachedOp` takes its inputs in ``symbol.list_inputs()`` order. Per input signature
(context, shapes, dtypes and storage types, which inputs need a gradient, and the identity of
the parameter arrays) it binds the graph once: inference, gradient graph and memory plan. The
parameter inputs (``param_indices`` in the flags, as Gluon passes them) are bound as they are,
so an optimizer updating them in place is seen without copies.

Memory. With ``static_alloc`` the executor of each signature is kept with its memory: data
inputs are copied into its own arguments on each call (and outputs copied out, so a result
stays valid after the next call), which saves the per-call set-up. Without it (Gluon's
default) MXNet keeps no memory between calls; here a signature whose kept executor would hold
``KEEP_BELOW`` (64 MiB) or more (blocks, data copies and gradients) keeps only the bound graph:
each call makes a fresh executor from it on the caller's own data arrays, with its own blocks
and gradient arrays, and drops it when the call is done (after the forward in inference, with
its autograd node when recorded). So a block called with large inputs of many shapes holds no
memory per shape (MXNet's test_slice_pooling2d). Smaller signatures keep their executor: for
them the set-up (the engine operators, BatchNorm folding) would cost more than the compute,
and what they hold is small. An executor with sparse arrays at its edges is always kept.

Under ``autograd.record()`` a call is recorded as one autograd node (an
:class:`mxlite.autograd.Function`) whose backward is the executor's backward. A kept executor
holds the intermediate values of its last forward until that node's backward has run: a second
recorded call while the first is still pending (a block applied twice in one graph) binds a
second executor of the same signature instead of overwriting the first one's values.
A parameter's own ``.grad`` (a dense buffer of its shape, dtype and context, the parameter
passed once) is its gradient array: a kept executor binds it when made, a per-call one takes it
at the backward where autograd names it as the target of that input's only gradient
(``grad_req='write'``). The backward then writes it in place, as MXNet's CachedOp writes its
inputs' gradient arrays, with no copy per parameter afterwards. Where a bound buffer is not the
target (``grad_req='add'``, the parameter used elsewhere too, ``autograd.grad``, a buffer
replaced since) its contents are kept aside and put back, and a copy goes to autograd.

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

import numpy as np

from .. import autograd
from ..base import MXNetError
from ..context import current_context
from ..ndarray.invoke import invoke
from ..ndarray.ndarray import NDArray, _new
from ..symbol.graph import Node, topo_order
from .bind import bind
from .executor import Executor

__all__ = ["CachedOp"]

# without static_alloc, a signature whose executor would hold this many bytes or more gets a
# fresh executor per call (see the design note)
KEEP_BELOW = 64 << 20


class _Bound:
    """A kept executor (``static_alloc``) for one signature, and the recorded call whose
    backward it still owes."""

    __slots__ = ("exe", "params", "data_args", "pending", "shared")

    def __init__(self, exe: Any, params: tuple, data_args: list) -> None:
        self.exe = exe
        self.params = params  # the parameter arrays bound (kept so that ids stay unique)
        self.data_args = data_args  # per input: the executor array to copy into, or None
        self.pending: Any = None  # weakref to the _Call whose backward is still to run
        # positions in exe.grad_arrays bound to a parameter's own .grad (see the design note)
        self.shared: set[int] = set()

    def busy(self) -> bool:
        if self.pending is None:
            return False
        call = self.pending()
        return call is not None and not call.done

    def run(self, inputs: Any, is_train: bool) -> list[NDArray]:
        exe = self.exe
        for x, dst in zip(inputs, self.data_args):
            if dst is not None:
                x.copyto(dst)
        exe.forward(is_train=is_train)
        return [o.copy() for o in exe.outputs]


class _Template:
    """A signature's bound graph and memory plan without memory: a fresh executor per call
    (no ``static_alloc``), bound to the caller's arrays and dropped with the call."""

    __slots__ = ("parts", "params", "param_names", "names", "needs", "prepare", "spare")

    def __init__(
        self, exe: Any, params: tuple, names: list[str], needs: tuple, prepare: Any
    ) -> None:
        self.prepare = prepare  # called with each new executor (the op's monitor)
        self.spare = exe  # bound to the arrays of the call that bound the graph: its executor
        self.parts = (
            exe._symbol, exe._ctx, exe._graph, exe._plan, exe._arg_names, exe._aux_names,
            exe._grad_req, exe._optimized,
        )  # fmt: skip
        self.params = params  # the parameter arrays bound (kept so that ids stay unique)
        self.param_names = exe._param_names
        self.names = names  # the op's input names, in call order
        self.needs = needs  # per input: whether its gradient is bound

    def nbytes(self, inputs: Any, is_param: list[bool]) -> int:
        """The memory a kept executor would hold: its blocks, data copies and gradients."""
        plan = self.parts[3]
        sizes = [x.size * np.dtype(x.dtype).itemsize for x in inputs]
        own = sum(n for n, p in zip(sizes, is_param) if not p)
        grads = sum(n for n, need in zip(sizes, self.needs) if need)
        return sum(plan.block_bytes) + own + grads

    def kept(self, inputs: Any, is_param: list[bool]) -> _Bound:
        """An executor of this signature that keeps its memory, on copies of the data
        inputs that each call refills."""
        from ..ndarray import zeros

        ctx = self.parts[1]
        copies = [
            None if p else zeros(x.shape, ctx=ctx, dtype=x.dtype) for x, p in zip(inputs, is_param)
        ]
        exe = self.executor([x if c is None else c for x, c in zip(inputs, copies)], zeros)
        return _Bound(exe, self.params, copies)

    def executor(self, inputs: Any, new_grad: Any = None) -> Any:
        exe, self.spare = self.spare, None
        if exe is not None and new_grad is None:
            return exe
        symbol, ctx, graph, plan, arg_names, aux_names, grad_req, optimized = self.parts
        by_name, grads = {}, {}
        for name, x, need in zip(self.names, inputs, self.needs):
            by_name[name] = x if x.context == ctx else x.copyto(ctx)
            if need:
                # the backward writes all of a gradient
                grads[name] = (new_grad or _new)(x.shape, ctx=ctx, dtype=x.dtype)
        exe = Executor(
            symbol, ctx, graph, plan, arg_names, aux_names, [by_name[n] for n in arg_names],
            [grads.get(n) for n in arg_names], [by_name[n] for n in aux_names], grad_req,
        )  # fmt: skip
        exe._optimized = optimized
        exe._param_names = self.param_names
        self.prepare(exe)
        return exe

    def run(self, inputs: Any, is_train: bool) -> list[NDArray]:
        exe = self.executor(inputs)
        exe.forward(is_train=is_train)
        # copies: an output viewing a planned block would keep the whole block alive
        return [o.copy() for o in exe.outputs]


class _Call(autograd.Function):
    """One recorded call of a cached op: forward and backward through one executor."""

    graph_op_name = "_CachedOp"

    def __init__(self, bound: Any, grad_index: list[int | None], is_train: bool) -> None:
        super().__init__()
        self._bound = bound  # a _Bound (its executor kept) or a _Template
        self._exe: Any = None
        self._shared: set[int] = set()  # positions in exe.grad_arrays that are a .grad buffer
        self._grad_index = grad_index  # per input: its position in exe.grad_arrays, or None
        self._is_train = is_train
        self.done = False

    def forward(self, *inputs: NDArray) -> Any:
        bound = self._bound
        if type(bound) is _Template:
            # the executor (its blocks: the values the backward reads) lives with this node
            self._exe = bound.executor(inputs)
            self._exe.forward(is_train=self._is_train)
            return [o.copy() for o in self._exe.outputs]
        self._exe = bound.exe
        self._shared = bound.shared
        outs = bound.run(inputs, self._is_train)
        bound.pending = weakref.ref(self)
        return outs

    def backward(self, *out_grads: NDArray) -> Any:
        return self._backward_into(list(out_grads), None)

    def _backward_into(self, out_grads: list[NDArray], targets: list | None) -> list:
        """The executor's backward; ``targets``: per input, the ``.grad`` buffer autograd
        lets this node write, or None (see the design note)."""
        exe, shared = self._exe, self._shared
        grads = exe.grad_arrays
        if targets is not None and type(self._bound) is _Template:
            self._take_targets(targets)
        saved = {}
        for k, i in enumerate(self._grad_index):
            if i in shared and (targets is None or targets[k] is not grads[i]):
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

    def _take_targets(self, targets: list) -> None:
        """A per-call executor: each target not read by the graph becomes its input's
        gradient array before the backward is planned."""
        exe = self._exe
        grads = exe.grad_arrays
        read = {id(a._chunk) for a in (*exe.arg_arrays, *exe.aux_arrays)}
        for t, i in zip(targets, self._grad_index):
            if t is None or i is None or t is grads[i] or id(t._chunk) in read:
                continue
            if _fits(t, grads[i], exe._ctx) and exe._use_grad_array(i, t):
                self._shared.add(i)

    def _backward(
        self, out_grads: list[NDArray], wanted: list[bool], targets: list | None = None
    ) -> list[NDArray | None]:
        # the Function base checks the count and drops what is not wanted; an input whose
        # gradient was not bound comes back as None, which autograd skips
        with autograd.pause():
            res = self._backward_into(out_grads, targets)
        return [g if w else None for g, w in zip(res, wanted)]


def _node_ops(sym: Any) -> list[tuple[str, str]]:
    """(node name, operator name) of every operator node of ``sym``."""
    import json

    return [(n["name"], n["op"]) for n in json.loads(sym.tojson())["nodes"] if n["op"] != "null"]


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
        self._inline = not _flag(self._flags.get("static_alloc", False)) and len(ops) <= int(
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
                if type(b) is _Bound:
                    self._set_monitor(b.exe)
                elif b.spare is not None:
                    self._set_monitor(b.spare)

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
            tuple((a.shape, a.dtype, a.stype) for a in args),
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
        bound = next((b for b in entries if type(b) is _Template or not b.busy()), None)
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
                outs = bound.run(args, is_train)
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

    def _bind(self, ctx: Any, args: tuple, needs: tuple) -> Any:
        bound = None
        if not _flag(self._flags.get("static_alloc", False)):
            exe, params, _ = self._bind_executor(ctx, args, needs, kept=False)
            if exe._boundary is None:
                template = _Template(exe, params, self._inputs, needs, self._set_monitor)
                if template.nbytes(args, self._is_param) >= KEEP_BELOW:
                    return template
                bound = template.kept(args, self._is_param)
            # sparse arrays at the edges: the executor keeps dense shadows of its own
        if bound is None:
            bound = _Bound(*self._bind_executor(ctx, args, needs, kept=True))
        # a kept executor's gradient arrays are the parameters' own .grad where they fit
        for name, a, is_param, need in zip(self._inputs, args, self._is_param, needs):
            i = self._arg_pos.get(name)
            if not (is_param and need) or i is None or sum(x is a for x in args) != 1:
                continue
            if _fits(a._grad, a, ctx) and bound.exe._use_grad_array(i, a._grad):
                bound.shared.add(i)
        return bound

    def _bind_executor(self, ctx: Any, args: tuple, needs: tuple, kept: bool) -> tuple:
        """An executor of this signature: on the caller's arrays, or (``kept``) on copies of
        the data inputs that each call refills. Returns it, the parameter arrays bound and,
        per input, the executor's array to copy into (None for parameters)."""
        from ..ndarray import zeros

        arg_arrays, aux_arrays, grads, reqs = {}, {}, {}, {}
        data_args: list[Any] = []
        params = []
        for name, a, is_param, need in zip(self._inputs, args, self._is_param, needs):
            if is_param:
                arr = a
                params.append(a)
            elif kept:
                arr = zeros(a.shape, ctx=ctx, dtype=a.dtype)
            else:
                arr = a if a.context == ctx else a.copyto(ctx)
            data_args.append(None if is_param else arr)
            if name in self._aux_names:
                aux_arrays[name] = arr
                continue
            arg_arrays[name] = arr
            if need:
                grads[name] = zeros(a.shape, ctx=ctx, dtype=a.dtype)
                reqs[name] = "write"
            else:
                reqs[name] = "null"
        exe = bind(
            self._sym, ctx, arg_arrays, args_grad=grads or None, grad_req=reqs,
            aux_states=aux_arrays,
        )  # fmt: skip
        exe._param_names = frozenset(n for n, p in zip(self._inputs, self._is_param) if p)
        self._set_monitor(exe)
        return exe, tuple(params), data_args


def _fits(grad: Any, a: NDArray, ctx: Any) -> bool:
    """Whether ``grad`` can be the executor's gradient array of ``a``."""
    return (
        grad.__class__ is NDArray
        and grad.shape == a.shape
        and grad.dtype == a.dtype
        and grad.context == ctx
    )


def _flag(value: Any) -> bool:
    """A CachedOp flag as a bool: Python values, or MXNet's strings (``"true"``, ``"0"``)."""
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true")
    return bool(value)
