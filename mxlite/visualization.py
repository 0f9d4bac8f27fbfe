"""``mx.viz``: a text summary of a symbol's layers and a graphviz drawing of its graph."""

from __future__ import annotations

from typing import Any

from .base import MXNetError

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

    Parameters
    ----------
    title : str, optional
        The graph's name; default 'plot'.
    save_format : str, optional
        Output format for rendering; default 'pdf'.
    shape : dict of str to tuple, optional
        Input shapes: edges are labelled with the shapes inferred.
    dtype : dict, optional
        Accepted for MXNet compatibility.
    node_attrs : dict, optional
        Graphviz attributes for every node.
    hide_weights : bool, optional
        Leave out weight and bias variables; default True.
    """
    try:
        from graphviz import Digraph
    except ImportError:
        raise MXNetError(
            "plot_network: the graphviz Python package is not installed; run "
            "`pip install graphviz` (and install the Graphviz programs to render)."
        ) from None
    nodes, shapes = _layers(symbol, shape)
    attrs = {"shape": "box", "fixedsize": "true", "width": "1.3", "height": "0.8034",
             "style": "filled"}  # fmt: skip
    attrs.update(node_attrs or {})
    dot = Digraph(name=title, format=save_format)
    hidden = set()
    for node in nodes:
        if (
            node.op is None
            and hide_weights
            and node.name.endswith(
                ("_weight", "_bias", "_gamma", "_beta", "_moving_mean", "_moving_var", "_label")
            )
        ):
            hidden.add(id(node))
            continue
        label = node.name if node.op is None else f"{node.op}\n{node.name}"
        dot.node(name=str(id(node)), label=label, **attrs)
    for node in nodes:
        if id(node) in hidden:
            continue
        for src, idx in node.inputs:
            if id(src) in hidden:
                continue
            s = shapes.get((id(src), idx))
            label = "x".join(map(str, s[1:])) if s else ""
            dot.edge(str(id(src)), str(id(node)), label=label, dir="back")
    return dot
