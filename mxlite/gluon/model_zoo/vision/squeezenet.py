"""SqueezeNet 1.0 and 1.1 of ``mx.gluon.model_zoo.vision``, structured as MXNet 1.9.1's."""

from __future__ import annotations

from ....context import Context
from ... import nn
from ..model_store import with_pretrained
from ._variant import _Classifier, variant

__all__ = ["SqueezeNet", "squeezenet1_0", "squeezenet1_1", "get_squeezenet"]


def _fire_conv(channels: int, kernel_size: int, padding: int = 0) -> nn.HybridSequential:
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(channels, kernel_size, padding=padding), nn.Activation("relu"))
    return out


def _fire(squeeze: int, expand1x1: int, expand3x3: int) -> nn.HybridSequential:
    out = nn.HybridSequential(prefix="")
    out.add(_fire_conv(squeeze, 1))
    paths = nn.HybridConcatenate(axis=1, prefix="")
    paths.add(_fire_conv(expand1x1, 1), _fire_conv(expand3x3, 3, 1))
    out.add(paths)
    return out


def _pool() -> nn.MaxPool2D:
    return nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True)


class SqueezeNet(_Classifier):
    """SqueezeNet ("AlexNet-level accuracy with 50x fewer parameters").

    Parameters
    ----------
    version : str
        Version of squeezenet: '1.0' or '1.1'.
    classes : int, default 1000
        Number of classification classes.
    """

    def __init__(self, version: str, classes: int = 1000, **kwargs) -> None:
        super().__init__(**kwargs)
        if version not in ("1.0", "1.1"):
            raise ValueError(f"Unsupported SqueezeNet version {version}: 1.0 or 1.1 expected")
        with self.name_scope():
            f = self.features = nn.HybridSequential(prefix="")
            if version == "1.0":
                f.add(nn.Conv2D(96, kernel_size=7, strides=2), nn.Activation("relu"), _pool())
                f.add(_fire(16, 64, 64), _fire(16, 64, 64), _fire(32, 128, 128), _pool())
                f.add(_fire(32, 128, 128), _fire(48, 192, 192), _fire(48, 192, 192))
                f.add(_fire(64, 256, 256), _pool(), _fire(64, 256, 256))
            else:
                f.add(nn.Conv2D(64, kernel_size=3, strides=2), nn.Activation("relu"), _pool())
                f.add(_fire(16, 64, 64), _fire(16, 64, 64), _pool())
                f.add(_fire(32, 128, 128), _fire(32, 128, 128), _pool())
                f.add(_fire(48, 192, 192), _fire(48, 192, 192))
                f.add(_fire(64, 256, 256), _fire(64, 256, 256))
            f.add(nn.Dropout(0.5))
            self.output = nn.HybridSequential(prefix="")
            self.output.add(nn.Conv2D(classes, kernel_size=1), nn.Activation("relu"))
            self.output.add(nn.AvgPool2D(13), nn.Flatten())


def get_squeezenet(
    version: str, pretrained: bool = False, ctx: Context | None = None, root: str | None = None,
    **kwargs,
) -> SqueezeNet:  # fmt: skip
    """SqueezeNet ``version`` ('1.0' or '1.1'); ``pretrained`` loads MXNet's weights from
    ``root`` (default '$MXNET_HOME/models') onto ``ctx``."""
    return with_pretrained(
        SqueezeNet(version, **kwargs), pretrained, f"squeezenet{version}", root, ctx
    )


squeezenet1_0, squeezenet1_1 = (
    variant(get_squeezenet, f"squeezenet{v.replace('.', '_')}", f"SqueezeNet {v}", v)
    for v in ("1.0", "1.1")
)
