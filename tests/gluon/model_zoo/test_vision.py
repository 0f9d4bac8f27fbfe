"""mx.gluon.model_zoo.vision against MXNet 1.9.1 (golden files of tools/make_golden_model_zoo.py):
parameter names and shapes of every network, outputs of a few small ones from the same
parameters, and a save_parameters file MXNet wrote."""

import gzip
import json
import os
import zlib

import numpy as np
import pytest

import mxlite as mx
from mxlite.gluon.model_zoo import vision

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")

with gzip.open(os.path.join(GOLDEN, "names.json.gz"), "rt") as _f:
    NAMES = json.load(_f)
OUTPUTS = dict(np.load(os.path.join(GOLDEN, "outputs.npz")))

OUTPUT_CASES = [
    ("resnet18_v1", (2, 3, 32, 32)),
    ("resnet18_v2", (2, 3, 32, 32)),
    ("mobilenet0.25", (2, 3, 32, 32)),
    ("mobilenetv2_0.25", (2, 3, 32, 32)),
    ("squeezenet1.1", (1, 3, 224, 224)),
    ("densenet_small", (1, 3, 224, 224)),
]


def fill_parameters(net):
    """As tools/make_golden_model_zoo.py: each parameter from a stream seeded by its name."""
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


def make(name, **kwargs):
    with mx.name.NameManager():
        return vision.get_model(name, **kwargs)


def build(name):
    """A network of OUTPUT_CASES: densenet_small is densenet121's code with fewer layers."""
    if name == "densenet_small":
        return vision.DenseNet(16, 8, [2, 2, 2, 2], classes=10)
    return vision.get_model(name, classes=10)


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(ValueError, match="resnet18_v1"):
        vision.get_model("resnet19")


@pytest.mark.parametrize("name", sorted(NAMES))
def test_parameter_names_and_shapes(name):
    net = make(name)
    want = NAMES[name]
    got = [[k, list(v.shape)] for k, v in net.collect_params().items()]
    assert got == want["params"]
    assert list(net._collect_params_with_prefix().keys()) == want["structural"]


@pytest.mark.parametrize("name,shape", OUTPUT_CASES)
def test_outputs_from_the_same_parameters(name, shape):
    with mx.name.NameManager():
        net = build(name)
    net.initialize()
    x = mx.nd.array(np.random.RandomState(7).uniform(-1, 1, shape).astype(np.float32))
    net(x)
    fill_parameters(net)
    want = OUTPUTS[name + ":y"]
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


def test_loads_parameters_mxnet_saved():
    net = make("mobilenet0.25", classes=10)
    net.load_parameters(os.path.join(GOLDEN, "mobilenet0.25.params"))
    x = mx.nd.array(np.random.RandomState(7).uniform(-1, 1, (2, 3, 32, 32)).astype(np.float32))
    want = OUTPUTS["mobilenet0.25:y"]
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


def test_pretrained_offline_names_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("MXNET_GLUON_REPO", "http://127.0.0.1:9/")
    with pytest.raises(Exception, match="resnet18_v1-"):
        vision.get_model("resnet18_v1", pretrained=True, root=str(tmp_path))
