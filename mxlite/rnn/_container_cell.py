"""The container cells of ``mx.rnn``: ``SequentialRNNCell`` (a stack) and ``BidirectionalCell``
(a forward and a backward cell over the same sequence), sharing one ``RNNParams`` with their
children, as in MXNet 1.9.1. Handed on by ``rnn_cell.py``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .. import symbol
from ..base import MXNetError
from ._base import BaseRNNCell, RNNParams, _normalize_sequence

__all__ = ["SequentialRNNCell", "BidirectionalCell"]


def _num_states(cell: BaseRNNCell) -> int:
    return len(cell.state_info)


def _stacked(cells: Any, num_states: Callable, run: Callable, inputs: Any, states: list) -> tuple:
    """Runs ``cells`` one after another, each on the outputs of the one before and on its own
    ``num_states(cell)`` states of ``states``: ``run(i, cell, inputs, cell_states)`` gives its
    outputs and next states. Returns the last outputs and every cell's next states, in order."""
    p, next_states = 0, []
    for i, cell in enumerate(cells):
        n = num_states(cell)
        inputs, cell_states = run(i, cell, inputs, states[p : p + n])
        p += n
        next_states.extend(cell_states)
    return inputs, next_states


def step_stacked(
    cells: Any, num_states: Callable, inputs: Any, states: list, bidirectional: type,
    refused: Exception,
) -> tuple:  # fmt: skip
    """One step of a stack of cells (``mx.rnn``'s and Gluon's): raises ``refused`` on reaching a
    cell of the ``bidirectional`` class, which cannot step."""

    def step(i: int, cell: Any, x: Any, cell_states: list) -> tuple:
        if isinstance(cell, bidirectional):
            raise refused
        return cell(x, cell_states)

    return _stacked(cells, num_states, step, inputs, states)


def unroll_stacked(
    cells: list, num_states: Callable, length: int, inputs: Any, begin_state: list,
    layout: str, merge_outputs: Any, **more: Any,
) -> tuple:  # fmt: skip
    """Unrolls a stack of cells (``mx.rnn``'s and Gluon's): each over the outputs of the one
    before; only the last merges its outputs as ``merge_outputs`` asks. ``more`` goes to every
    cell's ``unroll`` (Gluon's ``valid_length``)."""
    last = len(cells) - 1

    def unroll(i: int, cell: Any, x: Any, cell_states: list) -> tuple:
        merge = None if i < last else merge_outputs
        return cell.unroll(
            length, inputs=x, begin_state=cell_states, layout=layout, merge_outputs=merge, **more
        )

    return _stacked(cells, num_states, unroll, inputs, begin_state)


class _CellGroup(BaseRNNCell):
    """A cell made of the cells in ``_cells``: their states one after another, their weights
    packed and unpacked each in turn, one ``RNNParams`` shared with them."""

    _cells: list[BaseRNNCell]

    def _share_params(self, cells: list[BaseRNNCell], where: str) -> None:
        """Share this cell's ``RNNParams`` with ``cells``: given to this cell, they go to the
        children (as MXNet, a child that has used its own container cannot take them), and the
        children's variables come back into it."""
        if self._override_cell_params:
            if not all(cell._own_params for cell in cells):
                raise MXNetError(
                    f"{where}: give params to the {type(self).__name__} or to its child cells, "
                    "not both."
                )
            for cell in cells:
                cell.params._params.update(self.params._params)
        for cell in cells:
            self.params._params.update(cell.params._params)

    @property
    def state_info(self) -> list:
        return sum([c.state_info for c in self._cells], [])

    def begin_state(self, **kwargs: Any) -> list:  # type: ignore[override]
        self._check_not_modified("begin_state")
        return sum([c.begin_state(**kwargs) for c in self._cells], [])

    def unpack_weights(self, args: dict) -> dict:
        for cell in self._cells:
            args = cell.unpack_weights(args)
        return args

    def pack_weights(self, args: dict) -> dict:
        for cell in self._cells:
            args = cell.pack_weights(args)
        return args


class SequentialRNNCell(_CellGroup):
    """Sequantially stacking multiple RNN cells.

    Parameters
    ----------
    params : RNNParams, default None
        Container for weight sharing between cells. Created if None.
    """

    def __init__(self, params: RNNParams | None = None) -> None:
        super().__init__(prefix="", params=params)
        self._override_cell_params = params is not None
        self._cells: list[BaseRNNCell] = []

    def add(self, cell: BaseRNNCell) -> None:
        """Append a cell into the stack.

        Parameters
        ----------
        cell : BaseRNNCell
            The cell to be appended. During unroll, previous cell's output (or raw inputs if
            no previous cell) is used as the input to this cell.
        """
        self._share_params([cell], "SequentialRNNCell.add")
        self._cells.append(cell)

    def __call__(self, inputs: symbol.Symbol, states: list) -> tuple[symbol.Symbol, list]:
        self._counter += 1
        refused = MXNetError(
            "SequentialRNNCell: a stack holding a BidirectionalCell cannot be stepped; use unroll."
        )
        return step_stacked(self._cells, _num_states, inputs, states, BidirectionalCell, refused)

    def _unroll(
        self, length: int, inputs: Any, begin_state: Any, layout: str, merge_outputs: Any
    ) -> tuple[Any, list]:
        if begin_state is None:
            begin_state = self.begin_state()
        return unroll_stacked(
            self._cells, _num_states, length, inputs, begin_state, layout, merge_outputs
        )


class BidirectionalCell(_CellGroup):
    """Bidirectional RNN cell.

    Parameters
    ----------
    l_cell : BaseRNNCell
        cell for forward unrolling
    r_cell : BaseRNNCell
        cell for backward unrolling
    params : RNNParams, default None.
        Container for weight sharing between cells.
        A new RNNParams container is created if `params` is None.
    output_prefix : str, default ``'bi_'``
        prefix for name of output
    """

    def __init__(
        self,
        l_cell: BaseRNNCell,
        r_cell: BaseRNNCell,
        params: RNNParams | None = None,
        output_prefix: str = "bi_",
    ) -> None:
        super().__init__("", params=params)
        self._output_prefix = output_prefix
        self._override_cell_params = params is not None
        self._share_params([l_cell, r_cell], "BidirectionalCell")
        self._cells = [l_cell, r_cell]

    _unsteppable = "Bidirectional"

    def _unroll(
        self, length: int, inputs: Any, begin_state: Any, layout: str, merge_outputs: Any
    ) -> tuple[Any, list]:
        inputs, axis = _normalize_sequence(length, inputs, layout, False)
        states = self.begin_state() if begin_state is None else begin_state
        l_cell, r_cell = self._cells
        n_left = len(l_cell.state_info)
        l_outputs, l_states = l_cell.unroll(
            length, inputs=inputs, begin_state=states[:n_left], layout=layout,
            merge_outputs=merge_outputs,
        )  # fmt: skip
        r_outputs, r_states = r_cell.unroll(
            length, inputs=list(reversed(inputs)), begin_state=states[n_left:], layout=layout,
            merge_outputs=merge_outputs,
        )  # fmt: skip
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, symbol.Symbol) and isinstance(
                r_outputs, symbol.Symbol
            )
            if not merge_outputs:
                split = functools.partial(
                    symbol.SliceChannel, axis=axis, num_outputs=length, squeeze_axis=1
                )
                if isinstance(l_outputs, symbol.Symbol):
                    l_outputs = list(split(l_outputs))
                if isinstance(r_outputs, symbol.Symbol):
                    r_outputs = list(split(r_outputs))
        if merge_outputs:
            out = symbol.Concat(
                l_outputs, symbol.reverse(r_outputs, axis=axis), dim=2,
                name=f"{self._output_prefix}out",
            )  # fmt: skip
            return out, [l_states, r_states]
        outputs = [
            symbol.Concat(l_o, r_o, dim=1, name=f"{self._output_prefix}t{i}")
            for i, (l_o, r_o) in enumerate(zip(l_outputs, list(reversed(r_outputs))))
        ]
        return outputs, [l_states, r_states]
