"""``mx.contrib.autograd``: MXNet's first autograd API, kept for old scripts.

``train_section()`` both records and trains (the two states of :mod:`mxlite.autograd` moved
together); ``grad`` and ``grad_and_loss`` wrap a function so that calling it returns the
gradients of its result with respect to its (chosen) arguments.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from .. import autograd as _ag
from ..base import MXNetError
from ..ndarray import NDArray, zeros_like

__all__ = [
    "set_is_training",
    "TrainingStateScope",
    "train_section",
    "test_section",
    "mark_variables",
    "backward",
    "compute_gradient",
    "grad_and_loss",
    "grad",
]


def set_is_training(is_train: bool) -> bool:
    """Set recording and training on or off together; return the previous training state."""
    prev = _ag.set_training(bool(is_train))
    _ag.set_recording(bool(is_train))
    return prev


class TrainingStateScope:
    """Scope that sets the training state on entry and restores it on exit.

    Example::

        with TrainingStateScope(True):
            y = model(x)
            compute_gradient([y])
    """

    def __init__(self, enter_state: bool) -> None:
        self._enter_state = enter_state
        self._prev: bool | None = None

    def __enter__(self) -> None:
        self._prev = set_is_training(self._enter_state)

    def __exit__(self, ptype: Any, value: Any, trace: Any) -> None:
        if self._prev != self._enter_state:
            set_is_training(bool(self._prev))


def train_section() -> TrainingStateScope:
    """A ``with`` scope that records and trains."""
    return TrainingStateScope(True)


def test_section() -> TrainingStateScope:
    """A ``with`` scope that neither records nor trains."""
    return TrainingStateScope(False)


def mark_variables(
    variables: Sequence[NDArray],
    gradients: Sequence[NDArray],
    grad_reqs: str | Sequence[str] = "write",
) -> None:
    """Mark NDArrays as variables whose gradients autograd writes into ``gradients``.

    Parameters
    ----------
    variables: list of NDArray
    gradients: list of NDArray
    grad_reqs: str or list of str
    """
    _ag.mark_variables(list(variables), list(gradients), grad_reqs)


def backward(
    outputs: Sequence[NDArray],
    out_grads: Sequence[NDArray | None] | None = None,
    retain_graph: bool = False,
) -> None:
    """Compute the gradients of ``outputs`` with respect to the marked variables.

    Parameters
    ----------
    outputs: list of NDArray
    out_grads: list of NDArray or None
    """
    if not isinstance(outputs, (list, tuple)):
        raise MXNetError("contrib.autograd.backward: outputs must be a list or tuple of NDArrays.")
    if out_grads is not None and len(out_grads) != len(outputs):
        raise MXNetError(
            f"contrib.autograd.backward: {len(outputs)} outputs but {len(out_grads)} out_grads."
        )
    _ag.backward(list(outputs), None if out_grads is None else list(out_grads), retain_graph)


def compute_gradient(outputs: Sequence[NDArray]) -> None:
    """Deprecated. Please use backward."""
    backward(outputs)


# The Parameters of grad_and_loss and grad
_GRAD_PARAMS_DOC = """

    Parameters
    ----------
    func: a python function
        The forward (loss) function.
    argnum: an int or a list of int
        The index of argument to calculate gradient for.
    """


def grad_and_loss(func: Callable[..., Any], argnum: int | list[int] | None = None) -> Callable:

    @functools.wraps(func)
    def wrapped(*args: Any) -> tuple[list[NDArray], Any]:
        variables = args
        if argnum is not None:
            picks = argnum if isinstance(argnum, list) else [argnum]
            variables = [args[i] for i in picks]
        for x in variables:
            if not isinstance(x, NDArray):
                raise MXNetError(
                    f"contrib.autograd.grad_and_loss: the inputs to differentiate must be "
                    f"NDArrays, got {type(x).__name__}."
                )
        grads = [zeros_like(x) for x in variables]
        mark_variables(variables, grads)
        with train_section():
            outputs = func(*args)
        compute_gradient([outputs] if isinstance(outputs, NDArray) else outputs)
        return grads, outputs

    return wrapped


grad_and_loss.__doc__ = (
    "Return a function that computes both the gradients of the arguments and the loss."
    + _GRAD_PARAMS_DOC
)


def grad(func: Callable[..., Any], argnum: int | list[int] | None = None) -> Callable:
    with_loss = grad_and_loss(func, argnum)

    @functools.wraps(with_loss)
    def wrapped(*args: Any) -> list[NDArray]:
        return with_loss(*args)[0]

    return wrapped


grad.__doc__ = (
    "Return a function that computes the gradients of the arguments of ``func``." + _GRAD_PARAMS_DOC
)
