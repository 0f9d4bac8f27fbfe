"""DenseNet 121/161/169/201 of ``mx.gluon.model_zoo.vision``, structured as MXNet 1.9.1's."""

from __future__ import annotations

from ....context import Context
from ... import nn
from ..model_store import with_pretrained
from ._variant import _Classifier, variant

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201"]


def _dense_layer(growth_rate: int, bn_size: int, dropout: float) -> nn.HybridConcatenate:
    """BN-ReLU-1x1-BN-ReLU-3x3, concatenated with its input along the channels."""
    new = nn.HybridSequential(prefix="")
    new.add(nn.BatchNorm(), nn.Activation("relu"))
    new.add(nn.Conv2D(bn_size * growth_rate, kernel_size=1, use_bias=False))
    new.add(nn.BatchNorm(), nn.Activation("relu"))
    new.add(nn.Conv2D(growth_rate, kernel_size=3, padding=1, use_bias=False))
    if dropout:
        new.add(nn.Dropout(dropout))
    out = nn.HybridConcatenate(axis=1, prefix="")
    out.add(nn.Identity(), new)
    return out


def _dense_block(layers: int, bn_size: int, growth_rate: int, dropout: float, index: int):
    out = nn.HybridSequential(prefix=f"stage{index}_")
    with out.name_scope():
        for _ in range(layers):
            out.add(_dense_layer(growth_rate, bn_size, dropout))
    return out


def _transition(channels: int) -> nn.HybridSequential:
    out = nn.HybridSequential(prefix="")
    out.add(nn.BatchNorm(), nn.Activation("relu"))
    out.add(nn.Conv2D(channels, kernel_size=1, use_bias=False))
    out.add(nn.AvgPool2D(pool_size=2, strides=2))
    return out


class DenseNet(_Classifier):
    """DenseNet ("Densely Connected Convolutional Networks").

    Parameters
    ----------
    num_init_features : int
        Number of filters to learn in the first convolution layer.
    growth_rate : int
        Number of filters to add each layer (``k`` in the paper).
    block_config : list of int
        List of integers for numbers of layers in each pooling block.
    bn_size : int, default 4
        Multiplicative factor for number of bottle neck layers (i.e. bn_size * k features in
        the bottleneck layer).
    dropout : float, default 0
        Rate of dropout after each dense layer.
    classes : int, default 1000
        Number of classification classes.
    """

    def __init__(
        self, num_init_features: int, growth_rate: int, block_config: list, bn_size: int = 4,
        dropout: float = 0, classes: int = 1000, **kwargs,
    ) -> None:  # fmt: skip
        super().__init__(**kwargs)
        with self.name_scope():
            f = self.features = nn.HybridSequential(prefix="")
            f.add(nn.Conv2D(num_init_features, kernel_size=7, strides=2, padding=3, use_bias=False))
            f.add(nn.BatchNorm(), nn.Activation("relu"))
            f.add(nn.MaxPool2D(pool_size=3, strides=2, padding=1))
            channels = num_init_features
            for i, layers in enumerate(block_config):
                f.add(_dense_block(layers, bn_size, growth_rate, dropout, i + 1))
                channels += layers * growth_rate
                if i != len(block_config) - 1:
                    f.add(_transition(channels // 2))
                    channels //= 2
            f.add(nn.BatchNorm(), nn.Activation("relu"), nn.AvgPool2D(pool_size=7), nn.Flatten())
            self.output = nn.Dense(classes)


densenet_spec = {
    121: (64, 32, [6, 12, 24, 16]),
    161: (96, 48, [6, 12, 36, 24]),
    169: (64, 32, [6, 12, 32, 32]),
    201: (64, 32, [6, 12, 48, 32]),
}


def get_densenet(
    num_layers: int, pretrained: bool = False, ctx: Context | None = None, root: str | None = None,
    **kwargs,
) -> DenseNet:  # fmt: skip
    """DenseNet with ``num_layers`` layers (121, 161, 169 or 201); ``pretrained`` loads
    MXNet's weights from ``root`` (default '$MXNET_HOME/models') onto ``ctx``."""
    if num_layers not in densenet_spec:
        raise ValueError(
            f"Invalid number of layers: {num_layers}. Options are {sorted(densenet_spec)}"
        )
    init, growth, config = densenet_spec[num_layers]
    return with_pretrained(
        DenseNet(init, growth, config, **kwargs), pretrained, f"densenet{num_layers}", root, ctx
    )


densenet121, densenet161, densenet169, densenet201 = (
    variant(get_densenet, f"densenet{n}", f"DenseNet-{n}", n) for n in (121, 161, 169, 201)
)
