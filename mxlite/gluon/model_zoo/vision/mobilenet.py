"""MobileNet and MobileNetV2 of ``mx.gluon.model_zoo.vision``, structured as MXNet 1.9.1's."""

from __future__ import annotations

from typing import Any

from ....context import Context
from ... import nn
from ...block import HybridBlock
from ..model_store import with_pretrained
from ._variant import _Classifier, variant

__all__ = [
    "MobileNet", "MobileNetV2", "mobilenet1_0", "mobilenet_v2_1_0", "mobilenet0_75",
    "mobilenet_v2_0_75", "mobilenet0_5", "mobilenet_v2_0_5", "mobilenet0_25",
    "mobilenet_v2_0_25", "get_mobilenet", "get_mobilenet_v2",
]  # fmt: skip


class RELU6(HybridBlock):
    """min(max(x, 0), 6)."""

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return F.clip(x, 0, 6, name="relu6")


def _add_conv(
    out: nn.HybridSequential, channels: int = 1, kernel: int = 1, stride: int = 1, pad: int = 0,
    num_group: int = 1, active: bool = True, relu6: bool = False,
) -> None:  # fmt: skip
    out.add(nn.Conv2D(channels, kernel, stride, pad, groups=num_group, use_bias=False))
    out.add(nn.BatchNorm(scale=True))
    if active:
        out.add(RELU6() if relu6 else nn.Activation("relu"))


def _add_conv_dw(out: nn.HybridSequential, dw_channels: int, channels: int, stride: int) -> None:
    _add_conv(out, channels=dw_channels, kernel=3, stride=stride, pad=1, num_group=dw_channels)
    _add_conv(out, channels=channels)


class LinearBottleneck(HybridBlock):
    """MobileNetV2's inverted residual: expand, depthwise, project (linear).

    Parameters
    ----------
    in_channels : int
        Number of input channels.
    channels : int
        Number of output channels.
    t : int
        Layer expansion ratio.
    stride : int
        Stride.
    """

    def __init__(self, in_channels: int, channels: int, t: int, stride: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.use_shortcut = stride == 1 and in_channels == channels
        with self.name_scope():
            self.out = nn.HybridSequential()
            _add_conv(self.out, in_channels * t, relu6=True)
            _add_conv(
                self.out, in_channels * t, kernel=3, stride=stride, pad=1,
                num_group=in_channels * t, relu6=True,
            )  # fmt: skip
            _add_conv(self.out, channels, active=False, relu6=True)

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        out = self.out(x)
        return F.elemwise_add(out, x) if self.use_shortcut else out


class MobileNet(_Classifier):
    """MobileNet ("Efficient Convolutional Neural Networks for Mobile Vision Applications").

    Parameters
    ----------
    multiplier : float, default 1.0
        The width multiplier for controlling the model size. Only multipliers that are no less
        than 0.25 are supported. The actual number of channels is equal to the original channel
        size multiplied by this multiplier.
    classes : int, default 1000
        Number of classes for the output layer.
    """

    def __init__(self, multiplier: float = 1.0, classes: int = 1000, **kwargs) -> None:
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                _add_conv(self.features, channels=int(32 * multiplier), kernel=3, pad=1, stride=2)
                dw = [32, 64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024]
                out = [64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024] * 2
                strides = [1, 2] * 3 + [1] * 5 + [2, 1]
                for d, c, s in zip(dw, out, strides):
                    _add_conv_dw(self.features, int(d * multiplier), int(c * multiplier), s)
                self.features.add(nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes)


class MobileNetV2(_Classifier):
    """MobileNetV2 ("Inverted Residuals and Linear Bottlenecks").

    Parameters
    ----------
    multiplier : float, default 1.0
        The width multiplier for controlling the model size. The actual number of channels is
        equal to the original channel size multiplied by this multiplier.
    classes : int, default 1000
        Number of classes for the output layer.
    """

    def __init__(self, multiplier: float = 1.0, classes: int = 1000, **kwargs) -> None:
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="features_")
            with self.features.name_scope():
                _add_conv(
                    self.features, int(32 * multiplier), kernel=3, stride=2, pad=1, relu6=True
                )
                ins = [32] + [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3 + [160] * 3
                outs = [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3 + [160] * 3 + [320]
                ts = [1] + [6] * 16
                strides = [1, 2] * 2 + [1, 1, 2] + [1] * 6 + [2] + [1] * 3
                for i, c, t, s in zip(ins, outs, ts, strides):
                    self.features.add(
                        LinearBottleneck(
                            in_channels=int(i * multiplier),
                            channels=int(c * multiplier),
                            t=t,
                            stride=s,
                        )  # fmt: skip
                    )
                last = int(1280 * multiplier) if multiplier > 1.0 else 1280
                _add_conv(self.features, last, relu6=True)
                self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.HybridSequential(prefix="output_")
            with self.output.name_scope():
                self.output.add(nn.Conv2D(classes, 1, use_bias=False, prefix="pred_"), nn.Flatten())


def _suffix(multiplier: float) -> str:
    text = f"{multiplier:.2f}"
    return text[:-1] if text in ("1.00", "0.50") else text


def get_mobilenet(
    multiplier: float, pretrained: bool = False, ctx: Context | None = None,
    root: str | None = None, **kwargs,
) -> MobileNet:  # fmt: skip
    """MobileNet with width ``multiplier``; ``pretrained`` loads MXNet's weights from ``root``
    (default '$MXNET_HOME/models') onto ``ctx``."""
    return with_pretrained(
        MobileNet(multiplier, **kwargs), pretrained, f"mobilenet{_suffix(multiplier)}", root, ctx
    )


def get_mobilenet_v2(
    multiplier: float, pretrained: bool = False, ctx: Context | None = None,
    root: str | None = None, **kwargs,
) -> MobileNetV2:  # fmt: skip
    """MobileNetV2 with width ``multiplier``; ``pretrained`` loads MXNet's weights from
    ``root`` (default '$MXNET_HOME/models') onto ``ctx``."""
    return with_pretrained(
        MobileNetV2(multiplier, **kwargs),
        pretrained,
        f"mobilenetv2_{_suffix(multiplier)}",
        root,
        ctx,
    )


mobilenet1_0, mobilenet0_75, mobilenet0_5, mobilenet0_25 = (
    variant(get_mobilenet, f"mobilenet{str(m).replace('.', '_')}", f"MobileNet {m}", m)
    for m in (1.0, 0.75, 0.5, 0.25)
)
mobilenet_v2_1_0, mobilenet_v2_0_75, mobilenet_v2_0_5, mobilenet_v2_0_25 = (
    variant(get_mobilenet_v2, f"mobilenet_v2_{str(m).replace('.', '_')}", f"MobileNetV2 {m}", m)
    for m in (1.0, 0.75, 0.5, 0.25)
)
