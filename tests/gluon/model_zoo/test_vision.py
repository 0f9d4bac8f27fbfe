"""mx.gluon.model_zoo.vision against MXNet 1.9.1 (golden file of tools/golden/cases/model_zoo.py):
parameter names and shapes of every network, outputs of a few small ones from the same
parameters, and a save_parameters file MXNet wrote."""

import os

import numpy as np
import pytest

import mxlite as mx
from mxlite.gluon.model_zoo import vision
from tests.golden_file import load

from .zoo_cases import OUTPUT_CASES, build, fill_parameters, inputs

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")
_G = load("gluon/model_zoo/golden/model_zoo.npz")
NAMES = {k: c for k, c in _G.cases.items() if not k.startswith("out_")}


def make(name, **kwargs):
    with mx.name.NameManager():
        return vision.get_model(name, **kwargs)


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
    net = build(mx, name)
    net.initialize()
    x = mx.nd.array(inputs(shape))
    net(x)
    fill_parameters(mx, net)
    want = _G[f"out_{name}/y"]
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


def test_loads_parameters_mxnet_saved():
    net = make("mobilenet0.25", classes=10)
    net.load_parameters(os.path.join(GOLDEN, "mobilenet0.25.params"))
    x = mx.nd.array(inputs((2, 3, 32, 32)))
    want = _G["out_mobilenet0.25/y"]
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


def test_pretrained_offline_names_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("MXNET_GLUON_REPO", "http://127.0.0.1:9/")
    with pytest.raises(Exception, match="resnet18_v1-"):
        vision.get_model("resnet18_v1", pretrained=True, root=str(tmp_path))


def test_inception_make_aux_has_mxnets_layers() -> None:
    from mxlite.gluon.model_zoo.vision.inception import make_aux

    outer = mx.gluon.nn.HybridSequential(prefix="aux_")
    with outer.name_scope():
        net = make_aux(10)
    net.initialize()
    assert net(mx.nd.ones((1, 768, 17, 17))).shape == (1, 10)
    # names and shapes as MXNet 1.9.1 gives them
    want = [("conv0_weight", (128, 768, 1, 1)), ("batchnorm0_gamma", (128,)),
            ("batchnorm0_beta", (128,)), ("batchnorm0_running_mean", (128,)),
            ("batchnorm0_running_var", (128,)), ("conv1_weight", (768, 128, 5, 5)),
            ("batchnorm1_gamma", (768,)), ("batchnorm1_beta", (768,)),
            ("batchnorm1_running_mean", (768,)), ("batchnorm1_running_var", (768,)),
            ("dense0_weight", (10, 768)), ("dense0_bias", (10,))]  # fmt: skip
    assert [(k, v.shape) for k, v in net.collect_params().items()] == [
        ("aux_" + k, s) for k, s in want
    ]


@pytest.mark.parametrize(
    ("make", "args", "name"),
    [
        ("alexnet", "", "alexnet"),
        ("get_vgg", "11, batch_norm=True,", "vgg11_bn"),
        ("get_vgg", "13,", "vgg13"),
        ("squeezenet1_1", "", "squeezenet1.1"),
        ("mobilenet0_25", "", "mobilenet0.25"),
        ("mobilenet_v2_0_5", "", "mobilenetv2_0.5"),
        ("get_resnet", "2, 18,", "resnet18_v2"),
        ("densenet121", "", "densenet121"),
        ("inception_v3", "", "inceptionv3"),
    ],
)
def test_pretrained_loads_mxnets_file_of_that_name_onto_ctx(make, args, name, monkeypatch):
    from mxlite.gluon import Block
    from mxlite.gluon.model_zoo import model_store

    loaded = []
    monkeypatch.setattr(model_store, "get_model_file", lambda n, root=None: f"{root}/{n}")
    monkeypatch.setattr(Block, "load_parameters", lambda net, f, ctx: loaded.append((f, ctx)))
    # our own table of calls
    eval(f"vision.{make}({args} pretrained=True, root='R', ctx=mx.cpu(1))")
    assert loaded == [(f"R/{name}", mx.cpu(1))]
    eval(f"vision.{make}({args} pretrained=True)")
    assert loaded[1:] == [(f"None/{name}", mx.cpu())]
    eval(f"vision.{make}({args} pretrained=False)")
    assert len(loaded) == 2
