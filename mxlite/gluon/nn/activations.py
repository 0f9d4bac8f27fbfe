"""Activation layers (``mx.gluon.nn.Activation``, ``LeakyReLU``, ...), as MXNet 1.9.1's."""

from __future__ import annotations

from typing import Any

from ... import initializer
from ...util import is_np_array
from ..block import HybridBlock
from ..parameter import GluonCheckError

__all__ = ["Activation", "LeakyReLU", "PReLU", "ELU", "SELU", "Swish", "GELU"]


def _leaky_relu(F: Any) -> Any:
    """``LeakyReLU`` of the namespace ``F``: ``npx.leaky_relu`` in NumPy-array mode."""
    return F.npx.leaky_relu if is_np_array() else F.LeakyReLU


class Activation(HybridBlock):
    r"""Applies an activation function to input.

    Parameters
    ----------
    activation : str
        Name of activation function to use.
        See :func:`~mxnet.ndarray.Activation` for available choices.

    Inputs:
        - **data**: input tensor with arbitrary shape.

    Outputs:
        - **out**: output tensor with the same shape as `data`.
    """

    def __init__(self, activation: str, **kwargs: Any) -> None:
        self._act_type = activation
        super().__init__(**kwargs)

    def _alias(self) -> str:
        return self._act_type

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        act = F.npx.activation if is_np_array() else F.Activation
        return act(x, act_type=self._act_type, name="fwd")

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._act_type})"


class LeakyReLU(HybridBlock):
    r"""Leaky version of a Rectified Linear Unit: ``f(x) = alpha * x`` for ``x < 0``,
    ``f(x) = x`` for ``x >= 0``.

    Parameters
    ----------
    alpha : float
        slope coefficient for the negative half axis. Must be >= 0.
    """

    def __init__(self, alpha: float, **kwargs: Any) -> None:
        if alpha < 0:
            raise GluonCheckError("Slope coefficient for LeakyReLU must be no less than 0.")
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return _leaky_relu(F)(x, act_type="leaky", slope=self._alpha, name="fwd")

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._alpha})"


class PReLU(HybridBlock):
    r"""Parametric leaky version of a Rectified Linear Unit, with a learnt slope per channel.

    Parameters
    ----------
    alpha_initializer : Initializer
        Initializer for the `embeddings` matrix.
    in_channels : int, default 1
        Number of channels (alpha parameters) to learn. Can either be 1
        or `n` where `n` is the size of the second dimension of the input
        tensor.
    """

    def __init__(self, alpha_initializer: Any = None, in_channels: int = 1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if alpha_initializer is None:
            alpha_initializer = initializer.Constant(0.25)
        with self.name_scope():
            self.alpha = self.params.get("alpha", shape=(in_channels,), init=alpha_initializer)

    def hybrid_forward(self, F: Any, x: Any, alpha: Any) -> Any:
        return _leaky_relu(F)(x, gamma=alpha, act_type="prelu", name="fwd")


class ELU(HybridBlock):
    r"""Exponential Linear Unit (ELU): ``alpha * (exp(x) - 1)`` for ``x < 0``, else ``x``.

    Parameters
    ----------
    alpha : float
        The alpha parameter as described by Clevert et al, 2016
    """

    def __init__(self, alpha: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return _leaky_relu(F)(x, act_type="elu", slope=self._alpha)


class _FixedLeakyReLU(HybridBlock):
    """A LeakyReLU ``act_type`` without parameters (``_leaky_type``)."""

    _leaky_type = ""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return _leaky_relu(F)(x, act_type=self._leaky_type, name="fwd")


class SELU(_FixedLeakyReLU):
    r"""Scaled Exponential Linear Unit (SELU), Klambauer et al, 2017."""

    _leaky_type = "selu"


class GELU(_FixedLeakyReLU):
    r"""Gaussian Exponential Linear Unit (GELU), Hendrycks et al, 2016."""

    _leaky_type = "gelu"


class Swish(HybridBlock):
    r"""Swish Activation function: ``x * sigmoid(beta * x)``, Ramachandran et al, 2017.

    Parameters
    ----------
    beta : float
        swish(x) = x * sigmoid(beta*x)
    """

    def __init__(self, beta: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._beta = beta

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        if is_np_array():
            return x * F.npx.sigmoid(self._beta * x)
        return x * F.sigmoid(self._beta * x, name="fwd")
