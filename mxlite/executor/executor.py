"""The Executor: a bound symbol whose steps are cached engine operators.

Design note
-----------
Binding (bind.py) builds the :class:`~.gradient.ExecGraph` and its
:class:`~.plan_memory.MemoryPlan`; the executor then allocates one NDArray per planned block
and makes every internal entry a typed view on its block, so entries sharing a block share
its engine var and the engine orders their users. External entries are the arrays the user
gave (or simple_bind made): arguments, gradients, auxiliary states; head gradients are the
executor's own arrays that ``backward`` copies the user's ``out_grads`` into.

Each step becomes one engine function holding its kernel, the arrays it reads and writes,
its requests and its resources. As in MXNet, consecutive steps are bulked into one engine
operator (segments of up to 15 steps for a graph with gradients, the whole graph for
inference; ``_make_plan``), so a forward or backward costs a few pushes, not one per step;
with a monitor set, every step is its own operator so that its outputs can be shown. The
operators are created on first use, once per ``is_train`` value (the flag is baked into the
closure so that a queued training forward never sees a later inference call's flag), and
``forward``/``backward`` only push them in order. Operators that run on the caller
(``Custom``) are called in order instead, between segments. The inference plan of an executor
without gradients first goes through the inference passes (``MXLITE_INFERENCE_FOLD``):
constant subgraphs computed once (``constfold.py``), then BatchNorm, add and ReLU fused into
convolutions (``fuse.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..base import MXNetError
from ..context import Context
from ..engine import Opr, small_enough_inline
from ..engine import get as _engine
from ..engine.segment import Segment, exec_bulk_size
from ..ndarray.ndarray import NDArray, _new, _wrap, array_from_numpy, handle_of
from ..operator.registry import OpContext
from ..operator.req import OpReq
from . import constfold, fuse
from .gradient import ARG, AUX, INTERNAL, ExecGraph, Step
from .plan_memory import MemoryPlan

__all__ = ["Executor"]


class Executor:
    """A symbol bound to arrays on a context (``mx.executor.Executor``); made by
    :meth:`Symbol.bind` and :meth:`Symbol.simple_bind`, not by users."""

    def __init__(
        self,
        symbol: Any,
        ctx: Context,
        graph: ExecGraph,
        plan: MemoryPlan,
        arg_names: list[str],
        aux_names: list[str],
        arg_arrays: list[NDArray],
        grad_arrays: list[NDArray | None],
        aux_arrays: list[NDArray],
        grad_req: dict[str, str],
        shared_blocks: list[NDArray] | None = None,
        group2ctx: dict | None = None,
    ) -> None:
        self._symbol = symbol
        self._optimized: list[Any] | None = None  # the graph bound, after bind's passes
        self._ctx = ctx
        self._graph = graph
        self._plan = plan
        self._arg_names = list(arg_names)
        self._aux_names = list(aux_names)
        self._grad_req = dict(grad_req)
        self._group2ctx = group2ctx
        self.arg_arrays = list(arg_arrays)
        self.grad_arrays = list(grad_arrays)
        self.aux_arrays = list(aux_arrays)
        self._blocks = _make_blocks(plan.block_bytes, ctx, shared_blocks or [])
        arrays: list[NDArray | None] = [None] * len(graph.entries)
        for eid, arr in zip(graph.arg_eids, self.arg_arrays):
            arrays[eid] = arr
        for eid, arr in zip(graph.aux_eids, self.aux_arrays):
            arrays[eid] = arr
        for eid, arr in zip(graph.grad_eids, self.grad_arrays):
            if eid >= 0:
                arrays[eid] = arr
        for eid in graph.head_grad_eids:
            if eid >= 0:
                e = graph.entries[eid]
                arrays[eid] = _new(e.shape, e.dtype, ctx)
        for eid, bid in enumerate(plan.storage):
            if bid >= 0:
                e = graph.entries[eid]
                block = self._blocks[bid]
                view = block._data[: e.nbytes].view(e.dtype).reshape(e.shape)
                arrays[eid] = _wrap(block._chunk, view)
        self._arrays = arrays
        self.outputs: list[NDArray] = [arrays[e] for e in graph.output_eids]  # type: ignore[misc]
        self._oprs: dict[tuple[bool, bool, bool], list[Any]] = {}  # see _make_plan
        self._monitor: Callable[[str, NDArray], None] | None = None
        self._monitor_user: Callable[[bytes, int], None] | None = None
        self._monitor_all = False
        # arg_dict, grad_dict, aux_dict and output_dict by name, each made on first use
        self._dicts: dict[str, dict[str, NDArray]] = {}
        self._boundary: Any = None  # sparse arrays at the edges (sparse.py), else None
        # the arguments bound once rather than fed on each call (Module's parameters, a Gluon
        # block's): constants of the inference plan (constfold.py)
        self._param_names: frozenset[str] = frozenset()

    def _attach_boundary(self, boundary: Any, user_args: list, user_grads: list) -> None:
        """Show the user's sparse arrays in place of the dense shadows the steps use."""
        from .sparse import attach_outputs

        self._boundary = boundary
        boundary.imperative = all(g is None for g in user_grads)
        self.arg_arrays = list(user_args)
        self.grad_arrays = list(user_grads)
        self._dense_outputs = self.outputs
        self.outputs = attach_outputs(boundary, boundary.out_stypes, self.outputs)

    def _use_grad_array(self, i: int, arr: NDArray) -> bool:
        """Make ``arr`` (dense, of the gradient's shape, dtype and context) argument ``i``'s
        gradient array, while no backward has been planned (a plan holds its arrays). Returns
        whether it could."""
        eid = self._graph.grad_eids[i]
        if eid < 0 or self._boundary is not None or any(k[0] for k in self._oprs):
            return False
        self.grad_arrays[i] = self._arrays[eid] = arr
        self._dicts.pop("grad_dict", None)
        return True

    # ---- dictionaries ----------------------------------------------------------------------

    def _by_name(self, which: str, names: list[str], arrays: list) -> dict[str, NDArray]:
        """``dict(zip(names, arrays))``, the dictionary ``which``: made on first use and kept
        until something drops it."""
        made = self._dicts.get(which)
        if made is None:
            made = self._dicts[which] = dict(zip(names, arrays))
        return made

    @property
    def arg_dict(self) -> dict[str, NDArray]:
        """Argument name to its array."""
        return self._by_name("arg_dict", self._arg_names, self.arg_arrays)

    @property
    def grad_dict(self) -> dict[str, NDArray]:
        """Argument name to its gradient array; None for an argument without one (as MXNet
        gives ``grad_req='null'`` arguments of ``simple_bind``)."""
        return self._by_name("grad_dict", self._arg_names, self.grad_arrays)

    @property
    def aux_dict(self) -> dict[str, NDArray]:
        """Auxiliary state name to its array."""
        return self._by_name("aux_dict", self._aux_names, self.aux_arrays)

    @property
    def output_dict(self) -> dict[str, NDArray]:
        """Output name to its array."""
        names = self._graph.output_names
        if "output_dict" not in self._dicts and len(set(names)) != len(names):
            raise MXNetError("Executor.output_dict: the symbol has duplicated output names.")
        return self._by_name("output_dict", names, self.outputs)

    # ---- running -----------------------------------------------------------------------------

    def forward(self, is_train: bool = False, **kwargs: Any) -> list[NDArray]:
        """Compute the outputs, after copying ``kwargs`` (name to NDArray or numpy array)
        into the arguments of the same name.

        Parameters
        ----------
        is_train : bool, optional
            Whether this forward is for training (Dropout drops, BatchNorm uses batch
            statistics); default False.
        """
        if kwargs:
            arg_dict = self.arg_dict
            for name, value in kwargs.items():
                dst = arg_dict.get(name)
                if dst is None:
                    raise MXNetError(
                        f"Executor.forward: unknown argument {name!r}; the arguments are "
                        f"{self._arg_names}."
                    )
                _copy_into(name, value, dst)
        if self._boundary is not None:
            if self._boundary.imperative and self._monitor is None:
                if self._boundary.run_imperative(self, bool(is_train)):
                    return self.outputs
                self._boundary.imperative = False
            self._boundary.before_forward()
            self._run(False, bool(is_train))
            self._boundary.after_forward(self._dense_outputs)
            return self.outputs
        self._run(False, bool(is_train))
        return self.outputs

    def backward(self, out_grads: Any = None, is_train: bool = True) -> None:
        """Compute the gradients of the arguments into ``grad_arrays``.

        Parameters
        ----------
        out_grads : NDArray, list or dict of NDArray, optional
            Gradient of each output; may be left out for outputs of loss operators.
        is_train : bool, optional
            Whether the backward is for training; default True.
        """
        g = self._graph
        if out_grads is None:
            out_grads = []
        elif isinstance(out_grads, (NDArray, np.ndarray)):
            out_grads = [out_grads]
        elif isinstance(out_grads, dict):
            out_grads = [out_grads.get(n) for n in g.output_names]
        for i, eid in enumerate(g.head_grad_eids):
            if eid < 0:
                continue
            src = out_grads[i] if i < len(out_grads) else None
            if src is None:
                raise MXNetError(
                    "Executor.backward: because the last operator is not a loss function, "
                    f"head gradient {i} (of output {g.output_names[i]!r}) is required. To "
                    "minimise an output as an objective, pass it through MakeLoss."
                )
            _copy_into(f"out_grads[{i}]", src, self._arrays[eid])
        self._run(True, bool(is_train))
        if self._boundary is not None:
            self._boundary.after_backward()

    def _run(self, backward: bool, is_train: bool) -> None:
        monitor = self._monitor
        key = (backward, is_train, monitor is not None)
        plan = self._oprs.get(key)
        if plan is None:
            plan = self._oprs[key] = self._make_plan(backward, is_train, monitor is not None)
        eng = _engine()
        ctx = self._ctx
        if monitor is None:
            for opr in plan:
                if type(opr) is tuple:  # runs on the caller
                    opr[0]()
                else:
                    eng.push(opr, ctx)
            return
        for opr, step in plan:
            # inputs are shown before the step runs: an in-place step overwrites them
            if self._monitor_all:
                self._monitor_inputs(step)
            if type(opr) is tuple:
                opr[0]()
            else:
                eng.push(opr, ctx)
            self._monitor_outputs(step)

    def _make_plan(self, backward: bool, is_train: bool, per_step: bool) -> list[Any]:
        """The engine operators of a forward or backward: with ``per_step`` (a monitor is set)
        one ``(opr, step)`` per step; else consecutive steps are bulked into one operator
        each as MXNet does (up to MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_FWD/_BWD steps in a
        graph with gradients; a whole inference graph), and steps that run on the caller are
        ``(callable,)`` between them."""
        g = self._graph
        steps = g.backward if backward else g.forward
        has_grads = any(e >= 0 for e in g.grad_eids)
        arrays, link, first = self._arrays, None, []
        if not (backward or is_train or per_step or has_grads) and fuse.enabled():
            const, steps, arrays, link = constfold.fold_constants(self, steps)
            first = [] if const is None else [const]
            steps = fuse.fuse_steps(self, steps, arrays)  # fused chains come back as Oprs
        made = [s if type(s) is Opr else self._make_opr(s, is_train, arrays) for s in steps]
        if link is not None:
            made = first + [link(opr) for opr in made]
        if per_step:
            return [
                (_segment([opr], self._ctx) if type(opr) is Opr else opr, step)
                for opr, step in zip(made, steps)
            ]
        limit = exec_bulk_size(("bwd" if backward else "fwd") if has_grads else "inference")
        plan: list[Any] = []
        run: list[Opr] = []
        for opr in made:
            if type(opr) is tuple:
                if run:
                    plan.append(_segment(run, self._ctx))
                    run = []
                plan.append(opr)
                continue
            run.append(opr)
            if len(run) == limit or limit == 0:
                plan.append(_segment(run, self._ctx))
                run = []
        if run:
            plan.append(_segment(run, self._ctx))
        return plan

    def _monitor_inputs(self, step: Step) -> None:
        """MXNet's names: ``<node>_<input name>`` (``input<i>`` for backward steps and for
        one-input operators that MXNet registers without FListInputNames), and a variable's
        own name as well."""
        entries, monitor = self._graph.entries, self._monitor
        if step.kind == "forward":
            eids = step.inputs + step.aux
            labels = step.prop.list_arguments() + step.prop.list_auxiliary_states()
            if len(eids) == 1 and not step.prop.lists_input_names:
                labels = ["input0"]
        else:
            eids = step.reads()
            labels = [f"input{i}" for i in range(len(eids))]
        prefix = step.node.name if step.kind == "forward" else step.name
        for e, label in zip(eids, labels):
            if entries[e].kind in (ARG, AUX):
                monitor(entries[e].name, self._arrays[e])  # type: ignore[misc]
            monitor(f"{prefix}_{label}", self._arrays[e])  # type: ignore[misc]

    def _monitor_outputs(self, step: Step) -> None:
        """MXNet's names: a forward step's outputs under their entry names (``fc1_output``); a
        backward step's as ``<node>_backward_output<i>`` (``_output`` when the forward node has
        one input), one per forward input. A gradient nobody asked for is never computed here
        and is shown as zeros; MXNet shows whatever its buffer holds."""
        entries, monitor = self._graph.entries, self._monitor
        if step.kind != "backward":
            for e in step.writes():
                monitor(entries[e].name, self._arrays[e])  # type: ignore[misc]
            return
        single = len(step.outputs) == 1
        for i, (e, fe) in enumerate(zip(step.outputs, step.inputs)):
            label = "output" if single else f"output{i}"
            if e >= 0:
                arr = self._arrays[e]
            else:
                info = entries[fe]
                arr = array_from_numpy(np.zeros(info.shape, info.dtype), self._ctx)
            monitor(f"{step.name}_{label}", arr)  # type: ignore[misc]

    def _make_opr(self, step: Step, is_train: bool, arrays: list[Any] | None = None) -> Any:
        """One synchronous :class:`Opr` for ``step`` over ``arrays`` (default: the executor's),
        or ``(callable,)`` for a step that runs on the caller."""
        ctx, plan = self._ctx, self._plan
        if arrays is None:
            arrays = self._arrays

        def raw(e: int) -> Any:
            return arrays[e]._data if e >= 0 else None  # type: ignore[union-attr]

        inplace = plan.inplace
        if arrays is not self._arrays:  # an input moved off its block is no in-place partner
            chunks = {arrays[e]._chunk for e in step.inputs}  # type: ignore[union-attr]
            inplace = {e for e in step.writes() if e in inplace and arrays[e]._chunk in chunks}
        req = [
            OpReq.INPLACE if r == OpReq.WRITE and e in inplace else r
            for e, r in zip(step.outputs, step.req)
        ]
        writes = [arrays[e]._chunk.var for e in step.writes()]  # type: ignore[union-attr]
        reads = [arrays[e]._chunk.var for e in step.reads()]  # type: ignore[union-attr]
        inline = small_enough_inline(ctx, [raw(e) for e in (*step.reads(), *step.writes())])
        name = step.name
        if step.kind == "zeros":
            out = raw(step.outputs[0])

            def fill(rctx: Any) -> None:
                out[...] = 0

            return Opr(fill, (), tuple(writes), name, False, False, inline)
        if step.kind == "accumulate":
            src, dst = raw(step.inputs[0]), raw(step.outputs[0])

            def accumulate(rctx: Any) -> None:
                dst[...] += src

            return Opr(accumulate, tuple(reads), tuple(writes), name, False, False, inline)
        prop = step.prop
        aux = [raw(e) for e in step.aux]
        writes += [arrays[e]._chunk.var for e in step.aux]  # type: ignore[union-attr]
        if prop.runs_on_caller:
            return (self._caller_fn(step, req, is_train),)
        if step.kind == "forward":
            shapes = [self._graph.entries[e].shape for e in step.inputs]
            resources = _resources(ctx, prop.forward_resource(shapes))
        else:
            shapes = [self._graph.entries[e].shape for e in step.outputs if e >= 0]
            resources = _resources(ctx, prop.backward_resource(shapes))
        writes += [r.var for r in resources]
        entries = self._graph.entries
        op = prop.operator_for(
            ctx, [entries[e].dtype for e in (*step.reads(), *step.writes(), *step.aux)]
        )
        if step.kind == "forward":
            fwd = op.forward
            ins = [raw(e) for e in step.inputs]
            outs = [raw(e) for e in step.outputs]
            in_vars = [arrays[e]._chunk.var for e in step.inputs]  # type: ignore[union-attr]

            def run_forward(rctx: Any) -> None:
                fwd(OpContext(is_train, rctx, resources, in_vars), ins, req, outs, aux)

            return Opr(run_forward, tuple(reads), tuple(writes), name, False, False, inline)
        bwd = op.backward
        og = [raw(e) for e in step.out_grad]
        ind = [raw(e) for e in step.in_data]
        outd = [raw(e) for e in step.out_data]
        igd = [raw(e) for e in step.outputs]

        def run_backward(rctx: Any) -> None:
            bwd(OpContext(is_train, rctx, resources), og, ind, outd, req, igd, aux)

        return Opr(run_backward, tuple(reads), tuple(writes), name, False, False, inline)

    def _caller_fn(self, step: Step, req: list[OpReq], is_train: bool) -> Callable[[], None]:
        arrays, prop = self._arrays, step.prop
        aux = [arrays[e] for e in step.aux]
        if step.kind == "forward":
            ins = [arrays[e] for e in step.inputs]
            outs = [arrays[e] for e in step.outputs]
            return lambda: prop.forward_ndarray(is_train, req, ins, outs, aux)
        og = [arrays[e] if e >= 0 else None for e in step.out_grad]
        ind = [arrays[e] if e >= 0 else None for e in step.in_data]
        outd = [arrays[e] if e >= 0 else None for e in step.out_data]
        igd = []
        for e, fe in zip(step.outputs, step.inputs):
            info = self._graph.entries[fe]  # an unwanted gradient still needs a place
            igd.append(arrays[e] if e >= 0 else _new(info.shape, info.dtype, self._ctx))
        return lambda: prop.backward_ndarray(req, og, ind, outd, igd, aux)

    # ---- parameters, reshape, monitor, debug -------------------------------------------------

    def copy_params_from(
        self,
        arg_params: dict[str, NDArray],
        aux_params: dict[str, NDArray] | None = None,
        allow_extra_params: bool = False,
    ) -> None:
        """Copy parameters from ``arg_params`` (and ``aux_params``) into the bound arrays.

        Parameters
        ----------
        arg_params : dict of str to NDArray
            Argument values by name.
        aux_params : dict of str to NDArray, optional
            Auxiliary state values by name.
        allow_extra_params : bool, optional
            Ignore names the symbol does not have instead of raising; default False.
        """
        for name, value in arg_params.items():
            if name in self.arg_dict:
                _copy_into(name, value, self.arg_dict[name])
            elif not allow_extra_params:
                raise ValueError(f'Find name "{name}" that is not in the arguments')
        for name, value in (aux_params or {}).items():
            if name in self.aux_dict:
                _copy_into(name, value, self.aux_dict[name])
            elif not allow_extra_params:
                raise ValueError(f'Find name "{name}" that is not in the auxiliary states')

    def reshape(
        self, partial_shaping: bool = False, allow_up_sizing: bool = False, **kwargs: Any
    ) -> Executor:
        """A new executor for new input shapes, sharing arrays and memory with this one.

        Parameters
        ----------
        partial_shaping : bool, optional
            Allow arguments not named in ``kwargs`` to change shape; default False.
        allow_up_sizing : bool, optional
            Allow arrays to grow (new memory is allocated for them); default False.
        **kwargs
            New shapes of some inputs, by name.
        """
        if _RESHAPER is None:
            raise MXNetError("Executor.reshape: import mxlite.executor first.")
        new = _RESHAPER(self, partial_shaping, allow_up_sizing, kwargs)
        if self._monitor is not None:  # MXNet rebinds the monitor to the new executor
            new.set_monitor_callback(self._monitor_user, self._monitor_all)
        return new

    def set_monitor_callback(
        self, callback: Callable[[bytes, int], None], monitor_all: bool = False
    ) -> None:
        """Call ``callback(name, handle)`` for every output of every step as it is pushed
        (with ``monitor_all``, for its inputs too). As in MXNet, ``name`` is bytes and
        ``handle`` an ``NDArrayHandle`` value: ``NDArray(handle)`` is the array."""
        self._monitor_user = callback
        self._monitor_all = bool(monitor_all)
        # MXNet's C API calls back with the name as bytes and an NDArrayHandle (an int)
        self._monitor = lambda name, arr: callback(name.encode(), handle_of(arr))

    def get_optimized_symbol(self) -> Any:
        """The symbol of the graph this executor runs, after bind's graph passes (such as
        common subexpression elimination); a copy, so changing it changes nothing here."""
        from ..symbol.compose import copy_graph
        from ..symbol.symbol import Symbol

        outputs = self._optimized if self._optimized is not None else self._symbol._entries
        return Symbol(copy_graph(outputs))

    def debug_str(self) -> str:
        """MXNet's ``debug_str``: outputs, each step with its inputs and planned storage, then
        the total planned (MXNet's line, in MB, and the exact bytes)."""
        g, plan = self._graph, self._plan
        lines = ["Symbol Outputs:"]
        lines += [f"\toutput[{i}]={g.entries[e].name}" for i, e in enumerate(g.output_eids)]
        for eid in g.arg_eids + g.aux_eids:
            lines.append(f"Variable:{g.entries[eid].name}")
        steps = g.forward + (g.backward if g.backward else [])
        for s in steps:
            lines.append("-" * 20)
            op = s.prop.op_name if s.prop is not None else f"_{s.kind}"
            if s.kind == "backward":
                op = f"_backward_{op}"
            lines.append(f"Op:{op}, Name={s.name}")
            lines.append("Inputs:")
            for i, e in enumerate(s.reads()):
                lines.append(f"\targ[{i}]={g.entries[e].name}")
            if s.node is not None and s.node.params():
                lines.append("Attrs:")
                lines += [f"\t{k}={v}" for k, v in s.node.params().items()]
            lines.append("Storage:")
            for i, e in enumerate(s.outputs):
                if e < 0:
                    lines.append(f"\tout[{i}]=none")
                    continue
                info, bid = g.entries[e], plan.storage[e]
                where = f"block {bid}" if bid >= 0 else info.kind
                extra = " (in place)" if e in plan.inplace else ""
                lines.append(
                    f"\tout[{i}]={info.name} {info.shape} {info.dtype.name} {info.nbytes} bytes "
                    f"in {where}{extra}"
                )
        total = plan.total_bytes
        naive = sum(e.nbytes for e in g.entries if e.kind == INTERNAL)
        lines.append(f"Total {total >> 20} MB allocated")
        lines.append(
            f"Total {total} bytes in {len(plan.block_bytes)} blocks (naive plan: {naive} bytes)"
        )
        return "\n".join(lines) + "\n"


# How ``Executor.reshape`` builds the new executor: ``bind.py``, which creates executors and so
# sits above this module, registers it (``set_reshaper``) rather than be imported back.
_RESHAPER: Callable[..., Executor] | None = None


def set_reshaper(reshaper: Callable[..., Executor]) -> None:
    """Register ``reshaper(exe, partial_shaping, allow_up_sizing, shapes)`` for ``reshape``."""
    global _RESHAPER
    _RESHAPER = reshaper


def _segment(oprs: list[Opr], ctx: Context) -> Opr:
    """One engine operator running ``oprs`` in order (its vars: the union of theirs, a var
    both read and written counted as written)."""
    seg = Segment(ctx)
    for opr in oprs:
        seg.add(opr)
    return seg.to_opr()


def _make_blocks(sizes: list[int], ctx: Context, shared: list[NDArray]) -> list[NDArray]:
    """One uint8 NDArray per block; blocks of a shared executor are reused where big enough."""
    pool = sorted(((b.shape[0], i) for i, b in enumerate(shared) if b.context == ctx))
    used: set[int] = set()
    blocks = []
    for nbytes in sizes:
        pick = next((i for n, i in pool if n >= nbytes and i not in used), None)
        if pick is not None:
            used.add(pick)
            blocks.append(shared[pick])
        else:
            blocks.append(_new((max(nbytes, 1),), np.uint8, ctx))
    return blocks


def _resources(ctx: Context, requests: list[Any]) -> list[Any]:
    if not requests:
        return []
    from ..resource import request

    return [request(ctx, r) for r in requests]


def _copy_into(name: str, value: Any, dst: NDArray) -> None:
    if isinstance(value, NDArray):
        if value.shape != dst.shape:
            raise MXNetError(
                f"Executor: shape of {name!r} does not match; need {dst.shape}, "
                f"received {value.shape}."
            )
        value.copyto(dst)
    elif isinstance(value, np.ndarray):
        if value.shape != dst.shape:
            raise MXNetError(
                f"Executor: shape of {name!r} does not match; need {dst.shape}, "
                f"received {value.shape}."
            )
        array_from_numpy(value, dst.context, dst.dtype).copyto(dst)
    else:
        raise MXNetError(
            f"Executor: {name!r} must be an NDArray or a numpy.ndarray, got {type(value).__name__}."
        )
