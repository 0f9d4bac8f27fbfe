"""Creating operator symbols and composing graphs (NNVM's ``CreateFunctor`` + ``Compose``).

An operator call ``mx.sym.FullyConnected(data, num_hidden=10, name="fc1")`` makes one node
whose attributes are the keyword arguments as strings (as MXNet writes them) plus the
``__xxx__`` attributes of the current :class:`~mxlite.attribute.AttrScope`. Inputs not given
become variables named ``<node>_<input>`` (``fc1_weight``) that carry a copy of the node's
attributes, as in MXNet. Calling a symbol, ``net(data=x)``, replaces its free variables.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..attribute import AttrScope
from ..base import MXNetError
from ..name import NameManager
from ..operator import registry
from .graph import Entry, Graph, Node, topo_order

__all__ = [
    "HIDDEN_KEYS",
    "hidden_key",
    "set_input_var_init",
    "create",
    "compose",
    "copy_graph",
    "atomic",
]

# attributes MXNet accepts without underscores and stores as __key__ (c_api_symbolic.cc)
HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage")


def set_input_var_init(node: Node) -> None:
    """Give the variable inputs of operator ``node`` that have no ``__init__`` the one its
    operator asks for (its ``input_var_init``, MXNet's FSetInputVarAttrOnCompose)."""
    cls = registry.find(node.op)
    inputs = node.inputs
    for j, init in (cls.input_var_init if cls is not None else {}).items():
        if j < len(inputs) and inputs[j][0].is_variable():
            inputs[j][0].attrs.setdefault("__init__", init)


def hidden_key(key: str, value: str, where: str) -> str:
    """Map ``lr_mult`` to ``__lr_mult__``; reject MXNet's deprecated ``weight_lr_mult``."""
    for k in HIDDEN_KEYS:
        pos = key.rfind(k)
        if pos == 0 and len(key) == len(k):
            return f"__{k}__"
        if pos > 0 and pos + len(k) == len(key) and not key.startswith("__"):
            raise MXNetError(
                f"{where}: setting variable attributes with {key} is deprecated. please "
                f"instead use\nw = Variable({k}={value})\nsym = YourSymbolName("
                f"{key[: pos - 1]}=w)"
            )
    return key


def _plain(value: Any) -> Any:
    # NumPy 2 prints scalars as np.int64(3); MXNet wrote the plain number
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (tuple, list)):
        return type(value)(_plain(v) for v in value)
    return value


def _attr_text(key: str, value: Any) -> str:
    if key == "dtype" and not isinstance(value, str):
        # MXNet's bfloat16 is the structured dtype [('bfloat16', uint16)]: its field names it
        dt = np.dtype(value)
        return dt.names[0] if dt.names else dt.name
    return str(_plain(value))


def _single(sym: Any, where: str, what: str) -> Entry:
    entries = sym._entries
    if len(entries) != 1:
        raise MXNetError(
            f"{where}: input {what!r} must be a symbol with one output, got one with "
            f"{len(entries)} outputs."
        )
    return entries[0]


def create(op_name: str, func_name: str, args: tuple, kwargs: dict[str, Any]) -> list[Entry]:
    """The output entries of calling ``mx.sym.<func_name>(*args, **kwargs)``."""
    cls = registry.get(op_name)
    attr = kwargs.pop("attr", None)
    name = kwargs.pop("name", None)
    kwargs.pop("out", None)
    kwargs.update(AttrScope.current.get(attr))
    name = NameManager.current.get(name, func_name.lower())
    where = f"{cls.op_name}(name={name!r})"

    pos_syms: list[Any] = []
    i = 0
    while i < len(args) and (isinstance(args[i], Graph) or args[i] is None):
        pos_syms.append(args[i])
        i += 1
    # MXNet skips inputs given as None: trailing ones are dropped (``Convolution(x, w, None,
    # no_bias=True)``), inner ones become the usual ``<node>_<input>`` variables.
    while pos_syms and pos_syms[-1] is None:
        pos_syms.pop()
    params: dict[str, str] = {}
    field_names = list(cls.param_class.field_names()) if cls.param_class is not None else []
    for key, value in zip(field_names, args[i:]):
        params[key] = _attr_text(key, value)
    if len(args) - i > len(field_names):
        bad = args[i + len(field_names)]
        raise MXNetError(f"{where}: unexpected positional argument {bad!r}.")
    sym_kwargs: dict[str, Any] = {}
    for key, value in kwargs.items():
        if isinstance(value, Graph):
            sym_kwargs[key] = value
        elif value is None and (key == "dtype" or key not in field_names):
            continue  # an input given as None (``sequence_length=None``) is skipped
        else:
            if key in params:
                raise MXNetError(f"{where}: parameter {key!r} given twice.")
            params[hidden_key(key, str(value), where)] = _attr_text(key, value)
    var_key = cls.key_var_num_args
    if var_key is not None:
        if sym_kwargs and pos_syms:
            raise MXNetError(
                f"{where}: operators with variable length input take input symbols either "
                f"as positional or as keyword arguments, not both."
            )
        if var_key not in params:
            params[var_key] = str(len(pos_syms) + len(sym_kwargs))
    op_params = {k: v for k, v in params.items() if not k.startswith("__")}
    prop = cls.get_prop(op_params, name)
    node = Node(cls.op_name, name, params)
    node._prop = prop
    order = prop.list_arguments() + prop.list_auxiliary_states()
    if var_key is not None:
        given = [s for s in pos_syms if s is not None] or list(sym_kwargs.values())
        if len(given) > len(order):
            raise MXNetError(
                f"{where}: {var_key}={params[var_key]} but {len(given)} input symbols were given."
            )
        # inputs beyond those given become variables, as in NNVM's Compose (UpSampling's
        # bilinear weight: num_args=1 counts the data only)
        node.inputs = [_single(s, where, order[j]) for j, s in enumerate(given)] + [
            (Node(None, f"{name}_{arg}", dict(params)), 0) for arg in order[len(given) :]
        ]
        set_input_var_init(node)
        return [(node, k) for k in range(prop.num_visible_outputs())]
    if len(pos_syms) > len(order):
        raise MXNetError(
            f"{where}: got {len(pos_syms)} input symbols; inputs are {', '.join(order)}."
        )
    slots: list[Any] = list(pos_syms) + [None] * (len(order) - len(pos_syms))
    if not order and sym_kwargs:
        # MXNet 1.9.1 drops Symbol keywords given to an operator without inputs (its tests
        # pass data= to random samplers); say so instead of dropping them in silence
        warnings.warn(
            f"{where} takes no input symbols; ignoring {', '.join(map(repr, sym_kwargs))} "
            "as MXNet 1.9.1 does.",
            stacklevel=3,
        )
        sym_kwargs = {}
    for key, value in sym_kwargs.items():
        if key not in order:
            raise MXNetError(f"{where}: unknown input {key!r}; inputs are {', '.join(order)}.")
        j = order.index(key)
        if slots[j] is not None:
            raise MXNetError(f"{where}: input {key!r} given twice.")
        slots[j] = value
    inputs: list[Entry] = []
    for arg, sym in zip(order, slots):
        if sym is None:
            inputs.append((Node(None, f"{name}_{arg}", dict(params)), 0))
        else:
            inputs.append(_single(sym, where, arg))
    node.inputs = inputs
    set_input_var_init(node)
    return [(node, k) for k in range(prop.num_visible_outputs())]


def copy_graph(entries: list[Entry], keep_variables: bool = False) -> list[Entry]:
    """A deep copy of the graph behind ``entries``: every node, variables included, or with
    ``keep_variables`` every operator node only (the variable nodes are the original ones)."""
    mapping: dict[int, Node] = {}
    for node in topo_order(entries):
        if keep_variables and node.is_variable():
            mapping[id(node)] = node
            continue
        new = Node(
            node.op,
            node.name,
            node.attrs,
            [(mapping[id(s)], i) for s, i in node.inputs],
            node.subgraphs,
        )
        new._prop = node._prop
        mapping[id(node)] = new
    return [(mapping[id(n)], i) for n, i in entries]


def remove_amp_cast(entries: list[Entry]) -> list[Entry]:
    """A copy of the graph where every input that an ``amp_cast`` or ``amp_multicast`` gave
    is what that node received (MXNet's RemoveAmpCast pass, run by ``tojson``/``save``); the
    graph's own outputs stay as they are."""
    out = copy_graph(entries)
    for node in topo_order(out):
        for i, (src, index) in enumerate(node.inputs):
            if not src.is_variable() and type(src.prop()).amp_cast:
                # output k of a cast is its input k (amp_cast has one of each)
                node.inputs[i] = src.inputs[index]
    return out


def atomic(entries: list[Entry]) -> list[Entry]:
    """The outputs of a new, input-less node with the same operator and attributes as the
    single operator node behind ``entries`` (``Symbol._gen_atomic_symbol``)."""
    node = entries[0][0] if entries else None
    if node is None or any(n is not node for n, _ in entries):
        raise MXNetError(
            "_gen_atomic_symbol: the symbol must have the outputs of exactly one node, got "
            f"{len({id(n) for n, _ in entries})} nodes."
        )
    if node.is_variable():
        raise MXNetError(f"_gen_atomic_symbol: {node.name!r} is a variable, not an operator.")
    new = Node(node.op, node.name, node.attrs, subgraphs=node.subgraphs)
    new._prop = node._prop
    return [(new, i) for i in range(node.prop().num_visible_outputs())]


def _fill_atomic(node: Node, args: tuple, kwargs: dict[str, Any]) -> None:
    """Give an input-less operator node its inputs (positional, then by input name); inputs
    not given become variables named ``<node>_<input>``, as at creation."""
    prop = node.prop()
    order = prop.list_arguments() + prop.list_auxiliary_states()
    where = f"{node.op}(name={node.name!r})"
    if len(args) > len(order):
        raise MXNetError(f"{where}: got {len(args)} inputs; inputs are {', '.join(order)}.")
    slots: list[Any] = list(args) + [None] * (len(order) - len(args))
    for key, value in kwargs.items():
        if key not in order:
            raise MXNetError(f"{where}: unknown input {key!r}; inputs are {', '.join(order)}.")
        slots[order.index(key)] = value
    node.inputs = [
        (Node(None, f"{node.name}_{a}", node.params()), 0) if v is None else _single(v, where, a)
        for a, v in zip(order, slots)
    ]
    set_input_var_init(node)


def compose(sym: Any, args: tuple, kwargs: dict[str, Any]) -> None:
    """Replace ``sym``'s free variables in place: positional ``args`` in ``list_inputs``
    order, keyword arguments by variable name; ``name=`` renames the output node."""
    name = kwargs.pop("name", None)
    head = sym._entries[0][0] if sym._entries else None
    if head is not None and head.op is not None and not head.inputs:
        if name:
            head.name = name
        _fill_atomic(head, args, kwargs)  # an atomic symbol: its node takes the inputs
        return
    if args and kwargs:
        raise MXNetError(
            "compose: input symbols go either as positional or as keyword arguments, not both."
        )
    for value in [*args, *kwargs.values()]:
        if not isinstance(value, Graph):
            raise MXNetError(
                f"compose: expected Symbol arguments, got {type(value).__name__} {value!r}."
            )
    nodes = topo_order(sym._entries)
    variables = [n for n in nodes if n.is_variable()]
    if len(args) > len(variables):
        raise MXNetError(
            f"compose: got {len(args)} positional symbols but the symbol has only "
            f"{len(variables)} inputs ({', '.join(v.name for v in variables)})."
        )
    replace: dict[int, Entry] = {}
    for var, value in zip(variables, args):
        replace[id(var)] = _single(value, "compose", var.name)
    matched = set()
    for var in variables:
        if var.name in kwargs:
            replace[id(var)] = _single(kwargs[var.name], "compose", var.name)
            matched.add(var.name)
    missing = [k for k in kwargs if k not in matched]
    if missing:
        raise MXNetError(
            f"compose: keyword argument name {missing[0]!r} not found; candidate "
            f"arguments: {', '.join(v.name for v in variables)}."
        )
    for node in nodes:
        node.inputs = [replace.get(id(s), (s, i)) for s, i in node.inputs]
    sym._entries = [replace.get(id(n), (n, i)) for n, i in sym._entries]
    if name:
        heads = {id(n) for n, _ in sym._entries}
        if len(heads) == 1:
            sym._entries[0][0].name = name
