"""MXNet 1.9.1's example/image-classification networks and a few Gluon model zoo networks as
real MXNet builds and runs them (tests/onnx). The network definitions are read from MXNet's
sources (the bare git mirror, tag 1.9.1) at run time and are not copied into mxlite.

For each network small enough (tiny inputs, few classes): a Module checkpoint
``<net>-symbol.json`` / ``<net>-0000.params`` in tests/onnx/golden/ (SoftmaxOutput head,
fix_gamma BatchNorm as the definitions have it, random weights, gammas and moving statistics,
so that a wrong fix_gamma shows) and, in the entry ``<net>`` of tests/onnx/golden/onnx.npz,
inputs at batch 2 and 3 and MXNet's inference outputs (``x2``, ``y2``, ``x3``, ``y3``).
Networks whose weights would not fit the size budget get their symbol only: tests export them
with random weights and check the graph. Every entry's metadata holds the input shape
(``data``).
"""

import os
from functools import partial

import mxnet as mx
import numpy as np
from core import ROOT, Golden, infer, mxnet_example

FILE = "tests/onnx/golden/onnx.npz"

OUT = str(ROOT / "tests" / "onnx" / "golden")
MAX_PARAM_BYTES = 450_000

# name: (module, get_symbol kwargs, data shape without batch); resnetv1.py is the same file
# as resnet-v1.py in 1.9.1, so it is left out; alexnet, vgg, inception-v4 and
# inception-resnet-v2 have 100 MB and more of weights at any input size, too slow for the tests
# (their operators are all among those of the networks here)
S28 = "3,28,28"
RES8 = {"num_classes": 10, "num_layers": 8, "image_shape": S28}
# fmt: off
NETWORKS = {
    "mlp": ("mlp", {"num_classes": 10}, (784,)),
    "lenet": ("lenet", {"num_classes": 10}, (1, 16, 16)),
    "resnet": ("resnet", RES8, (3, 28, 28)),
    "resnet-v1": ("resnet-v1", RES8, (3, 28, 28)),
    "resnext": ("resnext", {**RES8, "num_group": 4}, (3, 28, 28)),
    "mobilenet": ("mobilenet", {"num_classes": 10, "alpha": 0.25, "resolution": 32}, (3, 32, 32)),
    "mobilenetv2": ("mobilenetv2", {"num_classes": 10, "multiplier": 0.1}, (3, 32, 32)),
    "inception-bn": ("inception-bn", {"num_classes": 10, "image_shape": S28}, (3, 28, 28)),
    "googlenet": ("googlenet", {"num_classes": 10}, (3, 64, 64)),
    "inception-v3": ("inception-v3", {"num_classes": 10}, (3, 299, 299)),
    # for benchmarks/onnx_export.py: ImageNet sizes, symbol only
    "resnet-50": ("resnet", {"num_classes": 1000, "num_layers": 50, "image_shape": "3,224,224"},
                  (3, 224, 224)),
}
# fmt: on


def random_value(name, shape, rng):
    """Gammas and variances in [0.5, 1.5), betas, biases and means small, weights He-normal."""
    if name.endswith(("gamma", "var")):
        value = rng.uniform(0.5, 1.5, shape)
    elif name.endswith(("beta", "bias", "mean")):
        value = rng.normal(0, 0.1, shape)
    else:
        value = rng.normal(0, np.sqrt(2.0 / max(int(np.prod(shape[1:])), 1)), shape)
    return mx.nd.array(value.astype(np.float32))


def random_params(sym, data_shape, rng):
    arg_shapes, _, aux_shapes = sym.infer_shape(data=(2, *data_shape))
    args = {name: random_value(name, shape, rng) for name, shape in zip(sym.list_arguments(),
            arg_shapes) if name not in ("data", "softmax_label")}  # fmt: skip
    aux = {name: random_value(name, shape, rng)
           for name, shape in zip(sym.list_auxiliary_states(), aux_shapes)}  # fmt: skip
    return args, aux


def outputs(sym, args, aux, data):
    feed = {"data": mx.nd.array(data), "softmax_label": mx.nd.zeros((data.shape[0],))}
    return infer(sym, {**args, **feed}, aux)[0].asnumpy()


def inputs_outputs(run, data_shape, rng) -> dict:
    """Inputs at batch 2 and 3 and what ``run`` makes of them: ``x2``, ``y2``, ``x3``, ``y3``."""
    x2 = rng.standard_normal((2, *data_shape)).astype(np.float32)
    x3 = rng.standard_normal((3, *data_shape)).astype(np.float32)
    return {"x2": x2, "y2": run(x2), "x3": x3, "y3": run(x3)}


# Gluon model zoo networks, exported by MXNet's HybridBlock.export: (input size, with weights)
GLUON = {"mobilenet0.25": (32, True), "resnet18_v1": (32, False), "resnet18_v2": (32, False),
         "mobilenetv2_0.25": (32, False)}  # fmt: skip


def gluon_models(golden: Golden) -> None:
    from mxnet.gluon.model_zoo import vision

    for name, (size, with_weights) in GLUON.items():
        rng = np.random.default_rng(len(name))
        net = vision.get_model(name, classes=10)
        net.initialize()
        net.hybridize()
        data_shape = (3, size, size)
        net(mx.nd.zeros((1, *data_shape)))
        for pname, p in net.collect_params().items():
            p.set_data(random_value(pname, p.shape, rng))
        key = f"gluon-{name}"
        prefix = os.path.join(OUT, key)
        arrays = inputs_outputs(lambda x, net=net: net(mx.nd.array(x)).asnumpy(), data_shape, rng)
        net.export(prefix)
        if not with_weights:
            os.remove(prefix + "-0000.params")
            arrays = {}
        golden.put(key, {"data": list(data_shape), "gluon": True}, **arrays)


def record(golden: Golden) -> None:
    for name, (module, kwargs, data_shape) in NETWORKS.items():
        rng = np.random.default_rng(len(name))
        sym = mxnet_example(f"{module}.py").get_symbol(**kwargs)
        arg_shapes, _, aux_shapes = sym.infer_shape(data=(2, *data_shape))
        nbytes = 4 * sum(int(np.prod(s)) for s in arg_shapes + aux_shapes)
        nbytes -= 4 * 2 * int(np.prod(data_shape))
        sym.save(os.path.join(OUT, f"{name}-symbol.json"))
        meta = {"data": list(data_shape), "param_bytes": nbytes}
        if nbytes > MAX_PARAM_BYTES:
            golden.put(name, meta)
            continue
        args, aux = random_params(sym, data_shape, rng)
        mx.model.save_checkpoint(os.path.join(OUT, name), 0, sym, args, aux)
        golden.put(name, meta, **inputs_outputs(partial(outputs, sym, args, aux), data_shape, rng))
    gluon_models(golden)
