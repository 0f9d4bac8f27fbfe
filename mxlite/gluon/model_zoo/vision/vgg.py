"""VGG 11/13/16/19, with and without BatchNorm, of ``mx.gluon.model_zoo.vision``, structured
as MXNet 1.9.1's."""

from __future__ import annotations

from ....context import Context
from ....initializer import Xavier
from ... import nn
from ..model_store import with_pretrained
from ._variant import _Classifier, variant

__all__ = [
    "VGG", "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn", "vgg19_bn",
    "get_vgg",
]  # fmt: skip


class VGG(_Classifier):
    """VGG ("Very Deep Convolutional Networks for Large-Scale Image Recognition").

    Parameters
    ----------
    layers : list of int
        Numbers of convolution layers in each feature block.
    filters : list of int
        Numbers of filters in each feature block.
    classes : int, default 1000
        Number of classification classes.
    batch_norm : bool, default False
        Use batch normalization.
    """

    def __init__(
        self, layers: list, filters: list, classes: int = 1000, batch_norm: bool = False, **kwargs
    ) -> None:
        super().__init__(**kwargs)
        if len(layers) != len(filters):
            raise ValueError("VGG: 'layers' and 'filters' must have the same length.")
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            for i, num in enumerate(layers):
                for _ in range(num):
                    self.features.add(
                        nn.Conv2D(
                            filters[i],
                            kernel_size=3,
                            padding=1,
                            weight_initializer=Xavier(
                                rnd_type="gaussian", factor_type="out", magnitude=2
                            ),
                            bias_initializer="zeros",
                        )  # fmt: skip
                    )
                    if batch_norm:
                        self.features.add(nn.BatchNorm())
                    self.features.add(nn.Activation("relu"))
                self.features.add(nn.MaxPool2D(strides=2))
            for _ in range(2):
                self.features.add(
                    nn.Dense(
                        4096,
                        activation="relu",
                        weight_initializer="normal",
                        bias_initializer="zeros",
                    )  # fmt: skip
                )
                self.features.add(nn.Dropout(rate=0.5))
            self.output = nn.Dense(classes, weight_initializer="normal", bias_initializer="zeros")


vgg_spec = {
    11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
    13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
    16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
    19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512]),
}


def get_vgg(
    num_layers: int, pretrained: bool = False, ctx: Context | None = None, root: str | None = None,
    **kwargs,
) -> VGG:  # fmt: skip
    """VGG with ``num_layers`` layers (11, 13, 16 or 19); ``batch_norm=True`` for the _bn
    variants. ``pretrained`` loads MXNet's weights from ``root`` (default '$MXNET_HOME/models')."""
    if num_layers not in vgg_spec:
        raise ValueError(f"Invalid number of layers: {num_layers}. Options are {sorted(vgg_spec)}")
    layers, filters = vgg_spec[num_layers]
    name = f"vgg{num_layers}{'_bn' if kwargs.get('batch_norm') else ''}"
    return with_pretrained(VGG(layers, filters, **kwargs), pretrained, name, root, ctx)


vgg11, vgg13, vgg16, vgg19 = (variant(get_vgg, f"vgg{n}", f"VGG-{n}", n) for n in (11, 13, 16, 19))
vgg11_bn, vgg13_bn, vgg16_bn, vgg19_bn = (
    variant(get_vgg, f"vgg{n}_bn", f"VGG-{n} with BatchNorm", n, batch_norm=True)
    for n in (11, 13, 16, 19)
)
