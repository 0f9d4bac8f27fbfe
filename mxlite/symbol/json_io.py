"""MXNet's symbol JSON, both ways, byte for byte as MXNet 1.9.1 writes it.

Writing: nodes in NNVM's depth-first post-order, ``arg_nodes`` (the variables),
``node_row_ptr`` (running count of outputs), ``heads`` and ``attrs.mxnet_version`` (plus
``attrs.is_np_shape`` under NumPy shape semantics). The layout
follows dmlc's JSON writer: objects one key per line except an ``attrs`` map of one key;
arrays of numbers or entries on one line up to 10 items; keys of ``attrs`` sorted.

Reading: any version MXNet 1.x reads. Files older than 1.9.1 are upgraded as MXNet does: the
``param``/``attr`` keys of 0.8 merge into ``attrs``, bare ``lr_mult``/``ctx_group``... become
``__lr_mult__``..., ``weight_lr_mult`` on an operator moves to its ``weight`` variable, and
inputs that 0.8 left implicit become variables; files before 0.9.4 get the ``__init__`` that
an operator gives its input variables (BatchNorm's moving statistics). Loaded under NumPy
shape semantics, a file written without them has its variables' ``__shape__`` rewritten (0
dims become -1, an empty shape ``None``), as MXNet does.
"""

from __future__ import annotations

import json

from ..base import MXNetError
from ..operator import registry
from ..util import is_np_shape
from .compose import HIDDEN_KEYS, set_input_var_init
from .graph import Entry, Node, aux_positions, topo_order

__all__ = ["to_json", "from_json", "MXNET_VERSION"]

MXNET_VERSION = 10901
_V0800, _V0900, _V0904 = 800, 900, 904


def _str(s: str) -> str:
    out = ['"']
    for ch in s:
        out.append({"\r": "\\r", "\n": "\\n", "\\": "\\\\", "\t": "\\t", '"': '\\"'}.get(ch, ch))
    out.append('"')
    return "".join(out)


def _entry(e: list[int]) -> str:
    return "[" + ", ".join(map(str, e)) + "]"


def _array(items: list[str], indent: str) -> str:
    if not items:
        return "[]"
    if len(items) <= 10:
        return "[" + ", ".join(items) + "]"
    inner = indent + "  "
    return "[\n" + inner + (", \n" + inner).join(items) + "\n" + indent + "]"


def _object(pairs: list[tuple[str, str]], indent: str, multi: bool = True) -> str:
    body = [f"{_str(k)}: {v}" for k, v in pairs]
    if not multi:
        return "{" + ", ".join(body) + "}"
    inner = indent + "  "
    return "{\n" + inner + (", \n" + inner).join(body) + "\n" + indent + "}"


def entry_versions(nodes: list[Node]) -> dict[tuple[int, int], int]:
    """NNVM's entry versions: ``(id(node), input position)`` to how many times the variable
    read there had been updated (as an auxiliary state) when the node was composed.

    NNVM counts in composition order; this counts in graph order, which is the same for
    graphs where each auxiliary state is updated by one operator (all the usual ones).
    """
    count: dict[int, int] = {}
    out: dict[tuple[int, int], int] = {}
    for node in nodes:
        if node.is_variable():
            continue
        updated = aux_positions(node)
        for j, (src, _) in enumerate(node.inputs):
            if src.is_variable():
                if j in updated:
                    count[id(src)] = count.get(id(src), 0) + 1
                if count.get(id(src)):
                    out[(id(node), j)] = count[id(src)]
    return out


def to_json(entries: list[Entry]) -> str:
    """The MXNet 1.9.1 JSON text of the graph whose outputs are ``entries``."""
    graph_attrs = [("mxnet_version", f'["int", {MXNET_VERSION}]')]
    if is_np_shape():  # MXNet marks files written with NumPy shape semantics on
        graph_attrs.insert(0, ("is_np_shape", '["int", 1]'))
    return _graph_json(entries, "", graph_attrs)


def _graph_json(
    entries: list[Entry], base: str, graph_attrs: list | None, versioned: bool = True
) -> str:
    """One graph object at indentation ``base``; the subgraphs of control-flow nodes nest
    inside their node, without graph attributes, as MXNet writes them (``versioned``: False
    for the graphs a backend cut out, whose variables no composition ever updated)."""
    nodes = topo_order(entries)
    index = {id(n): i for i, n in enumerate(nodes)}
    versions = entry_versions(nodes) if versioned else {}
    texts, row_ptr = [], [0]
    ind = base + "    "
    for node in nodes:
        pairs = [("op", _str(node.op or "null")), ("name", _str(node.name))]
        if node.attrs:
            items = sorted(node.attrs.items())
            attrs = [(k, _str(v)) for k, v in items]
            pairs.append(("attrs", _object(attrs, ind + "  ", multi=len(items) > 1)))
        inputs = [
            _entry([index[id(s)], i, versions.get((id(node), j), 0)])
            for j, (s, i) in enumerate(node.inputs)
        ]
        pairs.append(("inputs", _array(inputs, ind + "  ")))
        if node.subgraphs:
            inner = ind + "    "
            cut = getattr(node.prop(), "backend_cut", False)
            graphs = [_graph_json(g, inner, None, not cut) for g in node.subgraphs]
            pairs.append(("subgraphs", "[\n" + inner + (", \n" + inner).join(graphs) + "\n"
                          + ind + "  ]"))  # fmt: skip
        texts.append(_object(pairs, ind))
        row_ptr.append(row_ptr[-1] + node.num_outputs())
    top = [
        ("nodes", "[\n" + ind + (", \n" + ind).join(texts) + "\n" + base + "  ]"),
        (
            "arg_nodes",
            _array([str(i) for i, n in enumerate(nodes) if n.is_variable()], base + "  "),
        ),
        ("node_row_ptr", _array([str(r) for r in row_ptr], base + "  ")),
        ("heads", _array([_entry([index[id(n)], i, 0]) for n, i in entries], base + "  ")),
    ]
    if graph_attrs is not None:
        top.append(("attrs", _object(graph_attrs, base + "  ", multi=len(graph_attrs) > 1)))
    return _object(top, base)


def _fix_hidden_keys(node: Node) -> None:
    """Move bare hidden keys to ``__key__``, and ``<input>_<key>`` to that input variable."""
    moved = {}
    for key in list(node.attrs):
        for k in HIDDEN_KEYS:
            pos = key.rfind(k)
            if pos == 0 or (pos > 0 and pos + len(k) == len(key)):
                moved[key] = node.attrs.pop(key)
                break
    for key, value in moved.items():
        placed = False
        for k in HIDDEN_KEYS:
            pos = key.rfind(k)
            if pos == 0 and len(k) == len(key):
                node.attrs[f"__{k}__"] = value
                placed = True
                break
            if pos > 1 and pos + len(k) == len(key):
                if node.op is not None:  # a variable keeps weight_lr_mult as it is
                    names = _input_names(node)
                    arg = key[: pos - 1]
                    if arg in names and names.index(arg) < len(node.inputs):
                        target = node.inputs[names.index(arg)][0]
                        if target.is_variable():
                            target.attrs[f"__{k}__"] = value
                            placed = True
                break
        if not placed:
            node.attrs[key] = value


def _input_names(node: Node) -> list[str]:
    prop = node.prop()
    return prop.list_arguments() + prop.list_auxiliary_states()


def _numpy_shape_text(text: str) -> str:
    body = text.strip().strip("()[]").replace("L", "")
    dims = [int(p) for p in body.split(",") if p.strip()] if body.strip() != "None" else []
    if not dims:
        return "None"
    return "[" + ",".join(str(d if d else -1) for d in dims) + "]"


def from_json(text: str) -> list[Entry]:
    """The output entries of the graph in MXNet symbol JSON ``text`` (any 1.x version)."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise MXNetError(f"load_json: not valid JSON ({exc}).") from None
    except RecursionError:  # symbol JSON nests a few levels; far deeper is not a symbol file
        raise MXNetError("load_json: not symbol JSON (nested too deeply).") from None
    return _from_dict(data)


def _from_dict(data: dict, outer_version: int | None = None) -> list[Entry]:
    if not isinstance(data, dict) or "nodes" not in data or "heads" not in data:
        raise MXNetError("load_json: expected an object with 'nodes' and 'heads' (symbol JSON).")
    # a nested subgraph carries no version: it is its file's
    version = _V0800 if outer_version is None else outer_version
    graph_attrs = data.get("attrs") or {}
    if "mxnet_version" in graph_attrs:
        version = int(graph_attrs["mxnet_version"][1])
    nodes: list[Node] = []
    for i, jn in enumerate(data["nodes"]):
        op = jn.get("op", "null")
        attrs: dict[str, str] = {}
        for key in ("param", "attr", "attrs"):
            attrs.update({k: str(v) for k, v in (jn.get(key) or {}).items()})
        try:
            inputs = [(nodes[e[0]], int(e[1])) for e in jn.get("inputs", [])]
        except (IndexError, TypeError):
            raise MXNetError(
                f"load_json: node {i} ({jn.get('name')!r}) has an input that is not an "
                f"earlier node: {jn.get('inputs')}."
            ) from None
        if op != "null" and registry.find(op) is None:
            raise MXNetError(
                f"load_json: node {jn.get('name')!r} uses operator {op!r}, which is not "
                f"registered in mxlite."
            )
        subgraphs = [_from_dict(g, version) for g in jn.get("subgraphs") or []]
        node = Node(
            None if op == "null" else registry.get(op).op_name, jn["name"], attrs, inputs, subgraphs
        )
        nodes.append(node)
    heads = [(nodes[h[0]], int(h[1])) for h in data["heads"]]
    if is_np_shape() and not int((graph_attrs.get("is_np_shape") or [0, 0])[1]):
        # a file from before NumPy shapes: its 0 dims mean "unknown", which is -1 now
        for node in nodes:
            if node.op is None and "__shape__" in node.attrs:
                node.attrs["__shape__"] = _numpy_shape_text(node.attrs["__shape__"])
    if version < MXNET_VERSION:
        for node in topo_order(heads):
            _fix_hidden_keys(node)
    if version < _V0900:
        for node in topo_order(heads):
            if node.op is None:
                continue
            names = _input_names(node)
            for arg in names[len(node.inputs) :]:
                node.inputs.append((Node(None, f"{node.name}_{arg}", dict(node.attrs)), 0))
    if version < _V0904:  # initializers on input variables arrived in 0.9.4
        for node in topo_order(heads):
            if node.op is not None:
                set_input_var_init(node)
    for node in nodes:
        if node.op is not None:
            node.prop()  # parse now, so a bad parameter fails at load and names its node
            n_in = len(_input_names(node))
            if len(node.inputs) != n_in:
                raise MXNetError(
                    f"load_json: node {node.name!r} ({node.op}) has {len(node.inputs)} inputs; "
                    f"the operator takes {n_in}."
                )
    return heads


def load_graph(text: str) -> list[Entry]:
    """:func:`from_json` for text from elsewhere: JSON that is not a symbol graph (a node
    without a name, an input that is not a list, ...) raises MXNetError, never a KeyError."""
    try:
        return from_json(text)
    except MXNetError:
        raise
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
        raise MXNetError(
            f"load_json: not symbol JSON ({type(exc).__name__}: {exc} in its nodes or heads)."
        ) from None
