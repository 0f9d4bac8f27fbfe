"""Normalization layers (``BatchNorm``, ``SyncBatchNorm``, ``InstanceNorm``, ``LayerNorm``,
``GroupNorm``), as MXNet 1.9.1's; ``mx.gluon.nn.basic_layers`` re-exports them, where MXNet
defines them."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ...base import fill_doc
from ...util import is_np_array
from ..block import HybridBlock

__all__ = [
    "BatchNorm",
    "BatchNormReLU",
    "SyncBatchNorm",
    "InstanceNorm",
    "LayerNorm",
    "GroupNorm",
]


def _kwargs_repr(name: str, kwargs: dict, tail: str = "") -> str:
    content = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    return f"{name}({content}{tail})"


def _gamma_beta(
    block: HybridBlock, shape: tuple, center: bool, scale: bool, beta_initializer: Any,
    gamma_initializer: Any, differentiable: bool = False,
) -> None:  # fmt: skip
    """Creates ``block.gamma`` and ``block.beta`` (learned only where ``scale``/``center``);
    with ``differentiable`` each is marked differentiable as it is learned (BatchNorm)."""
    mark = differentiable
    block.gamma = block.params.get(
        "gamma", grad_req="write" if scale else "null", shape=shape, init=gamma_initializer,
        allow_deferred_init=True, **({"differentiable": scale} if mark else {}),
    )  # fmt: skip
    block.beta = block.params.get(
        "beta", grad_req="write" if center else "null", shape=shape, init=beta_initializer,
        allow_deferred_init=True, **({"differentiable": center} if mark else {}),
    )  # fmt: skip


# The parameters InstanceNorm, LayerNorm and GroupNorm document alike.
_affine_doc = fill_doc(
    eps_center="""epsilon: float, default 1e-5
    Small float added to variance to avoid dividing by zero.
center: bool, default True
    If True, add offset of `beta` to normalized tensor.""",
    beta_gamma="""beta_initializer: str or `Initializer`, default 'zeros'
    Initializer for the beta weight.
gamma_initializer: str or `Initializer`, default 'ones'
    Initializer for the gamma weight.""",
)


class _AffineNorm(HybridBlock):
    """InstanceNorm, LayerNorm and GroupNorm: a normalization with ``gamma`` and ``beta``,
    printed as its operator keywords (and ``in_channels`` where the class says so)."""

    _repr_in_channels: ClassVar[bool] = True

    def __repr__(self) -> str:
        tail = f", in_channels={self.gamma.shape[0]}" if self._repr_in_channels else ""
        return _kwargs_repr(self.__class__.__name__, self._kwargs, tail)


class _BatchNorm(HybridBlock):
    """Batch normalization layer, followed by a ReLU where the class says ``fuse_relu``."""

    fuse_relu: ClassVar[bool] = False

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
        super().__init__(**kwargs)
        self._kwargs = {
            "axis": axis,
            "eps": epsilon,
            "momentum": momentum,
            "fix_gamma": not scale,
            "use_global_stats": use_global_stats,
        }
        if in_channels != 0:
            self.in_channels = in_channels
        shape = (in_channels,)
        _gamma_beta(
            self, shape, center, scale, beta_initializer, gamma_initializer, differentiable=True
        )
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
        np_mode = is_np_array()
        batch_norm = F.npx.batch_norm if np_mode else F.BatchNorm
        out = batch_norm(x, gamma, beta, running_mean, running_var, name="fwd", **self._kwargs)
        if self.fuse_relu:
            out = F.npx.relu(out) if np_mode else F.relu(out)
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


class BatchNormReLU(_BatchNorm):
    """Batch normalization layer followed by a ReLU (``BatchNorm`` then ``relu``); same
    parameters as :class:`BatchNorm`."""

    fuse_relu = True


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


@_affine_doc
class InstanceNorm(_AffineNorm):
    r"""Applies instance normalization to the n-dimensional input array.

    Parameters
    ----------
    axis : int, default 1
        The axis that will be excluded in the normalization process. This is typically the
        channels (C) axis.
    {eps_center}
    scale: bool, default False
        If True, multiply by `gamma`. If False, `gamma` is not used.
    {beta_gamma}
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
        _gamma_beta(self, (in_channels,), center, scale, beta_initializer, gamma_initializer)

    def hybrid_forward(self, F: Any, x: Any, gamma: Any, beta: Any) -> Any:
        if self._axis == 1:
            return F.InstanceNorm(x, gamma, beta, name="fwd", eps=self._epsilon)
        x = x.swapaxes(1, self._axis)
        out = F.InstanceNorm(x, gamma, beta, name="fwd", eps=self._epsilon)
        return out.swapaxes(1, self._axis)


@_affine_doc
class LayerNorm(_AffineNorm):
    r"""Applies layer normalization to the n-dimensional input array.

    Parameters
    ----------
    axis : int, default -1
        The axis that should be normalized. This is typically the axis of the channels.
    {eps_center}
    scale: bool, default True
        If True, multiply by `gamma`. If False, `gamma` is not used.
    {beta_gamma}
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
        _gamma_beta(self, (in_channels,), center, scale, beta_initializer, gamma_initializer)

    def hybrid_forward(self, F: Any, data: Any, gamma: Any, beta: Any) -> Any:
        layer_norm = F.npx.layer_norm if is_np_array() else F.LayerNorm
        return layer_norm(data, gamma=gamma, beta=beta, axis=self._axis, eps=self._epsilon)


@_affine_doc
class GroupNorm(_AffineNorm):
    r"""Applies group normalization to the n-dimensional input array: the channels are split
    into ``num_groups`` groups, each normalized over its channels and the spatial axes.

    Parameters
    ----------
    num_groups: int, default 1
        Number of groups to separate the channel axis into.
    {eps_center}
    scale: bool, default True
        If True, multiply by `gamma`. If False, `gamma` is not used.
    {beta_gamma}
    """

    _repr_in_channels = False

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
        _gamma_beta(self, (num_groups,), center, scale, beta_initializer, gamma_initializer)

    def hybrid_forward(self, F: Any, data: Any, gamma: Any, beta: Any) -> Any:
        return F.GroupNorm(
            data, gamma=gamma, beta=beta, num_groups=self._num_groups, eps=self._epsilon
        )
