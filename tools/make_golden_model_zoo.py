"""Golden files for mx.gluon.model_zoo, from real MXNet 1.9.1.

Run under the reference interpreter::

    /tmp/mxref/bin/python tools/make_golden_model_zoo.py

Writes into ``tests/gluon/model_zoo/golden/``:

- ``names.json.gz``: for every network of ``get_model``'s list (built in a fresh name scope), its
  ``collect_params`` names with their declared shapes (0 where inference fills them) and its
  ``save_parameters`` (structural) names;
- ``outputs.npz``: for a few small networks (``OUTPUT_CASES``), the inference output (the
  input is ``RandomState(7).uniform(-1, 1, shape)``) after every parameter was filled by
  ``fill_parameters`` (a seeded NumPy stream, so no large parameter file is stored);
- ``mobilenet0.25.params``: ``save_parameters`` of ``mobilenet0.25`` (``classes=10``) filled
  the same way, to check that a file MXNet saved loads.
"""

from __future__ import annotations

import gzip
import json
import os
import zlib

import mxnet as mx
import numpy as np
from mxnet.gluon.model_zoo import vision

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "gluon", "model_zoo", "golden")

MODELS = [
    "resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1",
    "resnet18_v2", "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2",
    "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn", "vgg19_bn",
    "alexnet", "densenet121", "densenet161", "densenet169", "densenet201",
    "squeezenet1.0", "squeezenet1.1", "inceptionv3",
    "mobilenet1.0", "mobilenet0.75", "mobilenet0.5", "mobilenet0.25",
    "mobilenetv2_1.0", "mobilenetv2_0.75", "mobilenetv2_0.5", "mobilenetv2_0.25",
]  # fmt: skip

# name, input shape (classes=10 everywhere)
OUTPUT_CASES = [
    ("resnet18_v1", (2, 3, 32, 32)),
    ("resnet18_v2", (2, 3, 32, 32)),
    ("mobilenet0.25", (2, 3, 32, 32)),
    ("mobilenetv2_0.25", (2, 3, 32, 32)),
    ("squeezenet1.1", (1, 3, 224, 224)),
    ("densenet_small", (1, 3, 224, 224)),
]


def fill_parameters(net) -> None:
    """Fills every (already shaped) parameter from a NumPy stream seeded by its structural name.

    The same function lives in tests/gluon/model_zoo/test_vision.py; both use the legacy
    ``RandomState`` stream, which NumPy keeps stable across versions.
    """
    for name, param in sorted(net._collect_params_with_prefix().items()):
        shape = param.shape
        rng = np.random.RandomState(zlib.crc32(name.encode()))
        z = rng.standard_normal(shape)
        if name.endswith("running_var") or name.endswith("gamma"):
            value = 1.0 + 0.1 * np.abs(z)
        elif len(shape) == 1:
            value = 0.1 * z
        else:
            value = z * np.sqrt(1.0 / np.prod(shape[1:]))
        param.set_data(mx.nd.array(value.astype(np.float32)))


def build(name: str):
    """A network of OUTPUT_CASES: densenet_small is densenet121's code with fewer layers."""
    if name == "densenet_small":
        return vision.DenseNet(16, 8, [2, 2, 2, 2], classes=10)
    return vision.get_model(name, classes=10)


def names_of(name: str) -> dict:
    with mx.name.NameManager():
        net = vision.get_model(name)
    params = net.collect_params()
    return {
        "params": [[k, list(v.shape)] for k, v in params.items()],
        "structural": list(net._collect_params_with_prefix().keys()),
    }


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    names = {name: names_of(name) for name in MODELS}
    with gzip.open(os.path.join(OUT, "names.json.gz"), "wt") as f:
        json.dump(names, f, separators=(",", ":"))
    arrays = {}
    for name, shape in OUTPUT_CASES:
        with mx.name.NameManager():
            net = build(name)
        net.initialize()
        x = np.random.RandomState(7).uniform(-1, 1, shape).astype(np.float32)
        net(mx.nd.array(x))
        fill_parameters(net)
        arrays[name + ":y"] = net(mx.nd.array(x)).asnumpy()
        if name == "mobilenet0.25":
            net.save_parameters(os.path.join(OUT, "mobilenet0.25.params"))
    np.savez_compressed(os.path.join(OUT, "outputs.npz"), **arrays)


if __name__ == "__main__":
    main()
