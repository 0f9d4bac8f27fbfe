"""``mx.sym.<op>`` functions, one per registry entry, built as closures (no generated source).

Placement follows MXNet's names, as for ``mx.nd`` (see mxlite/ndarray/register.py):
``_contrib_X`` to ``mx.sym.contrib.X``, ``_linalg_X`` to ``mx.sym.linalg.X``, ``_random_X`` to
``mx.sym.random.X``, ``_image_X`` to ``mx.sym.image.X``, any other ``_X`` to
``mx.sym._internal``, the rest to ``mx.sym`` and ``mx.sym.op``. Operators registered later are
found on first attribute access.
"""

from __future__ import annotations

import inspect
from types import ModuleType
from typing import Any

from ..operator import registry
from . import compose
from .symbol import Symbol

__all__ = ["make_function", "populate", "install_methods"]

_PREFIXES = (
    ("_contrib_", "contrib"),
    ("_linalg_", "linalg"),
    ("_random_", "random"),
    ("_image_", "image"),
)

# Symbol methods that call the operator of the same name with the symbol first (MXNet's
# "fluent" methods).
_FLUENT = (
    "reshape reshape_like zeros_like ones_like broadcast_axes repeat pad swapaxes split "
    "slice slice_axis slice_like take one_hot pick sort topk argsort argmax argmax_channel "
    "argmin clip abs sign flatten shape_array size_array expand_dims broadcast_to "
    "broadcast_like tile transpose flip depth_to_space space_to_depth diag sum nansum prod "
    "nanprod mean max min norm round rint fix floor ceil trunc sin cos tan arcsin arccos arctan "
    "degrees radians sinh cosh tanh arcsinh arccosh arctanh exp expm1 log log10 log2 log1p "
    "sqrt rsqrt cbrt rcbrt square reciprocal relu sigmoid softmax log_softmax softmin squeeze"
).split()


def make_function(reg_name: str, func_name: str) -> Any:
    """The ``mx.sym`` function for the operator registered as ``reg_name``."""
    cls = registry.get(reg_name)

    def fn(*args: Any, **kwargs: Any) -> Symbol:
        return Symbol(compose.create(reg_name, func_name, args, kwargs))

    fn.__name__ = func_name
    fn.__qualname__ = func_name
    fn.__doc__ = _docstring(cls)
    fn.__signature__ = _signature(cls)  # type: ignore[attr-defined]
    return fn


def _signature(cls: type) -> inspect.Signature:
    params = [inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL)]
    pc = cls.param_class
    if pc is not None:
        for f in pc.field_names():
            params.append(inspect.Parameter(f, inspect.Parameter.KEYWORD_ONLY, default=None))
    for extra in ("name", "attr", "out"):
        params.append(inspect.Parameter(extra, inspect.Parameter.KEYWORD_ONLY, default=None))
    params.append(inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD))
    return inspect.Signature(params)


def _docstring(cls: type) -> str:
    lines = [inspect.cleandoc(cls.__doc__ or ""), "", "Parameters", "----------"]
    if cls.param_class is not None:
        lines.append(cls.param_class.doc())
    lines += [
        "name : string, optional.",
        "    Name of the resulting symbol.",
        "attr : dict of str to str, optional.",
        "    Attributes of the resulting symbol.",
        "",
        "Returns",
        "-------",
        "Symbol",
        "    The result symbol.",
    ]
    return "\n".join(lines)


def _place(reg_name: str, root: ModuleType, submodules: dict[str, ModuleType]) -> None:
    internal, op = submodules["_internal"], submodules["op"]
    target, short = None, reg_name
    for prefix, mod in _PREFIXES:
        if reg_name.startswith(prefix):
            target, short = submodules[mod], reg_name[len(prefix) :]
            break
    # the node's default name comes from the name the user called (``_plus0`` for _Plus)
    fn = make_function(reg_name, reg_name)
    if target is not None:
        if short not in target.__dict__:
            setattr(target, short, make_function(reg_name, short))
        setattr(internal, reg_name, fn)
    elif reg_name.startswith("_"):
        setattr(internal, reg_name, fn)
    else:
        setattr(op, reg_name, fn)
        if reg_name not in root.__dict__:
            setattr(root, reg_name, fn)


def populate(root: ModuleType, submodules: dict[str, ModuleType]) -> None:
    """Put a function for every registered operator name into ``root`` and its submodules."""
    for reg_name in registry.all_ops():
        _place(reg_name, root, submodules)
    for mod_name, module in [("", root), *submodules.items()]:
        module.__getattr__ = _late_lookup(mod_name, root, submodules)  # type: ignore[attr-defined]


def _late_lookup(mod_name: str, root: ModuleType, submodules: dict[str, ModuleType]) -> Any:
    prefix = dict((m, p) for p, m in _PREFIXES).get(mod_name, "")
    module = submodules.get(mod_name, root)

    def __getattr__(attr: str) -> Any:
        if attr.startswith("__") or registry.find(prefix + attr) is None:
            raise AttributeError(f"module {module.__name__!r} has no attribute {attr!r}")
        _place(prefix + attr, root, submodules)
        if attr not in module.__dict__:
            raise AttributeError(f"module {module.__name__!r} has no attribute {attr!r}")
        return module.__dict__[attr]

    return __getattr__


def install_methods(root: ModuleType) -> None:
    """Add MXNet's fluent methods (``sym.reshape(...)``, ``sym.sum(...)``) to Symbol."""
    for name in _FLUENT:
        if registry.find(name) is None or name in Symbol.__dict__:
            continue
        setattr(Symbol, name, _fluent(root, name))
    if "astype" not in Symbol.__dict__:  # MXNet's Symbol.astype is its cast operator
        astype = _fluent(root, "cast")
        astype.__name__ = "astype"
        Symbol.astype = astype  # type: ignore[attr-defined]


def _fluent(root: ModuleType, name: str) -> Any:
    def method(self: Symbol, *args: Any, **kwargs: Any) -> Symbol:
        return getattr(root, name)(self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"Convenience fluent method for :py:func:`{name}`."
    return method
