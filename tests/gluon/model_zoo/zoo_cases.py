"""The model zoo cases of tests/gluon/model_zoo/test_vision.py, shared with
tools/golden/cases/model_zoo.py, which records what MXNet 1.9.1 computes from them: plain NumPy
and functions of ``mx``, so nothing here imports either implementation."""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

# fmt: off
MODELS = [
    "resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1",
    "resnet18_v2", "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2",
    "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn", "vgg19_bn",
    "alexnet", "densenet121", "densenet161", "densenet169", "densenet201",
    "squeezenet1.0", "squeezenet1.1", "inceptionv3",
    "mobilenet1.0", "mobilenet0.75", "mobilenet0.5", "mobilenet0.25",
    "mobilenetv2_1.0", "mobilenetv2_0.75", "mobilenetv2_0.5", "mobilenetv2_0.25",
]
# name, input shape (classes=10 everywhere)
OUTPUT_CASES = [
    ("resnet18_v1", (2, 3, 32, 32)), ("resnet18_v2", (2, 3, 32, 32)),
    ("mobilenet0.25", (2, 3, 32, 32)), ("mobilenetv2_0.25", (2, 3, 32, 32)),
    ("squeezenet1.1", (1, 3, 224, 224)), ("densenet_small", (1, 3, 224, 224)),
]
# fmt: on


def inputs(shape: tuple) -> np.ndarray:
    return np.random.RandomState(7).uniform(-1, 1, shape).astype(np.float32)


def fill_parameters(mx: Any, net: Any) -> None:
    """Fill every (already shaped) parameter from the legacy ``RandomState`` stream (stable
    across NumPy versions) seeded by its structural name."""
    for name, param in sorted(net._collect_params_with_prefix().items()):
        shape = param.shape
        z = np.random.RandomState(zlib.crc32(name.encode())).standard_normal(shape)
        if name.endswith("running_var") or name.endswith("gamma"):
            value = 1.0 + 0.1 * np.abs(z)
        elif len(shape) == 1:
            value = 0.1 * z
        else:
            value = z * np.sqrt(1.0 / np.prod(shape[1:]))
        param.set_data(mx.nd.array(value.astype(np.float32)))


def build(mx: Any, name: str) -> Any:
    """A network of OUTPUT_CASES (in a fresh name scope): densenet_small is densenet121's code
    with fewer layers."""
    vision = mx.gluon.model_zoo.vision
    with mx.name.NameManager():
        if name == "densenet_small":
            return vision.DenseNet(16, 8, [2, 2, 2, 2], classes=10)
        return vision.get_model(name, classes=10)
