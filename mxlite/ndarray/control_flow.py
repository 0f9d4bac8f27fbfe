"""``mx.nd.contrib.foreach``, ``while_loop`` and ``cond``: Python control flow over NDArrays,
as MXNet 1.9.1 runs them imperatively (each operator of the body is recorded by autograd
like any other, so gradients flow through the loop)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..base import MXNetError, flatten_nested, regroup_nested
from . import op as _op
from .creation import zeros as _zeros
from .ndarray import NDArray

__all__ = ["foreach", "while_loop", "cond"]


# The docstrings of foreach, while_loop and cond, shared with mx.sym.contrib's: ``a`` is
# "an NDArray" or "a Symbol", ``kind`` the class, ``traced`` and ``name`` what the symbolic
# version adds (a note after the summary, the ``name`` parameter).
FOREACH_DOC = """Run a for loop with user-defined computation over {kind}s on dimension 0.
{traced}
    Parameters
    ----------
    body : a Python function.
        Define computation in an iteration: ``body(data, states) -> (outputs, states)``.
    data: {a} or a list of {kind}s.
        The input data.
    init_states: {a} or nested lists of {kind}s.
        The initial values of the loop states.{name}

    Returns
    -------
    outputs: {a} or nested lists of {kind}s.
        The output data concatenated from the output of all iterations.
    states: {a} or nested lists of {kind}s.
        The loop states in the last iteration.
    """

WHILE_LOOP_DOC = """Run a while loop with user-defined computation and loop condition.

    Parameters
    ----------
    cond: a Python function.
        The loop condition, {cond}.
    func: a Python function.
        The loop body, ``func(*loop_vars) -> (step_output, new_loop_vars)``.
    loop_vars: {a} or nested lists of {kind}s.
        The initial values of the loop variables.
    max_iterations: a python int.
        Maximum number of iterations.{name}

    Returns
    -------
    outputs: {a} or nested lists of {kind}s
        stacked output from each step, padded to ``max_iterations`` rows
    states: {a} or nested lists of {kind}s
        final state
    """

COND_DOC = """Run an if-then-else using user-defined condition and computation.

    Parameters
    ----------
    pred: a MXNet {kind} representing a scalar.
        The branch condition.
    then_func: a Python function.
        The computation to be executed if `pred` is true.
    else_func: a Python function.
        The computation to be executed if `pred` is false.{name}

    Returns
    -------
    outputs: {a} or nested lists of {kind}s, representing the result of computation.
    """

_DOC = {"a": "an NDArray", "kind": "NDArray", "traced": "", "name": ""}


def _flatten(args: Any, what: str) -> tuple[list, Any]:
    def bad(item: Any) -> Exception:
        return MXNetError(
            f"{what} must be (nested) list of NDArray, but got {item!r} of type "
            f"{type(item).__name__}"
        )

    return flatten_nested(args, lambda x: 0 if isinstance(x, NDArray) else None, bad)


def _check(items: list, what: str) -> None:
    if not all(isinstance(a, NDArray) for a in items):
        raise MXNetError(f"{what} should be an NDArray or a nested list of NDArrays")


def _scalar(value: Any, kind: type, what: str) -> Any:
    if isinstance(value, NDArray):
        value = value.asscalar()
    try:
        return kind(value)
    except (TypeError, ValueError):
        raise ValueError(f"Cannot convert {what} to python {kind.__name__}") from None


def foreach(body: Callable[..., Any], data: Any, init_states: Any) -> tuple[Any, Any]:
    flat, _ = _flatten(data, "foreach input")
    _check(flat, "data")
    flat_states, _ = _flatten(init_states, "foreach states")
    _check(flat_states, "init_states")
    single = isinstance(data, NDArray)
    num_iters = data.shape[0] if single else data[0].shape[0]
    states = init_states
    outputs = []
    out_fmt: Any = []
    for i in range(num_iters):
        eles = data[i] if single else [d[i] for d in data]
        outs, states = body(eles, states)
        outs, out_fmt = _flatten(outs, "foreach output")
        outputs.append(outs)
    stacked = [_op.stack(*items) for items in zip(*outputs)]
    if stacked or out_fmt:
        stacked, _ = regroup_nested(stacked, out_fmt)
    return stacked, states


foreach.__doc__ = FOREACH_DOC.format(**_DOC)


def while_loop(
    cond: Callable[..., Any],
    func: Callable[..., Any],
    loop_vars: Any,
    max_iterations: int | None = None,
) -> tuple[Any, Any]:
    if max_iterations is None:
        raise ValueError("max_iterations should be specified")
    max_iterations = _scalar(max_iterations, int, "max_iteration")
    if isinstance(loop_vars, (list, tuple)) and len(loop_vars) == 0:
        raise ValueError("loop_vars should contain at least one element")
    single = isinstance(loop_vars, NDArray)
    loop_vars = [loop_vars] if single else list(loop_vars)
    steps = 0
    outputs: list[list] = []
    out_fmt: Any = None
    while steps < max_iterations and _scalar(cond(*loop_vars), bool, "Return value of cond"):
        step_output, new_vars = func(*loop_vars)
        step_output = [] if step_output is None else step_output
        new_vars = [] if new_vars is None else new_vars
        step_output = list(step_output) if isinstance(step_output, tuple) else step_output
        new_vars = [new_vars] if isinstance(new_vars, NDArray) else list(new_vars)
        if len(new_vars) != len(loop_vars):
            raise ValueError("The length of loop_vars should be consistent during the loop")
        step_output, out_fmt = _flatten(step_output, "while output")
        outputs.append(step_output)
        loop_vars = new_vars
        steps += 1
        if len(step_output) != len(outputs[0]):
            raise ValueError("Number of elements in step_output should be the same in each step")
    stacked = []
    for k, items in enumerate(zip(*outputs), 1):
        if any(x.shape != items[0].shape for x in items):
            lines = [f"  Step {i}, shape is {x.shape}" for i, x in enumerate(items)]
            raise ValueError(
                f"Shapes of {k}-th elements in step_outputs are inconsistent, which are:\n"
                + "\n".join(lines)
            )
        out = _op.stack(*items)
        if steps != max_iterations:
            pad_shape = (max_iterations - steps, *items[0].shape)
            pad = _zeros(pad_shape, ctx=items[0].context, dtype=items[0].dtype)
            out = _op.concat(out, pad, dim=0)
        stacked.append(out)
    if out_fmt is not None:
        stacked, _ = regroup_nested(stacked, out_fmt)
    return stacked, (loop_vars[0] if single else loop_vars)


while_loop.__doc__ = WHILE_LOOP_DOC.format(
    **_DOC, cond="``cond(*loop_vars)``, a scalar NDArray or Python value"
)


def cond(pred: Any, then_func: Callable[[], Any], else_func: Callable[[], Any]) -> Any:
    return then_func() if _scalar(pred, bool, "pred") else else_func()


cond.__doc__ = COND_DOC.format(**_DOC)
