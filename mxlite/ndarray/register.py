"""``mx.nd.<op>`` functions, one per registry entry: the ``mx.nd`` :class:`FrontEnd` of
mxlite/operator/front_end.py (which places them as MXNet names them), whose calls parse the
arguments and run the operator imperatively.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from ..base import MXNetError
from ..context import Context
from ..operator import front_end
from ..operator.front_end import FrontEnd
from .invoke import invoke
from .ndarray import NDArray

__all__ = ["KIND", "populate"]


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


def _build(cls: type, reg_name: str, func_name: str) -> Any:
    """The call of the ``mx.nd`` function for the operator class ``cls``."""
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

    return fn


KIND = FrontEnd(
    build=_build,
    keywords=("out", "name"),
    doc_tail=(
        "out : NDArray, optional",
        "    The output NDArray to hold the result.",
        "",
        "Returns",
        "-------",
        "out : NDArray or list of NDArrays",
        "    The output of this function.",
    ),
)


# the submodules of mx.nd and mx.sym that hold generated functions
SUBMODULES = ("_internal", "op", "contrib", "linalg", "random", "image", "sparse")


def populate(root: ModuleType) -> None:
    """Put an ``mx.nd`` function for every registered operator name into ``root`` (``mx.nd``)
    and its :data:`SUBMODULES`."""
    front_end.populate(root, {name: getattr(root, name) for name in SUBMODULES}, KIND)
