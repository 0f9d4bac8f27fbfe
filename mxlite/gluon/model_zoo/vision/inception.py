"""Inception V3 of ``mx.gluon.model_zoo.vision``, structured as MXNet 1.9.1's (so that its
``A1_``, ``B_``, ... prefixes and pretrained files match)."""

from __future__ import annotations

from typing import Any

from ....context import Context
from ... import nn
from ..model_store import with_pretrained
from ._variant import _Classifier

__all__ = ["Inception3", "inception_v3", "make_aux"]

_SETTINGS = ("channels", "kernel_size", "strides", "padding")


def _basic_conv(**kwargs: Any) -> nn.HybridSequential:
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(use_bias=False, **kwargs), nn.BatchNorm(epsilon=0.001))
    out.add(nn.Activation("relu"))
    return out


def _branch(pool: str | None, *convs: tuple) -> nn.HybridSequential:
    """An optional pool, then one basic convolution per (channels, kernel, strides, padding)
    tuple (None leaves a setting at its default)."""
    out = nn.HybridSequential(prefix="")
    if pool == "avg":
        out.add(nn.AvgPool2D(pool_size=3, strides=1, padding=1))
    elif pool == "max":
        out.add(nn.MaxPool2D(pool_size=3, strides=2))
    for conv in convs:
        out.add(_basic_conv(**{k: v for k, v in zip(_SETTINGS, conv) if v is not None}))
    return out


def make_aux(classes: int) -> nn.HybridSequential:
    """The auxiliary classifier head of Inception V3 (MXNet's ``make_aux``, which its
    ``Inception3`` does not use): 5x5 average pooling with stride 3, basic convolutions of
    128 (1x1) and 768 (5x5) channels, then a Dense layer of ``classes`` outputs."""
    out = nn.HybridSequential(prefix="")
    out.add(nn.AvgPool2D(pool_size=5, strides=3))
    out.add(_basic_conv(channels=128, kernel_size=1))
    out.add(_basic_conv(channels=768, kernel_size=5))
    out.add(nn.Flatten())
    out.add(nn.Dense(classes))
    return out


def _make_a(pool_features: int, prefix: str) -> nn.HybridConcatenate:
    out = nn.HybridConcatenate(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_branch(None, (64, 1, None, None)))
        out.add(_branch(None, (48, 1, None, None), (64, 5, None, 2)))
        out.add(_branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, None, 1)))
        out.add(_branch("avg", (pool_features, 1, None, None)))
    return out


def _make_b(prefix: str) -> nn.HybridConcatenate:
    out = nn.HybridConcatenate(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_branch(None, (384, 3, 2, None)))
        out.add(_branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, 2, None)))
        out.add(_branch("max"))
    return out


def _make_c(c7: int, prefix: str) -> nn.HybridConcatenate:
    out = nn.HybridConcatenate(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_branch(None, (192, 1, None, None)))
        out.add(
            _branch(
                None, (c7, 1, None, None), (c7, (1, 7), None, (0, 3)), (192, (7, 1), None, (3, 0))
            )
        )
        out.add(
            _branch(
                None,
                (c7, 1, None, None),
                (c7, (7, 1), None, (3, 0)),
                (c7, (1, 7), None, (0, 3)),
                (c7, (7, 1), None, (3, 0)),
                (192, (1, 7), None, (0, 3)),
            )
        )
        out.add(_branch("avg", (192, 1, None, None)))
    return out


def _make_d(prefix: str) -> nn.HybridConcatenate:
    out = nn.HybridConcatenate(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_branch(None, (192, 1, None, None), (320, 3, 2, None)))
        out.add(
            _branch(
                None,
                (192, 1, None, None),
                (192, (1, 7), None, (0, 3)),
                (192, (7, 1), None, (3, 0)),
                (192, 3, 2, None),
            )
        )
        out.add(_branch("max"))
    return out


def _split(channels: int) -> nn.HybridConcatenate:
    """A 1x3 and a 3x1 convolution side by side."""
    out = nn.HybridConcatenate(axis=1, prefix="")
    out.add(_branch(None, (channels, (1, 3), None, (0, 1))))
    out.add(_branch(None, (channels, (3, 1), None, (1, 0))))
    return out


def _make_e(prefix: str) -> nn.HybridConcatenate:
    out = nn.HybridConcatenate(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_branch(None, (320, 1, None, None)))
        branch_3x3 = nn.HybridSequential(prefix="")
        out.add(branch_3x3)
        branch_3x3.add(_branch(None, (384, 1, None, None)))
        branch_3x3.add(_split(384))
        branch_3x3dbl = nn.HybridSequential(prefix="")
        out.add(branch_3x3dbl)
        branch_3x3dbl.add(_branch(None, (448, 1, None, None), (384, 3, None, 1)))
        split = nn.HybridConcatenate(axis=1, prefix="")
        branch_3x3dbl.add(split)
        split.add(_branch(None, (384, (1, 3), None, (0, 1))))
        split.add(_branch(None, (384, (3, 1), None, (1, 0))))
        out.add(_branch("avg", (192, 1, None, None)))
    return out


class Inception3(_Classifier):
    """Inception v3 ("Rethinking the Inception Architecture for Computer Vision").

    Parameters
    ----------
    classes : int, default 1000
        Number of classification classes.
    """

    def __init__(self, classes: int = 1000, **kwargs) -> None:
        super().__init__(**kwargs)
        with self.name_scope():
            f = self.features = nn.HybridSequential(prefix="")
            f.add(_basic_conv(channels=32, kernel_size=3, strides=2))
            f.add(_basic_conv(channels=32, kernel_size=3))
            f.add(_basic_conv(channels=64, kernel_size=3, padding=1))
            f.add(nn.MaxPool2D(pool_size=3, strides=2))
            f.add(_basic_conv(channels=80, kernel_size=1))
            f.add(_basic_conv(channels=192, kernel_size=3))
            f.add(nn.MaxPool2D(pool_size=3, strides=2))
            f.add(_make_a(32, "A1_"), _make_a(64, "A2_"), _make_a(64, "A3_"), _make_b("B_"))
            f.add(_make_c(128, "C1_"), _make_c(160, "C2_"), _make_c(160, "C3_"))
            f.add(_make_c(192, "C4_"), _make_d("D_"), _make_e("E1_"), _make_e("E2_"))
            f.add(nn.AvgPool2D(pool_size=8), nn.Dropout(0.5))
            self.output = nn.Dense(classes)


def inception_v3(
    pretrained: bool = False, ctx: Context | None = None, root: str | None = None, **kwargs
) -> Inception3:
    """Inception v3 (299x299 inputs); ``pretrained`` loads MXNet's weights from ``root``
    (default '$MXNET_HOME/models') onto ``ctx``."""
    return with_pretrained(Inception3(**kwargs), pretrained, "inceptionv3", root, ctx)
