"""MXNet 1.9.1's cells that change another cell or its input: dropout, zoneout, residual.

A ``ModifierCell`` wraps a base cell and marks it modified: from then on the base cell is used
only through the wrapper (its ``begin_state`` refuses direct calls), so a graph cannot mix the
plain and the modified step. ``ZoneoutCell`` needs single steps, so it refuses a cell that
cannot step (fused or bidirectional, declared by their ``_unsteppable``).
"""

from __future__ import annotations

from typing import Any

from .. import symbol
from ..base import MXNetError
from ._base import _PREFIX_PARAMS_DOC, BaseRNNCell, RNNParams, _normalize_sequence

__all__ = ["DropoutCell", "ModifierCell", "ResidualCell", "ZoneoutCell"]


class DropoutCell(BaseRNNCell):
    __doc__ = f"""Apply dropout on input.

    Parameters
    ----------
    dropout : float
        Percentage of elements to drop out, which
        is 1 - percentage to retain.
    prefix : str, default ``'dropout_'``
        {_PREFIX_PARAMS_DOC}
    """

    def __init__(
        self, dropout: float, prefix: str = "dropout_", params: RNNParams | None = None
    ) -> None:
        super().__init__(prefix, params)
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)):
            raise MXNetError(
                f"DropoutCell: argument 'dropout' must be a number, got {type(dropout).__name__}."
            )
        self.dropout = dropout

    @property
    def state_info(self) -> list:
        return []

    def __call__(self, inputs: symbol.Symbol, states: list) -> tuple[symbol.Symbol, list]:
        if self.dropout > 0:
            inputs = symbol.Dropout(data=inputs, p=self.dropout)
        return inputs, states

    def _unroll(
        self, length: int, inputs: Any, begin_state: Any, layout: str, merge_outputs: Any
    ) -> tuple[Any, list]:
        inputs, _ = _normalize_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, symbol.Symbol):
            return self(inputs, [])
        return super()._unroll(length, inputs, begin_state, layout, merge_outputs)


class ModifierCell(BaseRNNCell):
    """Base class for modifier cells. A modifier
    cell takes a base cell, apply modifications
    on it (e.g. Zoneout), and returns a new cell.

    After applying modifiers the base cell should
    no longer be called directly. The modifer cell
    should be used instead.
    """

    def __init__(self, base_cell: BaseRNNCell) -> None:
        super().__init__()
        base_cell._modified = True
        self.base_cell = base_cell

    @property
    def params(self) -> RNNParams:
        self._own_params = False
        return self.base_cell.params

    @property
    def state_info(self) -> list:
        return self.base_cell.state_info

    def begin_state(self, init_sym: Any = symbol.zeros, **kwargs: Any) -> list:  # type: ignore[override]
        self._check_not_modified("begin_state")
        # a stack passes func= by keyword (MXNet then raises TypeError); take it as init_sym
        init_sym = kwargs.pop("func", init_sym)
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(init_sym, **kwargs)
        finally:
            self.base_cell._modified = True

    def unpack_weights(self, args: dict) -> dict:
        return self.base_cell.unpack_weights(args)

    def pack_weights(self, args: dict) -> dict:
        return self.base_cell.pack_weights(args)


def _unsteppable(cell: BaseRNNCell) -> str | None:
    """The class name of the first cell in ``cell`` (itself included) that cannot step."""
    if cell._unsteppable is not None:
        return type(cell).__name__
    for child in getattr(cell, "_cells", []):
        found = _unsteppable(child)
        if found is not None:
            return found
    return None


class ZoneoutCell(ModifierCell):
    """Apply Zoneout on base cell.

    Parameters
    ----------
    base_cell : BaseRNNCell
        Cell on whose states to perform zoneout.
    zoneout_outputs : float, default 0.
        Fraction of the output that gets dropped out during training time.
    zoneout_states : float, default 0.
        Fraction of the states that gets dropped out during training time.
    """

    def __init__(
        self, base_cell: BaseRNNCell, zoneout_outputs: float = 0.0, zoneout_states: float = 0.0
    ) -> None:
        blocker = _unsteppable(base_cell)
        if blocker is not None:
            raise MXNetError(
                f"ZoneoutCell: argument 'base_cell' is or holds a {blocker}, which cannot be "
                "stepped; unfuse a FusedRNNCell, or wrap the cells under a BidirectionalCell."
            )
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self.prev_output = None

    def reset(self) -> None:
        super().reset()
        self.prev_output = None

    def __call__(self, inputs: symbol.Symbol, states: list) -> tuple[symbol.Symbol, list]:
        p_outputs, p_states = self.zoneout_outputs, self.zoneout_states
        next_output, next_states = self.base_cell(inputs, states)

        def mask(p: float, like: symbol.Symbol) -> symbol.Symbol:
            # Dropout of ones: 0 where zoned out (keep the old value), 1/(1-p) elsewhere
            return symbol.Dropout(symbol.ones_like(like), p=p)

        prev = self.prev_output if self.prev_output is not None else symbol.zeros((0, 0))
        output = next_output
        if p_outputs != 0.0:
            output = symbol.where(mask(p_outputs, next_output), next_output, prev)
        if p_states != 0.0:
            next_states = [
                symbol.where(mask(p_states, new), new, old) for new, old in zip(next_states, states)
            ]
        self.prev_output = output
        return output, next_states


class ResidualCell(ModifierCell):
    """Adds residual connection as described in Wu et al, 2016
    (https://arxiv.org/abs/1609.08144).

    Output of the cell is output of the base cell plus input.

    Parameters
    ----------
    base_cell : BaseRNNCell
        Cell on whose outputs to add residual connection.
    """

    def __call__(self, inputs: symbol.Symbol, states: list) -> tuple[symbol.Symbol, list]:
        output, states = self.base_cell(inputs, states)
        output = symbol.elemwise_add(output, inputs, name=f"{output.name}_plus_residual")
        return output, states

    def _unroll(
        self, length: int, inputs: Any, begin_state: Any, layout: str, merge_outputs: Any
    ) -> tuple[Any, list]:
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(
                length, inputs=inputs, begin_state=begin_state, layout=layout,
                merge_outputs=merge_outputs,
            )  # fmt: skip
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, symbol.Symbol)
        inputs, _ = _normalize_sequence(length, inputs, layout, merge_outputs)
        if merge_outputs:
            outputs = symbol.elemwise_add(outputs, inputs, name=f"{outputs.name}_plus_residual")
        else:
            outputs = [
                symbol.elemwise_add(o, i, name=f"{o.name}_plus_residual")
                for o, i in zip(outputs, inputs)
            ]
        return outputs, states
