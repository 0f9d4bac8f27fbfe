"""MXNet 1.9.1's symbolic RNN cells: plain, LSTM, GRU, fused, stacks and modifiers.

Design note
-----------
The step cells (``RNNCell``, ``LSTMCell``, ``GRUCell``) compute the gates of a step with two
``FullyConnected`` nodes (``i2h`` on the input, ``h2h`` on the state) whose rows are the gates
stacked in MXNet's order (LSTM: i, f, c, o; GRU: r, z, o), which is the order the fused ``RNN``
operator packs them in. ``FusedRNNCell`` puts a whole stack into one ``RNN`` node whose weights
are one flat ``parameters`` vector; ``unpack_weights`` slices that vector into the per-gate
arrays a step cell would use (``lstm_l0_i2h_i_weight``, ...) and ``pack_weights`` builds it
back, so ``unfuse()`` gives an equivalent ``SequentialRNNCell`` of step cells.

Containers (``SequentialRNNCell``, ``BidirectionalCell``) share one ``RNNParams`` with their
children; they live in ``_container_cell.py``, the dropout and modifier cells in
``_modifier_cell.py``, and both are handed on here.
"""

from __future__ import annotations

import warnings
from typing import Any

from .. import ndarray, symbol
from ..base import MXNetError
from ..initializer import FusedRNN, LSTMBias, fused_rnn_layout
from ._base import (
    _PREFIX_PARAMS_DOC,
    _STEP_PREFIX_DOC,
    BaseRNNCell,
    RNNParams,
    _normalize_sequence,
)
from ._container_cell import BidirectionalCell, SequentialRNNCell
from ._modifier_cell import DropoutCell, ModifierCell, ResidualCell, ZoneoutCell
from .conv_cells import BaseConvRNNCell, ConvGRUCell, ConvLSTMCell, ConvRNNCell

__all__ = [
    "BaseConvRNNCell",
    "BaseRNNCell",
    "BidirectionalCell",
    "ConvGRUCell",
    "ConvLSTMCell",
    "ConvRNNCell",
    "DropoutCell",
    "FusedRNNCell",
    "GRUCell",
    "LSTMCell",
    "ModifierCell",
    "RNNCell",
    "RNNParams",
    "ResidualCell",
    "SequentialRNNCell",
    "ZoneoutCell",
]


class _FCStepCell(BaseRNNCell):
    """A step cell of fully connected gates: ``num_hidden`` units, ``_num_states`` states of
    shape (batch, num_hidden)."""

    _num_states = 1

    def __init__(self, num_hidden: int, prefix: str, params: RNNParams | None) -> None:
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden

    @property
    def state_info(self) -> list:
        info = {"shape": (0, self._num_hidden), "__layout__": "NC"}
        return [dict(info) for _ in range(self._num_states)]


class RNNCell(_FCStepCell):
    __doc__ = f"""Simple recurrent neural network cell.

    Parameters
    ----------
    num_hidden : int
        Number of units in output symbol.
    activation : str or Symbol, default 'tanh'
        Type of activation function. Options are 'relu' and 'tanh'.
    {_STEP_PREFIX_DOC.format(prefix="rnn_")}
    """

    def __init__(
        self,
        num_hidden: int,
        activation: Any = "tanh",
        prefix: str = "rnn_",
        params: RNNParams | None = None,
    ) -> None:
        super().__init__(num_hidden, prefix, params)
        self._activation = activation
        self._fc_params()

    @property
    def _gate_names(self) -> tuple:
        return ("",)

    def __call__(self, inputs: symbol.Symbol, states: list) -> tuple[symbol.Symbol, list]:
        name = self._next_step()
        i2h = symbol.FullyConnected(
            data=inputs, weight=self._iW, bias=self._iB, num_hidden=self._num_hidden,
            name=f"{name}i2h",
        )  # fmt: skip
        h2h = symbol.FullyConnected(
            data=states[0], weight=self._hW, bias=self._hB, num_hidden=self._num_hidden,
            name=f"{name}h2h",
        )  # fmt: skip
        output = self._get_activation(i2h + h2h, self._activation, name=f"{name}out")
        return output, [output]


class LSTMCell(_FCStepCell):
    __doc__ = f"""Long-Short Term Memory (LSTM) network cell.

    Parameters
    ----------
    num_hidden : int
        Number of units in output symbol.
    {_STEP_PREFIX_DOC.format(prefix="lstm_")}
    forget_bias : bias added to forget gate, default 1.0.
        Jozefowicz et al. 2015 recommends setting this to 1.0
    """

    def __init__(
        self,
        num_hidden: int,
        prefix: str = "lstm_",
        params: RNNParams | None = None,
        forget_bias: float = 1.0,
    ) -> None:
        super().__init__(num_hidden, prefix, params)
        self._iW = self.params.get("i2h_weight")
        self._hW = self.params.get("h2h_weight")
        # the forget bias lives in i2h_bias, through its initializer
        self._iB = self.params.get("i2h_bias", init=LSTMBias(forget_bias=forget_bias))
        self._hB = self.params.get("h2h_bias")

    _num_states = 2

    @property
    def _gate_names(self) -> list:
        return ["_i", "_f", "_c", "_o"]

    def __call__(self, inputs: symbol.Symbol, states: list) -> tuple[symbol.Symbol, list]:
        name = self._next_step()
        n = self._num_hidden * 4
        i2h = symbol.FullyConnected(
            data=inputs, weight=self._iW, bias=self._iB, num_hidden=n, name=f"{name}i2h"
        )
        h2h = symbol.FullyConnected(
            data=states[0], weight=self._hW, bias=self._hB, num_hidden=n, name=f"{name}h2h"
        )
        gates = symbol.SliceChannel(i2h + h2h, num_outputs=4, name=f"{name}slice")
        in_gate = symbol.Activation(gates[0], act_type="sigmoid", name=f"{name}i")
        forget_gate = symbol.Activation(gates[1], act_type="sigmoid", name=f"{name}f")
        in_transform = symbol.Activation(gates[2], act_type="tanh", name=f"{name}c")
        out_gate = symbol.Activation(gates[3], act_type="sigmoid", name=f"{name}o")
        next_c = symbol._internal._plus(
            forget_gate * states[1], in_gate * in_transform, name=f"{name}state"
        )
        next_h = symbol._internal._mul(
            out_gate, symbol.Activation(next_c, act_type="tanh"), name=f"{name}out"
        )
        return next_h, [next_h, next_c]


class GRUCell(_FCStepCell):
    __doc__ = f"""Gated Rectified Unit (GRU) network cell.

    Note: this is an implementation of the cuDNN version of GRUs
    (slight modification compared to Cho et al. 2014).

    Parameters
    ----------
    num_hidden : int
        Number of units in output symbol.
    {_STEP_PREFIX_DOC.format(prefix="gru_")}
    """

    def __init__(
        self, num_hidden: int, prefix: str = "gru_", params: RNNParams | None = None
    ) -> None:
        super().__init__(num_hidden, prefix, params)
        self._fc_params()

    @property
    def _gate_names(self) -> list:
        return ["_r", "_z", "_o"]

    def __call__(self, inputs: symbol.Symbol, states: list) -> tuple[symbol.Symbol, list]:
        name = self._next_step()
        prev_h = states[0]
        n = self._num_hidden * 3
        i2h = symbol.FullyConnected(
            data=inputs, weight=self._iW, bias=self._iB, num_hidden=n, name=f"{name}_i2h"
        )
        h2h = symbol.FullyConnected(
            data=prev_h, weight=self._hW, bias=self._hB, num_hidden=n, name=f"{name}_h2h"
        )
        i2h_r, i2h_z, i2h = symbol.SliceChannel(i2h, num_outputs=3, name=f"{name}_i2h_slice")
        h2h_r, h2h_z, h2h = symbol.SliceChannel(h2h, num_outputs=3, name=f"{name}_h2h_slice")
        reset_gate = symbol.Activation(i2h_r + h2h_r, act_type="sigmoid", name=f"{name}_r_act")
        update_gate = symbol.Activation(i2h_z + h2h_z, act_type="sigmoid", name=f"{name}_z_act")
        candidate = symbol.Activation(i2h + reset_gate * h2h, act_type="tanh", name=f"{name}_h_act")
        next_h = symbol._internal._plus(
            (1.0 - update_gate) * candidate, update_gate * prev_h, name=f"{name}out"
        )
        return next_h, [next_h]


_FUSED_GATES = {
    "rnn_relu": [""],
    "rnn_tanh": [""],
    "lstm": ["_i", "_f", "_c", "_o"],
    "gru": ["_r", "_z", "_o"],
}


class FusedRNNCell(BaseRNNCell):
    __doc__ = f"""Fusing RNN layers across time step into one kernel.

    Improves speed but is less flexible (it cannot be stepped).

    Parameters
    ----------
    num_hidden : int
        Number of units in output symbol.
    num_layers : int, default 1
        Number of layers in the cell.
    mode : str, default 'lstm'
        Type of RNN. options are 'rnn_relu', 'rnn_tanh', 'lstm', 'gru'.
    bidirectional : bool, default False
        Whether to use bidirectional unroll. The output dimension size is doubled if bidrectional.
    dropout : float, default 0.
        Fraction of the input that gets dropped out during training time.
    get_next_state : bool, default False
        Whether to return the states that can be used as starting states next time.
    forget_bias : bias added to forget gate, default 1.0.
        Jozefowicz et al. 2015 recommends setting this to 1.0
    prefix : str, default ``'$mode_'`` such as ``'lstm_'``
        {_PREFIX_PARAMS_DOC}
    """

    def __init__(
        self,
        num_hidden: int,
        num_layers: int = 1,
        mode: str = "lstm",
        bidirectional: bool = False,
        dropout: float = 0.0,
        get_next_state: bool = False,
        forget_bias: float = 1.0,
        prefix: str | None = None,
        params: RNNParams | None = None,
    ) -> None:
        if mode not in _FUSED_GATES:
            raise MXNetError(
                f"FusedRNNCell: argument 'mode' must be one of {list(_FUSED_GATES)}, got {mode!r}."
            )
        if prefix is None:
            prefix = f"{mode}_"
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._dropout = dropout
        self._get_next_state = get_next_state
        self._directions = ["l", "r"] if bidirectional else ["l"]
        initializer = FusedRNN(None, num_hidden, num_layers, mode, bidirectional, forget_bias)
        self._parameter = self.params.get("parameters", init=initializer)

    @property
    def state_info(self) -> list:
        b = self._bidirectional + 1
        n = (self._mode == "lstm") + 1
        return [
            {"shape": (b * self._num_layers, 0, self._num_hidden), "__layout__": "LNC"}
            for _ in range(n)
        ]

    @property
    def _gate_names(self) -> list:
        return _FUSED_GATES[self._mode]

    @property
    def _num_gates(self) -> int:
        return len(self._gate_names)

    def _param_size(self, num_input: int) -> int:
        b, m, h = len(self._directions), self._num_gates, self._num_hidden
        first = (num_input + h + 2) * h * m * b
        return first + (self._num_layers - 1) * m * h * (h + b * h + 2) * b

    def _slices(self, size: int) -> list:
        return [
            (self._prefix + name, start, shape)
            for name, start, shape in fused_rnn_layout(
                size, self._num_hidden, self._num_layers, self._mode, self._bidirectional
            )
        ]

    def unpack_weights(self, args: dict) -> dict:
        args = dict(args)
        name = self._parameter.name
        if name not in args:
            raise MXNetError(f"FusedRNNCell.unpack_weights: argument 'args' has no {name!r}.")
        arr = args.pop(name)
        flat = arr.reshape((-1,))
        for key, start, shape in self._slices(flat.size):
            n = shape[0] * (shape[1] if len(shape) == 2 else 1)
            args[key] = flat[start : start + n].reshape(shape).copy()
        return args

    def pack_weights(self, args: dict) -> dict:
        args = dict(args)
        first = f"{self._prefix}l0_i2h{self._gate_names[0]}_weight"
        if first not in args:
            raise MXNetError(f"FusedRNNCell.pack_weights: argument 'args' has no {first!r}.")
        w0 = args[first]
        total = self._param_size(w0.shape[1])
        arr = ndarray.zeros((total,), ctx=w0.context, dtype=w0.dtype)
        for key, start, shape in self._slices(total):
            n = shape[0] * (shape[1] if len(shape) == 2 else 1)
            arr[start : start + n] = args.pop(key).reshape((n,))
        args[self._parameter.name] = arr
        return args

    _unsteppable = "FusedRNNCell"

    def _unroll(
        self, length: int, inputs: Any, begin_state: Any, layout: str, merge_outputs: Any
    ) -> tuple[Any, list]:
        inputs, axis = _normalize_sequence(length, inputs, layout, True)
        if axis == 1:
            warnings.warn(
                "NTC layout detected. Consider using TNC for FusedRNNCell for faster speed",
                stacklevel=3,
            )
            inputs = symbol.swapaxes(inputs, dim1=0, dim2=1)
        elif axis != 0:
            raise MXNetError(
                f"FusedRNNCell.unroll: argument 'layout' must be 'TNC' or 'NTC', got {layout!r}."
            )
        states = self.begin_state() if begin_state is None else begin_state
        state_args = {"state": states[0]}
        if self._mode == "lstm":
            state_args["state_cell"] = states[1]
        rnn = symbol.RNN(
            data=inputs,
            parameters=self._parameter,
            state_size=self._num_hidden,
            num_layers=self._num_layers,
            bidirectional=self._bidirectional,
            p=self._dropout,
            state_outputs=self._get_next_state,
            mode=self._mode,
            name=self._prefix + "rnn",
            **state_args,
        )
        if not self._get_next_state:
            outputs, states = rnn, []
        else:
            n_states = 2 if self._mode == "lstm" else 1
            states = [rnn[i + 1] for i in range(n_states)]
            for s in states:
                s._set_attr(__layout__="LNC")
            outputs = rnn[0]
        if axis == 1:
            outputs = symbol.swapaxes(outputs, dim1=0, dim2=1)
        outputs, _ = _normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def unfuse(self) -> SequentialRNNCell:
        """Unfuse the fused RNN in to a stack of rnn cells.

        Returns
        -------
        cell : mxnet.rnn.SequentialRNNCell
            unfused cell that can be used for stepping, and can run on CPU.
        """
        h = self._num_hidden
        makers = {
            "rnn_relu": lambda p: RNNCell(h, activation="relu", prefix=p),
            "rnn_tanh": lambda p: RNNCell(h, activation="tanh", prefix=p),
            "lstm": lambda p: LSTMCell(h, prefix=p),
            "gru": lambda p: GRUCell(h, prefix=p),
        }
        make = makers[self._mode]
        stack = SequentialRNNCell()
        for i in range(self._num_layers):
            if self._bidirectional:
                stack.add(
                    BidirectionalCell(
                        make(f"{self._prefix}l{i}_"),
                        make(f"{self._prefix}r{i}_"),
                        output_prefix=f"{self._prefix}bi_l{i}_",
                    )
                )
            else:
                stack.add(make(f"{self._prefix}l{i}_"))
            if self._dropout > 0 and i != self._num_layers - 1:
                stack.add(DropoutCell(self._dropout, prefix=f"{self._prefix}_dropout{i}_"))
        return stack
