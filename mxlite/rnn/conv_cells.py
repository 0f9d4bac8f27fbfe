"""Convolutional RNN cells of ``mx.rnn``: ``ConvRNNCell``, ``ConvLSTMCell`` and ``ConvGRUCell``
(Shi et al., "Convolutional LSTM Network", 2015), as MXNet 1.9.1.

The input-to-hidden and hidden-to-hidden transforms are convolutions instead of fully
connected layers; the state keeps the spatial shape that the input convolution gives (batch
size 0 until bound). The hidden-to-hidden convolution is padded to keep that shape, so its
kernel must have odd sizes.
"""

from __future__ import annotations

from typing import Any

from .. import symbol
from ..base import MXNetError
from ._base import _STEP_PREFIX_DOC, BaseRNNCell, RNNParams

__all__ = ["BaseConvRNNCell", "ConvRNNCell", "ConvLSTMCell", "ConvGRUCell"]


def _leaky(inputs: Any, **kwargs: Any) -> Any:
    return symbol.LeakyReLU(inputs, act_type="leaky", slope=0.2, **kwargs)


class BaseConvRNNCell(BaseRNNCell):
    """Abstract base class for convolutional RNN cells."""

    def __init__(
        self,
        input_shape: tuple,
        num_hidden: int,
        h2h_kernel: tuple,
        h2h_dilate: tuple,
        i2h_kernel: tuple,
        i2h_stride: tuple,
        i2h_pad: tuple,
        i2h_dilate: tuple,
        i2h_weight_initializer: Any,
        h2h_weight_initializer: Any,
        i2h_bias_initializer: Any,
        h2h_bias_initializer: Any,
        activation: Any,
        prefix: str = "",
        params: RNNParams | None = None,
        conv_layout: str = "NCHW",
    ) -> None:
        super().__init__(prefix=prefix, params=params)
        if h2h_kernel[0] % 2 != 1 or h2h_kernel[1] % 2 != 1:
            raise MXNetError(
                f"{type(self).__name__}: only odd h2h_kernel sizes are supported, got "
                f"h2h_kernel={tuple(h2h_kernel)}."
            )
        self._h2h_kernel = h2h_kernel
        self._h2h_pad = (
            h2h_dilate[0] * (h2h_kernel[0] - 1) // 2,
            h2h_dilate[1] * (h2h_kernel[1] - 1) // 2,
        )
        self._h2h_dilate = h2h_dilate
        self._i2h_kernel = i2h_kernel
        self._i2h_stride = i2h_stride
        self._i2h_pad = i2h_pad
        self._i2h_dilate = i2h_dilate
        self._num_hidden = num_hidden
        self._input_shape = input_shape
        self._conv_layout = conv_layout
        self._activation = activation
        probe = symbol.Convolution(
            data=symbol.Variable("data"), num_filter=num_hidden, kernel=i2h_kernel,
            stride=i2h_stride, pad=i2h_pad, dilate=i2h_dilate, layout=conv_layout,
        )  # fmt: skip
        shape = probe.infer_shape(data=input_shape)[1][0]
        self._state_shape = (0, *shape[1:])
        self._iW = self.params.get("i2h_weight", init=i2h_weight_initializer)
        self._hW = self.params.get("h2h_weight", init=h2h_weight_initializer)
        self._iB = self.params.get("i2h_bias", init=i2h_bias_initializer)
        self._hB = self.params.get("h2h_bias", init=h2h_bias_initializer)

    @property
    def _num_gates(self) -> int:
        return len(self._gate_names)

    _num_states = 2

    @property
    def state_info(self) -> list:
        info = {"shape": self._state_shape, "__layout__": self._conv_layout}
        return [dict(info) for _ in range(self._num_states)]

    def _conv_forward(self, inputs: Any, states: list) -> tuple[str, Any, Any]:
        """Starts a step: its name prefix and the input and state convolutions."""
        name = self._next_step()
        n = self._num_hidden * self._num_gates
        i2h = symbol.Convolution(
            name=f"{name}i2h", data=inputs, num_filter=n, kernel=self._i2h_kernel,
            stride=self._i2h_stride, pad=self._i2h_pad, dilate=self._i2h_dilate,
            weight=self._iW, bias=self._iB, layout=self._conv_layout,
        )  # fmt: skip
        h2h = symbol.Convolution(
            name=f"{name}h2h", data=states[0], num_filter=n, kernel=self._h2h_kernel,
            dilate=self._h2h_dilate, pad=self._h2h_pad, stride=(1, 1), weight=self._hW,
            bias=self._hB, layout=self._conv_layout,
        )  # fmt: skip
        return name, i2h, h2h

    def __call__(self, inputs: Any, states: list) -> tuple[Any, list]:
        raise NotImplementedError("BaseConvRNNCell is abstract class for convolutional RNN")


_DOC_PARAMS = (
    """
    Parameters
    ----------
    input_shape : tuple of int
        Shape of input in single timestep.
    num_hidden : int
        Number of units in output symbol.
    h2h_kernel : tuple of int, default (3, 3)
        Kernel of Convolution operator in state-to-state transitions.
    h2h_dilate : tuple of int, default (1, 1)
        Dilation of Convolution operator in state-to-state transitions.
    i2h_kernel : tuple of int, default (3, 3)
        Kernel of Convolution operator in input-to-state transitions.
    i2h_stride : tuple of int, default (1, 1)
        Stride of Convolution operator in input-to-state transitions.
    i2h_pad : tuple of int, default (1, 1)
        Pad of Convolution operator in input-to-state transitions.
    i2h_dilate : tuple of int, default (1, 1)
        Dilation of Convolution operator in input-to-state transitions.
    i2h_weight_initializer : str or Initializer
        Initializer for the input weights matrix, used for the convolution
        transformation of the inputs.
    h2h_weight_initializer : str or Initializer
        Initializer for the recurrent weights matrix, used for the convolution
        transformation of the recurrent state.
    i2h_bias_initializer : str or Initializer, default zeros
        Initializer for the bias vector.
    h2h_bias_initializer : str or Initializer, default zeros
        Initializer for the bias vector.
    activation : str or Symbol,
        default functools.partial(symbol.LeakyReLU, act_type='leaky', slope=0.2)
        Type of activation function.
    """
    + _STEP_PREFIX_DOC
    + """
    conv_layout : str, , default 'NCHW'
        Layout of ConvolutionOp
"""
)


def _cell_init(cls_name: str) -> Any:
    def __init__(
        self: BaseConvRNNCell,
        input_shape: tuple,
        num_hidden: int,
        h2h_kernel: tuple = (3, 3),
        h2h_dilate: tuple = (1, 1),
        i2h_kernel: tuple = (3, 3),
        i2h_stride: tuple = (1, 1),
        i2h_pad: tuple = (1, 1),
        i2h_dilate: tuple = (1, 1),
        i2h_weight_initializer: Any = None,
        h2h_weight_initializer: Any = None,
        i2h_bias_initializer: Any = "zeros",
        h2h_bias_initializer: Any = "zeros",
        activation: Any = _leaky,
        prefix: str = f"{cls_name}_",
        params: RNNParams | None = None,
        conv_layout: str = "NCHW",
    ) -> None:
        BaseConvRNNCell.__init__(
            self, input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride,
            i2h_pad, i2h_dilate, i2h_weight_initializer, h2h_weight_initializer,
            i2h_bias_initializer, h2h_bias_initializer, activation, prefix, params, conv_layout,
        )  # fmt: skip

    return __init__


class ConvRNNCell(BaseConvRNNCell):
    __doc__ = "Convolutional RNN cells\n" + _DOC_PARAMS.format(prefix="ConvRNN_")
    __init__ = _cell_init("ConvRNN")

    @property
    def _gate_names(self) -> tuple:
        return ("",)

    _num_states = 1

    def __call__(self, inputs: Any, states: list) -> tuple[Any, list]:
        name, i2h, h2h = self._conv_forward(inputs, states)
        output = self._get_activation(i2h + h2h, self._activation, name=f"{name}out")
        return output, [output]


class ConvLSTMCell(BaseConvRNNCell):
    __doc__ = "Convolutional LSTM network cell (Xingjian et al. NIPS2015)\n" + _DOC_PARAMS.format(
        prefix="ConvLSTM_"
    )
    __init__ = _cell_init("ConvLSTM")

    @property
    def _gate_names(self) -> list:
        return ["_i", "_f", "_c", "_o"]

    def __call__(self, inputs: Any, states: list) -> tuple[Any, list]:
        name, i2h, h2h = self._conv_forward(inputs, states)
        gates = symbol.SliceChannel(
            i2h + h2h, num_outputs=4, axis=self._conv_layout.find("C"), name=f"{name}slice"
        )
        in_gate = symbol.Activation(gates[0], act_type="sigmoid", name=f"{name}i")
        forget_gate = symbol.Activation(gates[1], act_type="sigmoid", name=f"{name}f")
        in_transform = self._get_activation(gates[2], self._activation, name=f"{name}c")
        out_gate = symbol.Activation(gates[3], act_type="sigmoid", name=f"{name}o")
        next_c = symbol._internal._plus(
            forget_gate * states[1], in_gate * in_transform, name=f"{name}state"
        )
        next_h = symbol._internal._mul(
            out_gate, self._get_activation(next_c, self._activation), name=f"{name}out"
        )
        return next_h, [next_h, next_c]


class ConvGRUCell(BaseConvRNNCell):
    __doc__ = "Convolutional Gated Rectified Unit (GRU) network cell.\n" + _DOC_PARAMS.format(
        prefix="ConvGRU_"
    )
    __init__ = _cell_init("ConvGRU")

    @property
    def _gate_names(self) -> list:
        return ["_r", "_z", "_o"]

    _num_states = 1

    def __call__(self, inputs: Any, states: list) -> tuple[Any, list]:
        name, i2h, h2h = self._conv_forward(inputs, states)
        i2h_r, i2h_z, i2h = symbol.SliceChannel(i2h, num_outputs=3, name=f"{name}_i2h_slice")
        h2h_r, h2h_z, h2h = symbol.SliceChannel(h2h, num_outputs=3, name=f"{name}_h2h_slice")
        reset_gate = symbol.Activation(i2h_r + h2h_r, act_type="sigmoid", name=f"{name}_r_act")
        update_gate = symbol.Activation(i2h_z + h2h_z, act_type="sigmoid", name=f"{name}_z_act")
        next_h_tmp = self._get_activation(
            i2h + reset_gate * h2h, self._activation, name=f"{name}_h_act"
        )
        next_h = symbol._internal._plus(
            (1.0 - update_gate) * next_h_tmp, update_gate * states[0], name=f"{name}out"
        )
        return next_h, [next_h]
