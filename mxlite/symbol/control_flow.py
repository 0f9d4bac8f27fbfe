"""``mx.sym.contrib.foreach``, ``while_loop`` and ``cond``: build control-flow nodes that hold
their bodies as graphs (MXNet 1.9.1's ``_foreach``, ``_while_loop``, ``_cond``).

A body is traced once: it is called on new variables inside ``AttrScope(__subgraph_name__=
<unique name>)``, so every node it creates is marked as belonging to it. The body graph is
then *cut*: each input of a marked node that comes from outside (an outer variable, or an
outer operator's output) is replaced by a new variable named after that entry, and the outer
entry becomes an input of the control-flow node. The ``*_locs`` parameters record which node
input feeds which body input (the body's variables in graph order), exactly as MXNet does, so
the JSON of these graphs goes both ways between mxlite and MXNet.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..attribute import AttrScope
from ..base import MXNetError, flatten_nested, regroup_nested
from ..name import NameManager
from ..ndarray.control_flow import COND_DOC, FOREACH_DOC, WHILE_LOOP_DOC
from .graph import Entry, Node, entry_name, topo_order
from .symbol import Symbol, var

__all__ = ["foreach", "while_loop", "cond"]

_SUBG = "__subgraph_name__"


class UnusedInputError(MXNetError, AssertionError):
    """A loop's data or state is not used by its body (MXNet raises AssertionError here)."""


_DOC = {
    "a": "a Symbol",
    "kind": "Symbol",
    "traced": "\n    The body is traced once into a subgraph; the loop runs when the graph"
    " executes.\n",
    "name": "\n    name: string.\n        The name of the operator.",
}


def _symbol_format(x: Any) -> int | None:
    if not isinstance(x, Symbol):
        return None
    n = len(x.list_outputs())
    return n if n > 1 else 0


def _flatten(args: Any, what: str) -> tuple[list[Symbol], Any]:
    """Flatten nested lists of symbols; the format says how to rebuild them (MXNet's)."""

    def bad(item: Any) -> Exception:
        return MXNetError(
            f"{what} must be (nested) list of Symbol, but got {item!r} of type "
            f"{type(item).__name__}"
        )

    return flatten_nested(args, _symbol_format, bad)


def _entry(sym: Symbol) -> Entry:
    if len(sym._entries) != 1:
        raise MXNetError(f"control flow: expected a symbol with one output, got {sym}.")
    return sym._entries[0]


def _uniq_name(sym: Symbol) -> str:
    node, index = _entry(sym)
    return f"{node.name}-{index}"


def _unique_subgraph_name(name: str) -> str:
    outer = AttrScope.current.get(None).get(_SUBG, "")
    if outer:
        name = f"{outer}${name}"
    counts = AttrScope._subgraph_names
    counts[name] += 1
    return f"{name}{counts[name] - 1}"


def _identity(sym: Symbol) -> Symbol:
    from . import op

    return op.identity(sym)


def _construct_subgraph(outputs: list[Symbol], states: list[Symbol], name: str) -> list[Entry]:
    """The body's output entries, each made a node of the body (an identity where the output
    is an input or was made outside)."""
    every = Symbol([_entry(s) for s in outputs + states])
    input_names = set(every.list_inputs())
    out_names = {s.name for s in outputs}
    flat = []
    for s in outputs:
        outside = s.list_attr().get(_SUBG, "") != name
        flat.append(_identity(s) if s.name in input_names or outside else s)
    for s in states:
        outside = s.list_attr().get(_SUBG, "") != name
        redo = s.name in input_names or s.name in out_names or outside
        flat.append(_identity(s) if redo else s)
    return [_entry(s) for s in flat]


def _cut(entries: list[Entry], name: str) -> tuple[list[Entry], dict[str, Entry]]:
    """Copy the nodes marked ``name`` with every input from outside replaced by a new variable
    (one per outer entry, named after it); return the new outputs and ``name -> outer
    entry``."""
    mapping: dict[int, Node] = {}
    cut_vars: dict[tuple[int, int], Node] = {}
    cut_map: dict[str, Entry] = {}

    def inside(node: Node) -> bool:
        return node.attrs.get(_SUBG) == name

    for node in topo_order(entries):
        if not inside(node):
            continue
        inputs = []
        for src, i in node.inputs:
            if inside(src):
                inputs.append((mapping[id(src)], i))
                continue
            key = (id(src), i)
            if key not in cut_vars:
                vname = entry_name((src, i))
                cut_vars[key] = Node(None, vname)
                cut_map[vname] = (src, i)
            inputs.append((cut_vars[key], 0))
        mapping[id(node)] = (
            node
            if node.is_variable()
            else Node(node.op, node.name, node.attrs, inputs, node.subgraphs)  # fmt: skip
        )
    return [(mapping[id(n)], i) for n, i in entries], cut_map


def _inputs(entries: list[Entry]) -> list[Node]:
    return [n for n in topo_order(entries) if n.is_variable()]


def _make_node(op: str, hint: str, attrs: dict[str, str], inputs: list[Entry],
               graphs: list[list[Entry]]) -> Node:  # fmt: skip
    full = AttrScope.current.get(None)
    full.update(attrs)
    node = Node(op, NameManager.current.get(None, hint), full, inputs, graphs)
    node.prop()  # check the parameters and the bodies now, at the call that made them
    return node


def _fresh(node: Node) -> Entry:
    """A new variable like ``node`` (MXNet deep-copies the free variables of a body)."""
    return (Node(None, node.name, dict(node.attrs)), 0)


def _check(items: list, what: str) -> None:
    if not all(isinstance(s, Symbol) for s in items):
        raise MXNetError(f"{what} should be a symbol or a nested list of symbols")


def foreach(
    body: Callable[..., Any], data: Any, init_states: Any, name: str = "foreach"
) -> tuple[Any, Any]:
    flat_data, data_fmt = _flatten(data, "foreach input")
    _check(flat_data, "data")
    flat_states, state_fmt = _flatten(init_states, "foreach states")
    _check(flat_states, "init_states")
    name = _unique_subgraph_name(name)
    with AttrScope(**{_SUBG: name}):
        in_eles, _ = regroup_nested([var(_uniq_name(s)) for s in flat_data], data_fmt)
        states, _ = regroup_nested([var(_uniq_name(s)) for s in flat_states], state_fmt)
        sym_out, sym_states = body(in_eles, states)
        sym_out, out_fmt = _flatten(sym_out, "foreach output")
        sym_states, new_state_fmt = _flatten(sym_states, "foreach loop_vars")
        if new_state_fmt != state_fmt:
            raise MXNetError("The input and output loop_vars have different format")
        _check(sym_out, "the output")
        _check(sym_states, "the output states")
        entries = _construct_subgraph(sym_out, sym_states, name)
    num_out_data, num_states = len(sym_out), len(sym_states)
    sub, cut_map = _cut(entries, name)
    sub_inputs = _inputs(sub)
    names = [v.name for v in sub_inputs]
    if len(set(names)) != len(names):
        raise MXNetError(f"The inputs of the subgraph don't have unique names: {names}")
    data_names = [_uniq_name(s) for s in flat_data]
    state_names = [_uniq_name(s) for s in flat_states]
    ordered = [_entry(s) for s in flat_data] + [_entry(s) for s in flat_states]
    in_data_locs, in_state_locs, remain_locs = [], [], []
    for dname in data_names:
        if dname not in names:
            raise UnusedInputError("foreach: the data arrays have to be used in the loop body")
        in_data_locs.append(names.index(dname))
    for sname in state_names:
        if sname not in names:
            raise UnusedInputError("foreach: the state arrays have to be used in the loop body")
        in_state_locs.append(names.index(sname))
    for k, v in enumerate(sub_inputs):
        if v.name in cut_map:
            ordered.append(cut_map[v.name])
            remain_locs.append(k)
        elif v.name not in data_names and v.name not in state_names:
            ordered.append(_fresh(v))
            remain_locs.append(k)
    num_outputs = num_out_data + num_states
    attrs = {
        "num_args": str(len(ordered) + 1),
        "num_outputs": str(num_outputs),
        "num_out_data": str(num_out_data),
        "in_state_locs": str(in_state_locs),
        "in_data_locs": str(in_data_locs),
        "remain_locs": str(remain_locs),
    }
    node = _make_node("_foreach", "_foreach", attrs, ordered, [sub])
    outs, _ = regroup_nested([Symbol([(node, i)]) for i in range(num_out_data)], out_fmt)
    final = [Symbol([(node, num_out_data + i)]) for i in range(num_states)]
    final, _ = regroup_nested(final, state_fmt)
    return outs, final


foreach.__doc__ = FOREACH_DOC.format(**_DOC)


def _trace(graph_vars: list[Symbol], func: Callable, name: str, var_name: Callable) -> tuple:
    """Trace ``func`` on new variables for ``graph_vars`` in a new subgraph scope; return the
    body's entries, its subgraph name, the number of data outputs and their format."""
    name = _unique_subgraph_name(name)
    with AttrScope(**{_SUBG: name}):
        new_vars = [var(var_name(s)) for s in graph_vars]
        outputs, states, out_fmt = func(new_vars)
        entries = _construct_subgraph(outputs, states, name)
    return entries, name, len(outputs), out_fmt


def while_loop(
    cond: Callable[..., Any],
    func: Callable[..., Any],
    loop_vars: Any,
    max_iterations: int | None = None,
    name: str = "while_loop",
) -> tuple[Any, Any]:
    if max_iterations is None:
        raise ValueError("max_iterations should be specified")
    try:
        max_iterations = int(max_iterations)
    except (TypeError, ValueError):
        raise ValueError(
            f"Cannot convert max_iteration to python int: {max_iterations!r}"
        ) from None
    flat_vars, var_fmt = _flatten(loop_vars, "while loop_vars")
    _check(flat_vars, "loop_vars")
    if not flat_vars:
        raise ValueError("loop_vars should contain at least one element")

    def cond_body(new_vars: list) -> tuple:
        args, _ = regroup_nested(new_vars, var_fmt)
        result = cond(*args) if isinstance(var_fmt, list) else cond(args)
        if not isinstance(result, Symbol):
            raise ValueError("Return of cond must be a Symbol")
        return [], [result], None

    def func_body(new_vars: list) -> tuple:
        args, _ = regroup_nested(new_vars, var_fmt)
        step_output, new_loop_vars = func(*args) if isinstance(var_fmt, list) else func(args)
        step_output = [] if step_output is None else step_output
        new_loop_vars = [] if new_loop_vars is None else new_loop_vars
        step_output, out_fmt = _flatten(list(step_output) if isinstance(step_output, tuple)
                                        else step_output, "while output")  # fmt: skip
        new_loop_vars, _ = _flatten(list(new_loop_vars) if isinstance(new_loop_vars, tuple)
                                    else new_loop_vars, "while loop_vars")  # fmt: skip
        if len(new_loop_vars) != len(flat_vars):
            raise ValueError("The number of loop_vars should be consistent during the loop")
        return step_output, new_loop_vars, out_fmt

    cond_g, cond_name, n_cond_out, _ = _trace(flat_vars, cond_body, name + "_cond", _uniq_name)
    func_g, func_name, num_out_data, out_fmt = _trace(
        flat_vars, func_body, name + "_func", _uniq_name
    )
    var_names = {_uniq_name(s): j for j, s in enumerate(flat_vars)}
    inputs: list[Entry] = []
    slot_of: dict[Any, int] = {}

    def slot(key: Any, entry: Entry) -> int:
        if key not in slot_of:
            slot_of[key] = len(inputs)
            inputs.append(entry)
        return slot_of[key]

    graphs, all_locs, func_var_locs = [], [], [-1] * len(flat_vars)
    for g, gname, is_func in ((cond_g, cond_name, False), (func_g, func_name, True)):
        sub, cut_map = _cut(g, gname)
        locs = []
        for k, v in enumerate(_inputs(sub)):
            if v.name in var_names:
                j = var_names[v.name]
                locs.append(slot(("var", j), _entry(flat_vars[j])))
                if is_func:
                    func_var_locs[j] = k
            elif v.name in cut_map:
                locs.append(slot(("cut", gname, v.name), cut_map[v.name]))
            else:
                locs.append(slot(("free", gname, v.name), _fresh(v)))
        graphs.append(sub)
        all_locs.append(locs)
    for j, loc in enumerate(func_var_locs, 1):
        if loc == -1:
            raise ValueError(f"The {j}-th loop_var doesn't involve into the computation")
    num_outputs = num_out_data + len(flat_vars)
    attrs = {
        "cond_input_locs": str(all_locs[0]),
        "func_input_locs": str(all_locs[1]),
        "func_var_locs": str(func_var_locs),
        "max_iterations": str(max_iterations),
        "num_args": str(len(inputs) + 2),
        "num_out_data": str(num_out_data),
        "num_outputs": str(num_outputs),
    }
    node = _make_node("_while_loop", "_while_loop", attrs, inputs, graphs)
    outs, _ = regroup_nested([Symbol([(node, i)]) for i in range(num_out_data)], out_fmt)
    final = [Symbol([(node, num_out_data + i)]) for i in range(len(flat_vars))]
    final, _ = regroup_nested(final, var_fmt)
    return outs, final


while_loop.__doc__ = WHILE_LOOP_DOC.format(
    **_DOC, cond="``cond(*loop_vars) -> Symbol`` of one element"
)


def cond(
    pred: Symbol, then_func: Callable[[], Any], else_func: Callable[[], Any], name: str = "cond"
) -> Any:

    def branch(func: Callable) -> Callable:
        def body(_: list) -> tuple:
            outputs, fmt = _flatten(func(), "cond outputs")
            return outputs, [], fmt

        return body

    graphs, counts, fmts = [], [], []
    for func, suffix in ((lambda: pred, "_pred"), (then_func, "_then"), (else_func, "_else")):
        g, gname, n, fmt = _trace([], branch(func), name + suffix, _uniq_name)
        graphs.append((g, gname))
        counts.append(n)
        fmts.append(fmt)
    if counts[0] != 1:
        raise ValueError("pred should always be a single output")
    if counts[1] != counts[2]:
        raise ValueError("Number of outputs differs between then-branch and else-branch")
    inputs: list[Entry] = []
    by_name: dict[str, int] = {}
    subs, all_locs = [], []
    for g, gname in graphs:
        sub, cut_map = _cut(g, gname)
        locs = []
        for v in _inputs(sub):
            if v.name in by_name:
                locs.append(by_name[v.name])
                continue
            entry = cut_map[v.name] if v.name in cut_map else _fresh(v)
            inputs.append(entry)
            by_name[entry[0].name] = len(inputs) - 1
            locs.append(len(inputs) - 1)
        subs.append(sub)
        all_locs.append(locs)
    attrs = {
        "cond_input_locs": str(all_locs[0]),
        "else_input_locs": str(all_locs[2]),
        "num_args": str(len(inputs) + 3),
        "num_outputs": str(counts[1]),
        "then_input_locs": str(all_locs[1]),
    }
    node = _make_node("_cond", "_cond", attrs, inputs, subs)
    outs, _ = regroup_nested([Symbol([(node, i)]) for i in range(counts[1])], fmts[1])
    return outs


cond.__doc__ = COND_DOC.format(**_DOC)
