"""``mx.viz``: a text summary of a symbol's layers and a graphviz drawing of its graph."""

from __future__ import annotations

from typing import Any

from .base import MXNetError
from .operator import registry

__all__ = ["print_summary", "plot_network"]


def _layers(symbol: Any, shape: dict | None) -> tuple[list, dict]:
    from .symbol.graph import topo_order
    from .symbol.infer import infer_shapes

    entries = symbol._entries
    nodes = topo_order(entries)
    shapes: dict = {}
    if shape:
        known = {id(n): tuple(shape[n.name]) for n in nodes if n.op is None and n.name in shape}
        shapes = infer_shapes(entries, known)
    return nodes, shapes


def print_summary(
    symbol: Any,
    shape: dict | None = None,
    line_length: int = 120,
    positions: list[float] = (0.44, 0.64, 0.74, 1.0),  # type: ignore[assignment]
) -> None:
    """Print each layer's name and type, output shape, parameter count and inputs.

    Parameters
    ----------
    symbol : Symbol
        The network.
    shape : dict of str to tuple, optional
        Input shapes, for the output shapes and parameter counts.
    line_length : int, optional
        Width of the table; default 120.
    positions : list of float, optional
        Right edge of each column as a fraction of ``line_length``.
    """
    nodes, shapes = _layers(symbol, shape)
    cols = [int(line_length * p) if p <= 1 else int(p) for p in positions]
    heads = ["Layer (type)", "Output Shape", "Param #", "Previous Layer"]

    def row(fields: list[str]) -> str:
        line = ""
        for text, end in zip(fields, cols):
            line = (line + str(text))[:end].ljust(end)
        return line.rstrip()

    inputs = {n.name for n in nodes if n.op is None and shape and n.name in shape}
    print("_" * line_length)
    print(row(heads))
    print("=" * line_length)
    total = 0
    shown = [n for n in nodes if n.op is not None or n.name in inputs]
    for k, node in enumerate(shown):
        out = shapes.get((id(node), 0))
        params = 0
        if node.op is not None:
            for src, idx in node.inputs:
                if src.op is None and src.name not in inputs:
                    s = shapes.get((id(src), idx))
                    if s:
                        n = 1
                        for d in s:
                            n *= d
                        params += n
        total += params
        prev = [s.name for s, _ in node.inputs if s.op is not None or s.name in inputs]
        kind = node.op or "null"
        fields = [f"{node.name}({kind})", "x".join(map(str, out[1:])) if out else "", params]
        print(row([*fields, prev[0] if prev else ""]))
        for p in prev[1:]:
            print(row(["", "", "", p]))
        print(("=" if k == len(shown) - 1 else "_") * line_length)
    print(f"Total params: {total}")
    print("_" * line_length)


# fill colours by kind of layer, as MXNet's drawings use them
_COLORS = ("#8dd3c7", "#fb8072", "#ffffb3", "#bebada", "#80b1d3", "#fdb462", "#b3de69", "#fccde5")
# OperatorProperty.plot_kind -> the colour (variables take the first)
_KIND_COLORS = {"layer": 1, "activation": 2, "norm": 3, "pooling": 4, "shape": 5, "other": 7}
_WEIGHT_SUFFIXES = (
    "_weight", "_bias", "_beta", "_gamma",
    "_moving_var", "_moving_mean", "_running_var", "_running_mean",
)  # fmt: skip


def _look(node: Any) -> tuple[str, str]:
    """The label and fill colour of an operator node (its operator's ``plot_label`` and
    ``plot_kind``)."""
    cls = registry.get(node.op)
    return cls.plot_label(node.name, node.attrs), _COLORS[_KIND_COLORS[cls.plot_kind]]


def plot_network(
    symbol: Any,
    title: str = "plot",
    save_format: str = "pdf",
    shape: dict | None = None,
    dtype: dict | None = None,
    node_attrs: dict | None = None,
    hide_weights: bool = True,
) -> Any:
    """Draw the graph of ``symbol`` as a ``graphviz.Digraph`` (needs the graphviz package).

    Nodes are named after the graph's nodes, so nodes sharing a name are drawn as one (a
    ``RuntimeWarning`` names them, as in MXNet). Edges point from each node to its inputs.

    Parameters
    ----------
    title : str, optional
        The graph's name; default 'plot'.
    save_format : str, optional
        Output format for rendering; default 'pdf'.
    shape : dict of str to tuple, optional
        Input shapes: edges are labelled with the shapes inferred (batch dimension left out).
    dtype : dict of str to numpy type, optional
        Input dtypes: edge labels get the dtype inferred, in parentheses.
    node_attrs : dict, optional
        Graphviz attributes for every node, e.g. ``{"shape": "oval", "fixedsize": "false"}``.
    hide_weights : bool, optional
        Leave out the edges to weight-like variables (``*_weight``, ``*_bias``, ...); default
        True.
    """
    import warnings

    from .symbol.graph import topo_order
    from .symbol.infer import infer_types
    from .symbol.symbol import Symbol

    try:
        from graphviz import Digraph
    except ImportError:
        raise MXNetError(
            "plot_network: the graphviz Python package is not installed; run "
            "`pip install graphviz` (and install the Graphviz programs to render)."
        ) from None
    if not isinstance(symbol, Symbol):
        raise MXNetError(f"plot_network: symbol must be a Symbol, got {type(symbol).__name__}.")
    nodes, shapes = _layers(symbol, shape)
    if shape is not None and any(v is None or 0 in v for v in shapes.values()):
        raise MXNetError("plot_network: argument 'shape' is incomplete: not every shape is known.")
    types: dict = {}
    if dtype is not None:
        by_name = {n.name: n for n in topo_order(symbol._entries) if n.op is None}
        types = infer_types(symbol._entries, {id(by_name[k]): v for k, v in dtype.items()})
        if any(v is None for v in types.values()):
            raise MXNetError(
                "plot_network: argument 'dtype' is incomplete: not every dtype is known."
            )
    names = [n.name for n in nodes]
    repeated = sorted({x for x in names if names.count(x) > 1})
    if repeated:
        warnings.warn(
            "There are multiple variables with the same name in your graph, this may result in "
            "cyclic graph. Repeated names: " + ",".join(repeated),
            RuntimeWarning,
            stacklevel=2,
        )
    base = {"shape": "box", "fixedsize": "true", "width": "1.3", "height": "0.8034",
            "style": "filled"}  # fmt: skip
    base.update(node_attrs or {})
    dot = Digraph(name=title, format=save_format)
    hidden: set[str] = set()
    for node in nodes:
        attr = dict(base)
        if node.op is None:
            if node.name.endswith(_WEIGHT_SUFFIXES):
                if hide_weights:
                    hidden.add(node.name)
                continue  # drawn only through its edges when not hidden, as in MXNet
            attr.update(shape="oval", fillcolor=_COLORS[0])
            label = node.name
        else:
            label, attr["fillcolor"] = _look(node)
        dot.node(name=node.name, label=label, **attr)
    for node in nodes:
        if node.op is None:
            continue
        inputs = node.inputs[: registry.get(node.op).plot_inputs]
        for src, idx in inputs:
            if src.name in hidden:
                continue
            label = ""
            if shape is not None:
                label = "x".join(str(d) for d in shapes[(id(src), idx)][1:])
            if dtype is not None:
                label += f"({types[(id(src), idx)].name})"
            dot.edge(tail_name=node.name, head_name=src.name, dir="back", arrowtail="open",
                     label=label)  # fmt: skip
    return dot
