"""Recording for ``mx.autograd``: the modes, the recorded nodes and how calls become nodes.

Design note
-----------
While recording, every operator call (``ndarray/invoke.py``) reports itself to
:func:`_record`. If any input is part of a graph (a marked variable or the output of a recorded
call), the call becomes a :class:`_Node` that keeps the operator's property and only the inputs
and outputs its backward declares it reads (``declare_backward_dependency``); each output's
``_ag`` points at its node. A variable is a node without an operator that owns the gradient
buffer and its ``grad_req``.

``backward`` (``backprop.py``) orders the nodes reachable from the heads, walks them from the
heads down and, for each node, pushes its operator's backward as one engine function
(asynchronous, like any operator); gradients reaching an array from several uses are summed. At
the variables, the result is written into ``.grad`` ('write') or added to it ('add'). Without
``retain_graph`` the graph is cut after the pass, so a second backward raises, as in MXNet.
"""

from __future__ import annotations

import contextlib
import itertools
import weakref
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ..base import MXNetError
from ..ndarray import invoke as _invoke
from ..ndarray.ndarray import NDArray, _wrap
from ..operator.modes import STATE as _state  # [is_recording, is_training]
from ..operator.registry import OperatorProperty
from ..operator.req import OpReq, parse_req
from ..operator.simple_op import _SimpleProp

if TYPE_CHECKING:
    from .function import Function

# Names in get_symbol's graphs, numbered process-wide as MXNet numbers them: marked variables
# "var<k>" and constant inputs "null<k>" share one counter, recorded calls are "node_<k>".
_var_count = itertools.count()
_node_count = itertools.count()


# (SimpleOp property class, n_in, n_out) -> (input saved?, output saved?) per position
_deps_cache: dict[tuple, tuple[tuple[bool, ...], tuple[bool, ...]]] = {}


class _Node:
    """A recorded call, or a variable (``prop`` None)."""

    __slots__ = (
        "prop",
        "inputs",
        "in_data",
        "out_data",
        "aux",
        "n_out",
        "ctx",
        "var_ref",
        "grad_req",
        "function",
        "in_meta",
        "out_meta",
        "uid",
        "inline",
        "sparse_in",
        "__weakref__",
    )

    def __init__(self) -> None:
        self.prop: OperatorProperty | None = None
        self.inputs: list[tuple[_Node, int] | None] = []
        self.in_data: list[Any] = []
        self.out_data: list[Any] = []
        self.aux: list[Any] = []
        self.n_out = 1
        self.ctx = None
        # for variables: the array whose .grad is set, weakly held: the array holds this node
        # in its _ag, and a strong reference back would keep every marked array (and its .grad)
        # alive until the cycle collector runs, as MXNet's variable node holds a detached copy
        self.var_ref: weakref.ref[NDArray] | None = None
        self.grad_req = OpReq.WRITE
        self.function: Function | None = None
        # (shape, dtype) of every input and output, kept even where the data is not
        self.in_meta: list[tuple] = []
        self.out_meta: list[tuple] = []
        self.uid = -1  # the k of get_symbol's "var<k>" / "node_<k>"
        self.inline = False  # the arrays are small: its gradient function may run on the caller
        # the call's inputs as given when one was sparse (ndarray/sparse_dispatch.py sets it):
        # their storage types decide which gradients are row-sparse, and which rows they hold
        self.sparse_in: list[Any] | None = None

    @property
    def var_array(self) -> NDArray | None:
        """For a variable, the marked array (None once it is gone, or for a recorded call)."""
        return None if self.var_ref is None else self.var_ref()


# ---- modes -------------------------------------------------------------------------------


def set_recording(is_recording: bool) -> bool:
    """Set whether operators are recorded; return the previous state."""
    prev, _state[0] = _state[0], bool(is_recording)
    return prev


def set_training(train_mode: bool) -> bool:
    """Set training mode (Dropout, BatchNorm behave as in training); return the previous one."""
    prev, _state[1] = _state[1], bool(train_mode)
    return prev


def is_recording() -> bool:
    return _state[0]


def is_training() -> bool:
    return _state[1]


@contextlib.contextmanager
def _scope(recording: bool | None, training: bool | None) -> Iterator[None]:
    old = list(_state)
    if recording is not None:
        _state[0] = recording
    if training is not None:
        _state[1] = training
    try:
        yield
    finally:
        _state[0], _state[1] = old


def record(train_mode: bool = True) -> Any:
    """Scope in which operators are recorded for ``backward`` (training mode by default)."""
    return _scope(True, train_mode)


def pause(train_mode: bool = False) -> Any:
    """Scope in which recording is paused (inference mode by default)."""
    return _scope(False, train_mode)


def train_mode() -> Any:
    """Scope with training-mode behaviour, not changing recording."""
    return _scope(None, True)


def predict_mode() -> Any:
    """Scope with inference-mode behaviour, not changing recording."""
    return _scope(None, False)


# ---- graph construction --------------------------------------------------------------------


def mark_variables(
    variables: NDArray | Sequence[NDArray],
    gradients: NDArray | Sequence[NDArray],
    grad_reqs: str | Sequence[str] = "write",
) -> None:
    """Mark arrays as variables whose gradients go to ``gradients`` (``attach_grad`` uses it)."""
    if isinstance(variables, NDArray):
        variables, gradients = [variables], [gradients]
    if isinstance(grad_reqs, str):
        grad_reqs = [grad_reqs] * len(variables)
    if not (len(variables) == len(gradients) == len(grad_reqs)):
        raise MXNetError(
            f"mark_variables: {len(variables)} variables, {len(gradients)} "
            f"gradients and {len(grad_reqs)} grad_reqs must match in number."
        )
    for v, g, r in zip(variables, gradients, grad_reqs):
        if not isinstance(v, NDArray) or not isinstance(g, NDArray):
            raise MXNetError("mark_variables: variables and gradients must be NDArrays.")
        node = _Node()
        node.var_ref = weakref.ref(v)
        node.grad_req = parse_req(r, "mark_variables: grad_reqs")
        node.uid = next(_var_count)
        v._grad = g
        v._grad_req = r
        v._ag = (node, 0)


def _saved(prop: OperatorProperty, n_in: int, n_out: int) -> tuple[tuple, tuple]:
    """Which inputs and outputs the backward of ``prop`` reads (by position)."""
    hit = prop._saved.get((n_in, n_out))
    if hit is not None:
        return hit
    simple = isinstance(prop, _SimpleProp)
    if simple:
        hit = _deps_cache.get((type(prop), n_in, n_out))
        if hit is not None:
            prop._saved[(n_in, n_out)] = hit
            return hit
    if prop.runs_on_caller:
        res = ((True,) * n_in, (True,) * n_out)
    else:
        deps = set(
            prop.declare_backward_dependency(
                list(range(n_out)),
                list(range(n_out, n_out + n_in)),
                list(range(n_out + n_in, n_out + n_in + n_out)),
            )
        )
        res = (
            tuple((n_out + i) in deps for i in range(n_in)),
            tuple((n_out + n_in + i) in deps for i in range(n_out)),
        )
    if simple:  # a SimpleOp's dependencies follow from its class (GradNeeds) alone
        _deps_cache[(type(prop), n_in, n_out)] = res
    prop._saved[(n_in, n_out)] = res  # a property's parameters are fixed: so are they
    return res


def _record(
    prop: OperatorProperty,
    args: list,
    outputs: list,
    aux: list,
    inline: bool = False,
    sparse: bool = False,
) -> None:
    # Checked before anything else, as MXNet does: writing into a marked variable would
    # otherwise re-point its _ag away from the variable node and cut later gradients off.
    for o in outputs:
        if o._ag is not None:
            raise MXNetError(
                f"{prop.op_name}: Inplace operations (+=, -=, x[:]=, etc) are not supported "
                "when recording with autograd: the array is already part of the recorded "
                "graph (a marked variable or a recorded result); do them outside "
                "autograd.record()."
            )
    entries = [x._ag for x in args]
    for e in entries:
        if e is not None:
            break
    else:
        return
    node = _Node()
    node.prop = prop
    node.inputs = entries
    node.uid = next(_node_count)
    node.ctx = outputs[0]._chunk.ctx if outputs else args[0]._chunk.ctx
    n_in, n_out = len(args), len(outputs)
    if sparse:  # a sparse kernel ran: its sparse backward (sparse_grad.py) reads the arrays
        node.sparse_in = list(args)
        node.in_data = list(args)
        node.in_meta = [(x.shape, x._data.dtype) for x in args]
        node.out_meta = [(o.shape, o._data.dtype) for o in outputs]
        node.n_out, node.inline = n_out, inline
        for i, o in enumerate(outputs):
            o._ag = (node, i)
        return
    save_in, save_out = _saved(prop, n_in, n_out)
    # (loops, not comprehensions: quicker for the few arrays of a call)
    in_data, in_meta = [], []
    for x, keep in zip(args, save_in):
        d = x._data
        in_data.append(_wrap(x._chunk, d) if keep else None)
        in_meta.append((d.shape, d.dtype))
    out_data, out_meta = [], []
    for i, (o, keep) in enumerate(zip(outputs, save_out)):
        d = o._data
        out_data.append(_wrap(o._chunk, d) if keep else None)
        out_meta.append((d.shape, d.dtype))
        o._ag = (node, i)
    node.in_data, node.in_meta, node.out_data, node.out_meta = in_data, in_meta, out_data, out_meta
    if aux:
        node.aux = [_wrap(a._chunk, a._data) for a in aux]
    node.n_out = n_out
    node.inline = inline


_invoke.set_record_hook(_record)
