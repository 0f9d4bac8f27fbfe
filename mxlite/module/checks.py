"""The checks every module kind shares: the state machine's order (bind, init_params,
init_optimizer), and input names and shapes against the symbol, with MXNet's messages."""

from __future__ import annotations

import warnings
from typing import Any

from ..base import MXNetError, ParamError
from ..io import DataDesc

__all__ = [
    "_check_state",
    "_check_input_names",
    "_check_inputs",
    "_check_names_match",
    "_parse_data_desc",
    "_optimizer_is_set",
]


def _check_state(module: Any, fn: str, *flags: str) -> None:
    """Raise naming the step missing before ``fn`` can run (MXNet asserts)."""
    steps = {
        "binded": "bind",
        "params_initialized": "init_params",
        "optimizer_initialized": "init_optimizer",
    }
    for flag in flags:
        if not getattr(module, flag):
            raise MXNetError(f"{type(module).__name__}.{fn}: call {steps[flag]}() first.")


def _optimizer_is_set(module: Any, force_init: bool, note: str = "ignoring.") -> bool:
    """Whether ``init_optimizer`` has nothing to do (logged, as MXNet does); raise if the
    module is not bound with initialized parameters yet."""
    _check_state(module, "init_optimizer", "binded", "params_initialized")
    if module.optimizer_initialized and not force_init:
        module.logger.warning(f"optimizer already initialized, {note}")
        return True
    return False


def _check_inputs(
    symbol: Any, data_names: Any, label_names: Any, state_names: Any, fixed_param_names: Any
) -> tuple[list[str], list[str], list[str], list[str]]:
    """A module's data, label, state and fixed parameter names as lists (None: none), each
    checked against the symbol's arguments (a label not found only warns)."""
    lists = [list(n) if n is not None else [] for n in (data_names, label_names, state_names,
                                                         fixed_param_names)]  # fmt: skip
    for names, typename in zip(lists, ("data", "label", "state", "fixed_param")):
        _check_input_names(symbol, names, typename, typename != "label", stacklevel=4)
    data, label, state, fixed = lists
    return data, label, state, fixed


def _check_input_names(
    symbol: Any, names: list[str], typename: str, throw: bool, stacklevel: int = 3
) -> None:
    """Check that every input name is an argument of the symbol."""
    args = symbol.list_arguments()
    for name in names:
        if name in args:
            continue
        candidates = [a for a in args if not a.endswith(("_weight", "_bias", "_gamma", "_beta"))]
        msg = (
            f"You created Module with Module(..., {typename}_names={names}) but input with "
            f"name '{name}' is not found in symbol.list_arguments(). Did you mean one of:"
            "\n\t" + "\n\t".join(candidates)
        )
        if throw:
            raise ParamError(msg)
        warnings.warn(msg, stacklevel=stacklevel)


def _check_names_match(names: list[str], shapes: list, what: str, throw: bool) -> None:
    actual = [x[0] for x in shapes]
    if sorted(names) != sorted(actual):
        msg = (
            f"Data provided by {what}_shapes don't match names specified by {what}_names "
            f"({shapes} vs. {names})"
        )
        if throw:
            raise ParamError(msg)
        warnings.warn(msg, stacklevel=3)


def _parse_data_desc(
    data_names: list[str], label_names: list[str], data_shapes: Any, label_shapes: Any
) -> tuple[list[DataDesc], list[DataDesc] | None]:
    """Turn (name, shape) pairs into DataDesc and check the names against the module's."""
    data_shapes = [x if isinstance(x, DataDesc) else DataDesc(*x) for x in data_shapes]
    _check_names_match(data_names, data_shapes, "data", True)
    if label_shapes is not None:
        label_shapes = [x if isinstance(x, DataDesc) else DataDesc(*x) for x in label_shapes]
        _check_names_match(label_names, label_shapes, "label", False)
    else:
        _check_names_match(label_names, [], "label", False)
    return data_shapes, label_shapes
