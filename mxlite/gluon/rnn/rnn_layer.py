"""The fused recurrent layers ``RNN``, ``LSTM`` and ``GRU``.

Design note
-----------
A layer holds one set of weights per layer and direction, named as MXNet names them
(``l0_i2h_weight``, ``r1_h2h_bias``, ``l0_h2r_weight`` with a projection); ``save_parameters``
uses MXNet's structural names of the unfused stack (``_unfused.0.l_cell.i2h_weight``), so files
move both ways. The forward pass flattens the weights in the order of the ``RNN`` operator
(weights of every layer and direction, then biases) with ``_rnn_param_concat``, whose shape
inference fills in the first layer's input size for deferred initialization, and runs one
``RNN`` call over the sequence (TNC; NTC is swapped around it).
"""

from __future__ import annotations

import re
from typing import Any

from ... import ndarray, symbol
from ...base import ParamError
from ...util import is_np_array
from ..block import HybridBlock
from ..parameter import tensor_types
from ..parameter_dict import _deferred
from . import rnn_cell

__all__ = ["RNN", "LSTM", "GRU"]

_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}
_KEY = re.compile(r"(l|r)(\d+)_(i2h|h2h|h2r)_(weight|bias)\Z")


class _RNNLayer(HybridBlock):
    """The weights, states and forward pass shared by RNN, LSTM and GRU."""

    def __init__(
        self,
        hidden_size: int,
        num_layers: int,
        layout: str,
        dropout: float,
        bidirectional: bool,
        input_size: int,
        i2h_weight_initializer: Any,
        h2h_weight_initializer: Any,
        i2h_bias_initializer: Any,
        h2h_bias_initializer: Any,
        mode: str,
        projection_size: int | None,
        h2r_weight_initializer: Any,
        lstm_state_clip_min: float | None,
        lstm_state_clip_max: float | None,
        lstm_state_clip_nan: bool,
        dtype: Any,
        use_sequence_length: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if layout not in ("TNC", "NTC"):
            raise ParamError(
                f"{type(self).__name__}: argument 'layout' must be 'TNC' or 'NTC', got {layout!r}."
            )
        self._hidden_size = hidden_size
        self._projection_size = projection_size or None
        self._num_layers = num_layers
        self._mode = mode
        self._layout = layout
        self._dropout = dropout
        self._dir = 2 if bidirectional else 1
        self._input_size = input_size
        self._i2h_weight_initializer = i2h_weight_initializer
        self._h2h_weight_initializer = h2h_weight_initializer
        self._i2h_bias_initializer = i2h_bias_initializer
        self._h2h_bias_initializer = h2h_bias_initializer
        self._h2r_weight_initializer = h2r_weight_initializer
        self._lstm_state_clip_min = lstm_state_clip_min
        self._lstm_state_clip_max = lstm_state_clip_max
        self._lstm_state_clip_nan = lstm_state_clip_nan
        self._dtype = dtype
        self._use_sequence_length = use_sequence_length
        self.skip_states = None
        self._gates = _GATES[mode]
        ng, ni, nh = self._gates, input_size, hidden_size
        nr = self._projection_size or nh  # the size of the recurrent state h
        for i in range(num_layers):
            for d in "lr"[: self._dir]:
                reg = self._register_param
                reg(f"{d}{i}_i2h_weight", (ng * nh, ni), i2h_weight_initializer, dtype)
                reg(f"{d}{i}_h2h_weight", (ng * nh, nr), h2h_weight_initializer, dtype)
                reg(f"{d}{i}_i2h_bias", (ng * nh,), i2h_bias_initializer, dtype)
                reg(f"{d}{i}_h2h_bias", (ng * nh,), h2h_bias_initializer, dtype)
                if self._projection_size:
                    reg(f"{d}{i}_h2r_weight", (nr, nh), h2r_weight_initializer, dtype)
            ni = nr * self._dir

    def _register_param(self, name: str, shape: tuple, init: Any, dtype: Any) -> Any:
        p = _deferred(self.params, name, shape, init, dtype=dtype)
        setattr(self, name, p)
        return p

    def __repr__(self) -> str:
        s = f"{type(self).__name__}({{}}, {self._layout}"
        if self._num_layers != 1:
            s += f", num_layers={self._num_layers}"
        if self._dropout != 0:
            s += f", dropout={self._dropout}"
        if self._dir == 2:
            s += ", bidirectional"
        shape = self.l0_i2h_weight.shape
        return (s + ")").format(f"{shape[1] if shape[1] else None} -> {shape[0] // self._gates}")

    def _collect_params_with_prefix(self, prefix: str = "") -> dict:
        if prefix:
            prefix += "."
        bidirectional = self._dir == 2
        ret = {}
        for key, val in self._reg_params.items():
            d, layer, g, t = _KEY.match(key).groups()
            cell = f"{d}_cell." if bidirectional else ""
            ret[f"{prefix}_unfused.{layer}.{cell}{g}_{t}"] = val
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    def state_info(self, batch_size: int = 0) -> list:
        raise NotImplementedError

    def _unfuse(self) -> Any:
        """Unfuses the fused RNN in to a stack of rnn cells."""
        if self._projection_size or self._lstm_state_clip_min or self._lstm_state_clip_max:
            raise ParamError("_unfuse: projection and state clipping have no cell equivalent.")

        def get_cell(**kwargs: Any) -> Any:
            if self._mode.startswith("rnn_"):
                return rnn_cell.RNNCell(self._hidden_size, activation=self._mode[4:], **kwargs)
            cls = rnn_cell.LSTMCell if self._mode == "lstm" else rnn_cell.GRUCell
            return cls(self._hidden_size, **kwargs)

        stack = rnn_cell.HybridSequentialRNNCell(prefix=self.prefix, params=self.params)
        with stack.name_scope():
            ni = self._input_size
            for i in range(self._num_layers):
                kwargs = {
                    "input_size": ni,
                    "i2h_weight_initializer": self._i2h_weight_initializer,
                    "h2h_weight_initializer": self._h2h_weight_initializer,
                    "i2h_bias_initializer": self._i2h_bias_initializer,
                    "h2h_bias_initializer": self._h2h_bias_initializer,
                }
                if self._dir == 2:
                    stack.add(
                        rnn_cell.BidirectionalCell(
                            get_cell(prefix=f"l{i}_", **kwargs), get_cell(prefix=f"r{i}_", **kwargs)
                        )
                    )
                else:
                    stack.add(get_cell(prefix=f"l{i}_", **kwargs))
                if self._dropout > 0 and i != self._num_layers - 1:
                    stack.add(rnn_cell.DropoutCell(self._dropout))
                ni = self._hidden_size * self._dir
        return stack

    def cast(self, dtype: Any) -> None:
        super().cast(dtype)
        self._dtype = dtype

    def begin_state(self, batch_size: int = 0, func: Any = ndarray.zeros, **kwargs: Any) -> list:
        """Initial state for this cell.

        Parameters
        ----------
        batch_size: int
            Only required for `NDArray` API. Size of the batch ('N' in layout).
        func : callable, default `ndarray.zeros`
            Function for creating initial state (`symbol.zeros`, `symbol.var`,
            `ndarray.zeros`, `ndarray.ones`, ...).
        **kwargs :
            Additional keyword arguments passed to func (`mean`, `std`, `dtype`, ...).

        Returns
        -------
        states : nested list of Symbol
            Starting states for the first RNN step.
        """
        states = []
        for i, info in enumerate(self.state_info(batch_size)):
            info = dict(info or {}, **kwargs)
            state = func(name=f"{self.prefix}h0_{i}", **info)
            states.append(state.as_np_ndarray() if is_np_array() else state)
        return states

    def __call__(self, inputs: Any, states: Any = None, sequence_length: Any = None, **kwargs):
        self.skip_states = states is None
        if states is None:
            if isinstance(inputs, ndarray.NDArray):
                batch_size = inputs.shape[self._layout.find("N")]
                states = self.begin_state(batch_size, ctx=inputs.context, dtype=inputs.dtype)
            else:
                states = self.begin_state(0, func=symbol.zeros)
        if isinstance(states, tensor_types):
            states = [states]
        if self._use_sequence_length:
            return super().__call__(inputs, states, sequence_length, **kwargs)
        return super().__call__(inputs, states, **kwargs)

    def hybrid_forward(self, F: Any, inputs: Any, states: Any, sequence_length: Any = None, **kw):
        if F is ndarray:
            batch_size = inputs.shape[self._layout.find("N")]
            for state, info in zip(states, self.state_info(batch_size)):
                if state.shape != info["shape"]:
                    raise ValueError(
                        f"Invalid recurrent state shape. Expecting {info['shape']}, got "
                        f"{state.shape}."
                    )
        out = self._forward_kernel(F, inputs, states, sequence_length, **kw)
        return out[0] if self.skip_states else out

    def _forward_kernel(self, F: Any, inputs: Any, states: Any, sequence_length: Any, **kw):
        np_mode = is_np_array()
        swapaxes = F.np.swapaxes if np_mode else F.swapaxes
        if self._layout == "NTC":
            inputs = swapaxes(inputs, 0, 1)
        kinds = ["i2h", "h2h", "h2r"] if self._projection_size else ["i2h", "h2h"]
        flat = [
            kw[f"{d}{layer}_{g}_{t}"].reshape(-1)
            for t in ("weight", "bias")
            for layer in range(self._num_layers)
            for d in "lr"[: self._dir]
            for g in kinds
            if g != "h2r" or t != "bias"
        ]
        if np_mode:
            # MXNet's name (its node is rnn_param_concat0), where mx.nd.np._internal has it
            concat = getattr(F.np._internal, "rnn_param_concat", None)
            params = (concat or F.np._internal._npi_rnn_param_concat)(*flat, dim=0)
        else:
            params = F._internal._rnn_param_concat(*flat, dim=0)
        args = [*states, sequence_length] if self._use_sequence_length else list(states)
        rnn = (F.npx.rnn if np_mode else F.RNN)(
            inputs,
            params,
            *args,
            use_sequence_length=self._use_sequence_length,
            state_size=self._hidden_size,
            projection_size=self._projection_size,
            num_layers=self._num_layers,
            bidirectional=self._dir == 2,
            p=self._dropout,
            state_outputs=True,
            mode=self._mode,
            lstm_state_clip_min=self._lstm_state_clip_min,
            lstm_state_clip_max=self._lstm_state_clip_max,
            lstm_state_clip_nan=self._lstm_state_clip_nan,
        )
        outputs = rnn[0]
        states = [rnn[1], rnn[2]] if self._mode == "lstm" else [rnn[1]]
        if self._layout == "NTC":
            outputs = swapaxes(outputs, 0, 1)
        return outputs, states

    def _state(self, batch_size: int, size: int) -> dict:
        return {
            "shape": (self._num_layers * self._dir, batch_size, size),
            "__layout__": "LNC",
            "dtype": self._dtype,
        }


class RNN(_RNNLayer):
    r"""Applies a multi-layer Elman RNN with `tanh` or `ReLU` non-linearity to an input sequence.

    Parameters
    ----------
    hidden_size: int
        The number of features in the hidden state h.
    num_layers: int, default 1
        Number of recurrent layers.
    activation: {'relu' or 'tanh'}, default 'relu'
        The activation function to use.
    layout : str, default 'TNC'
        The format of input and output tensors. T, N and C stand for
        sequence length, batch size, and feature dimensions respectively.
    dropout: float, default 0
        If non-zero, introduces a dropout layer on the outputs of each
        RNN layer except the last layer.
    bidirectional: bool, default False
        If `True`, becomes a bidirectional RNN.
    i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
    h2h_bias_initializer : str or Initializer
        Initializers of the weights and biases.
    input_size: int, default 0
        The number of expected features in the input x. If not specified, it will be inferred
        from input.
    dtype : str, default 'float32'
        Type to initialize the parameters and default states to
    prefix : str or None
        Prefix of this `Block`.
    params : ParameterDict or None
        Shared Parameters for this `Block`.

    Inputs:
        - **data**: input tensor with shape `(sequence_length, batch_size, input_size)`
          when `layout` is "TNC".
        - **states**: initial recurrent state tensor with shape
          `(num_layers, batch_size, num_hidden)` (`2*num_layers` if bidirectional).

    Outputs:
        - **out**: output tensor with shape `(sequence_length, batch_size, num_hidden)`
          when `layout` is "TNC" (`2*num_hidden` if bidirectional).
        - **out_states**: output recurrent state tensor with the same shape as `states`.
          If `states` is None `out_states` will not be returned.
    """

    def __init__(
        self,
        hidden_size: int,
        num_layers: int = 1,
        activation: str = "relu",
        layout: str = "TNC",
        dropout: float = 0,
        bidirectional: bool = False,
        i2h_weight_initializer: Any = None,
        h2h_weight_initializer: Any = None,
        i2h_bias_initializer: Any = "zeros",
        h2h_bias_initializer: Any = "zeros",
        input_size: int = 0,
        dtype: Any = "float32",
        **kwargs: Any,
    ) -> None:
        super().__init__(
            hidden_size, num_layers, layout, dropout, bidirectional, input_size,
            i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
            h2h_bias_initializer, "rnn_" + activation, None, None, None, None, False, dtype,
            **kwargs,
        )  # fmt: skip

    def state_info(self, batch_size: int = 0) -> list:
        return [self._state(batch_size, self._hidden_size)]


class LSTM(_RNNLayer):
    r"""Applies a multi-layer long short-term memory (LSTM) RNN to an input sequence.

    Parameters
    ----------
    hidden_size: int
        The number of features in the hidden state h.
    num_layers: int, default 1
        Number of recurrent layers.
    layout : str, default 'TNC'
        The format of input and output tensors.
    dropout: float, default 0
        If non-zero, introduces a dropout layer on the outputs of each
        RNN layer except the last layer.
    bidirectional: bool, default False
        If `True`, becomes a bidirectional RNN.
    i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
    h2h_bias_initializer : str or Initializer
        Initializers of the weights and biases.
    projection_size: int, default None
        The number of features after projection.
    h2r_weight_initializer : str or Initializer, default None
        Initializer for the projected recurrent weights matrix.
    state_clip_min, state_clip_max : float or None, default None
        Bounds of the cell state (no clipping when None).
    state_clip_nan : boolean, default False
        Whether to stop NaN from propagating in state by clipping it to min/max.
    input_size: int, default 0
        The number of expected features in the input x.
    dtype : str, default 'float32'
        Type to initialize the parameters and default states to
    prefix : str or None
        Prefix of this `Block`.
    params : `ParameterDict` or `None`
        Shared Parameters for this `Block`.

    Inputs:
        - **data**: input tensor with shape `(sequence_length, batch_size, input_size)`
          when `layout` is "TNC".
        - **states**: a list of two initial recurrent state tensors (h and c).

    Outputs:
        - **out**: output tensor with shape `(sequence_length, batch_size, num_hidden)`
          when `layout` is "TNC".
        - **out_states**: a list of two output recurrent state tensors with the same
          shape as in `states`. If `states` is None `out_states` will not be returned.
    """

    def __init__(
        self,
        hidden_size: int,
        num_layers: int = 1,
        layout: str = "TNC",
        dropout: float = 0,
        bidirectional: bool = False,
        input_size: int = 0,
        i2h_weight_initializer: Any = None,
        h2h_weight_initializer: Any = None,
        i2h_bias_initializer: Any = "zeros",
        h2h_bias_initializer: Any = "zeros",
        projection_size: int | None = None,
        h2r_weight_initializer: Any = None,
        state_clip_min: float | None = None,
        state_clip_max: float | None = None,
        state_clip_nan: bool = False,
        dtype: Any = "float32",
        **kwargs: Any,
    ) -> None:
        super().__init__(
            hidden_size, num_layers, layout, dropout, bidirectional, input_size,
            i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
            h2h_bias_initializer, "lstm", projection_size, h2r_weight_initializer,
            state_clip_min, state_clip_max, state_clip_nan, dtype, **kwargs,
        )  # fmt: skip

    def state_info(self, batch_size: int = 0) -> list:
        h = self._projection_size or self._hidden_size
        return [self._state(batch_size, h), self._state(batch_size, self._hidden_size)]


class GRU(_RNNLayer):
    r"""Applies a multi-layer gated recurrent unit (GRU) RNN to an input sequence.

    Parameters
    ----------
    hidden_size: int
        The number of features in the hidden state h
    num_layers: int, default 1
        Number of recurrent layers.
    layout : str, default 'TNC'
        The format of input and output tensors.
    dropout: float, default 0
        If non-zero, introduces a dropout layer on the outputs of each
        RNN layer except the last layer
    bidirectional: bool, default False
        If True, becomes a bidirectional RNN.
    i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
    h2h_bias_initializer : str or Initializer
        Initializers of the weights and biases.
    input_size: int, default 0
        The number of expected features in the input x.
    dtype : str, default 'float32'
        Type to initialize the parameters and default states to
    prefix : str or None
        Prefix of this `Block`.
    params : ParameterDict or None
        Shared Parameters for this `Block`.

    Inputs:
        - **data**: input tensor with shape `(sequence_length, batch_size, input_size)`
          when `layout` is "TNC".
        - **states**: initial recurrent state tensor.

    Outputs:
        - **out**: output tensor with shape `(sequence_length, batch_size, num_hidden)`
          when `layout` is "TNC".
        - **out_states**: output recurrent state tensor with the same shape as `states`.
          If `states` is None `out_states` will not be returned.
    """

    def __init__(
        self,
        hidden_size: int,
        num_layers: int = 1,
        layout: str = "TNC",
        dropout: float = 0,
        bidirectional: bool = False,
        input_size: int = 0,
        i2h_weight_initializer: Any = None,
        h2h_weight_initializer: Any = None,
        i2h_bias_initializer: Any = "zeros",
        h2h_bias_initializer: Any = "zeros",
        dtype: Any = "float32",
        **kwargs: Any,
    ) -> None:
        super().__init__(
            hidden_size, num_layers, layout, dropout, bidirectional, input_size,
            i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
            h2h_bias_initializer, "gru", None, None, None, None, False, dtype, **kwargs,
        )  # fmt: skip

    def state_info(self, batch_size: int = 0) -> list:
        return [self._state(batch_size, self._hidden_size)]
