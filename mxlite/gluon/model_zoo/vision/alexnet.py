"""AlexNet of ``mx.gluon.model_zoo.vision``, structured as MXNet 1.9.1's."""

from __future__ import annotations

from ....context import Context
from ... import nn
from ..model_store import with_pretrained
from ._variant import _Classifier

__all__ = ["AlexNet", "alexnet"]


class AlexNet(_Classifier):
    """AlexNet ("One weird trick for parallelizing convolutional neural networks").

    Parameters
    ----------
    classes : int, default 1000
        Number of classes for the output layer.
    """

    def __init__(self, classes: int = 1000, **kwargs) -> None:
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                f = self.features
                f.add(nn.Conv2D(64, kernel_size=11, strides=4, padding=2, activation="relu"))
                f.add(nn.MaxPool2D(pool_size=3, strides=2))
                f.add(nn.Conv2D(192, kernel_size=5, padding=2, activation="relu"))
                f.add(nn.MaxPool2D(pool_size=3, strides=2))
                for channels in (384, 256, 256):
                    f.add(nn.Conv2D(channels, kernel_size=3, padding=1, activation="relu"))
                f.add(nn.MaxPool2D(pool_size=3, strides=2), nn.Flatten())
                f.add(nn.Dense(4096, activation="relu"), nn.Dropout(0.5))
                f.add(nn.Dense(4096, activation="relu"), nn.Dropout(0.5))
            self.output = nn.Dense(classes)


def alexnet(
    pretrained: bool = False, ctx: Context | None = None, root: str | None = None, **kwargs
) -> AlexNet:
    """AlexNet; ``pretrained`` loads MXNet's weights from ``root`` (default
    '$MXNET_HOME/models') onto ``ctx``."""
    return with_pretrained(AlexNet(**kwargs), pretrained, "alexnet", root, ctx)
