"""Front-end functions generated from the registry: one function per operator name, placed in
a namespace's modules (``mx.nd``, ``mx.sym``, ...), built as closures (no generated source).

Design note
-----------
A front end is described by a :class:`FrontEnd`: how to build the callable for an operator
(``build(cls, reg_name, func_name)``), the keyword-only arguments it takes besides the
operator's parameters, and the tail of its docstring. :func:`populate` gives every registered
name a function in the namespace; what differs between ``mx.nd`` and ``mx.sym`` is the
``FrontEnd`` only.

Placement follows MXNet's names: with the default ``prefixes``, ``_contrib_X`` goes to the
``contrib`` module as ``X`` (and to ``_internal`` under its full name), likewise ``_linalg_``,
``_random_``, ``_image_`` and ``_sparse_`` (MXNet's ``_sparse_X`` aliases make ``mx.nd.sparse``);
any other ``_X`` goes to ``_internal``; the rest to ``op`` and to the root module. Operators
registered later (custom operators, tests) are placed on first attribute access (a module
``__getattr__``).

Example::

    populate(root, {"_internal": internal, "op": op, "contrib": contrib, ...}, NDARRAY_KIND)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from . import registry

__all__ = ["FrontEnd", "PREFIXES", "make_function", "populate", "replace_function"]

# (name prefix, submodule) pairs: ``_contrib_X`` is ``contrib.X``
PREFIXES: tuple[tuple[str, str], ...] = (
    ("_contrib_", "contrib"),
    ("_linalg_", "linalg"),
    ("_random_", "random"),
    ("_image_", "image"),
    ("_sparse_", "sparse"),
)


@dataclass(frozen=True)
class FrontEnd:
    """One kind of generated front end (``mx.nd``, ``mx.sym``, ...).

    ``build(cls, reg_name, func_name)`` returns the callable for operator class ``cls``
    registered as ``reg_name`` and called ``func_name`` in its module; ``keywords`` are its
    keyword-only arguments after the operator's parameters, in signature order; ``doc_tail``
    the docstring lines after the parameters' (the front end's own arguments and Returns).
    """

    build: Callable[[type, str, str], Callable[..., Any]]
    keywords: tuple[str, ...]
    doc_tail: tuple[str, ...]


def make_function(kind: FrontEnd, cls: type, reg_name: str, func_name: str) -> Any:
    """The function of front end ``kind`` for the operator ``cls`` registered as ``reg_name``,
    named ``func_name``, with its signature and docstring."""
    fn = kind.build(cls, reg_name, func_name)
    fn.__name__ = func_name
    fn.__qualname__ = func_name
    fn.__doc__ = _docstring(cls, kind)
    fn.__signature__ = _signature(cls, kind)  # type: ignore[attr-defined]
    return fn


def _signature(cls: type, kind: FrontEnd) -> inspect.Signature:
    params = [inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL)]
    names = list(cls.param_class.field_names()) if cls.param_class is not None else []
    for name in names + list(kind.keywords):
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None))
    params.append(inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD))
    return inspect.Signature(params)


def _docstring(cls: type, kind: FrontEnd) -> str:
    lines = [inspect.cleandoc(cls.__doc__ or ""), "", "Parameters", "----------"]
    if cls.param_class is not None:
        lines.append(cls.param_class.doc())
    lines += kind.doc_tail
    return "\n".join(lines)


def _put(module: ModuleType, name: str, fn: Any, replace: bool = True) -> None:
    """Write ``fn`` as ``module.name``: the one place where the generator fills the namespaces
    handed to :func:`populate` (a hand-written function of that name wins unless ``replace``)."""
    if replace or name not in module.__dict__:
        setattr(module, name, fn)


def replace_function(module: ModuleType, name: str, wrap: Callable[[Any], Any]) -> None:
    """Put ``wrap(f)`` in place of the function ``f`` that ``module.name`` is: how a package
    above changes what the generated front ends call (AMP's ``init`` casts their inputs, as
    MXNet's does); an unknown name raises AttributeError."""
    _put(module, name, wrap(getattr(module, name)))


@dataclass(frozen=True)
class _Namespace:
    """What :func:`populate` fills: the root module and its submodules (``_internal``, ``op``,
    one per prefix), with the front end, the prefixes and the names it takes."""

    kind: FrontEnd
    root: ModuleType
    submodules: dict[str, ModuleType]
    prefixes: tuple[tuple[str, str], ...]
    include: Callable[[str], bool] | None

    def place(self, reg_name: str) -> None:
        kind, submodules = self.kind, self.submodules
        cls = registry.get(reg_name)
        internal, op = submodules["_internal"], submodules.get("op")
        # the full name stays the function's name: a symbol's default node name comes from it
        fn = make_function(kind, cls, reg_name, reg_name)
        for prefix, mod in self.prefixes:
            if reg_name.startswith(prefix):
                short, target = reg_name[len(prefix) :], submodules[mod]
                if short not in target.__dict__:
                    _put(target, short, make_function(kind, cls, reg_name, short))
                _put(internal, reg_name, fn)
                return
        if reg_name.startswith("_"):
            _put(internal, reg_name, fn)
            return
        if op is not None:
            _put(op, reg_name, fn)
        _put(self.root, reg_name, fn, replace=False)

    def late_lookup(self, mod_name: str) -> Any:
        """The ``__getattr__`` of submodule ``mod_name`` ("" for the root): it places an
        operator registered after :func:`populate` on first access."""
        prefix = {mod: p for p, mod in self.prefixes}.get(mod_name, "")
        module = self.submodules.get(mod_name, self.root)
        # the module's own __getattr__ (names MXNet has there that mxlite lacks) answers the rest
        own = module.__dict__.get("__getattr__")
        include = self.include

        def __getattr__(attr: str) -> Any:
            name = prefix + attr
            if mod_name == "_internal" and registry.find(name) is None:
                name = attr  # _internal holds the full names beside the short ones
            if (
                attr.startswith("__")
                or registry.find(name) is None
                or (include is not None and not include(name))
            ):
                if own is not None and not attr.startswith("__"):
                    return own(attr)
                raise AttributeError(f"module {module.__name__!r} has no attribute {attr!r}")
            self.place(name)
            if attr not in module.__dict__:  # e.g. an internal name asked of the root module
                raise AttributeError(f"module {module.__name__!r} has no attribute {attr!r}")
            return module.__dict__[attr]

        return __getattr__


def populate(
    root: ModuleType,
    submodules: dict[str, ModuleType],
    kind: FrontEnd,
    prefixes: tuple[tuple[str, str], ...] = PREFIXES,
    include: Callable[[str], bool] | None = None,
) -> None:
    """Put a function of front end ``kind`` for every registered operator name (those
    ``include`` accepts, if given) into ``root`` and its ``submodules`` (which hold
    ``_internal``, ``op`` and one per prefix); operators registered later are placed on first
    attribute access."""
    namespace = _Namespace(kind, root, submodules, prefixes, include)
    for reg_name in registry.all_ops():
        if include is None or include(reg_name):
            namespace.place(reg_name)
    for mod_name, module in [("", root), *submodules.items()]:
        module.__getattr__ = namespace.late_lookup(mod_name)  # type: ignore[attr-defined]
