"""Basic neural network layers (``mx.gluon.nn``), as MXNet 1.9.1's ``basic_layers.py``, with
``Identity`` and the ``Concatenate`` containers that MXNet keeps in ``gluon.contrib.nn``."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ... import ndarray as nd
from ... import symbol as sym
from ..block import Block, HybridBlock
from ..parameter import GluonCheckError
from ..utils import _indent
from .activations import Activation

__all__ = [
    "Sequential",
    "HybridSequential",
    "Dense",
    "Dropout",
    "Embedding",
    "BatchNorm",
    "BatchNormReLU",
    "SyncBatchNorm",
    "InstanceNorm",
    "LayerNorm",
    "GroupNorm",
    "Flatten",
    "Lambda",
    "HybridLambda",
    "Concatenate",
    "HybridConcatenate",
    "Identity",
]


def _children_repr(block: Block) -> str:
    modstr = "\n".join(
        f"  ({key}): {_indent(repr(child), 2)}" for key, child in block._children.items()
    )
    return f"{block.__class__.__name__}(\n{modstr}\n)"


def _kwargs_repr(name: str, kwargs: dict, tail: str = "") -> str:
    content = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    return f"{name}({content}{tail})"


class _SequentialMixin:
    """``add``, indexing, ``len`` and ``repr`` shared by the sequential containers."""

    def add(self, *blocks: Block) -> None:
        """Adds block on top of the stack."""
        for block in blocks:
            self.register_child(block)  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return _children_repr(self)  # type: ignore[arg-type]

    def __getitem__(self, key: Any) -> Any:
        layers = list(self._children.values())[key]  # type: ignore[attr-defined]
        if isinstance(layers, list):
            net = type(self)(prefix=self._prefix)  # type: ignore[attr-defined,call-arg]
            with net.name_scope():
                net.add(*layers)
            return net
        return layers

    def __len__(self) -> int:
        return len(self._children)  # type: ignore[attr-defined]


class Sequential(_SequentialMixin, Block):
    """Stacks Blocks sequentially.

    Example::

        net = nn.Sequential()
        # use net's name_scope to give child Blocks appropriate names.
        with net.name_scope():
            net.add(nn.Dense(10, activation='relu'))
            net.add(nn.Dense(20))
    """

    def __init__(self, prefix: str | None = None, params: Any = None) -> None:
        super().__init__(prefix=prefix, params=params)

    def forward(self, x: Any) -> Any:
        for block in self._children.values():
            x = block(x)
        return x

    def hybridize(self, active: bool = True, **kwargs: Any) -> None:
        """Activates or deactivates `HybridBlock` s recursively. Has no effect on
        non-hybrid children."""
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            warnings.warn(
                f"All children of this Sequential layer '{self.prefix}' are HybridBlocks. "
                "Consider using HybridSequential for the best performance.",
                stacklevel=2,
            )
        super().hybridize(active, **kwargs)


class HybridSequential(_SequentialMixin, HybridBlock):
    """Stacks HybridBlocks sequentially.

    Example::

        net = nn.HybridSequential()
        # use net's name_scope to give child Blocks appropriate names.
        with net.name_scope():
            net.add(nn.Dense(10, activation='relu'))
            net.add(nn.Dense(20))
        net.hybridize()
    """

    def __init__(self, prefix: str | None = None, params: Any = None) -> None:
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        for block in self._children.values():
            x = block(x)
        return x


class Dense(HybridBlock):
    r"""Just your regular densely-connected NN layer:
    ``output = activation(dot(input, weight) + bias)``.

    Parameters
    ----------
    units : int
        Dimensionality of the output space.
    activation : str
        Activation function to use. See help on `Activation` layer.
        If you don't specify anything, no activation is applied
        (ie. "linear" activation: `a(x) = x`).
    use_bias : bool, default True
        Whether the layer uses a bias vector.
    flatten: bool, default True
        Whether the input tensor should be flattened.
        If true, all but the first axis of input data are collapsed together.
        If false, all but the last axis of input data are kept the same, and the transformation
        applies on the last axis.
    dtype : str or np.dtype, default 'float32'
        Data type of output embeddings.
    weight_initializer : str or `Initializer`
        Initializer for the `kernel` weights matrix.
    bias_initializer: str or `Initializer`
        Initializer for the bias vector.
    in_units : int, optional
        Size of the input data. If not specified, initialization will be
        deferred to the first time `forward` is called and `in_units`
        will be inferred from the shape of input data.
    prefix : str or None
        See document of `Block`.
    params : ParameterDict or None
        See document of `Block`.
    """

    def __init__(
        self,
        units: int,
        activation: str | None = None,
        use_bias: bool = True,
        flatten: bool = True,
        dtype: Any = "float32",
        weight_initializer: Any = None,
        bias_initializer: Any = "zeros",
        in_units: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get(
                "weight", shape=(units, in_units), init=weight_initializer, dtype=dtype,
                allow_deferred_init=True,
            )  # fmt: skip
            if use_bias:
                self.bias = self.params.get(
                    "bias", shape=(units,), init=bias_initializer, dtype=dtype,
                    allow_deferred_init=True,
                )  # fmt: skip
            else:
                self.bias = None
            if activation is not None:
                self.act = Activation(activation, prefix=activation + "_")
            else:
                self.act = None

    def hybrid_forward(self, F: Any, x: Any, weight: Any, bias: Any = None) -> Any:
        inputs = (x, weight) if bias is None else (x, weight, bias)
        act = F.FullyConnected(
            *inputs, no_bias=bias is None, num_hidden=self._units, flatten=self._flatten,
            name="fwd",
        )  # fmt: skip
        if self.act is not None:
            act = self.act(act)
        return act

    def __repr__(self) -> str:
        shape = self.weight.shape
        layout = f"{shape[1] if shape[1] else None} -> {shape[0]}"
        return f"{self.__class__.__name__}({layout}, {self.act if self.act else 'linear'})"


class Dropout(HybridBlock):
    """Applies Dropout to the input.

    Parameters
    ----------
    rate : float
        Fraction of the input units to drop. Must be a number between 0 and 1.
    axes : tuple of int, default ()
        The axes on which dropout mask is shared. If empty, regular dropout is applied.
    """

    def __init__(self, rate: float, axes: tuple = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._rate = rate
        self._axes = axes

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        if self._rate > 0:
            return F.Dropout(x, p=self._rate, axes=self._axes, name="fwd", cudnn_off=False)
        return F.identity(x)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p = {self._rate}, axes={self._axes})"


class _BatchNorm(HybridBlock):
    """Batch normalization layer, with an optional fused ReLU."""

    def __init__(
        self,
        axis: int = 1,
        momentum: float = 0.9,
        epsilon: float = 1e-5,
        center: bool = True,
        scale: bool = True,
        use_global_stats: bool = False,
        fuse_relu: bool = False,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        running_mean_initializer: Any = "zeros",
        running_variance_initializer: Any = "ones",
        in_channels: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._kwargs = {
            "axis": axis,
            "eps": epsilon,
            "momentum": momentum,
            "fix_gamma": not scale,
            "use_global_stats": use_global_stats,
        }
        self.fuse_relu = fuse_relu
        if in_channels != 0:
            self.in_channels = in_channels
        shape = (in_channels,)
        self.gamma = self.params.get(
            "gamma", grad_req="write" if scale else "null", shape=shape,
            init=gamma_initializer, allow_deferred_init=True, differentiable=scale,
        )  # fmt: skip
        self.beta = self.params.get(
            "beta", grad_req="write" if center else "null", shape=shape,
            init=beta_initializer, allow_deferred_init=True, differentiable=center,
        )  # fmt: skip
        self.running_mean = self.params.get(
            "running_mean", grad_req="null", shape=shape, init=running_mean_initializer,
            allow_deferred_init=True, differentiable=False,
        )  # fmt: skip
        self.running_var = self.params.get(
            "running_var", grad_req="null", shape=shape, init=running_variance_initializer,
            allow_deferred_init=True, differentiable=False,
        )  # fmt: skip

    def cast(self, dtype: Any) -> None:
        if np.dtype(dtype).name == "float16":
            dtype = "float32"
        super().cast(dtype)

    def hybrid_forward(
        self, F: Any, x: Any, gamma: Any, beta: Any, running_mean: Any, running_var: Any
    ) -> Any:
        out = F.BatchNorm(x, gamma, beta, running_mean, running_var, name="fwd", **self._kwargs)
        if self.fuse_relu:
            out = F.relu(out)
        return out

    def __repr__(self) -> str:
        in_channels = self.gamma.shape[0]
        return _kwargs_repr(
            self.__class__.__name__, self._kwargs, f", in_channels={in_channels or None}"
        )


class BatchNorm(_BatchNorm):
    """Batch normalization layer (Ioffe and Szegedy, 2014).
    Normalizes the input at each batch, i.e. applies a transformation
    that maintains the mean activation close to 0 and the activation
    standard deviation close to 1.

    Parameters
    ----------
    axis : int, default 1
        The axis that should be normalized. This is typically the channels
        (C) axis. For instance, after a `Conv2D` layer with `layout='NCHW'`,
        set `axis=1` in `BatchNorm`. If `layout='NHWC'`, then set `axis=3`.
    momentum: float, default 0.9
        Momentum for the moving average.
    epsilon: float, default 1e-5
        Small float added to variance to avoid dividing by zero.
    center: bool, default True
        If True, add offset of `beta` to normalized tensor.
        If False, `beta` is ignored.
    scale: bool, default True
        If True, multiply by `gamma`. If False, `gamma` is not used.
    use_global_stats: bool, default False
        If True, use global moving statistics instead of local batch-norm.
    beta_initializer: str or `Initializer`, default 'zeros'
        Initializer for the beta weight.
    gamma_initializer: str or `Initializer`, default 'ones'
        Initializer for the gamma weight.
    running_mean_initializer: str or `Initializer`, default 'zeros'
        Initializer for the running mean.
    running_variance_initializer: str or `Initializer`, default 'ones'
        Initializer for the running variance.
    in_channels : int, default 0
        Number of channels (feature maps) in input data. If not specified,
        initialization will be deferred to the first time `forward` is called
        and `in_channels` will be inferred from the shape of input data.
    """

    def __init__(
        self,
        axis: int = 1,
        momentum: float = 0.9,
        epsilon: float = 1e-5,
        center: bool = True,
        scale: bool = True,
        use_global_stats: bool = False,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        running_mean_initializer: Any = "zeros",
        running_variance_initializer: Any = "ones",
        in_channels: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            axis, momentum, epsilon, center, scale, use_global_stats, False,
            beta_initializer, gamma_initializer, running_mean_initializer,
            running_variance_initializer, in_channels, **kwargs,
        )  # fmt: skip


class BatchNormReLU(_BatchNorm):
    """Batch normalization layer followed by a ReLU (``BatchNorm`` then ``relu``); same
    parameters as :class:`BatchNorm`."""

    def __init__(
        self,
        axis: int = 1,
        momentum: float = 0.9,
        epsilon: float = 1e-5,
        center: bool = True,
        scale: bool = True,
        use_global_stats: bool = False,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        running_mean_initializer: Any = "zeros",
        running_variance_initializer: Any = "ones",
        in_channels: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            axis, momentum, epsilon, center, scale, use_global_stats, True,
            beta_initializer, gamma_initializer, running_mean_initializer,
            running_variance_initializer, in_channels, **kwargs,
        )  # fmt: skip


class SyncBatchNorm(BatchNorm):
    """Cross-GPU synchronized batch normalization; on one device it is :class:`BatchNorm`
    (mxlite runs every context in one process, which is what one device means here).

    Parameters
    ----------
    in_channels : int, default 0
        Number of channels (feature maps) in input data.
    num_devices : int, default number of visible GPUs
        Accepted for compatibility.
    momentum, epsilon, center, scale, use_global_stats, beta_initializer, gamma_initializer,
    running_mean_initializer, running_variance_initializer
        As :class:`BatchNorm`.
    """

    def __init__(
        self,
        in_channels: int = 0,
        num_devices: int | None = None,
        momentum: float = 0.9,
        epsilon: float = 1e-5,
        center: bool = True,
        scale: bool = True,
        use_global_stats: bool = False,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        running_mean_initializer: Any = "zeros",
        running_variance_initializer: Any = "ones",
        **kwargs: Any,
    ) -> None:
        super().__init__(
            1, momentum, epsilon, center, scale, use_global_stats, beta_initializer,
            gamma_initializer, running_mean_initializer, running_variance_initializer,
            in_channels, **kwargs,
        )  # fmt: skip


class Embedding(HybridBlock):
    r"""Turns non-negative integers (indexes/tokens) into dense vectors
    of fixed size. eg. [4, 20] -> [[0.25, 0.1], [0.6, -0.2]]

    Parameters
    ----------
    input_dim : int
        Size of the vocabulary, i.e. maximum integer index + 1.
    output_dim : int
        Dimension of the dense embedding.
    dtype : str or np.dtype, default 'float32'
        Data type of output embeddings.
    weight_initializer : Initializer
        Initializer for the `embeddings` matrix.
    sparse_grad: bool
        If True, gradient w.r.t. weight will be a 'row_sparse' NDArray.
    """

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        dtype: Any = "float32",
        weight_initializer: Any = None,
        sparse_grad: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._kwargs = {
            "input_dim": input_dim,
            "output_dim": output_dim,
            "dtype": dtype,
            "sparse_grad": sparse_grad,
        }
        self.weight = self.params.get(
            "weight", shape=(input_dim, output_dim), init=weight_initializer, dtype=dtype,
            allow_deferred_init=True, grad_stype="row_sparse" if sparse_grad else "default",
        )  # fmt: skip

    def hybrid_forward(self, F: Any, x: Any, weight: Any) -> Any:
        return F.Embedding(x, weight, name="fwd", **self._kwargs)

    def __repr__(self) -> str:
        k = self._kwargs
        return f"{self.__class__.__name__}({k['input_dim']} -> {k['output_dim']}, {k['dtype']})"


class Flatten(HybridBlock):
    r"""Flattens the input to two dimensional.

    Inputs:
        - **data**: input tensor with arbitrary shape `(N, x1, x2, ..., xn)`

    Output:
        - **out**: 2D tensor with shape: `(N, x1 \cdot x2 \cdot ... \cdot xn)`
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return F.flatten(x)

    def __repr__(self) -> str:
        return self.__class__.__name__


class InstanceNorm(HybridBlock):
    r"""Applies instance normalization to the n-dimensional input array.

    Parameters
    ----------
    axis : int, default 1
        The axis that will be excluded in the normalization process. This is typically the
        channels (C) axis.
    epsilon: float, default 1e-5
        Small float added to variance to avoid dividing by zero.
    center: bool, default True
        If True, add offset of `beta` to normalized tensor.
    scale: bool, default False
        If True, multiply by `gamma`. If False, `gamma` is not used.
    beta_initializer: str or `Initializer`, default 'zeros'
        Initializer for the beta weight.
    gamma_initializer: str or `Initializer`, default 'ones'
        Initializer for the gamma weight.
    in_channels : int, default 0
        Number of channels (feature maps) in input data.
    """

    def __init__(
        self,
        axis: int = 1,
        epsilon: float = 1e-5,
        center: bool = True,
        scale: bool = False,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        in_channels: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._kwargs = {"eps": epsilon, "axis": axis, "center": center, "scale": scale}
        self._axis = axis
        self._epsilon = epsilon
        self.gamma = self.params.get(
            "gamma", grad_req="write" if scale else "null", shape=(in_channels,),
            init=gamma_initializer, allow_deferred_init=True,
        )  # fmt: skip
        self.beta = self.params.get(
            "beta", grad_req="write" if center else "null", shape=(in_channels,),
            init=beta_initializer, allow_deferred_init=True,
        )  # fmt: skip

    def hybrid_forward(self, F: Any, x: Any, gamma: Any, beta: Any) -> Any:
        if self._axis == 1:
            return F.InstanceNorm(x, gamma, beta, name="fwd", eps=self._epsilon)
        x = x.swapaxes(1, self._axis)
        out = F.InstanceNorm(x, gamma, beta, name="fwd", eps=self._epsilon)
        return out.swapaxes(1, self._axis)

    def __repr__(self) -> str:
        tail = f", in_channels={self.gamma.shape[0]}"
        return _kwargs_repr(self.__class__.__name__, self._kwargs, tail)


class LayerNorm(HybridBlock):
    r"""Applies layer normalization to the n-dimensional input array.

    Parameters
    ----------
    axis : int, default -1
        The axis that should be normalized. This is typically the axis of the channels.
    epsilon: float, default 1e-5
        Small float added to variance to avoid dividing by zero.
    center: bool, default True
        If True, add offset of `beta` to normalized tensor.
    scale: bool, default True
        If True, multiply by `gamma`. If False, `gamma` is not used.
    beta_initializer: str or `Initializer`, default 'zeros'
        Initializer for the beta weight.
    gamma_initializer: str or `Initializer`, default 'ones'
        Initializer for the gamma weight.
    in_channels : int, default 0
        Number of channels (feature maps) in input data.
    """

    def __init__(
        self,
        axis: int = -1,
        epsilon: float = 1e-5,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        in_channels: int = 0,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {"eps": epsilon, "axis": axis, "center": center, "scale": scale}
        self._axis = axis
        self._epsilon = epsilon
        self._center = center
        self._scale = scale
        self.gamma = self.params.get(
            "gamma", grad_req="write" if scale else "null", shape=(in_channels,),
            init=gamma_initializer, allow_deferred_init=True,
        )  # fmt: skip
        self.beta = self.params.get(
            "beta", grad_req="write" if center else "null", shape=(in_channels,),
            init=beta_initializer, allow_deferred_init=True,
        )  # fmt: skip

    def hybrid_forward(self, F: Any, data: Any, gamma: Any, beta: Any) -> Any:
        return F.LayerNorm(data, gamma=gamma, beta=beta, axis=self._axis, eps=self._epsilon)

    def __repr__(self) -> str:
        tail = f", in_channels={self.gamma.shape[0]}"
        return _kwargs_repr(self.__class__.__name__, self._kwargs, tail)


class GroupNorm(HybridBlock):
    r"""Applies group normalization to the n-dimensional input array: the channels are split
    into ``num_groups`` groups, each normalized over its channels and the spatial axes.

    Parameters
    ----------
    num_groups: int, default 1
        Number of groups to separate the channel axis into.
    epsilon: float, default 1e-5
        Small float added to variance to avoid dividing by zero.
    center: bool, default True
        If True, add offset of `beta` to normalized tensor.
    scale: bool, default True
        If True, multiply by `gamma`. If False, `gamma` is not used.
    beta_initializer: str or `Initializer`, default 'zeros'
        Initializer for the beta weight.
    gamma_initializer: str or `Initializer`, default 'ones'
        Initializer for the gamma weight.
    """

    def __init__(
        self,
        num_groups: int = 1,
        epsilon: float = 1e-5,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {"eps": epsilon, "num_groups": num_groups, "center": center,
                        "scale": scale}  # fmt: skip
        self._num_groups = num_groups
        self._epsilon = epsilon
        self._center = center
        self._scale = scale
        self.gamma = self.params.get(
            "gamma", grad_req="write" if scale else "null", shape=(num_groups,),
            init=gamma_initializer, allow_deferred_init=True,
        )  # fmt: skip
        self.beta = self.params.get(
            "beta", grad_req="write" if center else "null", shape=(num_groups,),
            init=beta_initializer, allow_deferred_init=True,
        )  # fmt: skip

    def hybrid_forward(self, F: Any, data: Any, gamma: Any, beta: Any) -> Any:
        return F.GroupNorm(
            data, gamma=gamma, beta=beta, num_groups=self._num_groups, eps=self._epsilon
        )

    def __repr__(self) -> str:
        return _kwargs_repr(self.__class__.__name__, self._kwargs)


class Lambda(Block):
    r"""Wraps an operator or an expression as a Block object.

    Parameters
    ----------
    function : str or function
        Function used in lambda must be one of the following:
        1) the name of an operator that is available in ndarray. For example::

            block = Lambda('tanh')

        2) a function that conforms to ``def function(*args)``. For example::

            block = Lambda(lambda x: nd.LeakyReLU(x, slope=0.1))
    """

    def __init__(self, function: Any, prefix: str | None = None) -> None:
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            if not hasattr(nd, function):
                raise GluonCheckError(f"Function name {function} is not found in ndarray.")
            self._func_impl = getattr(nd, function)
        elif callable(function):
            self._func_impl = function
        else:
            raise ValueError(
                f"Unrecognized function in lambda: {function} of type {type(function)}"
            )

    def forward(self, *args: Any) -> Any:
        return self._func_impl(*args)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._func_impl.__name__})"


class HybridLambda(HybridBlock):
    r"""Wraps an operator or an expression as a HybridBlock object.

    Parameters
    ----------
    function : str or function
        Function used in lambda must be one of the following:
        1) The name of an operator that is available in both symbol and ndarray. For
        example::

            block = HybridLambda('tanh')

        2) A function that conforms to ``def function(F, data, *args)``. For example::

            block = HybridLambda(lambda F, x: F.LeakyReLU(x, slope=0.1))
    """

    def __init__(self, function: Any, prefix: str | None = None) -> None:
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            if not (hasattr(nd, function) and hasattr(sym, function)):
                raise GluonCheckError(f"Function name {function} is not found in symbol/ndarray.")
            funcs = {sym: getattr(sym, function), nd: getattr(nd, function)}
            self._func = lambda F, *args: funcs[F](*args)
            self._func_name = function
        elif callable(function):
            self._func = function
            self._func_name = function.__name__
        else:
            raise ValueError(
                f"Unrecognized function in lambda: {function} of type {type(function)}"
            )

    def hybrid_forward(self, F: Any, x: Any, *args: Any) -> Any:
        return self._func(F, x, *args)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._func_name})"


class Concatenate(Sequential):
    """Lays `Block` s concurrently: each child gets the same input and their outputs are
    concatenated along ``axis``.

    Parameters
    ----------
    axis : int, default -1
        The axis on which to concatenate the outputs.
    """

    def __init__(self, axis: int = -1, prefix: str | None = None, params: Any = None) -> None:
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x: Any) -> Any:
        return nd.concat(*(block(x) for block in self._children.values()), dim=self.axis)


class HybridConcatenate(HybridSequential):
    """Lays `HybridBlock` s concurrently: each child gets the same input and their outputs
    are concatenated along ``axis``.

    Parameters
    ----------
    axis : int, default -1
        The axis on which to concatenate the outputs.
    """

    def __init__(self, axis: int = -1, prefix: str | None = None, params: Any = None) -> None:
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return F.concat(*(block(x) for block in self._children.values()), dim=self.axis)


class Identity(HybridBlock):
    """Block that passes through the input directly.

    This block can be used in conjunction with HybridConcatenate
    block for residual connection.
    """

    def __init__(self, prefix: str | None = None, params: Any = None) -> None:
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return x
