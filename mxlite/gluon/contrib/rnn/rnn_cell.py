"""Contrib recurrent cells: variational dropout (one mask for every step) and the LSTM with a
projected recurrent state."""

from __future__ import annotations

from typing import Any

from ....base import _as_list
from ...parameter import tensor_types as tensor_types  # MXNet's module has the name
from ...parameter_dict import _deferred
from ...rnn.basic_cell import (
    HybridRecurrentCell,
    _format_like_outputs,
    _format_sequence,
    _get_begin_state,
)
from ...rnn.container_cell import ModifierCell, _refuse_bidirectional

__all__ = ["VariationalDropoutCell", "LSTMPCell"]


class VariationalDropoutCell(ModifierCell):
    """Applies Variational Dropout on base cell (https://arxiv.org/pdf/1512.05287.pdf): the
    same dropout mask at every time step, separate masks for inputs, states and outputs.

    The mask is drawn at the first step and kept until ``reset()`` (which ``unroll`` calls).
    Without state dropout, ``unroll`` runs the input and output dropout once on the whole
    sequence.

    Parameters
    ----------
    base_cell : RecurrentCell
        The cell on which to perform variational dropout.
    drop_inputs : float, default 0.
        The dropout rate for inputs. Won't apply dropout if it equals 0.
    drop_states : float, default 0.
        The dropout rate for state inputs on the first state channel.
        Won't apply dropout if it equals 0.
    drop_outputs : float, default 0.
        The dropout rate for outputs. Won't apply dropout if it equals 0.
    """

    def __init__(
        self,
        base_cell: Any,
        drop_inputs: float = 0.0,
        drop_states: float = 0.0,
        drop_outputs: float = 0.0,
    ) -> None:
        if drop_states:
            _refuse_bidirectional(base_cell, "VariationalDropoutCell", "variational state dropout")
        super().__init__(base_cell)  # its reset() clears the masks
        self.drop_inputs = drop_inputs
        self.drop_states = drop_states
        self.drop_outputs = drop_outputs

    def _alias(self) -> str:
        return "vardrop"

    def reset(self) -> None:
        super().reset()
        self.drop_inputs_mask = None
        self.drop_states_mask = None
        self.drop_outputs_mask = None

    def hybrid_forward(self, F: Any, inputs: Any, states: Any) -> tuple:
        if self.drop_states and self.drop_states_mask is None:
            self.drop_states_mask = F.Dropout(F.ones_like(states[0]), p=self.drop_states)
        if self.drop_inputs and self.drop_inputs_mask is None:
            self.drop_inputs_mask = F.Dropout(F.ones_like(inputs), p=self.drop_inputs)
        if self.drop_states:
            # only h, always the first state, is dropped
            states = [states[0] * self.drop_states_mask, *states[1:]]
        if self.drop_inputs:
            inputs = inputs * self.drop_inputs_mask
        output, next_states = self.base_cell(inputs, states)
        if self.drop_outputs:
            if self.drop_outputs_mask is None:
                self.drop_outputs_mask = F.Dropout(F.ones_like(output), p=self.drop_outputs)
            output = output * self.drop_outputs_mask
        return output, next_states

    def __repr__(self) -> str:
        return f"{type(self).__name__}(p_out = {self.drop_outputs}, p_state = {self.drop_states})"

    def _unroll(self, length, inputs, begin_state, layout, merge_outputs, valid_length) -> tuple:
        if self.drop_states:
            return super()._unroll(length, inputs, begin_state, layout, merge_outputs, valid_length)
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, True)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        if self.drop_inputs:
            inputs = F.Dropout(inputs, p=self.drop_inputs, axes=(axis,))
        with self._base() as base:
            outputs, states = base.unroll(
                length, inputs, states, layout, merge_outputs=True, valid_length=valid_length
            )
        if self.drop_outputs:
            outputs = F.Dropout(outputs, p=self.drop_outputs, axes=(axis,))
        outputs, _, _ = _format_like_outputs(
            outputs, outputs, length, layout, merge_outputs, valid_length
        )
        return outputs, states


class LSTMPCell(HybridRecurrentCell):
    r"""Long-Short Term Memory Projected (LSTMP) network cell
    (https://arxiv.org/abs/1402.1128): an LSTM whose recurrent state is ``r_t = W_hr h_t``.

    Parameters
    ----------
    hidden_size : int
        Number of units in cell state symbol.
    projection_size : int
        Number of units in output symbol.
    i2h_weight_initializer, h2h_weight_initializer, h2r_weight_initializer : str or Initializer
        Initializers of the input, recurrent and projection weight matrices.
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer, default 'zeros'
        Initializers of the biases.
    input_size : int, default 0
        The number of expected features in the input x (inferred when 0).
    prefix : str, default ``'lstmp_``'
        Prefix for name of `Block`s (and name of weight if params is `None`).
    params : Parameter or None
        Container for weight sharing between cells. Created if `None`.

    Inputs:
        - **data**: input tensor with shape `(batch_size, input_size)`.
        - **states**: a list of two initial recurrent state tensors, with shape
          `(batch_size, projection_size)` and `(batch_size, hidden_size)` respectively.

    Outputs:
        - **out**: output tensor with shape `(batch_size, projection_size)`.
        - **next_states**: a list of two output recurrent state tensors. Each has
          the same shape as `states`.
    """

    def __init__(
        self,
        hidden_size: int,
        projection_size: int,
        i2h_weight_initializer: Any = None,
        h2h_weight_initializer: Any = None,
        h2r_weight_initializer: Any = None,
        i2h_bias_initializer: Any = "zeros",
        h2h_bias_initializer: Any = "zeros",
        input_size: int = 0,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        self._projection_size = projection_size
        nh, npj = 4 * hidden_size, projection_size
        p = self.params
        self.i2h_weight = _deferred(p, "i2h_weight", (nh, input_size), i2h_weight_initializer)
        self.h2h_weight = _deferred(p, "h2h_weight", (nh, npj), h2h_weight_initializer)
        self.h2r_weight = _deferred(p, "h2r_weight", (npj, hidden_size), h2r_weight_initializer)
        self.i2h_bias = _deferred(p, "i2h_bias", (nh,), i2h_bias_initializer)
        self.h2h_bias = _deferred(p, "h2h_bias", (nh,), h2h_bias_initializer)

    def state_info(self, batch_size: int = 0) -> list:
        return [
            {"shape": (batch_size, self._projection_size), "__layout__": "NC"},
            {"shape": (batch_size, self._hidden_size), "__layout__": "NC"},
        ]

    def _alias(self) -> str:
        return "lstmp"

    def __repr__(self) -> str:
        shape, proj = self.i2h_weight.shape, self.h2r_weight.shape
        mapping = f"{shape[1] if shape[1] else None} -> {shape[0]} -> {proj[0]}"
        return f"{type(self).__name__}({mapping})"

    def hybrid_forward(
        self, F, inputs, states, i2h_weight, h2h_weight, h2r_weight, i2h_bias, h2h_bias
    ):
        prefix = f"t{self._counter}_"
        n = self._hidden_size * 4
        i2h = F.FullyConnected(
            data=inputs, weight=i2h_weight, bias=i2h_bias, num_hidden=n, name=prefix + "i2h"
        )
        h2h = F.FullyConnected(
            data=states[0], weight=h2h_weight, bias=h2h_bias, num_hidden=n, name=prefix + "h2h"
        )
        gates = F.SliceChannel(i2h + h2h, num_outputs=4, name=prefix + "slice")
        in_gate = F.Activation(gates[0], act_type="sigmoid", name=prefix + "i")
        forget_gate = F.Activation(gates[1], act_type="sigmoid", name=prefix + "f")
        in_transform = F.Activation(gates[2], act_type="tanh", name=prefix + "c")
        out_gate = F.Activation(gates[3], act_type="sigmoid", name=prefix + "o")
        next_c = F.elemwise_add(
            forget_gate * states[1], in_gate * in_transform, name=prefix + "state"
        )
        hidden = F.elemwise_mul(
            out_gate, F.Activation(next_c, act_type="tanh"), name=prefix + "hidden"
        )
        next_r = F.FullyConnected(
            data=hidden,
            num_hidden=self._projection_size,
            weight=h2r_weight,
            no_bias=True,
            name=prefix + "out",
        )
        return next_r, [next_r, next_c]


def dynamic_unroll(
    cell: Any,
    inputs: Any,
    begin_state: Any,
    drop_inputs: float = 0,
    drop_outputs: float = 0,
    layout: str = "TNC",
    valid_length: Any = None,
) -> tuple[Any, list]:
    """Unrolls an RNN cell across time steps with ``contrib.foreach`` (one graph node for all
    the steps, so a hybridized block's graph does not grow with the sequence length).

    Parameters
    ----------
    cell : an object whose base class is RNNCell.
        The RNN cell to run on the input sequence.
    inputs : Symbol
        It should have shape (batch_size, length, ...) if `layout` is 'NTC',
        or (length, batch_size, ...) if `layout` is 'TNC'.
    begin_state : nested list of Symbol
        The initial states of the RNN sequence.
    drop_inputs : float, default 0.
        The dropout rate for inputs. Won't apply dropout if it equals 0.
    drop_outputs : float, default 0.
        The dropout rate for outputs. Won't apply dropout if it equals 0.
    layout : str, optional
        `layout` of input symbol. Only used if inputs is a single Symbol.
    valid_length : Symbol, NDArray or None
        The length of each sequence of the batch, shape (batch_size,); None when every
        sequence fills the whole length. Steps past a sequence's length leave its states as
        they were and its outputs are zeros.

    Returns
    -------
    outputs : Symbol
        the output of the RNN from this unrolling.
    states : list of Symbol
        The new state of this RNN after this unrolling.
    """
    inputs, axis, F, _ = _format_sequence(0, inputs, layout, True)
    if axis != 0:  # foreach walks axis 0: bring time there (a swap, its own inverse)
        axes = list(range(len(layout)))
        axes[0], axes[axis] = axes[axis], axes[0]
        inputs = F.transpose(inputs, axes=axes)
    if drop_inputs:
        inputs = F.Dropout(inputs, p=drop_inputs, axes=(axis,))
    states = list(_as_list(begin_state))
    if valid_length is None:

        def step(x: Any, st: list) -> Any:
            return cell(x, st)

    else:
        states.append(F.zeros((1,)))  # the step count travels as one more state

        def step(x: Any, st: list) -> Any:
            *old, t = st
            out, new = cell(x, old)
            alive = F.broadcast_greater(valid_length, t)
            new = [F.where(alive, n, o) for n, o in zip(_as_list(new), old)]
            return out, new + [t + 1]

    outputs, states = F.contrib.foreach(step, inputs, states)
    if drop_outputs:
        outputs = F.Dropout(outputs, p=drop_outputs, axes=(axis,))
    if axis != 0:
        outputs = F.transpose(outputs, axes=axes)
    if valid_length is None:
        return outputs, states
    outputs = F.SequenceMask(
        outputs, sequence_length=valid_length, use_sequence_length=True, axis=axis
    )
    return outputs, states[:-1]
