"""``mx.autograd.get_symbol``: the recorded computation of an array as a Symbol."""

from __future__ import annotations

from typing import Any

from ..base import MXNetError
from ..ndarray.ndarray import NDArray
from ..operator.registry import OperatorProperty
from ..symbol.graph import Node as _GNode
from ..symbol.symbol import Symbol
from .backprop import _topo
from .recording import _var_count  # the recording numbers variables and nodes

__all__ = ["get_symbol"]


class _RecordedCall(OperatorProperty):
    """The shape of a recorded Function or cached-op call in a graph written to JSON: only
    its numbers of inputs and outputs (MXNet writes such nodes without attributes)."""

    def __init__(self, n_in: int, n_out: int) -> None:
        self._n_in, self._n_out = n_in, n_out
        super().__init__(None)

    def list_arguments(self) -> list[str]:
        return [f"data{i}" for i in range(self._n_in)]

    def list_outputs(self) -> list[str]:
        return [f"output{i}" for i in range(self._n_out)]


def get_symbol(x: NDArray) -> Any:
    """The recorded computation of ``x`` as a Symbol.

    Marked variables become variables ``var<k>`` and recorded calls nodes ``node_<k>``,
    numbered process-wide in the order they were marked or recorded, as MXNet numbers them.
    Inputs that were not part of the graph (constants) become variables ``null<k>``; MXNet
    numbers those when they are recorded and reuses one per array, mxlite numbers them here,
    one per use.

    Parameters
    ----------
    x : NDArray
        An array computed inside ``autograd.record()``.

    Returns
    -------
    Symbol
        The graph that computed ``x``, with the operators' parameters as attributes.
    """
    if not isinstance(x, NDArray):
        raise MXNetError(
            f"autograd.get_symbol: argument 'x' must be an NDArray, got {type(x).__name__}."
        )
    if x._ag is None:
        raise MXNetError(
            "autograd.get_symbol: argument 'x' is not part of a computation graph; compute it "
            "inside autograd.record() from arrays with attach_grad()."
        )
    made: dict[int, Any] = {}
    for n in _topo([x._ag[0]]):
        if n.prop is None and n.function is None:
            made[id(n)] = _GNode(None, f"var{n.uid}")
            continue
        inputs = [
            (made[id(e[0])], e[1])
            if e is not None
            else (_GNode(None, f"null{next(_var_count)}"), 0)
            for e in n.inputs
        ]
        inputs += [(_GNode(None, f"null{next(_var_count)}"), 0) for _ in n.aux]
        if n.function is not None:
            g = _GNode(n.function.graph_op_name, f"node_{n.uid}", {}, inputs)
            # no registered operator describes such a call: its counts come from the recording
            g._prop = _RecordedCall(len(inputs), n.n_out)
            made[id(n)] = g
        else:
            made[id(n)] = _GNode(n.prop.op_name, f"node_{n.uid}", n.prop.attrs(), inputs)
    return Symbol([(made[id(x._ag[0])], x._ag[1])])
