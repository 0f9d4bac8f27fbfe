"""Cells made of cells: the sequential stacks, dropout between layers, the modifiers (zoneout,
residual) and the bidirectional pair. Re-exported by ``rnn_cell``, where MXNet defines them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from numbers import Number
from typing import Any

from ... import symbol
from ...base import ParamError
from ...rnn._container_cell import step_stacked, unroll_stacked
from ..parameter import tensor_types
from ..parameter_core import _indent
from .basic_cell import (
    HybridRecurrentCell,
    RecurrentCell,
    _cells_begin_state,
    _cells_state_info,
    _format_like_outputs,
    _format_sequence,
    _get_begin_state,
    _mask_sequence_variable_length,
    _reverse_sequences,
)

__all__ = [
    "SequentialRNNCell", "HybridSequentialRNNCell", "DropoutCell", "ModifierCell",
    "ZoneoutCell", "ResidualCell", "BidirectionalCell",
]  # fmt: skip


def _num_states(cell: Any) -> int:
    return len(cell.state_info())


def _refuse_bidirectional(cell: Any, modifier: str, what: str) -> None:
    """Raises if ``cell`` is a BidirectionalCell or a stack with one (a cell that cannot step),
    which the ``modifier`` cell cannot wrap to apply ``what``."""
    if isinstance(cell, BidirectionalCell) or (
        isinstance(cell, (SequentialRNNCell, HybridSequentialRNNCell))
        and any(isinstance(c, BidirectionalCell) for c in cell._children.values())
    ):
        raise ParamError(
            f"{modifier}: a bidirectional cell cannot take {what}. Please add {modifier} to the "
            "cells underneath instead."
        )


class _StackMixin:
    """What the plain and the hybrid sequential stacks share."""

    def __repr__(self) -> str:
        body = "\n".join(f"({i}): {_indent(repr(m), 2)}" for i, m in self._children.items())
        return f"{type(self).__name__}(\n{body}\n)"

    def add(self, cell: Any) -> None:
        """Appends a cell into the stack.

        Parameters
        ----------
        cell : RecurrentCell
            The cell to add.
        """
        self.register_child(cell)

    def state_info(self, batch_size: int = 0) -> list:
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs: Any) -> list:
        self._check_not_modified()
        return _cells_begin_state(self._children.values(), **kwargs)

    def __call__(self, inputs: Any, states: Any) -> tuple:
        self._counter += 1
        refused = ParamError(
            f"{type(self).__name__}: a BidirectionalCell cannot be stepped; use unroll."
        )
        cells = self._children.values()
        return step_stacked(cells, _num_states, inputs, states, BidirectionalCell, refused)

    def _unroll(self, length, inputs, begin_state, layout, merge_outputs, valid_length) -> tuple:
        inputs, _, F, batch_size = _format_sequence(length, inputs, layout, None)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size)
        return unroll_stacked(
            list(self._children.values()), _num_states, length, inputs, begin_state, layout,
            merge_outputs, valid_length=valid_length,
        )  # fmt: skip

    def __getitem__(self, i: int) -> Any:
        return self._children[str(i)]

    def __len__(self) -> int:
        return len(self._children)


class SequentialRNNCell(_StackMixin, RecurrentCell):
    """Sequentially stacking multiple RNN cells."""

    def hybrid_forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


class HybridSequentialRNNCell(_StackMixin, HybridRecurrentCell):
    """Sequentially stacking multiple HybridRNN cells."""

    def hybrid_forward(self, F: Any, inputs: Any, states: Any) -> Any:
        return self.__call__(inputs, states)


class DropoutCell(HybridRecurrentCell):
    """Applies dropout on input.

    Parameters
    ----------
    rate : float
        Percentage of elements to drop out, which is 1 - percentage to retain.
    axes : tuple of int, default ()
        The axes on which dropout mask is shared. If empty, regular dropout is applied.

    Inputs:
        - **data**: input tensor with shape `(batch_size, size)`.
        - **states**: a list of recurrent state tensors.

    Outputs:
        - **out**: output tensor with shape `(batch_size, size)`.
        - **next_states**: returns input `states` directly.
    """

    def __init__(
        self, rate: float, axes: tuple = (), prefix: str | None = None, params: Any = None
    ) -> None:
        super().__init__(prefix, params)
        if not isinstance(rate, Number):
            raise ParamError(f"DropoutCell: argument 'rate' must be a number, got {rate!r}.")
        self._rate = rate
        self._axes = axes

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rate={self._rate}, axes={self._axes})"

    def state_info(self, batch_size: int = 0) -> list:
        return []

    def _alias(self) -> str:
        return "dropout"

    def hybrid_forward(self, F: Any, inputs: Any, states: Any) -> tuple:
        if self._rate > 0:
            inputs = F.Dropout(
                data=inputs, p=self._rate, axes=self._axes, name=f"t{self._counter}_fwd"
            )
        return inputs, states

    def _unroll(self, length, inputs, begin_state, layout, merge_outputs, valid_length) -> tuple:
        inputs, _, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, tensor_types):
            return self.hybrid_forward(F, inputs, begin_state if begin_state else [])
        return super()._unroll(length, inputs, begin_state, layout, merge_outputs, None)


class ModifierCell(HybridRecurrentCell):
    """Base class for modifier cells. A modifier cell takes a base cell, apply modifications
    on it (e.g. Zoneout), and returns a new cell. After applying modifiers the base cell should
    no longer be called directly. The modifier cell should be used instead."""

    def __init__(self, base_cell: Any) -> None:
        if base_cell._modified:
            raise ParamError(
                f"Cell {base_cell.name} is already modified. One cell cannot be modified twice"
            )
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(), params=None)
        self.base_cell = base_cell

    @property
    def params(self) -> Any:
        return self.base_cell.params

    def state_info(self, batch_size: int = 0) -> list:
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func: Any = symbol.zeros, **kwargs: Any) -> list:
        self._check_not_modified()
        with self._base() as base:
            return base.begin_state(func=func, **kwargs)

    @contextmanager
    def _base(self) -> Iterator[Any]:
        """The base cell, callable (not marked modified) while in the block."""
        self.base_cell._modified = False
        try:
            yield self.base_cell
        finally:
            self.base_cell._modified = True

    def hybrid_forward(self, F: Any, inputs: Any, states: Any) -> Any:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_cell})"


class ZoneoutCell(ModifierCell):
    """Applies Zoneout on base cell.

    Parameters
    ----------
    base_cell : RecurrentCell
        The cell to modify.
    zoneout_outputs : float, default 0.
        The probability of keeping the previous output.
    zoneout_states : float, default 0.
        The probability of keeping the previous states.
    """

    def __init__(
        self, base_cell: Any, zoneout_outputs: float = 0.0, zoneout_states: float = 0.0
    ) -> None:
        _refuse_bidirectional(base_cell, "ZoneoutCell", "zoneout (it cannot be stepped)")
        super().__init__(base_cell)  # its reset() clears _prev_output
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(p_out={self.zoneout_outputs}, "
            f"p_state={self.zoneout_states}, {self.base_cell})"
        )

    def _alias(self) -> str:
        return "zoneout"

    def reset(self) -> None:
        super().reset()
        self._prev_output = None

    def hybrid_forward(self, F: Any, inputs: Any, states: Any) -> tuple:
        p_out, p_state = self.zoneout_outputs, self.zoneout_states
        next_output, next_states = self.base_cell(inputs, states)

        def mask(p: float, like: Any) -> Any:
            return F.Dropout(F.ones_like(like), p=p)

        prev = self._prev_output
        if prev is None:
            prev = F.zeros_like(next_output)
        output = F.where(mask(p_out, next_output), next_output, prev) if p_out != 0 else next_output
        if p_state != 0:
            states = [F.where(mask(p_state, n), n, o) for n, o in zip(next_states, states)]
        else:
            states = next_states
        self._prev_output = output
        return output, states


class ResidualCell(ModifierCell):
    """Adds residual connection as described in Wu et al, 2016
    (https://arxiv.org/abs/1609.08144): the output of the cell is the output of the base cell
    plus its input."""

    def _alias(self) -> str:
        return "residual"

    def hybrid_forward(self, F: Any, inputs: Any, states: Any) -> tuple:
        output, states = self.base_cell(inputs, states)
        return F.elemwise_add(output, inputs, name=f"t{self._counter}_fwd"), states

    def _unroll(self, length, inputs, begin_state, layout, merge_outputs, valid_length) -> tuple:
        with self._base() as base:
            outputs, states = base.unroll(
                length,
                inputs=inputs,
                begin_state=begin_state,
                layout=layout,
                merge_outputs=merge_outputs,
                valid_length=valid_length,
            )
        inputs, merge_outputs, F = _format_like_outputs(
            outputs, inputs, length, layout, merge_outputs, valid_length
        )
        if merge_outputs:
            return F.elemwise_add(outputs, inputs), states
        return [F.elemwise_add(i, j) for i, j in zip(outputs, inputs)], states


class BidirectionalCell(HybridRecurrentCell):
    """Bidirectional RNN cell.

    Parameters
    ----------
    l_cell : RecurrentCell
        Cell for forward unrolling
    r_cell : RecurrentCell
        Cell for backward unrolling
    """

    def __init__(self, l_cell: Any, r_cell: Any, output_prefix: str = "bi_") -> None:
        super().__init__(prefix="", params=None)
        self.register_child(l_cell, "l_cell")
        self.register_child(r_cell, "r_cell")
        self._output_prefix = output_prefix

    def __call__(self, inputs: Any, states: Any) -> Any:
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    def __repr__(self) -> str:
        c = self._children
        return f"{type(self).__name__}(forward={c['l_cell']}, backward={c['r_cell']})"

    def state_info(self, batch_size: int = 0) -> list:
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs: Any) -> list:
        self._check_not_modified()
        return _cells_begin_state(self._children.values(), **kwargs)

    def _unroll(self, length, inputs, begin_state, layout, merge_outputs, valid_length) -> tuple:
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        reversed_inputs = _reverse_sequences(inputs, length, valid_length)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        l_cell, r_cell = self._children.values()
        n_l = len(l_cell.state_info(batch_size))
        l_outputs, l_states = l_cell.unroll(
            length,
            inputs=inputs,
            begin_state=states[:n_l],
            layout=layout,
            merge_outputs=merge_outputs,
            valid_length=valid_length,
        )
        r_outputs, r_states = r_cell.unroll(
            length,
            inputs=reversed_inputs,
            begin_state=states[n_l:],
            layout=layout,
            merge_outputs=False,
            valid_length=valid_length,
        )
        reversed_r_outputs = _reverse_sequences(r_outputs, length, valid_length)
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, tensor_types)
            l_outputs, _, _, _ = _format_sequence(None, l_outputs, layout, merge_outputs)
            reversed_r_outputs, _, _, _ = _format_sequence(
                None, reversed_r_outputs, layout, merge_outputs
            )
        if merge_outputs:
            reversed_r_outputs = F.stack(*reversed_r_outputs, axis=axis)
            outputs = F.concat(
                l_outputs, reversed_r_outputs, dim=2, name=f"{self._output_prefix}out"
            )
        else:
            outputs = [
                F.concat(lo, ro, dim=1, name=f"{self._output_prefix}t{i}")
                for i, (lo, ro) in enumerate(zip(l_outputs, reversed_r_outputs))
            ]
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(
                F, outputs, length, valid_length, axis, merge_outputs
            )
        return outputs, l_states + r_states
