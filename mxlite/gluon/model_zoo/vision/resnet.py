"""ResNet V1 and V2 of ``mx.gluon.model_zoo.vision``, with MXNet 1.9.1's block structure, so
that parameter names (``resnetv10_stage1_conv0_weight``) and ``save_parameters`` names
(``features.4.0.body.0.weight``) are MXNet's and its pretrained files load."""

from __future__ import annotations

from typing import Any

from ....context import Context
from ... import nn
from ...block import HybridBlock
from ..model_store import with_pretrained
from ._variant import _Classifier, variant

__all__ = [
    "ResNetV1", "ResNetV2", "BasicBlockV1", "BasicBlockV2", "BottleneckV1", "BottleneckV2",
    "resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1",
    "resnet18_v2", "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2", "get_resnet",
]  # fmt: skip


def _conv3x3(channels: int, stride: int, in_channels: int) -> nn.Conv2D:
    return nn.Conv2D(
        channels, kernel_size=3, strides=stride, padding=1, use_bias=False, in_channels=in_channels
    )


def _projection(channels: int, stride: int, in_channels: int) -> nn.HybridSequential:
    """The 1x1 convolution + BatchNorm that matches the shortcut to a block's output (V1)."""
    down = nn.HybridSequential(prefix="")
    down.add(nn.Conv2D(channels, 1, strides=stride, use_bias=False, in_channels=in_channels))
    down.add(nn.BatchNorm())
    return down


_BLOCK_PARAMS_DOC = """

    Parameters
    ----------
    channels : int
        Number of output channels.
    stride : int
        Stride size.
    downsample : bool, default False
        Whether to downsample the input.
    in_channels : int, default 0
        Number of input channels. Default is 0, to infer from the graph.
    """


class _ResidualBlock(HybridBlock):
    """What the four residual blocks share: MXNet's constructor, which builds the block's layers
    with ``_layers``."""

    def __init__(
        self, channels: int, stride: int, downsample: bool = False, in_channels: int = 0, **kwargs
    ) -> None:
        super().__init__(**kwargs)
        self._layers(channels, stride, downsample, in_channels)


class BasicBlockV1(_ResidualBlock):
    """Two 3x3 convolutions with BatchNorm, plus the shortcut (ResNet V1, 18 and 34 layers)."""

    __doc__ = (__doc__ or "") + _BLOCK_PARAMS_DOC

    def _layers(self, channels: int, stride: int, downsample: bool, in_channels: int) -> None:
        self.body = nn.HybridSequential(prefix="")
        self.body.add(_conv3x3(channels, stride, in_channels), nn.BatchNorm())
        self.body.add(nn.Activation("relu"), _conv3x3(channels, 1, channels), nn.BatchNorm())
        self.downsample = _projection(channels, stride, in_channels) if downsample else None

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        residual = self.downsample(x) if self.downsample else x
        return F.Activation(residual + self.body(x), act_type="relu")


class BottleneckV1(_ResidualBlock):
    """1x1, 3x3 and 1x1 convolutions with BatchNorm, plus the shortcut (ResNet V1, 50 layers
    and more). As in MXNet, the two 1x1 convolutions have a bias."""

    __doc__ = (__doc__ or "") + _BLOCK_PARAMS_DOC

    def _layers(self, channels: int, stride: int, downsample: bool, in_channels: int) -> None:
        self.body = nn.HybridSequential(prefix="")
        self.body.add(nn.Conv2D(channels // 4, kernel_size=1, strides=stride), nn.BatchNorm())
        self.body.add(nn.Activation("relu"), _conv3x3(channels // 4, 1, channels // 4))
        self.body.add(nn.BatchNorm(), nn.Activation("relu"))
        self.body.add(nn.Conv2D(channels, kernel_size=1, strides=1), nn.BatchNorm())
        self.downsample = _projection(channels, stride, in_channels) if downsample else None

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        residual = self.downsample(x) if self.downsample else x
        return F.Activation(self.body(x) + residual, act_type="relu")


class _PreActBlock(_ResidualBlock):
    """ResNet V2's blocks: BatchNorm and ReLU before each convolution ``conv1``, ``conv2``, ...
    (``bn1``, ``bn2``, ...), the shortcut taken after the first ReLU."""

    _convs = 2

    def _add_shortcut(self, channels: int, stride: int, downsample: bool, in_channels: int):
        self.downsample = (
            nn.Conv2D(channels, 1, stride, use_bias=False, in_channels=in_channels)
            if downsample
            else None
        )

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        residual = x
        x = F.Activation(self.bn1(x), act_type="relu")
        if self.downsample:
            residual = self.downsample(x)
        x = self.conv1(x)
        for i in range(2, self._convs + 1):
            x = F.Activation(getattr(self, f"bn{i}")(x), act_type="relu")
            x = getattr(self, f"conv{i}")(x)
        return x + residual


class BasicBlockV2(_PreActBlock):
    """Pre-activation block of two 3x3 convolutions (ResNet V2, 18 and 34 layers)."""

    __doc__ = (__doc__ or "") + _BLOCK_PARAMS_DOC

    def _layers(self, channels: int, stride: int, downsample: bool, in_channels: int) -> None:
        self.bn1 = nn.BatchNorm()
        self.conv1 = _conv3x3(channels, stride, in_channels)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels, 1, channels)
        self._add_shortcut(channels, stride, downsample, in_channels)


class BottleneckV2(_PreActBlock):
    """Pre-activation bottleneck block (ResNet V2, 50 layers and more)."""

    __doc__ = (__doc__ or "") + _BLOCK_PARAMS_DOC
    _convs = 3

    def _layers(self, channels: int, stride: int, downsample: bool, in_channels: int) -> None:
        self.bn1 = nn.BatchNorm()
        self.conv1 = nn.Conv2D(channels // 4, kernel_size=1, strides=1, use_bias=False)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels // 4, stride, channels // 4)
        self.bn3 = nn.BatchNorm()
        self.conv3 = nn.Conv2D(channels, kernel_size=1, strides=1, use_bias=False)
        self._add_shortcut(channels, stride, downsample, in_channels)


def _stage(block: type, layers: int, channels: int, stride: int, index: int, in_channels: int):
    stage = nn.HybridSequential(prefix=f"stage{index}_")
    with stage.name_scope():
        stage.add(
            block(channels, stride, channels != in_channels, in_channels=in_channels, prefix="")
        )
        for _ in range(layers - 1):
            stage.add(block(channels, 1, False, in_channels=channels, prefix=""))
    return stage


class _ResNet(_Classifier):
    """The stem, stages and classifier of ResNet V1 and V2; V2 (``preact``) adds a BatchNorm
    before the stem and BatchNorm, ReLU and Flatten after the last stage."""

    _preact = False

    def __init__(
        self, block: type, layers: list, channels: list, classes: int = 1000,
        thumbnail: bool = False, **kwargs,
    ) -> None:  # fmt: skip
        super().__init__(**kwargs)
        preact = self._preact
        if len(layers) != len(channels) - 1:
            raise ValueError(
                f"ResNetV{2 if preact else 1}: 'channels' must have one entry more than 'layers'."
            )
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            if preact:
                self.features.add(nn.BatchNorm(scale=False, center=False))
            if thumbnail:
                self.features.add(_conv3x3(channels[0], 1, 0))
            else:
                self.features.add(nn.Conv2D(channels[0], 7, 2, 3, use_bias=False))
                self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.MaxPool2D(3, 2, 1))
            for i, num in enumerate(layers):
                self.features.add(
                    _stage(block, num, channels[i + 1], 1 if i == 0 else 2, i + 1, channels[i])
                )
            if preact:
                self.features.add(nn.BatchNorm(), nn.Activation("relu"))
            self.features.add(nn.GlobalAvgPool2D())
            if preact:
                self.features.add(nn.Flatten())
            self.output = nn.Dense(classes, in_units=channels[-1])


_RESNET_PARAMS_DOC = """

    Parameters
    ----------
    block : HybridBlock
        Class for the residual block ({}).
    layers : list of int
        Numbers of layers in each block.
    channels : list of int
        Numbers of channels in each block; one more than ``layers``.
    classes : int, default 1000
        Number of classification classes.
    thumbnail : bool, default False
        Enable thumbnail (for small inputs such as CIFAR's 32x32).
    """


class ResNetV1(_ResNet):
    """ResNet V1 ("Deep Residual Learning for Image Recognition")."""

    __doc__ = (__doc__ or "") + _RESNET_PARAMS_DOC.format("BasicBlockV1 or BottleneckV1")


class ResNetV2(_ResNet):
    """ResNet V2 ("Identity Mappings in Deep Residual Networks")."""

    __doc__ = (__doc__ or "") + _RESNET_PARAMS_DOC.format("BasicBlockV2 or BottleneckV2")

    _preact = True


# MXNet's tables, under its names (libraries build their variants from them)
resnet_spec = {
    18: ("basic_block", [2, 2, 2, 2], [64, 64, 128, 256, 512]),
    34: ("basic_block", [3, 4, 6, 3], [64, 64, 128, 256, 512]),
    50: ("bottle_neck", [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
    101: ("bottle_neck", [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
    152: ("bottle_neck", [3, 8, 36, 3], [64, 256, 512, 1024, 2048]),
}
resnet_net_versions = [ResNetV1, ResNetV2]
resnet_block_versions = [
    {"basic_block": BasicBlockV1, "bottle_neck": BottleneckV1},
    {"basic_block": BasicBlockV2, "bottle_neck": BottleneckV2},
]


def get_resnet(
    version: int, num_layers: int, pretrained: bool = False, ctx: Context | None = None,
    root: str | None = None, **kwargs,
) -> HybridBlock:  # fmt: skip
    """ResNet V1 or V2 with ``num_layers`` layers (18, 34, 50, 101 or 152).

    Parameters
    ----------
    version : int
        Version of ResNet, 1 or 2.
    num_layers : int
        Numbers of layers: 18, 34, 50, 101 or 152.
    pretrained : bool, default False
        Whether to load MXNet's pretrained weights.
    ctx : Context, default CPU
        The context in which to load the pretrained weights.
    root : str, default '$MXNET_HOME/models'
        Location for keeping the model parameters.
    """
    if num_layers not in resnet_spec:
        raise ValueError(
            f"Invalid number of layers: {num_layers}. Options are {sorted(resnet_spec)}"
        )
    if version not in (1, 2):
        raise ValueError(f"Invalid resnet version: {version}. Options are 1 and 2.")
    kind, layers, channels = resnet_spec[num_layers]
    net_class, blocks = resnet_net_versions[version - 1], resnet_block_versions[version - 1]
    return with_pretrained(
        net_class(blocks[kind], layers, channels, **kwargs),
        pretrained,
        f"resnet{num_layers}_v{version}",
        root,
        ctx,
    )


resnet18_v1, resnet34_v1, resnet50_v1, resnet101_v1, resnet152_v1 = (
    variant(get_resnet, f"resnet{n}_v1", f"ResNet-{n} V1", 1, n) for n in (18, 34, 50, 101, 152)
)
resnet18_v2, resnet34_v2, resnet50_v2, resnet101_v2, resnet152_v2 = (
    variant(get_resnet, f"resnet{n}_v2", f"ResNet-{n} V2", 2, n) for n in (18, 34, 50, 101, 152)
)
