"""The symbolic graph: nodes and their output entries.

Design note
-----------
A :class:`Node` is one operator application (or a variable when ``op`` is None). It keeps its
operator name, its name, every attribute as MXNet writes them into JSON ``"attrs"`` (operator
parameters and ``__xxx__`` attributes alike, all strings) and its inputs as ``(node, index)``
entries: arguments first, then auxiliary states, in the order the operator lists them (as
NNVM does). A graph is a list of output entries; :func:`topo_order` walks it in NNVM's
``DFSVisit`` post-order, which fixes node ids in JSON and the executor's run order.

Nodes are shared between symbols (composition copies nothing but the nodes it changes), so
they are treated as immutable once a symbol holding them was returned to the user.

Example::

    x = Node(None, "x")
    y = Node("relu", "relu0", {}, [(x, 0)])
    [n.name for n in topo_order([(y, 0)])]   # ['x', 'relu0']
"""

from __future__ import annotations

from typing import Any

from ..operator import registry

__all__ = ["Node", "Entry", "topo_order", "Graph", "aux_positions"]


class Node:
    """One node of a symbolic graph: an operator application, or a variable (``op is None``)."""

    __slots__ = ("op", "name", "attrs", "inputs", "subgraphs", "_prop", "__weakref__")

    def __init__(
        self,
        op: str | None,
        name: str,
        attrs: dict[str, str] | None = None,
        inputs: list[tuple[Node, int]] | None = None,
        subgraphs: list[list[tuple[Node, int]]] | None = None,
    ) -> None:
        self.op = op
        self.name = name
        self.attrs: dict[str, str] = dict(attrs) if attrs else {}
        self.inputs: list[tuple[Node, int]] = list(inputs) if inputs else []
        # the graphs a control-flow node holds (its bodies), each a list of output entries
        self.subgraphs: list[list[tuple[Node, int]]] = list(subgraphs) if subgraphs else []
        self._prop: Any = None

    def is_variable(self) -> bool:
        """Whether this node is a variable (no operator)."""
        return self.op is None

    def params(self) -> dict[str, str]:
        """The operator parameters: every attribute but the hidden ``__xxx__`` ones."""
        return {k: v for k, v in self.attrs.items() if not k.startswith("__")}

    def prop(self) -> registry.OperatorProperty:
        """The operator's property, parsed from the attributes once and cached."""
        if self._prop is None:
            if self.op is None:
                raise TypeError(f"Node.prop: variable {self.name!r} has no operator.")
            cls = registry.get(self.op)
            if self.subgraphs:
                # a property that holds graphs is this node's own, never shared through the cache
                prop = cls(cls.parse_params(self.params(), self.name))
                prop.set_subgraphs(self.subgraphs)
                self._prop = prop
            else:
                self._prop = cls.get_prop(self.params(), self.name)
        return self._prop

    def num_outputs(self) -> int:
        """How many outputs the node has: 1 for a variable."""
        return 1 if self.op is None else self.prop().num_outputs()

    def __repr__(self) -> str:
        return f"<Node {self.op or 'null'} {self.name!r}>"


Entry = tuple[Node, int]


def aux_positions(node: Node) -> set[int]:
    """The input positions of operator node ``node`` that are auxiliary states, as NNVM's
    FMutateInputs makes them: those after its arguments, and those its operator declares in
    ``aux_input_positions`` (quantized BatchNorm's moving statistics)."""
    prop = node.prop()
    n_args = len(prop.list_arguments())
    return set(range(n_args, len(node.inputs))) | set(prop.aux_input_positions())


def entry_name(entry: Entry) -> str:
    """An output's name as MXNet lists it: ``<node>_<output>``, or a variable's own name."""
    node, index = entry
    if node.is_variable():
        return node.name
    return f"{node.name}_{node.prop().list_outputs()[index]}"


def topo_order(outputs: list[Entry]) -> list[Node]:
    """Every node reachable from ``outputs``, each once, inputs before users.

    The order is a post-order depth-first walk over each node's inputs in order, starting
    from the outputs in order (NNVM's ``DFSVisit``); it is iterative, so deep graphs (long
    unrolled RNNs) do not hit Python's recursion limit.
    """
    order: list[Node] = []
    seen: set[int] = set()
    for head, _ in outputs:
        if id(head) in seen:
            continue
        seen.add(id(head))
        stack: list[tuple[Node, int]] = [(head, 0)]
        while stack:
            node, i = stack[-1]
            if i < len(node.inputs):
                stack[-1] = (node, i + 1)
                child = node.inputs[i][0]
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append((child, 0))
            else:
                stack.pop()
                order.append(node)
    return order


class Graph:
    """What every symbol is: a list of output entries. ``Symbol`` (``symbol.py``) builds its
    API on it; the graph passes below it (composition, JSON) recognise symbols by this class,
    so that they need not import ``Symbol`` back."""

    __slots__ = ()
    _entries: list[Entry]
