"""``mx.sym.Symbol``: a list of output entries of a graph of :class:`~.graph.Node`.

Design note
-----------
A Symbol holds only ``_entries``, its outputs as ``(node, index)``. Nodes are shared between
symbols, as NNVM shares them: ``a + b`` points at the nodes of ``a`` and ``b``. Calling a
symbol (``net(data=x)``) first copies its whole graph, then replaces free variables, so the
original is untouched; ``_set_attr`` changes a node in place, as in MXNet. Everything listed
(arguments, auxiliary states, internals) follows NNVM's depth-first post-order.

Example::

    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=10, name="fc1")
    fc.list_arguments()              # ['data', 'fc1_weight', 'fc1_bias']
    fc.infer_shape(data=(32, 784))   # ([(32, 784), (10, 784), (10,)], [(32, 10)], [])
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np

from ..attribute import AttrScope
from ..base import (
    DTYPE_MX_TO_NP,
    DTYPE_NP_TO_MX,
    MXNetError,
    NotImplementedForSymbol,
    storage_dtype,
)
from ..base import absent_names as _absent_names
from ..base import extend_class as _extend_class
from ..fileio import atomic_write
from ..util import is_np_shape
from . import compose as _compose
from . import json_io
from .graph import Entry, Graph, Node, aux_positions, entry_name, topo_order
from .infer import infer_shapes, infer_types

__all__ = ["Symbol", "var", "Variable", "Group", "load", "load_json", "extend"]

_STYPE_ID = {"default": 0, "row_sparse": 1, "csr": 2}


def _op(name: str) -> Any:
    from . import _internal, op

    return getattr(_internal if name.startswith("_") else op, name)


def _binary(sym: Symbol, other: Any, op: str, scalar_op: str, how: str) -> Symbol:
    if isinstance(other, Symbol):
        return _op(op)(sym, other)
    if isinstance(other, (int, float, np.generic)):
        return _op(scalar_op)(sym, scalar=other)
    raise TypeError(f"Symbol {how}: type {type(other).__name__} is not supported.")


class Symbol(Graph):
    """A symbolic graph: one or more outputs of operators and variables."""

    __slots__ = ("_entries", "__weakref__")

    def __init__(self, entries: list[Entry] | None) -> None:
        # None: what MXNet's pickles call (Symbol(None)) before __setstate__ fills it
        self._entries = [] if entries is None else list(entries)

    # ---- outputs ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Any:
        return (self[i] for i in range(len(self)))

    def __getitem__(self, index: int | str | slice) -> Symbol:
        if isinstance(index, slice):
            return Group([self[i] for i in range(*index.indices(len(self)))])
        if isinstance(index, str):
            names = self.list_outputs()
            hits = [i for i, n in enumerate(names) if n == index]
            if len(hits) > 1:
                raise ValueError(f'There are multiple outputs with name "{index}"')
            if not hits:
                raise ValueError(f'Cannot find output that matches name "{index}"')
            index = hits[0]
        if not isinstance(index, (int, np.integer)):
            raise TypeError("Symbol only support integer index to fetch i-th output")
        if index >= len(self) or index < -len(self):
            raise IndexError(f"Symbol index {index} out of range for {len(self)} outputs")
        return Symbol([self._entries[index]])

    @property
    def name(self) -> str | None:
        """The name of the output node, None for a group of several nodes."""
        node = self._entries[0][0]
        return node.name if all(n is node for n, _ in self._entries) else None

    def __repr__(self) -> str:
        name = self.name
        if name is None:
            return f"<{type(self).__name__} group [{', '.join(s.name for s in self)}]>"
        return f"<{type(self).__name__} {name}>"

    def list_outputs(self) -> list[str]:
        """The output names: ``<node>_<output>`` for operators, the name for variables."""
        return [entry_name(e) for e in self._entries]

    def _variables(self) -> tuple[list[Node], set[int]]:
        nodes = topo_order(self._entries)
        aux: set[int] = set()
        for node in nodes:
            if not node.is_variable():
                aux.update(id(node.inputs[j][0]) for j in aux_positions(node))
        return [n for n in nodes if n.is_variable()], aux

    def list_arguments(self) -> list[str]:
        """The names of the inputs that are not auxiliary states, in graph order."""
        variables, aux = self._variables()
        return [v.name for v in variables if id(v) not in aux]

    def list_auxiliary_states(self) -> list[str]:
        """The names of the auxiliary states (inputs the operators update, e.g. BatchNorm's
        moving mean), in graph order."""
        variables, aux = self._variables()
        return [v.name for v in variables if id(v) in aux]

    def list_inputs(self) -> list[str]:
        """The names of every variable, arguments and auxiliary states, in graph order."""
        return [v.name for v in self._variables()[0]]

    def get_internals(self) -> Symbol:
        """A group of every visible output of every node (variables included), in graph
        order (BatchNorm's saved mean and variance are not listed, as in MXNet)."""
        entries = []
        for n in topo_order(self._entries):
            count = 1 if n.is_variable() else n.prop().num_visible_outputs()
            entries += [(n, i) for i in range(count)]
        return Symbol(entries)

    def get_children(self) -> Symbol | None:
        """A group of the inputs of the output nodes, or None if they have none."""
        seen: set[int] = set()
        entries: list[Entry] = []
        for node, _ in self._entries:
            if id(node) not in seen:
                seen.add(id(node))
                entries.extend(node.inputs)
        return Symbol(entries) if entries else None

    # ---- attributes ------------------------------------------------------------------------

    def _single_node(self, what: str) -> Node | None:
        node = self._entries[0][0]
        return node if all(n is node for n, _ in self._entries) else None

    def attr(self, key: str) -> str | None:
        """The attribute ``key`` of this symbol's node (``lr_mult`` finds ``__lr_mult__``)."""
        node = self._single_node("attr")
        if node is None:
            return None
        if key == "name":
            return node.name
        if key in node.attrs:
            return node.attrs[key]
        if key in _compose.HIDDEN_KEYS:
            return node.attrs.get(f"__{key}__")
        return None

    def list_attr(self, recursive: bool = False) -> dict[str, str]:
        """The attributes of this symbol's node (also as ``lr_mult`` for ``__lr_mult__``)."""
        if recursive:
            raise DeprecationWarning(
                "Symbol.list_attr with recursive=True has been deprecated. Please use "
                "attr_dict instead."
            )
        node = self._entries[0][0]
        return _with_plain_keys(node.attrs)

    def attr_dict(self) -> dict[str, dict[str, str]]:
        """Every node's attributes by node name (nodes without attributes left out)."""
        return {n.name: _with_plain_keys(n.attrs) for n in topo_order(self._entries) if n.attrs}

    def _set_attr(self, **kwargs: str) -> None:
        node = self._single_node("_set_attr")
        if node is None:
            raise MXNetError("Symbol._set_attr: works only on a symbol with one output node.")
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise MXNetError(
                    f"Symbol._set_attr: attribute {key!r} must be a string, got "
                    f"{type(value).__name__} {value!r}."
                )
            key = _compose.hidden_key(key, value, "Symbol._set_attr")
            if key == "name":
                node.name = value
            else:
                node.attrs[key] = value
        node._prop = None  # a changed parameter must be parsed again

    # ---- composition and copies ------------------------------------------------------------

    def __call__(self, *args: Symbol, **kwargs: Any) -> Symbol:
        s = self.__copy__()
        s._compose(*args, **kwargs)
        return s

    def _compose(self, *args: Symbol, **kwargs: Any) -> None:
        _compose.compose(self, args, kwargs)

    def _gen_atomic_symbol(self) -> Symbol:
        """A symbol of one new node, with no inputs yet, running this symbol's operator with
        its attributes; calling it with inputs composes it."""
        return Symbol(_compose.atomic(self._entries))

    def __copy__(self) -> Symbol:
        return Symbol(_compose.copy_graph(self._entries))

    def __deepcopy__(self, memo: Any) -> Symbol:
        return self.__copy__()

    def __reduce__(self) -> tuple:
        return (Symbol, (None,), self.__getstate__())  # MXNet's layout

    def __getstate__(self) -> dict[str, Any]:
        return {"handle": self.tojson()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._entries = json_io.load_graph(state["handle"])

    # ---- arithmetic ------------------------------------------------------------------------

    def __add__(self, other: Any) -> Symbol:
        return _binary(self, other, "_Plus", "_PlusScalar", "+")

    __radd__ = __add__

    def __sub__(self, other: Any) -> Symbol:
        return _binary(self, other, "_Minus", "_MinusScalar", "-")

    def __rsub__(self, other: Any) -> Symbol:
        return _binary(self, other, "_Minus", "_RMinusScalar", "-")

    def __mul__(self, other: Any) -> Symbol:
        return _binary(self, other, "_Mul", "_MulScalar", "*")

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Symbol:
        return _binary(self, other, "_Div", "_DivScalar", "/")

    def __rtruediv__(self, other: Any) -> Symbol:
        return _binary(self, other, "_Div", "_RDivScalar", "/")

    def __mod__(self, other: Any) -> Symbol:
        return _binary(self, other, "_Mod", "_ModScalar", "%")

    def __rmod__(self, other: Any) -> Symbol:
        return _binary(self, other, "_Mod", "_RModScalar", "%")

    def __pow__(self, other: Any) -> Symbol:
        return _binary(self, other, "_Power", "_PowerScalar", "**")

    def __rpow__(self, other: Any) -> Symbol:
        return _binary(self, other, "_Power", "_rpower_scalar", "**")

    def __neg__(self) -> Symbol:
        return self.__mul__(-1.0)

    def __abs__(self) -> Symbol:
        return _op("abs")(self)

    def __eq__(self, other: Any) -> Symbol:  # type: ignore[override]
        return _binary(self, other, "_equal", "_equal_scalar", "==")

    def __ne__(self, other: Any) -> Symbol:  # type: ignore[override]
        return _binary(self, other, "_not_equal", "_not_equal_scalar", "!=")

    def __gt__(self, other: Any) -> Symbol:
        return _binary(self, other, "_greater", "_greater_scalar", ">")

    def __ge__(self, other: Any) -> Symbol:
        return _binary(self, other, "_greater_equal", "_greater_equal_scalar", ">=")

    def __lt__(self, other: Any) -> Symbol:
        return _binary(self, other, "_lesser", "_lesser_scalar", "<")

    def __le__(self, other: Any) -> Symbol:
        return _binary(self, other, "_lesser_equal", "_lesser_equal_scalar", "<=")

    __hash__ = object.__hash__

    def as_nd_ndarray(self) -> Symbol:
        """This symbol (it already has the classic operator semantics)."""
        return self

    def __bool__(self) -> bool:
        raise NotImplementedForSymbol(self.__bool__, "bool")

    def __iadd__(self, other: Any) -> Symbol:
        raise NotImplementedForSymbol(self.__iadd__, "+=", other, 1)

    def __isub__(self, other: Any) -> Symbol:
        raise NotImplementedForSymbol(self.__isub__, "-=", other)

    def __imul__(self, other: Any) -> Symbol:
        raise NotImplementedForSymbol(self.__imul__, "*=", other)

    def __itruediv__(self, other: Any) -> Symbol:
        raise NotImplementedForSymbol(self.__itruediv__, "/=", other)

    # ---- inference -------------------------------------------------------------------------

    def _known(self, fname: str, args: tuple, kwargs: dict, conv: Any) -> dict[int, Any]:
        variables, aux = self._variables()
        by_name = {v.name: v for v in variables}
        known: dict[int, Any] = {}
        if args and kwargs:
            raise MXNetError(f"{fname}: give input shapes/types by position or by name, not both.")
        if args:
            arg_vars = [v for v in variables if id(v) not in aux]
            if len(args) > len(arg_vars):
                raise MXNetError(
                    f"{fname}: got {len(args)} positional values but the symbol has only "
                    f"{len(arg_vars)} arguments."
                )
            for v, value in zip(arg_vars, args):
                if value is not None:
                    known[id(v)] = conv(value)
        for key, value in kwargs.items():
            if key not in by_name:
                raise MXNetError(
                    f"{fname}: unknown input {key!r}; inputs are {', '.join(by_name)}."
                )
            if value is not None:
                known[id(by_name[key])] = conv(value)
        return known

    def _collect(self, values: dict) -> tuple[list, list, list]:
        variables, aux = self._variables()
        args = [values[(id(v), 0)] for v in variables if id(v) not in aux]
        auxs = [values[(id(v), 0)] for v in variables if id(v) in aux]
        outs = [values[(id(n), i)] for n, i in self._entries]
        return args, outs, auxs

    def _infer_shape_impl(self, partial: bool, args: tuple, kwargs: dict) -> Any:
        # inference marks unknown dims 0; NumPy shape semantics write them -1 (and an unknown
        # shape None, not ()), so convert on the way in and out
        np_sem = is_np_shape()
        known = self._known("infer_shape", args, kwargs, lambda s: tuple(max(int(d), 0) for d in s))
        try:
            values = infer_shapes(self._entries, known)
        except MXNetError as exc:
            given = "".join(f"\n  {k}: {v}" for k, v in kwargs.items()) or "".join(
                f"\n  #{i}: {v}" for i, v in enumerate(args)
            )
            raise type(exc)(f"{exc}\ninfer_shape error. Arguments:{given}") from exc
        arg_s, out_s, aux_s = self._collect(values)
        if partial:

            def fix(s: Any) -> Any:
                if s is None:
                    return None if np_sem else ()
                return tuple(d or -1 for d in s) if np_sem else s

            return tuple([fix(s) for s in part] for part in (arg_s, out_s, aux_s))
        complete = all(s is not None and 0 not in s for s in [*arg_s, *out_s, *aux_s])
        if not complete:
            names = self.list_arguments()
            bad = [
                f"{n}: {s if s is not None else ()}"
                for n, s in zip(names, arg_s)
                if s is None or 0 in s
            ]
            warnings.warn(
                "Cannot decide shape for the following arguments (0s in shape means unknown "
                "dimensions). Consider providing them as input:\n\t" + "\n\t".join(bad),
                stacklevel=3,
            )
            return None, None, None
        return arg_s, out_s, aux_s

    def infer_shape(self, *args: Any, **kwargs: Any) -> tuple[Any, Any, Any]:
        """Infer the shapes of all arguments, outputs and auxiliary states.

        Parameters
        ----------
        *args :
            Shapes of the arguments, in ``list_arguments()`` order (None for unknown).
        **kwargs :
            Shapes of inputs by name.

        Returns
        -------
        arg_shapes, out_shapes, aux_shapes : list of tuple
            Or (None, None, None), with a warning, when the shapes cannot all be decided.
        """
        return self._infer_shape_impl(False, args, kwargs)

    def infer_shape_partial(self, *args: Any, **kwargs: Any) -> tuple[Any, Any, Any]:
        """Infer shapes as far as possible; unknown shapes are ``()``, unknown dims 0."""
        return self._infer_shape_impl(True, args, kwargs)

    def _infer_type_impl(self, partial: bool, args: tuple, kwargs: dict) -> Any:
        known = self._known("infer_type", args, kwargs, storage_dtype)
        values = infer_types(self._entries, known)
        parts = self._collect(values)
        if not partial and any(t is None for part in parts for t in part):
            return None, None, None
        return tuple(
            [None if t is None else DTYPE_MX_TO_NP[DTYPE_NP_TO_MX[t]] for t in part]
            for part in parts
        )

    def infer_type(self, *args: Any, **kwargs: Any) -> tuple[Any, Any, Any]:
        """Infer the dtypes of all arguments, outputs and auxiliary states.

        Parameters
        ----------
        *args :
            Dtypes of the arguments, in ``list_arguments()`` order (None for unknown).
        **kwargs :
            Dtypes of inputs by name.

        Returns
        -------
        arg_types, out_types, aux_types : list of numpy type
            Or (None, None, None) when the types cannot all be decided.
        """
        return self._infer_type_impl(False, args, kwargs)

    def infer_type_partial(self, *args: Any, **kwargs: Any) -> tuple[Any, Any, Any]:
        """Infer dtypes as far as possible; unknown ones are None."""
        return self._infer_type_impl(True, args, kwargs)

    def infer_storage_type(self, *args: Any, **kwargs: Any) -> tuple[Any, Any, Any]:
        """Infer the storage types ('default', 'row_sparse', 'csr') of all arguments, outputs
        and auxiliary states, from those given by position or by name (and the variables'
        ``stype``)."""
        from .sparse import infer_storage_type

        return infer_storage_type(self, args, kwargs)

    def get_backend_symbol(self, backend: str) -> Symbol:
        """This graph partitioned by the subgraph backend ``backend`` ('MKLDNN' or
        'MKLDNN_QUANTIZE', MXNet 1.9.1's CPU backends)."""
        from .subgraph import backend_entries

        return Symbol(backend_entries(self._entries, backend, "Symbol.get_backend_symbol"))

    def optimize_for(
        self,
        backend: str,
        args: Any = None,
        aux: Any = None,
        ctx: Any = None,
        shape_dict: dict | None = None,
        type_dict: dict | None = None,
        stype_dict: dict | None = None,
        skip_infer: bool = False,
        **kwargs: Any,
    ) -> Symbol:
        """This graph partitioned for the subgraph ``backend`` ('MKLDNN' or 'MKLDNN_QUANTIZE',
        MXNet 1.9.1's CPU backends). ``args``/``aux`` (name -> NDArray), ``ctx``, the shape,
        type and storage-type dicts and ``kwargs`` (backend options) are accepted as MXNet's
        partitioning API takes them; these backends add and drop no parameter, so ``args``
        and ``aux`` come back unchanged."""
        from .subgraph import backend_entries

        return Symbol(backend_entries(self._entries, backend, "Symbol.optimize_for"))

    # ---- printing and saving ---------------------------------------------------------------

    def debug_str(self) -> str:
        """A text listing of the graph: outputs, variables and each operator's inputs."""
        lines = ["Symbol Outputs:"]
        lines += [f"\toutput[{i}]={n.name}({k})" for i, (n, k) in enumerate(self._entries)]
        nodes = topo_order(self._entries)
        versions = json_io.entry_versions(nodes)
        for node in nodes:
            if node.is_variable():
                lines.append(f"Variable:{node.name}")
                continue
            lines += ["-" * 20, f"Op:{node.op}, Name={node.name}", "Inputs:"]
            for j, (src, k) in enumerate(node.inputs):
                ver = f" version={versions.get((id(node), j), 0)}" if src.is_variable() else ""
                lines.append(f"\targ[{j}]={src.name}({k}){ver}")
            if node.attrs:
                lines.append("Attrs:")
                lines += [f"\t{k}={v}" for k, v in sorted(node.attrs.items())]
        return "\n".join(lines) + "\n"

    def tojson(self, remove_amp_cast: bool = True) -> str:
        """The graph as MXNet 1.9.1's symbol JSON text; with ``remove_amp_cast`` (the default,
        as in MXNet) the inputs AMP's casts fed are taken from before the casts."""
        entries = _compose.remove_amp_cast(self._entries) if remove_amp_cast else self._entries
        return json_io.to_json(entries)

    def save(self, fname: str, remove_amp_cast: bool = True) -> None:
        """Write :meth:`tojson` to ``fname`` (through a temporary file, renamed at the end)."""
        if not isinstance(fname, (str, os.PathLike)):
            raise MXNetError(f"Symbol.save: fname must be a path, got {type(fname).__name__}.")
        text = self.tojson(remove_amp_cast)
        with atomic_write(fname, "w", "Symbol.save") as f:
            f.write(text)


# member name -> the module that added it through extend()
_EXTENDED_BY: dict[str, str] = {}


def extend(owner: str, members: dict[str, Any]) -> None:
    """Add to :class:`Symbol` the members that ``owner``, a module above this layer, implements
    (``bind``/``simple_bind``/``eval`` from the executor): the one place where Symbol is given
    members from outside this file. Two modules adding one name is an error."""
    _extend_class(Symbol, _EXTENDED_BY, owner, members)


def _with_plain_keys(attrs: dict[str, str]) -> dict[str, str]:
    out = {}
    for key, value in attrs.items():
        out[key] = value
        if key.startswith("__") and key[2:-2] in _compose.HIDDEN_KEYS:
            out[key[2:-2]] = value
    return out


def var(
    name: str,
    attr: dict[str, str] | None = None,
    shape: Any = None,
    lr_mult: float | None = None,
    wd_mult: float | None = None,
    dtype: Any = None,
    init: Any = None,
    stype: str | None = None,
    **kwargs: Any,
) -> Symbol:
    """Create a symbolic variable.

    Parameters
    ----------
    name : str
        Variable name.
    attr : dict of str to str
        Additional attributes.
    shape : tuple
        The shape, a hint for shape inference.
    lr_mult, wd_mult : float
        Learning-rate and weight-decay multipliers.
    dtype : str or numpy.dtype
        The dtype, a hint for type inference.
    init : Initializer or str
        The initializer.
    stype : str
        The storage type: 'default', 'row_sparse' or 'csr'.
    **kwargs
        More attributes, each named ``__name__``.

    Returns
    -------
    Symbol
    """
    if not isinstance(name, str):
        raise TypeError("Expect a string for variable `name`")
    attrs = AttrScope.current.get(attr)
    if shape is not None:
        attrs["__shape__"] = str(shape)
    if lr_mult is not None:
        attrs["__lr_mult__"] = str(lr_mult)
    if wd_mult is not None:
        attrs["__wd_mult__"] = str(wd_mult)
    if dtype is not None:
        dt = np.dtype(dtype)
        # MXNet's bfloat16 is the record dtype [('bfloat16', uint16)] (flag 12)
        flag = 12 if dt.names == ("bfloat16",) else DTYPE_NP_TO_MX[dt.type]
        attrs["__dtype__"] = str(flag)
    if init is not None:
        attrs["__init__"] = init if isinstance(init, str) else init.dumps()
    if stype is not None:
        if stype not in _STYPE_ID:
            raise MXNetError(f"var: stype must be one of {list(_STYPE_ID)}, got {stype!r}.")
        attrs["__storage_type__"] = str(_STYPE_ID[stype])
    for key, value in kwargs.items():
        if not (key.startswith("__") and key.endswith("__")):
            raise ValueError(
                f"Attribute name={key} is not supported. Additional attributes must start and "
                f"end with double underscores, e.g, __yourattr__"
            )
        attrs[key] = str(value)
    sym = Symbol([(Node(None, name), 0)])
    sym._set_attr(**attrs)
    return sym


Variable = var


def Group(symbols: list[Symbol]) -> Symbol:  # noqa: N802 (MXNet's name)
    """One symbol whose outputs are the outputs of ``symbols``, in order."""
    if not symbols or any(not isinstance(s, Symbol) for s in symbols):
        raise TypeError("Expected a list of symbols as input")
    return Symbol([e for s in symbols for e in s._entries])


def load_json(json_str: str) -> Symbol:
    """The symbol in MXNet JSON text ``json_str`` (any MXNet 1.x version)."""
    if not isinstance(json_str, str):
        raise TypeError("fname required to be string")
    return Symbol(json_io.load_graph(json_str))


def load(fname: str) -> Symbol:
    """The symbol in the MXNet JSON file ``fname`` (e.g. ``prefix-symbol.json``)."""
    if not isinstance(fname, (str, os.PathLike)):
        raise TypeError("fname required to be a string")
    with open(fname, "rb") as f:
        raw = f.read()
    try:
        return load_json(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise MXNetError(
            f"mx.sym.load: {os.fspath(fname)!r} is not symbol JSON (not UTF-8 text at byte "
            f"offset {exc.start})."
        ) from None
    except MXNetError as exc:
        raise MXNetError(f"mx.sym.load: {os.fspath(fname)!r}: {exc}") from None


# MXNet's symbol.py also defines these; here they live in the package (mx.sym)
__getattr__ = _absent_names(
    "mxnet.symbol.symbol",
    {},
    moved=("arange", "eye", "full", "histogram", "hypot", "linspace", "maximum", "minimum",
           "ones", "pow", "power", "split_v2", "zeros"),
    home="mxlite.symbol",
)  # fmt: skip
