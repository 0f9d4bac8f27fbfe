"""The graph rewrite behind ``amp.convert_symbol`` (MXNet's ReducePrecision and AMPInferUnknown
passes and the ``__dtype__`` update of ``MXReducePrecisionSymbol``).

Design note
-----------
The pass walks the graph once, inputs before users, and copies every node. It keeps two maps
from an original output entry to the copy's entry that carries it in float32 or in the target
dtype (float16 or bfloat16); an ``amp_cast`` inserted for an entry is recorded there, so every
later user of the entry shares that one cast. Each node falls in the first rule that applies:

1. an operator of ``fp32_ops``, or any node named in ``excluded``: its inputs are cast to
   float32 (variables are taken to be float32 already);
2. an operator of ``target_ops``: its inputs are cast to the target, except the mutable ones
   (auxiliary states), those the operator's type rule wants in another dtype when its data is
   in the target (BatchNorm's gamma), and, with ``cast_optional_params``, the parameters;
3. an operator of ``widest_ops``: if the dtype of every input is known, it runs in float32 when
   any is float32, else in the target, and its inputs are cast to that; else an
   ``amp_multicast`` goes before it;
4. an operator of ``conditional`` whose parameter has one of the listed values: as rule 1;
5. any other node is copied, and when its first input's dtype is known its outputs' dtypes are
   inferred from it.

The graph's outputs are cast to float32 where they are not float32 already. The operators'
own type rules (their properties' ``infer_type``) decide every dtype; the pass keeps no table of
operators. An inserted node is named after the entry it casts, as MXNet names it:
``<node>[_<output>]_amp_cast_<dtype>``, where ``<output>`` is the output's name for operators
that declare output names (``lists_output_names``) and its index for the others.

Type rules see the target as it is (bfloat16 goes through the rule float16 has, see
``mxlite/operator/bfloat16.py``).

Example::

    new_entries = reduce_precision(sym._entries, Lists("float16", ["FullyConnected"], ...),
                                   data_names={"data"}, cast_optional_params=False)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...base import DTYPE_NP_TO_MX, MXNetError, storage_dtype
from ...operator.bfloat16 import infer_type as infer_bfloat16
from ...symbol.graph import Entry, Node, topo_order
from ...symbol.infer import infer_types

__all__ = ["Lists", "reduce_precision"]

_F32 = np.dtype(np.float32)
_FLAG_F32 = 0
_FLAGS = {"float16": 2, "bfloat16": 12}  # MXNet's type flags of the two targets
_Key = tuple[int, int]  # (id(original node), output index)


@dataclass
class Lists:
    """What the pass does to which operator (names as MXNet registers them)."""

    target: str
    target_ops: set[str]
    fp32_ops: set[str]
    widest_ops: set[str]
    # operator -> parameter -> the values that make it run in float32
    conditional: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    excluded: set[str] = field(default_factory=set)


class _Pass:
    def __init__(self, lists: Lists, data_names: set[str], cast_optional_params: bool) -> None:
        self.lists = lists
        self.data_names = data_names
        self.cast_optional = cast_optional_params
        self.target_flag = _FLAGS[lists.target]
        self.target = storage_dtype(lists.target)
        self.mirror: dict[int, Node] = {}  # id(original node) -> its copy
        self.fp32: dict[_Key, Entry] = {}
        self.low: dict[_Key, Entry] = {}

    # ---- helpers -----------------------------------------------------------------------------

    def _mirror_entry(self, entry: Entry) -> Entry:
        return (self.mirror[id(entry[0])], entry[1])

    def _suffix(self, entry: Entry) -> str:
        node, index = entry
        if self.mirror[id(node)].is_variable():
            return ""
        prop = node.prop()
        if type(prop).lists_output_names:
            return "_" + prop.list_outputs()[index]
        return f"_{index}"

    def _cast(self, entry: Entry, dtype: str, into: dict[_Key, Entry]) -> Entry:
        node = Node(
            "amp_cast",
            f"{entry[0].name}{self._suffix(entry)}_amp_cast_{dtype}",
            {"dtype": dtype},
            [self._mirror_entry(entry)],
        )
        into[(id(entry[0]), entry[1])] = (node, 0)
        return (node, 0)

    def _infer(self, node: Node, first: np.dtype) -> tuple[list, list] | None:
        """The node's input and output dtypes as MXNet's flags (-1 unknown) when its first input
        has dtype ``first``, or None when its type rule gives nothing."""
        prop = node.prop()
        n_args = len(prop.list_arguments())
        ins: list[Any] = [None] * n_args
        ins[0] = first
        res = infer_bfloat16(prop, ins, [None] * prop.num_outputs())
        if res is None:
            return None
        args, outs, aux = res
        return [self._flag(t) for t in [*args, *aux]], [self._flag(t) for t in outs]

    def _flag(self, dtype: Any) -> int:
        if dtype is None:
            return -1
        dtype = np.dtype(dtype)
        return DTYPE_NP_TO_MX[dtype]

    def _record_outputs(self, node: Node, new: Node, out_flags: list[int]) -> None:
        for i, flag in enumerate(out_flags):
            if flag == self.target_flag:
                self.low[(id(node), i)] = (new, i)
            elif flag == _FLAG_F32:
                self.fp32[(id(node), i)] = (new, i)

    @staticmethod
    def _mutable(node: Node) -> set[int]:
        prop = node.prop()
        n_args = len(prop.list_arguments())
        return set(range(n_args, len(node.inputs))) | set(prop.mutate_inputs())

    def _conditional_fp32(self, node: Node) -> bool:
        if node.is_variable() or node.name in self.lists.excluded:
            return False
        for param, values in self.lists.conditional.get(node.op, {}).items():
            if param in node.attrs and node.attrs[param] in values:
                return True
        return False

    # ---- the rules ---------------------------------------------------------------------------

    def _to_fp32(self, node: Node, new: Node, conditional: bool) -> None:
        # rule 1 takes variables as float32; rule 4 casts them, but not mutable inputs
        keep = self._mutable(node) if conditional else set()
        for i in range(node.num_outputs()):
            self.fp32[(id(node), i)] = (new, i)
        for i, entry in enumerate(node.inputs):
            key = (id(entry[0]), entry[1])
            if key in self.fp32:
                new.inputs.append(self.fp32[key])
            elif (entry[0].is_variable() and not conditional) or i in keep:
                new.inputs.append(self._mirror_entry(entry))
            else:
                new.inputs.append(self._cast(entry, "float32", self.fp32))

    def _to_target(self, node: Node, new: Node) -> None:
        inferred = self._infer(node, self.target)
        if inferred is None:
            raise MXNetError(
                f"amp.convert_symbol: operator {node.op} (node {node.name!r}) cannot infer its "
                f"types with its data in {self.lists.target}."
            )
        in_flags, out_flags = inferred
        self._record_outputs(node, new, out_flags)
        mutable = self._mutable(node)
        for i, entry in enumerate(node.inputs):
            key = (id(entry[0]), entry[1])
            src = entry[0]
            if key in self.low:
                new.inputs.append(self.low[key])
            elif (
                (self.cast_optional and src.is_variable() and src.name not in self.data_names)
                or i in mutable
                or in_flags[i] not in (self.target_flag, -1)
            ):
                new.inputs.append(self._mirror_entry(entry))
                if self.cast_optional and src.is_variable():
                    self.low[key] = self._mirror_entry(entry)
            else:
                new.inputs.append(self._cast(entry, self.lists.target, self.low))

    def _to_widest(self, node: Node, new: Node) -> None:
        if not node.inputs:
            raise MXNetError(
                f"amp.convert_symbol: node {node.name!r} (operator {node.op}) has no inputs; "
                "something went wrong when the symbol was built."
            )
        if self._mutable(node):
            raise MXNetError(
                f"amp.convert_symbol: operator {node.op} mutates inputs; it cannot run in the "
                "widest dtype of its inputs."
            )
        keys = [(id(e[0]), e[1]) for e in node.inputs]
        if any(k not in self.low and k not in self.fp32 for k in keys):
            first = node.inputs[0]
            multicast = Node(
                "amp_multicast",
                f"{first[0].name}{self._suffix(first)}_amp_multicast",
                {"num_outputs": str(len(node.inputs))},
                [self._mirror_entry(e) for e in node.inputs],
            )
            new.inputs.extend((multicast, i) for i in range(len(node.inputs)))
            return
        wide = any(k in self.fp32 for k in keys)
        into, dtype = (self.fp32, "float32") if wide else (self.low, self.lists.target)
        for i in range(node.num_outputs()):
            into[(id(node), i)] = (new, i)
        for entry, key in zip(node.inputs, keys):
            new.inputs.append(into[key] if key in into else self._cast(entry, dtype, into))

    def _copy(self, node: Node, new: Node) -> None:
        if node.inputs and not node.is_variable():
            key = (id(node.inputs[0][0]), node.inputs[0][1])
            first = self.target if key in self.low else _F32 if key in self.fp32 else None
            if first is not None:
                try:
                    inferred = self._infer(node, first)
                except (MXNetError, TypeError, ValueError):
                    inferred = None  # MXNet also goes on when this inference fails
                if inferred is not None:
                    self._record_outputs(node, new, inferred[1])
        new.inputs.extend(self._mirror_entry(e) for e in node.inputs)

    def run(self, outputs: list[Entry]) -> list[Entry]:
        lists = self.lists
        for node in topo_order(outputs):
            new = Node(node.op, node.name, node.attrs, [], node.subgraphs)
            op, excluded = node.op, node.name in lists.excluded
            if (op is not None and op in lists.fp32_ops) or excluded:
                self._to_fp32(node, new, conditional=False)
            elif op is not None and op in lists.target_ops:
                self._to_target(node, new)
            elif op is not None and op in lists.widest_ops:
                self._to_widest(node, new)
            elif self._conditional_fp32(node):
                self._to_fp32(node, new, conditional=True)
            else:
                self._copy(node, new)
            self.mirror[id(node)] = new
        result = []
        for entry in outputs:
            key = (id(entry[0]), entry[1])
            result.append(
                self.fp32[key] if key in self.fp32 else self._cast(entry, "float32", self.fp32)
            )
        return result


# ---- dtypes of the inputs after the rewrite ------------------------------------------------------


def _input_flags(outputs: list[Entry], data_names: set[str]) -> dict[int, int]:
    """MXNet's InferType after the pass: the data are float32, nothing else is given (the
    variables' ``__dtype__`` attributes are not read: it runs on a shadow graph without them).
    Returns id(variable) -> flag (-1 unknown)."""
    shadow: dict[int, Node] = {}
    back: dict[int, Node] = {}
    for node in topo_order(outputs):
        attrs = dict(node.attrs)
        if node.is_variable():
            attrs.pop("__dtype__", None)
        inputs = [(shadow[id(n)], i) for n, i in node.inputs]
        copy = Node(node.op, node.name, attrs, inputs, node.subgraphs)
        shadow[id(node)] = copy
        back[id(copy)] = node
    known = {
        id(shadow[id(n)]): _F32 for n in back.values() if n.is_variable() and n.name in data_names
    }
    values = infer_types([(shadow[id(n)], i) for n, i in outputs], known)
    flags = {}
    for copy_id, node in back.items():
        if node.is_variable():
            dtype = values.get((copy_id, 0))
            flags[id(node)] = -1 if dtype is None else DTYPE_NP_TO_MX[np.dtype(dtype)]
    return flags


def _infer_unknown(outputs: list[Entry], flags: dict[int, int], target: str) -> dict[int, int]:
    """MXNet's AMPInferUnknown: a variable whose dtype is unknown takes the dtype of the casts
    it feeds (conflicting casts restore what inference gave)."""
    result = dict(flags)
    seen: dict[str, int] = {}

    def update(var: Node, flag: int) -> None:
        if var.name not in seen:
            if result[id(var)] == -1:
                seen[var.name] = flag
                result[id(var)] = flag
        elif seen[var.name] != flag:
            result[id(var)] = flags[id(var)]

    target_flag = _FLAGS[target]
    for node in topo_order(outputs):
        if node.is_variable() or not type(node.prop()).amp_cast:
            continue
        if "dtype" in node.attrs:  # amp_cast: its input takes the dtype it casts to
            name = node.attrs["dtype"]
            flag = _FLAGS[name] if name in _FLAGS else DTYPE_NP_TO_MX[np.dtype(name)]
            for var, _ in node.inputs:
                if var.is_variable():
                    update(var, flag)
        else:  # amp_multicast: inputs that are all variables take the target
            if all(var.is_variable() for var, _ in node.inputs):
                for var, _ in node.inputs:
                    update(var, target_flag)
    return result


def reduce_precision(
    outputs: list[Entry],
    lists: Lists,
    data_names: list[str],
    model_params: set[str],
    cast_optional_params: bool,
) -> list[Entry]:
    """The converted graph's outputs, with ``__dtype__`` set on its variables as MXNet sets it:
    on every model parameter when ``model_params`` is not empty, else only where the symbol
    had one. Variables are copies: the original graph is left as it was."""
    names = set(data_names)
    new_outputs = _Pass(lists, names, cast_optional_params).run(outputs)
    flags = _input_flags(new_outputs, names)
    if cast_optional_params:
        flags = _infer_unknown(new_outputs, flags, lists.target)
    with_dtype = dict.fromkeys(data_names, _FLAG_F32)
    without_dtype: dict[str, int] = {}
    variables = [n for n in topo_order(new_outputs) if n.is_variable()]
    for var in variables:
        flag = max(flags[id(var)], _FLAG_F32)  # unknown is float32
        (with_dtype if "__dtype__" in var.attrs else without_dtype)[var.name] = flag
    for var in variables:
        if model_params:
            if var.name in model_params:
                flag = with_dtype.get(var.name, without_dtype.get(var.name))
                var.attrs["__dtype__"] = str(flag)
        elif var.name in with_dtype and "__dtype__" in var.attrs:
            var.attrs["__dtype__"] = str(with_dtype[var.name])
    return new_outputs
