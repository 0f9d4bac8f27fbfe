"""Gluon's recurrent cell base and the RNN, LSTM and GRU cells (re-exported by ``rnn_cell``).

Design note
-----------
A cell is a Block whose ``forward(inputs, states)`` returns ``(output, new_states)``; the
hybrid cells (``RNNCell``, ``LSTMCell``, ``GRUCell`` and the containers and modifiers) write
``hybrid_forward(F, inputs, states, ...)`` once for NDArray and Symbol. ``_counter`` numbers the
steps of the current unroll (the ``t0_``, ``t1_`` of node names) and ``_init_counter`` the
begin states; ``reset()`` zeroes both and every ``unroll`` starts with it. A cell wrapped by a
modifier (Zoneout, Residual) is marked ``_modified`` and must be called through the wrapper.
With ``valid_length``, ``unroll`` returns each sequence's last valid states and zero outputs
past its end (SequenceLast, SequenceMask); the reverse direction of ``BidirectionalCell``
reverses each sequence within its valid length only (SequenceReverse).
"""

from __future__ import annotations

from typing import Any

from ... import ndarray, symbol
from ...base import ParamError, _as_list, fill_doc
from ...rnn._base import symbol_steps
from ..block import Block, HybridBlock
from ..nn import LeakyReLU
from ..parameter import tensor_types
from ..parameter_dict import _deferred

__all__ = [
    "RecurrentCell", "HybridRecurrentCell", "RNNCell", "LSTMCell", "GRUCell",
]  # fmt: skip


def _cells_state_info(cells: Any, batch_size: int) -> list:
    return [info for c in cells for info in c.state_info(batch_size)]


def _cells_begin_state(cells: Any, **kwargs: Any) -> list:
    return [s for c in cells for s in c.begin_state(**kwargs)]


def _get_begin_state(cell: Any, F: Any, begin_state: Any, inputs: Any, batch_size: int) -> list:
    if begin_state is not None:
        return begin_state
    if F is ndarray:
        ctx = inputs.context if isinstance(inputs, tensor_types) else inputs[0].context
        with ctx:
            return cell.begin_state(func=F.zeros, batch_size=batch_size)
    return cell.begin_state(func=F.zeros, batch_size=batch_size)


def _format_sequence(length: Any, inputs: Any, layout: str, merge: Any, in_layout: Any = None):
    """The sequence as one array (merge True), a list of steps (False) or as it is (None);
    returns it with the time axis, the namespace (nd or sym) and the batch size (0 for sym)."""
    if inputs is None:
        raise ParamError("unroll: argument 'inputs' is required (unroll(inputs=None) was removed).")
    axis, batch_axis = layout.find("T"), layout.find("N")
    in_axis = in_layout.find("T") if in_layout is not None else axis
    batch_size = 0
    if isinstance(inputs, symbol.Symbol):
        F = symbol
        if merge is False:
            grouped = ParamError(
                "unroll doesn't allow grouped symbol as input. Please convert to list with "
                "list(inputs) first or let unroll handle splitting."
            )
            inputs = symbol_steps(inputs, in_axis, length, grouped)
    elif isinstance(inputs, ndarray.NDArray):
        F = ndarray
        batch_size = inputs.shape[batch_axis]
        if merge is False:
            if length is not None and length != inputs.shape[in_axis]:
                raise ParamError(
                    f"unroll: length={length} but the inputs have {inputs.shape[in_axis]} steps."
                )
            n = inputs.shape[in_axis]
            inputs = _as_list(ndarray.split(inputs, axis=in_axis, num_outputs=n, squeeze_axis=1))
    else:
        if length is not None and len(inputs) != length:
            raise ParamError(f"unroll: length={length} but {len(inputs)} inputs came.")
        if isinstance(inputs[0], symbol.Symbol):
            F = symbol
        else:
            F = ndarray
            batch_size = inputs[0].shape[0]
        if merge is True:
            inputs = F.stack(*inputs, axis=axis)
            in_axis = axis
    if isinstance(inputs, tensor_types) and axis != in_axis:
        inputs = F.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis, F, batch_size


def _mask_sequence_variable_length(F: Any, data: Any, length: int, valid_length: Any, axis, merge):
    if not isinstance(data, tensor_types):
        data = F.stack(*data, axis=axis)
    outputs = F.SequenceMask(
        data, sequence_length=valid_length, use_sequence_length=True, axis=axis
    )
    if not merge:
        outputs = _as_list(F.split(outputs, num_outputs=length, axis=axis, squeeze_axis=True))
    return outputs


def _format_like_outputs(outputs, seq, length, layout, merge, valid_length) -> tuple:
    """``seq`` as ``unroll`` returns it: merged as asked (if ``merge`` is None, as ``outputs``
    came), steps past ``valid_length`` zeroed; with the merge flag and the namespace."""
    if merge is None:
        merge = isinstance(outputs, tensor_types)
    seq, axis, F, _ = _format_sequence(length, seq, layout, merge)
    if valid_length is not None:
        seq = _mask_sequence_variable_length(F, seq, length, valid_length, axis, merge)
    return seq, merge, F


def _reverse_sequences(sequences: list, unroll_step: int, valid_length: Any = None) -> list:
    F = symbol if isinstance(sequences[0], symbol.Symbol) else ndarray
    if valid_length is None:
        return list(reversed(sequences))
    rev = F.SequenceReverse(
        F.stack(*sequences, axis=0), sequence_length=valid_length, use_sequence_length=True
    )
    if unroll_step > 1 or F is symbol:
        return list(F.split(rev, axis=0, num_outputs=unroll_step, squeeze_axis=True))
    return [rev[0]]


class RecurrentCell(Block):
    """Abstract base class for RNN cells

    Parameters
    ----------
    prefix : str, optional
        Prefix for names of `Block`s (and of weights if `params` is `None`).
    params : Parameter or None, default None
        Container for weight sharing between cells.
        A new Parameter container is created if `params` is `None`.
    """

    def __init__(self, prefix: str | None = None, params: Any = None) -> None:
        super().__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self) -> None:
        """Reset before re-using the cell for another graph."""
        self._init_counter = -1
        self._counter = -1
        for cell in self._children.values():
            cell.reset()

    def state_info(self, batch_size: int = 0) -> list:
        """shape and layout information of states"""
        raise NotImplementedError()

    def _check_not_modified(self) -> None:
        if self._modified:
            raise ParamError(
                "After applying modifier cells (e.g. ZoneoutCell) the base cell cannot be "
                "called directly. Call the modifier cell instead."
            )

    def begin_state(self, batch_size: int = 0, func: Any = ndarray.zeros, **kwargs: Any) -> list:
        """Initial state for this cell.

        Parameters
        ----------
        func : callable, default symbol.zeros
            Function for creating initial state (`symbol.zeros`, `symbol.var`,
            `ndarray.zeros`, ...).
        batch_size: int, default 0
            Only required for NDArray API. Size of the batch ('N' in layout).
        **kwargs :
            Additional keyword arguments passed to func (`mean`, `std`, `dtype`, ...).

        Returns
        -------
        states : nested list of Symbol
            Starting states for the first RNN step.
        """
        self._check_not_modified()
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            info = dict(info or {}, **kwargs)
            states.append(func(name=f"{self._prefix}begin_state_{self._init_counter}", **info))
        return states

    def unroll(
        self,
        length: int,
        inputs: Any,
        begin_state: Any = None,
        layout: str = "NTC",
        merge_outputs: bool | None = None,
        valid_length: Any = None,
    ) -> tuple:
        """Unrolls an RNN cell across time steps.

        Parameters
        ----------
        length : int
            Number of steps to unroll.
        inputs : Symbol, list of Symbol, or None
            One array of shape (batch_size, length, ...) if `layout` is 'NTC' (or
            (length, batch_size, ...) if 'TNC'), or a list of `length` arrays of shape
            (batch_size, ...).
        begin_state : nested list of Symbol, optional
            Input states created by `begin_state()` or output state of another cell.
            Created from `begin_state()` if `None`.
        layout : str, optional
            `layout` of input symbol. Only used if inputs is a single Symbol.
        merge_outputs : bool, optional
            If `False`, returns outputs as a list of Symbols; if `True`, one array stacked
            along the time axis of `layout`; if `None`, whatever is faster.
        valid_length : Symbol, NDArray or None
            The length of each sequence of the batch (shape (batch_size,)): the last valid
            state is returned and the padded outputs are masked with 0.

        Returns
        -------
        outputs : list of Symbol or Symbol
            The outputs of the RNN from this unrolling.
        states : list of Symbol
            The new state of this RNN after this unrolling.
        """
        self.reset()
        return self._unroll(length, inputs, begin_state, layout, merge_outputs, valid_length)

    def _unroll(self, length, inputs, begin_state, layout, merge_outputs, valid_length) -> tuple:
        """What ``unroll`` does after ``reset()``: step the cell ``length`` times (overridden by
        the cells that unroll otherwise)."""
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        outputs, all_states = [], []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
            if valid_length is not None:
                all_states.append(states)
        if valid_length is not None:
            states = [
                F.SequenceLast(
                    F.stack(*steps, axis=0),
                    sequence_length=valid_length,
                    use_sequence_length=True,
                    axis=0,
                )
                for steps in zip(*all_states)
            ]
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis, True)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, F: Any, inputs: Any, activation: Any, **kwargs: Any) -> Any:
        """Get activation function. Convert if is string"""
        named = {"tanh": F.tanh, "relu": F.relu, "sigmoid": F.sigmoid, "softsign": F.softsign}
        if isinstance(activation, str):
            if activation in named:
                return named[activation](inputs, **kwargs)
            return F.Activation(inputs, act_type=activation, **kwargs)
        if isinstance(activation, LeakyReLU):
            return F.LeakyReLU(inputs, act_type="leaky", slope=activation._alpha, **kwargs)
        return activation(inputs, **kwargs)

    def forward(self, inputs: Any, states: Any) -> Any:
        """Unrolls the recurrent cell for one time step.

        Parameters
        ----------
        inputs : sym.Variable
            Input symbol, 2D, of shape (batch_size * num_units).
        states : list of sym.Variable
            RNN state from previous step or the output of begin_state().

        Returns
        -------
        output : Symbol
            The output of the RNN for this time step.
        states : list of Symbol
            The new state of this RNN after this step.
        """
        self._counter += 1
        return super().forward(inputs, states)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    """HybridRecurrentCell supports hybridize."""

    def hybrid_forward(self, F: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


class _MappedCell(HybridRecurrentCell):
    """A cell whose step maps the input (i2h) and the first state (h2h) with its four weights
    (``_maps``: fully connected here, convolutions in ``contrib.rnn``) and combines them
    (``_step``)."""

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        i2h, h2h = self._maps(F, prefix, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias)
        return self._step(F, prefix, i2h, h2h, states)

    def _maps(self, F: Any, prefix: str, inputs: Any, states: Any, *weights: Any) -> tuple:
        raise NotImplementedError

    def _step(self, F: Any, prefix: str, i2h: Any, h2h: Any, states: Any) -> tuple:
        raise NotImplementedError


# The weight and input-size parameters RNNCell, LSTMCell and GRUCell document alike.
_cell_doc = fill_doc(
    cell_weights="""i2h_weight_initializer, h2h_weight_initializer : str or Initializer
    Initializers of the input and recurrent weight matrices.
i2h_bias_initializer, h2h_bias_initializer : str or Initializer, default 'zeros'
    Initializers of the biases.
input_size : int, default 0
    The number of expected features in the input x (inferred when 0)."""
)


class _GatedCell(_MappedCell):
    """The weights i2h/h2h (``gates * hidden_size`` rows) shared by RNN, LSTM and GRU cells;
    its parameters and defaults are GRUCell's, which has no others."""

    _num_gates = 1
    _num_states = 1

    def __init__(
        self,
        hidden_size: int,
        i2h_weight_initializer: Any = None,
        h2h_weight_initializer: Any = None,
        i2h_bias_initializer: Any = "zeros",
        h2h_bias_initializer: Any = "zeros",
        input_size: int = 0,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        n = self._num_gates * hidden_size
        p = self.params
        self.i2h_weight = _deferred(p, "i2h_weight", (n, input_size), i2h_weight_initializer)
        self.h2h_weight = _deferred(p, "h2h_weight", (n, hidden_size), h2h_weight_initializer)
        self.i2h_bias = _deferred(p, "i2h_bias", (n,), i2h_bias_initializer)
        self.h2h_bias = _deferred(p, "h2h_bias", (n,), h2h_bias_initializer)

    def state_info(self, batch_size: int = 0) -> list:
        return [
            {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}
            for _ in range(self._num_states)
        ]

    def __repr__(self) -> str:
        shape = self.i2h_weight.shape
        mapping = f"{shape[1] if shape[1] else None} -> {shape[0]}"
        act = getattr(self, "_activation", None)
        extra = f", {act}" if isinstance(self, RNNCell) else ""
        return f"{type(self).__name__}({mapping}{extra})"

    def _maps(self, F: Any, prefix: str, inputs: Any, states: Any, i2h_w, h2h_w, i2h_b, h2h_b):
        n = self._num_gates * self._hidden_size
        i2h = F.FullyConnected(
            data=inputs, weight=i2h_w, bias=i2h_b, num_hidden=n, name=prefix + "i2h"
        )
        h2h = F.FullyConnected(
            data=states[0], weight=h2h_w, bias=h2h_b, num_hidden=n, name=prefix + "h2h"
        )
        return i2h, h2h


@_cell_doc
class RNNCell(_GatedCell):
    r"""Elman RNN recurrent neural network cell: ``h_t = act(W_ih x_t + b_ih + W_hh h_{t-1} +
    b_hh)``.

    Parameters
    ----------
    hidden_size : int
        Number of units in output symbol
    activation : str or Symbol, default 'tanh'
        Type of activation function.
    {cell_weights}
    prefix : str, default ``'rnn_'``
        Prefix for name of `Block`s (and name of weight if params is `None`).
    params : Parameter or None
        Container for weight sharing between cells.

    Inputs:
        - **data**: input tensor with shape `(batch_size, input_size)`.
        - **states**: a list of one initial recurrent state tensor with shape
          `(batch_size, num_hidden)`.

    Outputs:
        - **out**: output tensor with shape `(batch_size, num_hidden)`.
        - **next_states**: a list of one output recurrent state tensor with the
          same shape as `states`.
    """

    def __init__(
        self,
        hidden_size: int,
        activation: Any = "tanh",
        i2h_weight_initializer: Any = None,
        h2h_weight_initializer: Any = None,
        i2h_bias_initializer: Any = "zeros",
        h2h_bias_initializer: Any = "zeros",
        input_size: int = 0,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__(
            hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
            h2h_bias_initializer, input_size, prefix, params,
        )  # fmt: skip
        self._activation = activation

    def _alias(self) -> str:
        return "rnn"

    def _step(self, F: Any, prefix: str, i2h: Any, h2h: Any, states: Any) -> tuple:
        total = F.elemwise_add(i2h, h2h, name=prefix + "plus0")
        output = self._get_activation(F, total, self._activation, name=prefix + "out")
        return output, [output]


@_cell_doc
class LSTMCell(_GatedCell):
    r"""Long-Short Term Memory (LSTM) network cell (gates in the order input, forget, cell,
    output, as MXNet's fused LSTM).

    Parameters
    ----------
    hidden_size : int
        Number of units in output symbol.
    {cell_weights}
    prefix : str, default ``'lstm_'``
        Prefix for name of `Block`s (and name of weight if params is `None`).
    params : Parameter or None, default None
        Container for weight sharing between cells.
    activation : str, default 'tanh'
        Activation type to use.
    recurrent_activation : str, default 'sigmoid'
        Activation type to use for the recurrent step.

    Inputs:
        - **data**: input tensor with shape `(batch_size, input_size)`.
        - **states**: a list of two initial recurrent state tensors (h, c), each of shape
          `(batch_size, num_hidden)`.

    Outputs:
        - **out**: output tensor with shape `(batch_size, num_hidden)`.
        - **next_states**: a list of two output recurrent state tensors.
    """

    _num_gates = 4
    _num_states = 2

    def __init__(
        self,
        hidden_size: int,
        i2h_weight_initializer: Any = None,
        h2h_weight_initializer: Any = None,
        i2h_bias_initializer: Any = "zeros",
        h2h_bias_initializer: Any = "zeros",
        input_size: int = 0,
        prefix: str | None = None,
        params: Any = None,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
    ) -> None:
        super().__init__(
            hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
            h2h_bias_initializer, input_size, prefix, params,
        )  # fmt: skip
        self._activation = activation
        self._recurrent_activation = recurrent_activation

    def _alias(self) -> str:
        return "lstm"

    def _step(self, F: Any, prefix: str, i2h: Any, h2h: Any, states: Any) -> tuple:
        gates = F.elemwise_add(i2h, h2h, name=prefix + "plus0")
        sliced = F.SliceChannel(gates, num_outputs=4, name=prefix + "slice")
        act, rec = self._activation, self._recurrent_activation
        in_gate = self._get_activation(F, sliced[0], rec, name=prefix + "i")
        forget_gate = self._get_activation(F, sliced[1], rec, name=prefix + "f")
        in_transform = self._get_activation(F, sliced[2], act, name=prefix + "c")
        out_gate = self._get_activation(F, sliced[3], rec, name=prefix + "o")
        next_c = F.elemwise_add(
            F.elemwise_mul(forget_gate, states[1], name=prefix + "mul0"),
            F.elemwise_mul(in_gate, in_transform, name=prefix + "mul1"),
            name=prefix + "state",
        )
        next_h = F.elemwise_mul(
            out_gate,
            F.Activation(next_c, act_type=act, name=prefix + "activation0"),
            name=prefix + "out",
        )
        return next_h, [next_h, next_c]


@_cell_doc
class GRUCell(_GatedCell):
    r"""Gated Rectified Unit (GRU) network cell, the cuDNN variant (the reset gate is applied
    after the recurrent matrix product), gates in the order reset, update, new.

    Parameters
    ----------
    hidden_size : int
        Number of units in output symbol.
    {cell_weights}
    prefix : str, default ``'gru_'``
        prefix for name of `Block`s (and name of weight if params is `None`).
    params : Parameter or None, default None
        Container for weight sharing between cells.

    Inputs:
        - **data**: input tensor with shape `(batch_size, input_size)`.
        - **states**: a list of one initial recurrent state tensor with shape
          `(batch_size, num_hidden)`.

    Outputs:
        - **out**: output tensor with shape `(batch_size, num_hidden)`.
        - **next_states**: a list of one output recurrent state tensor.
    """

    _num_gates = 3

    def _alias(self) -> str:
        return "gru"

    def _step(self, F: Any, prefix: str, i2h: Any, h2h: Any, states: Any) -> tuple:
        prev_h = states[0]
        i2h_r, i2h_z, i2h = F.SliceChannel(i2h, num_outputs=3, name=prefix + "i2h_slice")
        h2h_r, h2h_z, h2h = F.SliceChannel(h2h, num_outputs=3, name=prefix + "h2h_slice")
        reset_gate = F.Activation(
            F.elemwise_add(i2h_r, h2h_r, name=prefix + "plus0"),
            act_type="sigmoid",
            name=prefix + "r_act",
        )
        update_gate = F.Activation(
            F.elemwise_add(i2h_z, h2h_z, name=prefix + "plus1"),
            act_type="sigmoid",
            name=prefix + "z_act",
        )
        candidate = F.Activation(
            F.elemwise_add(
                i2h, F.elemwise_mul(reset_gate, h2h, name=prefix + "mul0"), name=prefix + "plus2"
            ),
            act_type="tanh",
            name=prefix + "h_act",
        )
        ones = F.ones_like(update_gate, name=prefix + "ones_like0")
        next_h = F.elemwise_add(
            F.elemwise_mul(
                F.elemwise_sub(ones, update_gate, name=prefix + "minus0"),
                candidate,
                name=prefix + "mul1",
            ),
            F.elemwise_mul(update_gate, prev_h, name=prefix + "mul20"),
            name=prefix + "out",
        )
        return next_h, [next_h]
