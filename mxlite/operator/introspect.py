"""Listing operators and their arguments (``mx.operator.get_all_registered_operators`` and
``mx.operator.get_operator_arguments``), read from the registry and the parameter structs."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from . import registry

__all__ = ["OperatorArguments", "get_all_registered_operators", "get_operator_arguments"]

OperatorArguments = namedtuple("OperatorArguments", ["narg", "names", "types"])


def get_all_registered_operators() -> list[str]:
    """Every registered operator name, aliases included.

    Returns
    -------
    list of str
    """
    return list(registry.all_ops())


def _input_names(cls: type[registry.OperatorProperty]) -> list[str]:
    # Inputs may depend on parameters; use the defaults when the operator has no required
    # parameter, and otherwise ask a property built without parameters.
    try:
        pc = cls.param_class
        return list(cls(pc.default() if pc is not None else None).list_arguments())
    except Exception:  # noqa: BLE001 - a required parameter or a parameter-dependent list
        try:
            return list(cls(None).list_arguments())
        except Exception:  # noqa: BLE001
            return ["data"]


def get_operator_arguments(op_name: str) -> Any:
    """The inputs and parameters of operator ``op_name``, as MXNet's C API lists them.

    Parameters
    ----------
    op_name : str
        A registered operator name, e.g. ``'Activation'``.

    Returns
    -------
    OperatorArguments
        A named tuple ``(narg, names, types)``: inputs first (type ``NDArray-or-Symbol``, or
        ``NDArray-or-Symbol[]`` for operators taking a variable number of inputs), then the
        parameters with their type words as in the operator's docstring.
    """
    cls = registry.get(op_name)
    if cls.key_var_num_args is not None:
        names, types = ["data"], ["NDArray-or-Symbol[]"]
    else:
        names = _input_names(cls)
        types = ["NDArray-or-Symbol"] * len(names)
    if cls.param_class is not None:
        for line in cls.param_class.doc().splitlines():
            if line and not line[0].isspace() and " : " in line:
                name, words = line.split(" : ", 1)
                names.append(name)
                types.append(words)
    return OperatorArguments(len(names), names, types)
