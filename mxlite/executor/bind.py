"""``Symbol.bind`` and ``Symbol.simple_bind``: inference, the gradient graph, the memory plan.

Both end in :func:`_make_executor`: merge common subexpressions (unless
``MXNET_ELIMINATE_COMMON_EXPR=0``), infer every shape and dtype from the arrays (bind) or the
given shapes and ``type_dict`` (simple_bind), build the :class:`~.gradient.ExecGraph`, plan
its memory and make the :class:`~.executor.Executor`. ``group2ctx`` is accepted and every
node runs on ``ctx`` (model parallelism across devices is not implemented).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import DTypeError, MXNetError, env_bool
from ..context import Context
from ..ndarray.ndarray import NDArray, _new
from ..operator.req import OpReq, parse_req
from ..symbol.graph import Entry, Node, aux_positions, topo_order
from ..util import is_np_shape
from .cse import eliminate_common_expr
from .executor import Executor, set_reshaper
from .gradient import build_graph
from .plan_memory import plan_memory

__all__ = ["bind", "simple_bind", "graph_names"]


def _entries(symbol: Any) -> list[Entry]:
    if isinstance(symbol, list):
        return symbol
    return symbol._entries


def graph_names(outputs: list[Entry]) -> tuple[list[Node], list[Node], list[str]]:
    """Argument variables, auxiliary variables (each in topological order) and output names,
    as ``list_arguments``, ``list_auxiliary_states`` and ``list_outputs`` give them."""
    order = topo_order(outputs)
    aux_ids: set[int] = set()
    for node in order:
        if node.op is not None:
            aux_ids.update(id(node.inputs[j][0]) for j in aux_positions(node))
    variables = [n for n in order if n.op is None]
    args = [n for n in variables if id(n) not in aux_ids]
    aux = [n for n in variables if id(n) in aux_ids]
    names = []
    for node, i in outputs:
        if node.op is None:
            names.append(node.name)
        else:
            names.append(f"{node.name}_{node.prop().list_outputs()[i]}")
    return args, aux, names


def _grad_reqs(grad_req: Any, arg_names: list[str]) -> dict[str, OpReq]:
    if isinstance(grad_req, (str, OpReq)):
        r = parse_req(grad_req, "bind: argument 'grad_req'")
        return dict.fromkeys(arg_names, r)
    if isinstance(grad_req, (list, tuple)):
        if len(grad_req) != len(arg_names):
            raise MXNetError(
                f"bind: argument 'grad_req' has {len(grad_req)} entries; the symbol has "
                f"{len(arg_names)} arguments."
            )
        return {n: parse_req(r, "bind: argument 'grad_req'") for n, r in zip(arg_names, grad_req)}
    if isinstance(grad_req, dict):
        return {
            n: parse_req(grad_req.get(n, "null"), "bind: argument 'grad_req'") for n in arg_names
        }
    raise MXNetError(
        f"bind: argument 'grad_req' must be a str, list or dict, got {type(grad_req).__name__}."
    )


def _arrays(what: str, value: Any, names: list[str], required: bool) -> list[NDArray | None]:
    if value is None:
        if required and names:
            raise MXNetError(f"bind: argument {what!r} is required for {names}.")
        return [None] * len(names)
    if isinstance(value, dict):
        missing = [n for n in names if n not in value]
        if required and missing:
            raise MXNetError(f"bind: argument {what!r} lacks {missing}.")
        out = [value.get(n) for n in names]
    elif isinstance(value, (list, tuple)):
        if len(value) != len(names):
            raise MXNetError(
                f"bind: argument {what!r} has {len(value)} arrays; expected {len(names)} "
                f"for {names}."
            )
        out = list(value)
    else:
        raise MXNetError(
            f"bind: argument {what!r} must be a list or dict of NDArray, got "
            f"{type(value).__name__}."
        )
    for n, a in zip(names, out):
        if a is not None and not isinstance(a, NDArray):
            raise MXNetError(
                f"bind: argument {what!r}: {n!r} must be an NDArray, got {type(a).__name__}."
            )
    return out


def bind(
    symbol: Any,
    ctx: Context,
    args: Any,
    args_grad: Any = None,
    grad_req: Any = "write",
    aux_states: Any = None,
    group2ctx: dict | None = None,
    shared_exec: Executor | None = None,
) -> Executor:
    """Bind ``symbol`` to the given arrays on ``ctx`` (``Symbol.bind``).

    Parameters
    ----------
    ctx : Context
        The context to run on.
    args : list or dict of NDArray
        The arguments, in ``list_arguments()`` order or by name.
    args_grad : list or dict of NDArray, optional
        Where the gradients go; arguments without one get no gradient.
    grad_req : {'write', 'add', 'null'}, list or dict, optional
        How gradients are written; default 'write'.
    aux_states : list or dict of NDArray, optional
        The auxiliary states.
    group2ctx : dict of str to Context, optional
        Accepted; every node runs on ``ctx``.
    shared_exec : Executor, optional
        An executor whose memory blocks this one may reuse (they must not run at once).
    """
    outputs = _entries(symbol)
    arg_nodes, aux_nodes, out_names = graph_names(outputs)
    arg_names = [n.name for n in arg_nodes]
    aux_names = [n.name for n in aux_nodes]
    arg_arrays = _arrays("args", args, arg_names, True)
    aux_arrays = _arrays("aux_states", aux_states, aux_names, True)
    grad_arrays = _arrays("args_grad", args_grad, arg_names, False)
    reqs = _grad_reqs(grad_req, arg_names)
    for n, g in zip(arg_names, grad_arrays):
        if g is None:
            reqs[n] = OpReq.NULL
    shapes = {id(n): a.shape for n, a in zip(arg_nodes + aux_nodes, arg_arrays + aux_arrays)}
    dtypes = {id(n): a.dtype for n, a in zip(arg_nodes + aux_nodes, arg_arrays + aux_arrays)}
    return _make_executor(
        symbol, ctx, outputs, shapes, dtypes, (arg_names, aux_names, out_names), reqs,
        arg_arrays, grad_arrays, aux_arrays, shared_exec, group2ctx,
    )  # fmt: skip


def simple_bind(
    symbol: Any,
    ctx: Context,
    grad_req: Any = "write",
    type_dict: dict | None = None,
    stype_dict: dict | None = None,
    group2ctx: dict | None = None,
    shared_arg_names: list[str] | None = None,
    shared_exec: Executor | None = None,
    shared_buffer: dict | None = None,
    **kwargs: Any,
) -> Executor:
    """Bind ``symbol`` allocating every array from the input shapes (``Symbol.simple_bind``).

    Parameters
    ----------
    ctx : Context
        The context to run on.
    grad_req : {'write', 'add', 'null'}, list or dict, optional
        How gradients are written; default 'write'.
    type_dict : dict of str to dtype, optional
        Input dtypes. Without it, every argument is float32 unless its ``__dtype__`` says
        otherwise; with it, the dtypes of the inputs it does not name are inferred from the
        graph, and an input whose dtype stays unknown is an error, as in MXNet.
    stype_dict : dict of str to str, optional
        Storage types of arguments by name ('default', 'row_sparse' or 'csr').
    group2ctx : dict of str to Context, optional
        Accepted; every node runs on ``ctx``.
    shared_arg_names : list of str, optional
        Arguments whose arrays (and gradients) are taken from ``shared_exec``.
    shared_exec : Executor, optional
        The executor to share arguments and memory blocks with.
    shared_buffer : dict of str to NDArray, optional
        Arrays reused for arguments of the same name when big enough; new ones are added.
    **kwargs
        Input shapes by name, as tuples; other values and names that are not inputs are
        ignored, as in MXNet.
    """
    outputs = _entries(symbol)
    arg_nodes, aux_nodes, out_names = graph_names(outputs)
    arg_names = [n.name for n in arg_nodes]
    aux_names = [n.name for n in aux_nodes]
    by_name = {n.name: n for n in arg_nodes + aux_nodes}
    shapes: dict[int, Any] = {}
    for name, shape in kwargs.items():
        # As MXNet 1.9.1: only tuples are shapes, and names that are no input are ignored
        # (``simple_bind(ctx, a=(2, 3), axis=1)`` works); lists are taken too.
        if name in by_name and isinstance(shape, (tuple, list)):
            shapes[id(by_name[name])] = tuple(shape)
    stypes: dict[int, str] = {}
    for name, st in (stype_dict or {}).items():
        if st not in ("default", "row_sparse", "csr"):
            raise MXNetError(
                f"simple_bind: stype {st!r} of {name!r}: expected 'default', 'row_sparse' or 'csr'."
            )
        if name in by_name:
            stypes[id(by_name[name])] = st
    # As MXNet: without type_dict every argument lacking a __dtype__ attribute is float32;
    # with it, only the inputs it names are known and inference gives the rest (float64 data
    # makes float64 weights; BatchNorm keeps float32 statistics for float16 data).
    dtypes: dict[int, Any] = {}
    for node in arg_nodes + aux_nodes:
        if type_dict is not None:
            if node.name in type_dict:
                dtypes[id(node)] = np.dtype(type_dict[node.name])
        elif "__dtype__" not in node.attrs and node in arg_nodes:
            dtypes[id(node)] = np.dtype(np.float32)
    reqs = _grad_reqs(grad_req, arg_names)
    return _make_executor(
        symbol, ctx, outputs, shapes, dtypes, (arg_names, aux_names, out_names), reqs,
        None, None, None, shared_exec, group2ctx,
        shared=(set(shared_arg_names or ()), shared_buffer), stypes=stypes,
    )  # fmt: skip


def _make_executor(
    symbol: Any,
    ctx: Context,
    outputs: list[Entry],
    known_shapes: dict[int, Any],
    known_dtypes: dict[int, Any],
    names: tuple[list[str], list[str], list[str]],
    reqs: dict[str, OpReq],
    arg_arrays: list | None,
    grad_arrays: list | None,
    aux_arrays: list | None,
    shared_exec: Executor | None,
    group2ctx: dict | None,
    shared: tuple[set[str], dict | None] | None = None,
    stypes: dict[int, str] | None = None,
) -> Executor:
    from ..symbol.infer import infer_shapes, infer_types

    if not isinstance(ctx, Context):
        raise MXNetError(f"bind: argument 'ctx' must be a Context, got {type(ctx).__name__}.")
    arg_names, aux_names, out_names = names
    if env_bool("MXNET_ELIMINATE_COMMON_EXPR", True):
        outputs = eliminate_common_expr(outputs)
    shapes = infer_shapes(outputs, known_shapes)
    dtypes = infer_types(outputs, known_dtypes)
    arg_nodes, aux_nodes, _ = graph_names(outputs)
    undecided = [n.name for n in arg_nodes + aux_nodes if dtypes.get((id(n), 0)) is None]
    if undecided:
        raise DTypeError(
            f"bind: the InferType pass cannot decide the dtypes of {undecided}; give them in "
            f"type_dict (or as __dtype__ attributes)."
        )
    missing = [
        n.name
        for n in arg_nodes + aux_nodes
        if shapes.get((id(n), 0)) is None or (0 in shapes[(id(n), 0)] and not is_np_shape())
    ]
    if missing:
        given = {n.name: shapes.get((id(n), 0)) for n in arg_nodes + aux_nodes}
        raise MXNetError(
            f"bind: cannot infer the shapes of {missing}; give them (the shapes known are {given})."
        )
    graph = build_graph(outputs, shapes, dtypes, arg_names, aux_names, reqs, out_names)
    allocated = arg_arrays is None
    if allocated:  # simple_bind: allocate (or share) every external array
        # variables tagged with a ctx_group (AttrScope(ctx_group=...)) live on group2ctx[group]
        placed = {
            n.name: group2ctx[n.attrs["__ctx_group__"]]
            for n in arg_nodes + aux_nodes
            if group2ctx and n.attrs.get("__ctx_group__") in group2ctx
        }
        arg_arrays, grad_arrays, aux_arrays = _allocate(
            graph, ctx, arg_names, aux_names, reqs, shared_exec, shared, placed
        )
    else:
        _check_arrays(graph, arg_names, arg_arrays, "args")
        _check_arrays(graph, aux_names, aux_arrays, "aux_states", aux=True)
        # a gradient array given for an argument without gradient ('null') stays in
        # grad_arrays and grad_dict untouched, as in MXNet
        for name, g, e in zip(arg_names, grad_arrays, graph.arg_eids):
            if g is not None and g.shape != graph.entries[e].shape:
                raise MXNetError(
                    f"bind: argument 'args_grad': {name!r} has shape {g.shape}; the argument "
                    f"has shape {graph.entries[e].shape}."
                )
    plan = plan_memory(graph, with_backward=bool(graph.backward))
    shared_blocks = shared_exec._blocks if shared_exec is not None else None
    req_names = {n: r.name.lower() for n, r in reqs.items()}
    boundary, arg_arrays, grad_arrays, aux_arrays, user_args, user_grads = _storage(
        outputs, arg_nodes, aux_nodes, arg_arrays, grad_arrays, aux_arrays, req_names, stypes,
        allocated,
    )  # fmt: skip
    exe = Executor(
        symbol, ctx, graph, plan, arg_names, aux_names, arg_arrays, grad_arrays, aux_arrays,
        req_names, shared_blocks, group2ctx,
    )  # fmt: skip
    exe._optimized = outputs
    if boundary is not None:
        exe._attach_boundary(boundary, user_args, user_grads)
    return exe


def _storage(
    outputs, arg_nodes, aux_nodes, arg_arrays, grad_arrays, aux_arrays, reqs, given, allocated
):
    """Sparse arrays at the executor's edges (executor/sparse.py); dense graphs get None.
    Arrays the user bound keep their storage types; simple_bind makes the arguments and
    gradients sparse where ``stype_dict``, the variables and the operators say."""
    from .sparse import split_arrays, storage_plan

    known = dict(given or {})
    if not allocated:
        for n, a in zip(arg_nodes + aux_nodes, list(arg_arrays) + list(aux_arrays)):
            known[id(n)] = a.stype
    plan = storage_plan(outputs, arg_nodes, aux_nodes, known)
    names = [n.name for n in arg_nodes]
    b, dargs, dgrads, daux, uargs, ugrads = split_arrays(
        arg_arrays, grad_arrays, aux_arrays, plan if allocated else None, reqs, names
    )
    if plan is not None and b is None:
        from .sparse import StorageBoundary

        b = StorageBoundary()
    if b is not None:
        from .sparse import grad_row_keys

        b.out_stypes = plan[1] if plan is not None else []
        b.user_args = uargs
        if b.grads:
            b.row_keys = grad_row_keys(outputs, arg_nodes, known)
    return b, dargs, dgrads, daux, uargs, ugrads


def _check_arrays(graph: Any, names: list[str], arrays: list, what: str, aux: bool = False):
    eids = graph.aux_eids if aux else graph.arg_eids
    for name, arr, eid in zip(names, arrays, eids):
        want = graph.entries[eid].shape
        if arr.shape != want:
            raise MXNetError(
                f"bind: argument {what!r}: {name!r} has shape {arr.shape}; the symbol needs {want}."
            )


def _allocate(graph, default_ctx, arg_names, aux_names, reqs, shared_exec, shared, placed):
    shared_names, buffer = shared if shared is not None else (set(), None)
    args, grads, aux = [], [], []
    for name, eid, geid in zip(arg_names, graph.arg_eids, graph.grad_eids):
        ctx = placed.get(name, default_ctx)
        e = graph.entries[eid]
        arr = None
        if shared_exec is not None and name in shared_names:
            arr = shared_exec.arg_dict.get(name)
            if arr is not None and (arr.shape != e.shape or arr.dtype != e.dtype):
                raise MXNetError(
                    f"simple_bind: shared argument {name!r} has shape {arr.shape}; this "
                    f"executor needs {e.shape}."
                )
        if arr is None and buffer is not None:
            arr = _from_buffer(buffer, name, e.shape, e.dtype, ctx)
        if arr is None:
            arr = _zeros(e.shape, e.dtype, ctx)
        grad = None
        if geid >= 0:
            if shared_exec is not None and name in shared_names:
                grad = shared_exec.grad_dict.get(name)
            if grad is None:
                grad = _zeros(e.shape, e.dtype, ctx)
        args.append(arr)
        grads.append(grad)
    for eid in graph.aux_eids:
        e = graph.entries[eid]
        name = e.name
        ctx = placed.get(name, default_ctx)
        arr = shared_exec.aux_dict.get(name) if shared_exec is not None else None
        if arr is None or arr.shape != e.shape:
            arr = _zeros(e.shape, e.dtype, ctx)
        aux.append(arr)
    return args, grads, aux


def _from_buffer(buffer: dict, name: str, shape, dtype, ctx) -> NDArray:
    old = buffer.get(name)
    size = int(np.prod(shape))
    if old is not None and old.size >= size and old.dtype == dtype and old.context == ctx:
        if old.shape == tuple(shape):
            return old
        return old.reshape((-1,))[:size].reshape(shape)
    arr = _zeros(shape, dtype, ctx)
    buffer[name] = arr
    return arr


def _zeros(shape, dtype, ctx) -> NDArray:
    arr = _new(shape, dtype, ctx)
    arr._data[...] = 0  # a fresh chunk: nothing pending on it
    return arr


def reshape_executor(
    exe: Executor, partial_shaping: bool, allow_up_sizing: bool, kwargs: dict
) -> Executor:
    """``Executor.reshape``: see there."""
    outputs = _entries(exe._symbol)
    arg_nodes, aux_nodes, names = graph_names(outputs)
    from ..symbol.infer import infer_shapes

    by_name = {n.name: n for n in arg_nodes}
    known = {id(by_name[k]): tuple(v) for k, v in kwargs.items() if k in by_name}
    shapes = infer_shapes(outputs, known)

    def fit(name: str, old: NDArray | None, new_shape, given: bool) -> NDArray | None:
        if old is None:
            return None
        new_shape = tuple(new_shape)
        if new_shape == old.shape:
            return old
        if not (partial_shaping or given):
            raise MXNetError(
                f"Executor.reshape: shape of unspecified array {name!r} changed from "
                f"{old.shape} to {new_shape}; pass partial_shaping=True to allow it."
            )
        size = int(np.prod(new_shape))
        if size > old.size:
            if not allow_up_sizing:
                raise MXNetError(
                    f"Executor.reshape: new shape of {name!r} {new_shape} is larger than the "
                    f"original {old.shape}; pass allow_up_sizing=True to allocate new memory."
                )
            return _zeros(new_shape, old.dtype, old.context)
        return old.reshape((-1,))[:size].reshape(new_shape)

    args, grads, aux = [], [], []
    for node, a, g in zip(arg_nodes, exe.arg_arrays, exe.grad_arrays):
        s = shapes[(id(node), 0)]
        args.append(fit(node.name, a, s, node.name in kwargs))
        grads.append(fit(node.name, g, s, node.name in kwargs))
    for node, a in zip(aux_nodes, exe.aux_arrays):
        aux.append(fit(node.name, a, shapes[(id(node), 0)], False))
    reqs = dict(exe._grad_req)
    return bind(exe._symbol, exe._ctx, args, grads, reqs, aux, exe._group2ctx, exe)


set_reshaper(reshape_executor)
