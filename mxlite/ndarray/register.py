"""``mx.nd.<op>`` functions, one per registry entry, built as closures (no generated source).

Placement follows MXNet's names: ``_contrib_X`` goes to ``mx.nd.contrib.X``, ``_linalg_X`` to
``mx.nd.linalg.X``, ``_random_X``/``_sample_X`` to ``mx.nd.random``/``mx.nd._internal``,
``_image_X`` to ``mx.nd.image.X``, any other ``_X`` to ``mx.nd._internal``; the rest to
``mx.nd`` and ``mx.nd.op``.
"""

from __future__ import annotations

import inspect
from types import ModuleType
from typing import Any

from ..base import MXNetError
from ..context import Context
from ..operator import registry
from .invoke import invoke
from .ndarray import NDArray

__all__ = ["make_function", "populate"]

_PREFIXES = (
    ("_contrib_", "contrib"),
    ("_linalg_", "linalg"),
    ("_random_", "random"),
    ("_image_", "image"),
)


def _positional_params(cls: type, values: list, params: dict[str, Any]) -> None:
    pc = cls.param_class
    names = list(pc.field_names()) if pc is not None else []
    if len(values) > len(names):
        bad = values[len(names)]
        raise MXNetError(
            f"{cls.op_name}: got {type(bad).__name__} {bad!r} where an NDArray input or a "
            f"parameter was expected; its parameters are {', '.join(names) or 'none'}."
        )
    for key, value in zip(names, values):
        if key in params:
            raise MXNetError(f"{cls.op_name}: parameter {key!r} given twice.")
        params[key] = value


def _split(args: tuple, kwargs: dict[str, Any]) -> tuple[list, dict, dict, Any]:
    """Separate NDArray inputs given by name from parameters; pull out ``ctx``."""
    named: dict[str, NDArray] = {}
    params: dict[str, Any] = {}
    ctx = None
    for k, v in kwargs.items():
        if isinstance(v, NDArray):
            named[k] = v
        elif k == "ctx":
            ctx = v if isinstance(v, Context) or v is None else Context(*_parse_ctx(v))
        elif v is None and k in ("dtype",):
            continue
        else:
            params[k] = v
    return list(args), named, params, ctx


def _parse_ctx(text: str) -> tuple[str, int]:
    name, _, rest = str(text).partition("(")
    return name, int(rest.rstrip(")") or 0)


def make_function(cls: type, func_name: str) -> Any:
    """The ``mx.nd`` function for the operator class ``cls``."""
    var_args = cls.key_var_num_args

    def fn(*args: Any, out: Any = None, name: str | None = None, **kwargs: Any) -> Any:
        inputs, named, params, ctx = _split(args, kwargs)
        n = 0
        while n < len(inputs) and isinstance(inputs[n], NDArray):
            n += 1
        if n < len(inputs):  # positional values after the arrays are parameters, in order
            _positional_params(cls, inputs[n:], params)
            inputs = inputs[:n]
        if var_args is not None and var_args not in params:
            params[var_args] = len(inputs)
        prop = cls.get_prop(params, name)
        if named:
            order = prop.list_arguments() + prop.list_auxiliary_states()
            unknown = [k for k in named if k not in order]
            if unknown:
                raise MXNetError(
                    f"{prop.where(name)}: unknown input {unknown[0]!r}; inputs "
                    f"are {', '.join(order)}."
                )
            slots = inputs + [None] * (len(order) - len(inputs))
            for k, v in named.items():
                slots[order.index(k)] = v
            missing = [order[i] for i, v in enumerate(slots) if v is None]
            if missing:
                raise MXNetError(f"{prop.where(name)}: missing input {missing[0]!r}.")
            inputs = slots
        return invoke(prop, inputs, out, name, ctx)

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
    params += [
        inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None),
        inspect.Parameter("name", inspect.Parameter.KEYWORD_ONLY, default=None),
        inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD),
    ]
    return inspect.Signature(params)


def _docstring(cls: type) -> str:
    doc = inspect.cleandoc(cls.__doc__ or "")
    lines = [doc, "", "Parameters", "----------"]
    pc = cls.param_class
    if pc is not None:
        lines.append(pc.doc())
    lines += [
        "out : NDArray, optional",
        "    The output NDArray to hold the result.",
        "",
        "Returns",
        "-------",
        "out : NDArray or list of NDArrays",
        "    The output of this function.",
    ]
    return "\n".join(lines)


def _place(reg_name: str, cls: type, root: ModuleType, submodules: dict[str, ModuleType]) -> None:
    internal, op = submodules["_internal"], submodules["op"]
    target, short = None, reg_name
    for prefix, mod in _PREFIXES:
        if reg_name.startswith(prefix):
            target, short = submodules[mod], reg_name[len(prefix) :]
            break
    fn = make_function(cls, short if target is not None else reg_name)
    if target is not None:
        if short not in target.__dict__:
            setattr(target, short, fn)
        setattr(internal, reg_name, fn)
    elif reg_name.startswith("_"):
        setattr(internal, reg_name, fn)
    else:
        setattr(op, reg_name, fn)
        if reg_name not in root.__dict__:
            setattr(root, reg_name, fn)


def populate(root: ModuleType, submodules: dict[str, ModuleType]) -> None:
    """Put a function for every registered operator name into ``root`` and its submodules;
    operators registered later (custom operators, tests) are found on first attribute access."""
    for reg_name, cls in registry.all_ops().items():
        _place(reg_name, cls, root, submodules)
    for mod_name, module in [("", root), *submodules.items()]:
        module.__getattr__ = _late_lookup(mod_name, root, submodules)  # type: ignore[attr-defined]


def _late_lookup(mod_name: str, root: ModuleType, submodules: dict[str, ModuleType]) -> Any:
    prefix = {
        "contrib": "_contrib_",
        "linalg": "_linalg_",
        "random": "_random_",
        "image": "_image_",
    }.get(mod_name, "")

    def __getattr__(attr: str) -> Any:
        cls = registry.find(prefix + attr)
        if cls is None or attr.startswith("__"):
            raise AttributeError(
                f"module 'mxlite.ndarray{'.' + mod_name if mod_name else ''}' "
                f"has no attribute {attr!r}"
            )
        _place(prefix + attr, cls, root, submodules)
        module = submodules.get(mod_name, root)
        if attr not in module.__dict__:  # e.g. an internal name asked of mx.nd itself
            raise AttributeError(f"module 'mxlite.ndarray' has no attribute {attr!r}")
        return module.__dict__[attr]

    return __getattr__
