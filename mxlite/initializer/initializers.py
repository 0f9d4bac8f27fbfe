"""The concrete weight initializers of ``mx.init`` (Zero, One, Constant, Uniform, Normal,
Orthogonal, Xavier, MSRAPrelu, Bilinear, LSTMBias, FusedRNN). Random initializers draw through
``mx.nd.random`` into the target array (``out=``), so ``mx.random.seed`` makes them repeatable.
Their distribution parameters (bounds, scales, fans) are MXNet's; the numbers drawn are this
project's generator's, not MXNet's.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..base import ParamError, ShapeError
from ..ndarray import random as _random
from .base import InitDesc, Initializer, alias, bilinear_kernel, create, register


@register
@alias("zeros")
class Zero(Initializer):
    """Initializes weights to zero."""

    def __init__(self) -> None:
        super().__init__()

    def _init_weight(self, _: str, arr: Any) -> None:
        arr[:] = 0


@register
@alias("ones")
class One(Initializer):
    """Initializes weights to one."""

    def __init__(self) -> None:
        super().__init__()

    def _init_weight(self, _: str, arr: Any) -> None:
        arr[:] = 1


@register
class Constant(Initializer):
    """Initializes the weights to a given value.

    The value passed in can be a scalar or a NDarray that matches the shape of the parameter
    to be set.

    Parameters
    ----------
    value : float, NDArray
        Value to set.
    """

    def __init__(self, value: Any) -> None:
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, _: str, arr: Any) -> None:
        arr[:] = self.value

    def dumps(self) -> str:
        val = self._kwargs["value"]
        if not np.isscalar(val):
            # MXNet stores the array back into the kwargs as a list; so do we.
            self._kwargs["value"] = (
                val.tolist() if isinstance(val, np.ndarray) else val.asnumpy().tolist()
            )
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])


@register
class Uniform(Initializer):
    """Initializes weights with random values uniformly sampled from a given range.

    Parameters
    ----------
    scale : float, optional
        The bound on the range of the generated random values. Values are generated from the
        range [-`scale`, `scale`]. Default scale is 0.07.
    """

    def __init__(self, scale: float = 0.07) -> None:
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _: str, arr: Any) -> None:
        _random.uniform(-self.scale, self.scale, arr.shape, out=arr)


@register
class Normal(Initializer):
    """Initializes weights with random values sampled from a normal distribution with a mean
    of zero and standard deviation of `sigma`.

    Parameters
    ----------
    sigma : float, optional
        Standard deviation of the normal distribution. Default standard deviation is 0.01.
    """

    def __init__(self, sigma: float = 0.01) -> None:
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _: str, arr: Any) -> None:
        _random.normal(0, self.sigma, arr.shape, out=arr)


@register
class Orthogonal(Initializer):
    """Initialize weight as orthogonal matrix.

    This initializer implements *Exact solutions to the nonlinear dynamics of learning in deep
    linear neural networks* (https://arxiv.org/abs/1312.6120).

    Parameters
    ----------
    scale : float optional
        Scaling factor of weight.
    rand_type: string optional
        Use "uniform" or "normal" random number to initialize weight.
    """

    def __init__(self, scale: float = 1.414, rand_type: str = "uniform") -> None:
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, name: str, arr: Any) -> None:
        nout = arr.shape[0]
        nin = int(np.prod(arr.shape[1:]))
        if self.rand_type == "uniform":
            tmp = _random.uniform(-1.0, 1.0, shape=(nout, nin)).asnumpy()
        elif self.rand_type == "normal":
            tmp = _random.normal(0.0, 1.0, shape=(nout, nin)).asnumpy()
        else:
            raise ParamError(
                f"Orthogonal: argument 'rand_type' must be 'uniform' or 'normal', "
                f"got {self.rand_type!r}"
            )
        u, _, v = np.linalg.svd(tmp, full_matrices=False)
        # u has orthonormal columns when nout >= nin, v orthonormal rows otherwise.
        res = u if u.shape == tmp.shape else v
        arr[:] = self.scale * res.reshape(arr.shape)


def _fans(name: str, shape: tuple[int, ...], who: str) -> tuple[float, float]:
    if len(shape) < 2:
        raise ShapeError(
            f"{who} initializer cannot be applied to vector {name}. It requires at least 2D, "
            f"got shape {tuple(shape)}."
        )
    hw_scale = float(np.prod(shape[2:])) if len(shape) > 2 else 1.0
    return shape[1] * hw_scale, shape[0] * hw_scale


@register
class Xavier(Initializer):
    """Returns an initializer performing "Xavier" initialization for weights.

    This initializer is designed to keep the scale of gradients roughly the same in all layers.
    With ``fan_in = shape[1] * prod(shape[2:])`` and ``fan_out = shape[0] * prod(shape[2:])``,
    ``factor`` is their mean (``'avg'``), ``fan_in`` (``'in'``) or ``fan_out`` (``'out'``), and
    ``c = sqrt(magnitude / factor)``. Weights are drawn from U[-c, c] (``'uniform'``) or from a
    normal distribution with standard deviation c (``'gaussian'``).

    Parameters
    ----------
    rnd_type: str, optional
        Random generator type, can be ``'gaussian'`` or ``'uniform'``.
    factor_type: str, optional
        Can be ``'avg'``, ``'in'``, or ``'out'``.
    magnitude: float, optional
        Scale of random number.
    """

    def __init__(
        self, rnd_type: str = "uniform", factor_type: str = "avg", magnitude: float = 3
    ) -> None:
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def scale_for(self, name: str, shape: tuple[int, ...]) -> float:
        """The bound (uniform) or standard deviation (gaussian) used for ``shape``."""
        fan_in, fan_out = _fans(name, shape, "Xavier")
        factors = {"avg": (fan_in + fan_out) / 2.0, "in": fan_in, "out": fan_out}
        if self.factor_type not in factors:
            raise ParamError(
                f"{type(self).__name__}: argument 'factor_type' must be one of 'avg', 'in', "
                f"'out', got {self.factor_type!r}"
            )
        return float(np.sqrt(self.magnitude / factors[self.factor_type]))

    def _init_weight(self, name: str, arr: Any) -> None:
        scale = self.scale_for(name, arr.shape)
        if self.rnd_type == "uniform":
            _random.uniform(-scale, scale, arr.shape, out=arr)
        elif self.rnd_type == "gaussian":
            _random.normal(0, scale, arr.shape, out=arr)
        else:
            raise ParamError(
                f"{type(self).__name__}: argument 'rnd_type' must be 'uniform' or 'gaussian', "
                f"got {self.rnd_type!r}"
            )


@register
class MSRAPrelu(Xavier):
    """Initialize the weight according to a MSRA paper.

    This initializer implements *Delving Deep into Rectifiers: Surpassing Human-Level
    Performance on ImageNet Classification* (https://arxiv.org/abs/1502.01852): Xavier with
    gaussian draws and ``magnitude = 2 / (1 + slope ** 2)``.

    Parameters
    ----------
    factor_type: str, optional
        Can be ``'avg'``, ``'in'``, or ``'out'``.
    slope: float, optional
        initial slope of any PReLU (or similar) nonlinearities.
    """

    def __init__(self, factor_type: str = "avg", slope: float = 0.25) -> None:
        magnitude = 2.0 / (1 + slope**2)
        super().__init__("gaussian", factor_type, magnitude)
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Bilinear(Initializer):
    """Initialize weight for upsampling layers."""

    def __init__(self) -> None:
        super().__init__()

    def _init_weight(self, _: str, arr: Any) -> None:
        arr[:] = bilinear_kernel(arr.shape)


@register
class LSTMBias(Initializer):
    """Initialize all biases of an LSTMCell to 0.0 except for the forget gate whose bias is
    set to custom value.

    Parameters
    ----------
    forget_bias: float, default 1.0
        bias for the forget gate. Jozefowicz et al. 2015 recommends setting this to 1.0.
    """

    def __init__(self, forget_bias: float = 1.0) -> None:
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name: str, arr: Any) -> None:
        arr[:] = 0.0
        num_hidden = int(arr.shape[0] / 4)
        arr[num_hidden : 2 * num_hidden] = self.forget_bias


_GATES = {
    "rnn_relu": [""],
    "rnn_tanh": [""],
    "lstm": ["_i", "_f", "_c", "_o"],
    "gru": ["_r", "_z", "_o"],
}


def fused_rnn_layout(
    size: int, num_hidden: int, num_layers: int, mode: str, bidirectional: bool
) -> list[tuple[str, int, tuple[int, ...]]]:
    """Name, offset and shape of each weight and bias packed in a fused RNN's flat
    ``parameters`` of ``size`` elements, named as ``FusedRNNCell(prefix='')`` unpacks them.

    The layout is the RNN operator's: every layer's (and direction's) i2h then h2h weights per
    gate, then all the biases in the same order.
    """
    if mode not in _GATES:
        raise ParamError(f"FusedRNN: argument 'mode' must be one of {list(_GATES)}, got {mode!r}")
    gates = _GATES[mode]
    dirs = ["l", "r"] if bidirectional else ["l"]
    b, m, h = len(dirs), len(gates), num_hidden
    num_input = size // b // h // m - (num_layers - 1) * (h + b * h + 2) - h - 2
    out: list[tuple[str, int, tuple[int, ...]]] = []
    p = 0
    for layer in range(num_layers):
        for d in dirs:
            in_shape = (h, b * h) if layer > 0 else (h, num_input)
            for kind, shape in (("i2h", in_shape), ("h2h", (h, h))):
                for g in gates:
                    out.append((f"{d}{layer}_{kind}{g}_weight", p, shape))
                    p += shape[0] * shape[1]
    for layer in range(num_layers):
        for d in dirs:
            for kind in ("i2h", "h2h"):
                for g in gates:
                    out.append((f"{d}{layer}_{kind}{g}_bias", p, (h,)))
                    p += h
    if p != size or num_input <= 0:
        raise ShapeError(
            f"FusedRNN: 'parameters' has {size} elements, which does not fit num_hidden={h}, "
            f"num_layers={num_layers}, mode={mode!r}, bidirectional={bidirectional}"
        )
    return out


@register
class FusedRNN(Initializer):
    """Initialize parameters for fused rnn layers.

    Parameters
    ----------
    init : Initializer
        initializer applied to unpacked weights. Fall back to global initializer if None.
    num_hidden : int
        should be the same with arguments passed to FusedRNNCell.
    num_layers : int
        should be the same with arguments passed to FusedRNNCell.
    mode : str
        should be the same with arguments passed to FusedRNNCell.
    bidirectional : bool
        should be the same with arguments passed to FusedRNNCell.
    forget_bias : float
        should be the same with arguments passed to FusedRNNCell.
    """

    def __init__(
        self,
        init: Any,
        num_hidden: int,
        num_layers: int,
        mode: str,
        bidirectional: bool = False,
        forget_bias: float = 1.0,
    ) -> None:
        if isinstance(init, str):
            init = create(init)
        super().__init__(
            init=init.dumps() if init is not None else None,
            num_hidden=num_hidden,
            num_layers=num_layers,
            mode=mode,
            bidirectional=bidirectional,
            forget_bias=forget_bias,
        )
        self._init = init
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._forget_bias = forget_bias

    def _init_weight(self, desc: str, arr: Any) -> None:
        from ..ndarray import array

        flat = arr.asnumpy().ravel().copy()
        layout = fused_rnn_layout(
            flat.size, self._num_hidden, self._num_layers, self._mode, self._bidirectional
        )
        global_init = getattr(desc, "global_init", None)
        for name, start, shape in layout:
            n = int(np.prod(shape))
            part = array(flat[start : start + n].reshape(shape), ctx=arr.context, dtype=arr.dtype)
            if self._mode == "lstm" and name.endswith("_f_bias"):
                part[:] = self._forget_bias
            else:
                init = self._init if self._init is not None else global_init
                if init is None:
                    raise ParamError(
                        "FusedRNN: 'init' is None and the descriptor has no global_init to "
                        "fall back to"
                    )
                init(InitDesc(name, global_init=global_init), part)
            flat[start : start + n] = part.asnumpy().ravel()
        arr[:] = flat.reshape(arr.shape)
