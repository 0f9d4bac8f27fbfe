"""Convolutional recurrent cells (Shi et al. 2015, https://arxiv.org/abs/1506.04214): RNN,
LSTM and GRU cells whose input-to-hidden and hidden-to-hidden maps are convolutions, in 1, 2
and 3 spatial dimensions. The hidden-to-hidden convolution pads to keep the state's size (its
kernel must be odd); the state's spatial size is the input-to-hidden convolution's output."""

from __future__ import annotations

from numbers import Number
from typing import Any

from ....base import ParamError
from ...parameter_dict import _deferred
from ...rnn.basic_cell import _MappedCell

__all__ = [
    "Conv1DRNNCell", "Conv2DRNNCell", "Conv3DRNNCell",
    "Conv1DLSTMCell", "Conv2DLSTMCell", "Conv3DLSTMCell",
    "Conv1DGRUCell", "Conv2DGRUCell", "Conv3DGRUCell",
]  # fmt: skip

_LAYOUTS = {1: "NCW", 2: "NCHW", 3: "NCDHW"}


def _conv_out_size(dims: tuple, kernels: tuple, pads: tuple, dilates: tuple) -> tuple:
    return tuple(
        x + 2 * p - d * (k - 1) if x else 0 for x, k, p, d in zip(dims, kernels, pads, dilates)
    )


class _BaseConvRNNCell(_MappedCell):
    """Convolutional recurrent cell of ``_dims`` spatial dimensions.

    Parameters
    ----------
    input_shape : tuple of int
        Input tensor shape at each time step for each sample, excluding dimension of the batch
        size and sequence length (0 for the channels: inferred).
    hidden_channels : int
        Number of output channels.
    i2h_kernel, h2h_kernel : int or tuple of int
        Input and recurrent convolution kernels (h2h_kernel must be odd).
    i2h_pad : int or tuple of int, default 0
        Pad of the input convolution.
    i2h_dilate, h2h_dilate : int or tuple of int, default 1
        Dilations of the input and recurrent convolutions.
    i2h_weight_initializer, h2h_weight_initializer : str or Initializer
        Initializers of the convolution weights.
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer, default 'zeros'
        Initializers of the biases.
    conv_layout : str, default 'NCW' / 'NCHW' / 'NCDHW'
        Layout for all convolution inputs, outputs and weights.
    activation : str or Block, default 'tanh'
        Type of activation function.
    prefix : str, default ``'conv_rnn_'`` (``'conv_lstm_'``, ``'conv_gru_'``)
        Prefix for name of layers (and name of weight if params is None).
    params : RNNParams, default None
        Container for weight sharing between cells. Created if None.
    """

    _dims = 1
    _num_gates = 1
    _num_states = 1

    def __init__(
        self,
        input_shape: tuple,
        hidden_channels: int,
        i2h_kernel: Any,
        h2h_kernel: Any,
        i2h_pad: Any = 0,
        i2h_dilate: Any = 1,
        h2h_dilate: Any = 1,
        i2h_weight_initializer: Any = None,
        h2h_weight_initializer: Any = None,
        i2h_bias_initializer: Any = "zeros",
        h2h_bias_initializer: Any = "zeros",
        conv_layout: str | None = None,
        activation: Any = "tanh",
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__(prefix=prefix, params=params)
        n = self._dims
        where = type(self).__name__

        def spec(value: Any, name: str) -> tuple:
            if isinstance(value, Number):
                return (int(value),) * n
            if len(value) != n:
                raise ParamError(
                    f"{where}: argument '{name}' must be an int or {n} ints for {n}D "
                    f"convolution, got {value!r}."
                )
            return tuple(value)

        self._hidden_channels = hidden_channels
        self._input_shape = tuple(input_shape)
        self._conv_layout = conv_layout or _LAYOUTS[n]
        self._activation = activation
        self._i2h_kernel = spec(i2h_kernel, "i2h_kernel")
        self._i2h_pad = spec(i2h_pad, "i2h_pad")
        self._i2h_dilate = spec(i2h_dilate, "i2h_dilate")
        self._h2h_kernel = spec(h2h_kernel, "h2h_kernel")
        self._h2h_dilate = spec(h2h_dilate, "h2h_dilate")
        self._stride = (1,) * n
        if any(k % 2 == 0 for k in self._h2h_kernel):
            raise ParamError(f"{where}: h2h_kernel must be odd, got {h2h_kernel}.")
        self._channel_axis = self._conv_layout.find("C")
        channels_first = self._channel_axis == 1
        in_channels = self._input_shape[0 if channels_first else -1]
        spatial = self._input_shape[1:] if channels_first else self._input_shape[:-1]
        out = _conv_out_size(spatial, self._i2h_kernel, self._i2h_pad, self._i2h_dilate)
        self._h2h_pad = tuple(d * (k - 1) // 2 for d, k in zip(self._h2h_dilate, self._h2h_kernel))
        total = hidden_channels * self._num_gates
        if channels_first:
            i2h_shape = (total, in_channels, *self._i2h_kernel)
            h2h_shape = (total, hidden_channels, *self._h2h_kernel)
            self._state_shape = (hidden_channels, *out)
        else:
            i2h_shape = (total, *self._i2h_kernel, in_channels)
            h2h_shape = (total, *self._h2h_kernel, hidden_channels)
            self._state_shape = (*out, hidden_channels)
        p = self.params
        self.i2h_weight = _deferred(p, "i2h_weight", i2h_shape, i2h_weight_initializer)
        self.h2h_weight = _deferred(p, "h2h_weight", h2h_shape, h2h_weight_initializer)
        self.i2h_bias = _deferred(p, "i2h_bias", (total,), i2h_bias_initializer)
        self.h2h_bias = _deferred(p, "h2h_bias", (total,), h2h_bias_initializer)

    def state_info(self, batch_size: int = 0) -> list:
        info = {"shape": (batch_size, *self._state_shape), "__layout__": self._conv_layout}
        return [dict(info) for _ in range(self._num_states)]

    def __repr__(self) -> str:
        shape = self.i2h_weight.shape
        in_channels = shape[1 if self._channel_axis == 1 else -1]
        mapping = f"{in_channels if in_channels else None} -> {shape[0]}"
        return f"{type(self).__name__}({mapping}, {self._activation}, {self._conv_layout})"

    def _maps(self, F: Any, prefix: str, inputs: Any, states: Any, i2h_w, h2h_w, i2h_b, h2h_b):
        n = self._hidden_channels * self._num_gates
        common = {"num_filter": n, "stride": self._stride, "layout": self._conv_layout}
        i2h = F.Convolution(
            data=inputs, kernel=self._i2h_kernel, pad=self._i2h_pad, dilate=self._i2h_dilate,
            weight=i2h_w, bias=i2h_b, name=prefix + "i2h", **common,
        )  # fmt: skip
        h2h = F.Convolution(
            data=states[0], kernel=self._h2h_kernel, pad=self._h2h_pad, dilate=self._h2h_dilate,
            weight=h2h_w, bias=h2h_b, name=prefix + "h2h", **common,
        )  # fmt: skip
        return i2h, h2h


class _ConvRNNCell(_BaseConvRNNCell):
    def _alias(self) -> str:
        return "conv_rnn"

    def _step(self, F: Any, prefix: str, i2h: Any, h2h: Any, states: Any) -> tuple:
        output = self._get_activation(F, i2h + h2h, self._activation, name=prefix + "out")
        return output, [output]


class _ConvLSTMCell(_BaseConvRNNCell):
    _num_gates = 4
    _num_states = 2

    def _alias(self) -> str:
        return "conv_lstm"

    def _step(self, F: Any, prefix: str, i2h: Any, h2h: Any, states: Any) -> tuple:
        gates = F.SliceChannel(
            i2h + h2h, num_outputs=4, name=prefix + "slice", axis=self._channel_axis
        )
        in_gate = F.Activation(gates[0], act_type="sigmoid", name=prefix + "i")
        forget_gate = F.Activation(gates[1], act_type="sigmoid", name=prefix + "f")
        in_transform = self._get_activation(F, gates[2], self._activation, name=prefix + "c")
        out_gate = F.Activation(gates[3], act_type="sigmoid", name=prefix + "o")
        next_c = F.elemwise_add(
            forget_gate * states[1], in_gate * in_transform, name=prefix + "state"
        )
        next_h = F.elemwise_mul(
            out_gate, self._get_activation(F, next_c, self._activation), name=prefix + "out"
        )
        return next_h, [next_h, next_c]


class _ConvGRUCell(_BaseConvRNNCell):
    _num_gates = 3

    def _alias(self) -> str:
        return "conv_gru"

    def _step(self, F: Any, prefix: str, i2h: Any, h2h: Any, states: Any) -> tuple:
        axis = self._channel_axis
        i2h_r, i2h_z, i2h = F.SliceChannel(i2h, num_outputs=3, name=prefix + "i2h_slice", axis=axis)
        h2h_r, h2h_z, h2h = F.SliceChannel(h2h, num_outputs=3, name=prefix + "h2h_slice", axis=axis)
        reset_gate = F.Activation(i2h_r + h2h_r, act_type="sigmoid", name=prefix + "r_act")
        update_gate = F.Activation(i2h_z + h2h_z, act_type="sigmoid", name=prefix + "z_act")
        candidate = self._get_activation(
            F, i2h + reset_gate * h2h, self._activation, name=prefix + "h_act"
        )
        next_h = F.elemwise_add(
            (1.0 - update_gate) * candidate, update_gate * states[0], name=prefix + "out"
        )
        return next_h, [next_h]


class Conv1DRNNCell(_ConvRNNCell):
    """1D Convolutional RNN cell (parameters: see ``_BaseConvRNNCell``; layout 'NCW')."""


class Conv2DRNNCell(_ConvRNNCell):
    """2D Convolutional RNN cell (parameters: see ``_BaseConvRNNCell``; layout 'NCHW')."""

    _dims = 2


class Conv3DRNNCell(_ConvRNNCell):
    """3D Convolutional RNN cell (parameters: see ``_BaseConvRNNCell``; layout 'NCDHW')."""

    _dims = 3


class Conv1DLSTMCell(_ConvLSTMCell):
    """1D Convolutional LSTM network cell (parameters: see ``_BaseConvRNNCell``)."""


class Conv2DLSTMCell(_ConvLSTMCell):
    """2D Convolutional LSTM network cell (parameters: see ``_BaseConvRNNCell``)."""

    _dims = 2


class Conv3DLSTMCell(_ConvLSTMCell):
    """3D Convolutional LSTM network cell (parameters: see ``_BaseConvRNNCell``)."""

    _dims = 3


class Conv1DGRUCell(_ConvGRUCell):
    """1D Convolutional Gated Rectified Unit (GRU) network cell."""


class Conv2DGRUCell(_ConvGRUCell):
    """2D Convolutional Gated Rectified Unit (GRU) network cell."""

    _dims = 2


class Conv3DGRUCell(_ConvGRUCell):
    """3D Convolutional Gated Rectified Unit (GRU) network cell."""

    _dims = 3
