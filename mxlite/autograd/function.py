"""``mx.autograd.Function``: a differentiable function with a user-written backward."""

from __future__ import annotations

from typing import Any

from ..base import MXNetError
from ..ndarray.ndarray import NDArray, _wrap
from .recording import _Node, _node_count, is_recording, is_training, pause


class Function:
    """A differentiable function with a custom ``forward`` and ``backward`` on NDArrays.

    Subclass it, implement ``forward(*inputs)`` and ``backward(*output_grads)`` (returning one
    gradient per input), and call the instance on NDArrays inside ``autograd.record()``.
    ``save_for_backward(*arrays)`` keeps arrays in ``self.saved_tensors``.
    """

    # the operator name its calls have in ``autograd.get_symbol``'s graph, as MXNet's
    graph_op_name = "_CustomFunction"

    def __init__(self) -> None:
        self._used = False
        self.saved_tensors: tuple = ()

    def save_for_backward(self, *args: Any) -> None:
        self.saved_tensors = args

    def forward(self, *inputs: NDArray) -> Any:
        raise NotImplementedError

    def backward(self, *output_grads: NDArray) -> Any:
        raise NotImplementedError

    def __call__(self, *inputs: NDArray) -> Any:
        if self._used:
            raise MXNetError(
                "autograd.Function: each Function instance can be called only "
                "once; create a new instance per call."
            )
        self._used = True
        with pause(train_mode=is_training()):
            outputs = self.forward(*inputs)
        single = isinstance(outputs, NDArray)
        outs = [outputs] if single else list(outputs)
        if is_recording() and any(x._ag is not None for x in inputs):
            node = _Node()
            node.function = self
            node.inputs = [x._ag for x in inputs]
            node.in_data = [_wrap(x._chunk, x._data) for x in inputs]
            node.out_data = [_wrap(o._chunk, o._data) for o in outs]
            node.in_meta = [(x.shape, x._data.dtype) for x in inputs]
            node.out_meta = [(o.shape, o._data.dtype) for o in outs]
            node.n_out = len(outs)
            node.uid = next(_node_count)
            node.ctx = outs[0].context
            for i, o in enumerate(outs):
                o._ag = (node, i)
        return outputs

    def _backward(
        self, out_grads: list[NDArray], wanted: list[bool], targets: list | None = None
    ) -> list[NDArray | None]:
        """The input gradients autograd uses. ``targets``: per input, the ``.grad`` buffer of a
        variable whose only gradient this is (``grad_req='write'``), or None; a subclass may
        write that gradient there and return the buffer (the cached op does); this one
        ignores them."""
        with pause():
            res = self.backward(*out_grads)
        res = [res] if isinstance(res, NDArray) else list(res)
        if len(res) != len(wanted):
            raise MXNetError(
                f"autograd.Function.backward must return {len(wanted)} "
                f"gradients (one per input), got {len(res)}."
            )
        return [g if w else None for g, w in zip(res, wanted)]
