"""The networks, initial values, summaries and runs of tests/executor/test_bind_dtypes.py,
shared with tools/golden/cases/spine.py, which records what MXNet 1.9.1 computes from them
(tests/executor/golden/spine.npz). Plain NumPy and functions of ``mx``: nothing here imports
either implementation.

Inputs and parameters are not stored: :func:`init_array` makes them from NumPy's legacy
``RandomState`` (the same stream in every NumPy version). Large arrays are compared as
:func:`summary`: their sum, 2-norm and a projection on a fixed direction.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

BATCH = 2
NUM_CLASSES = 10

# (name, symbol file, function, keyword arguments, data shape): MXNet's get_symbol, except
# for "resnet_stem", the ImageNet-style ResNet (7x7 stride-2 stem, overlapping 3x3 max pool)
# through the file's resnet() with small widths, so that the test stays fast
NETWORKS = [
    ("resnet20", "resnet.py", "get_symbol", {"num_layers": 20, "image_shape": "3,28,28"},
     (3, 28, 28)),
    ("resnet_stem", "resnet.py", "resnet",
     {"units": [1, 1, 1, 1], "num_stages": 4, "filter_list": [8, 8, 16, 24, 32],
      "image_shape": [3, 64, 64], "bottle_neck": False}, (3, 64, 64)),
    ("resnext14", "resnext.py", "get_symbol",
     {"num_layers": 14, "image_shape": "3,28,28", "num_group": 4}, (3, 28, 28)),
    ("inception_bn", "inception-bn.py", "get_symbol", {"image_shape": "3,28,28"}, (3, 28, 28)),
    ("mobilenet", "mobilenet.py", "get_symbol", {"alpha": 0.25, "resolution": 32}, (3, 32, 32)),
    ("lenet", "lenet.py", "get_symbol", {}, (1, 28, 28)),
]  # fmt: skip


def _seed(name: str) -> int:
    return zlib.crc32(name.encode())


def init_array(name: str, shape: tuple[int, ...], dtype: Any = np.float64) -> np.ndarray:
    """The value of argument or auxiliary state ``name`` in every run: data uniform in
    [0, 1); labels integers below NUM_CLASSES; BatchNorm's gamma near 1, beta near 0, moving
    mean near 0, moving variance near 1; weights uniform with variance 1 / fan-in; biases
    small."""
    rng = np.random.RandomState(_seed(name))
    shape = tuple(shape)
    if name == "data":
        v = rng.uniform(0, 1, shape)
    elif name.endswith("label"):
        v = rng.randint(0, NUM_CLASSES, shape).astype(np.float64)
    elif name.endswith(("gamma", "moving_var")):
        v = 1 + rng.uniform(-0.2, 0.2, shape)
    elif name.endswith(("beta", "moving_mean", "bias")) or len(shape) == 1:
        v = rng.uniform(-0.1, 0.1, shape)
    else:
        fan_in = int(np.prod(shape[1:]))
        v = rng.uniform(-1, 1, shape) * np.sqrt(3.0 / fan_in)
    return v.astype(dtype)


def summary(name: str, value: np.ndarray) -> list[float]:
    """[sum, 2-norm, a projection on a fixed random direction] of ``value`` in float64; the
    array itself when it has at most 32 elements."""
    v = np.asarray(value, dtype=np.float64)
    if v.size <= 32:
        return v.ravel().tolist()
    # a fixed direction that costs little to make for large arrays
    r = np.cos(np.arange(v.size) * 0.618034 + _seed(name) % 1000).reshape(v.shape)
    return [float(v.sum()), float(np.sqrt((v * v).sum())), float((v * r).sum())]


def conv_bn_fc(mx: Any) -> Any:
    """The small network of the dtype tests: Convolution, BatchNorm, ReLU, FullyConnected."""
    data = mx.sym.var("data")
    h = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv")
    h = mx.sym.BatchNorm(h, fix_gamma=False, name="bn")
    h = mx.sym.Activation(h, act_type="relu", name="relu")
    h = mx.sym.FullyConnected(h, num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(h, name="softmax")


def bn_only(mx: Any) -> Any:
    """A network MXNet trains in float16 on a CPU: BatchNorm, ReLU, pooling, softmax."""
    data = mx.sym.var("data")
    h = mx.sym.BatchNorm(data, fix_gamma=False, name="bn")
    h = mx.sym.Activation(h, act_type="relu", name="relu")
    h = mx.sym.Pooling(h, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool")
    h = mx.sym.Flatten(h, name="flat")
    return mx.sym.SoftmaxOutput(h, name="softmax")


# (network builder, data shape, dtype, batches) of the Module runs
MODULE_RUNS = {
    "conv_bn_fc_float64": (conv_bn_fc, (4, 2, 5, 5), "float64", 3),
    "bn_float16": (bn_only, (4, 3, 4, 4), "float16", 3),
}
SGD = {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-4}


def module_batches(shape: tuple[int, ...], dtype: str, n: int) -> list[tuple[Any, Any]]:
    """``n`` (data, label) batches in ``dtype``."""
    out = []
    for i in range(n):
        data = init_array(f"data{i}", shape).astype(dtype)
        label = init_array(f"softmax_label{i}", (shape[0],)) % min(NUM_CLASSES, 3)
        out.append((data, label.astype(dtype)))
    return out


def names_dtypes(exe: Any) -> dict[str, Any]:
    return {
        "args": {k: np.dtype(v.dtype).name for k, v in exe.arg_dict.items()},
        "aux": {k: np.dtype(v.dtype).name for k, v in exe.aux_dict.items()},
        "outputs": [np.dtype(o.dtype).name for o in exe.outputs],
    }


def train_network(mx: Any, sym: Any, data_shape: tuple[int, ...]) -> tuple[Any, dict]:
    """``sym`` bound by ``simple_bind`` with float64 data (every other dtype inferred), its
    arrays made by :func:`init_array`, run forward for inference and then for training with a
    backward pass: the executor, and the dtypes, the outputs of both forwards, and summaries of
    every gradient and of the auxiliary states after training."""
    exe = sym.simple_bind(mx.cpu(), type_dict={"data": "float64"}, data=tuple(data_shape))
    for k, arr in [*exe.arg_dict.items(), *exe.aux_dict.items()]:
        arr[:] = init_array(k, arr.shape)
    infer = [o.asnumpy().tolist() for o in exe.forward(is_train=False)]
    exe.forward(is_train=True)
    exe.backward()
    return exe, {
        "dtypes": names_dtypes(exe),
        "infer_outputs": infer,
        "train_outputs": [o.asnumpy().tolist() for o in exe.outputs],
        "grads": {k: summary(k, g.asnumpy()) for k, g in exe.grad_dict.items() if g is not None},
        "aux_after": {k: summary(k, a.asnumpy()) for k, a in exe.aux_dict.items()},
    }


def train_module(mx: Any, build: Any, shape: tuple[int, ...], dtype: str, n: int) -> dict:
    """A Module run of :data:`MODULE_RUNS`: the network ``build`` makes, bound to ``dtype``
    data and labels, parameters from :func:`init_array`, ``n`` SGD steps on
    :func:`module_batches`: the executor's dtypes, each batch's output, and the parameters and
    auxiliary states after training (summaries and dtypes)."""
    mod = mx.mod.Module(build(mx), context=mx.cpu())
    mod.bind(data_shapes=[mx.io.DataDesc("data", shape, dtype=dtype)],
             label_shapes=[mx.io.DataDesc("softmax_label", (shape[0],), dtype=dtype)])  # fmt: skip
    exe = mod._exec_group.execs[0]
    arg_types = names_dtypes(exe)
    params = {k: mx.nd.array(init_array(k, a.shape), dtype=arg_types["args"][k])
              for k, a in exe.arg_dict.items() if k not in ("data", "softmax_label")}  # fmt: skip
    aux = {k: mx.nd.array(init_array(k, a.shape), dtype=arg_types["aux"][k])
           for k, a in exe.aux_dict.items()}  # fmt: skip
    mod.init_params(arg_params=params, aux_params=aux)
    mod.init_optimizer(optimizer="sgd", optimizer_params=SGD)
    outputs = []
    for data, label in module_batches(shape, dtype, n):
        batch = mx.io.DataBatch([mx.nd.array(data, dtype=dtype)], [mx.nd.array(label, dtype=dtype)])
        mod.forward_backward(batch)
        mod.update()
        outputs.append(mod.get_outputs()[0].asnumpy().astype(np.float64).tolist())
    arg_params, aux_params = mod.get_params()
    return {
        "dtypes": arg_types,
        "outputs": outputs,
        "params": {k: summary(k, v.asnumpy()) for k, v in arg_params.items()},
        "param_dtypes": {k: np.dtype(v.dtype).name for k, v in arg_params.items()},
        "aux": {k: summary(k, v.asnumpy()) for k, v in aux_params.items()},
        "aux_dtypes": {k: np.dtype(v.dtype).name for k, v in aux_params.items()},
    }


def bind_dtypes(mx: Any) -> dict:
    """The dtypes ``simple_bind`` gives :func:`conv_bn_fc`'s arrays, outputs and gradients
    with float64 and float16 data."""
    out = {}
    for dt in ("float64", "float16"):
        exe = conv_bn_fc(mx).simple_bind(mx.cpu(), type_dict={"data": dt}, data=(2, 2, 5, 5))
        out[dt] = names_dtypes(exe)
        grads = {k: g for k, g in exe.grad_dict.items() if g is not None}
        out[dt]["grads"] = {k: np.dtype(g.dtype).name for k, g in grads.items()}
    return out
